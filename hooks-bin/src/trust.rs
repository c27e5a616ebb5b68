//! Trusted hook files: the `hooks` host runs a project's hook files only after the user has
//! reviewed them and recorded their content with `hooks trust`.
//!
//! A repository can ship hook files (`.xcsh/hooks/pre/bash.sh`, `.claude/hooks/pre/*.sh`, ...)
//! that the host would otherwise run on the first tool call after a clone. Here they load only
//! when the SHA-256 hash of their content is recorded in the user's trust store; a file that is
//! not recorded, or whose content changed since, becomes a load error that says which and how
//! to trust it, and it never runs. The check is a [`FilePolicy`] ([`TrustPolicy`]) that the
//! loader consults before de-duplication, so a refused file also hides nothing: the user's own
//! hook with the same key (`pre:bash:bash.sh`) still loads.
//!
//! # What needs trust
//!
//! | hook | runs |
//! | --- | --- |
//! | compiled-in (linked into the binary) | always |
//! | user-level hook file (discovered under the home directory: `~/.xcsh/agent/hooks`, `~/.xcsh/hooks`, `~/.claude/hooks`, ...) | always |
//! | project-level hook file (discovered under the working directory: `.xcsh/hooks`, `.claude/hooks`, ..., project plugins) | when trusted |
//! | a `--hook PATH` under the working directory | when trusted |
//! | a `--hook PATH` elsewhere | always (named by the user on the command line) |
//!
//! A file that a provider reports at user level is user-level even when the working directory
//! is the home directory itself. User level exists only with an absolute home directory
//! ([`crate::home`]). `--trust-all` (on `list`, `run`, `claude`, `codex`) skips the check, for
//! CI machines that run a checked-out repository's hooks on purpose.
//!
//! # The trust store
//!
//! `<config dir>/trusted.json`, where the config directory is `$HOOKS_CONFIG_DIR` if set (it
//! must be absolute), else `$XDG_CONFIG_HOME/hooks` if `XDG_CONFIG_HOME` is absolute (a
//! relative one is ignored, as the XDG spec says), else `~/.config/hooks` with an absolute
//! home ([`crate::home::home_dir`]); else there is none, and nothing is written:
//!
//! ```json
//! {"version": 1, "files": {"/abs/project/.xcsh/hooks/pre/bash.sh": "<sha256 hex>"}}
//! ```
//!
//! Keys are canonical absolute paths (symlinks resolved), values lowercase hex SHA-256 of the
//! file's bytes. The store is read with the bounded decoder of [`crate::json`]
//! (16 MiB, 64 levels); a malformed store is an error naming `file:line:column`, and no
//! command overwrites it. Writes go to a temporary file in the same directory, which is flushed
//! and renamed over the store (atomic); unknown keys are not kept.
//!
//! # Commands
//!
//! | command | what it does | exit status |
//! | --- | --- | --- |
//! | `hooks trust [--cwd DIR]` | trusts every project hook file discovered for the working directory | 0; 1 a file or the store cannot be read or written; 2 the store is malformed, or there is no config directory |
//! | `hooks trust PATH...` | trusts these files (all or nothing) | the same |
//! | `hooks trust --list` | lists the trusted files and whether each still matches | 0; 1 the store cannot be read; 2 it is malformed, or no config directory |
//! | `hooks untrust PATH...` | removes these files from the store | 0; 1 a path was not trusted (the others are removed) or the store cannot be written; 2 malformed, or no config directory |
//!
//! # Limits
//!
//! - Only the hook file's own bytes are hashed: scripts or programs it runs are not covered.
//! - The file is hashed when the hooks load and run later by its path; a process that can
//!   rewrite it in between already runs as the user.
//! - Two `hooks trust` running at the same time: the last write wins.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

use hooks_core::loader::path::normalize_lexically;
use hooks_core::loader::{FileCandidate, FilePolicy, Level};

use crate::json::{self, InputError};
use crate::text::shell_quote;

/// The environment variable naming the config directory (overrides the XDG rules).
pub const CONFIG_DIR_ENV: &str = "HOOKS_CONFIG_DIR";

/// The trust store's file name in the config directory.
pub const TRUST_FILE: &str = "trusted.json";

/// The version of the trust store's format.
pub const TRUST_VERSION: u32 = 1;

/// How a host checks hook files before it runs them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrustMode {
    /// Project-level files must be in the trust store of the user's config directory
    /// ([`store_path`]).
    #[default]
    Check,
    /// Project-level files must be in this trust store file.
    CheckWith(PathBuf),
    /// Every file is trusted (`--trust-all`).
    All,
}

/// Why the trust store could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// No config directory: none of `HOOKS_CONFIG_DIR`, an absolute `XDG_CONFIG_HOME`, an
    /// absolute `HOME` is set.
    #[error(
        "cannot find the config directory for the trust store (HOME is unset, empty or not an \
         absolute path): set {CONFIG_DIR_ENV}, XDG_CONFIG_HOME or HOME to an absolute path"
    )]
    NoConfigDir,
    /// `HOOKS_CONFIG_DIR` is a relative path (it would put the store under the working
    /// directory).
    #[error("{CONFIG_DIR_ENV} must be an absolute path, not {}", shown(value))]
    RelativeConfigDir {
        /// Its value.
        value: PathBuf,
    },
    /// The store exists but cannot be read.
    #[error("cannot read the trust store {}: {source}", shown(path))]
    Read {
        /// The store.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The store is not a valid version-1 trust store.
    #[error("{error} (the trust store is malformed: fix or delete it; hooks did not change it)")]
    Malformed {
        /// Where and what, as `file:line:column: message`.
        error: InputError,
    },
    /// The store cannot be written.
    #[error("cannot write the trust store {}: {source}", shown(path))]
    Write {
        /// The store (or its directory).
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A hook file cannot be hashed.
    #[error("cannot read {}: {source}", shown(path))]
    Hash {
        /// The hook file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl TrustError {
    /// The exit status of a trust command that failed with this error: 2 for a malformed
    /// store or no usable config directory (invalid input or environment), else 1.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            TrustError::Malformed { .. }
            | TrustError::NoConfigDir
            | TrustError::RelativeConfigDir { .. } => 2,
            _ => 1,
        }
    }
}

/// The config directory from the given environment values: `hooks_config_dir` if non-empty
/// (it must be absolute), else `xdg_config_home/hooks` if it is absolute (a relative one is
/// ignored), else `home/.config/hooks` (`home` is absolute, see [`crate::home::home_from`]).
///
/// # Errors
/// [`TrustError::RelativeConfigDir`] for a relative `hooks_config_dir`;
/// [`TrustError::NoConfigDir`] when none of them names a directory.
pub fn config_dir_from(
    hooks_config_dir: Option<&OsStr>,
    xdg_config_home: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<PathBuf, TrustError> {
    if let Some(dir) = hooks_config_dir.filter(|d| !d.is_empty()).map(Path::new) {
        return if dir.is_absolute() {
            Ok(dir.to_path_buf())
        } else {
            Err(TrustError::RelativeConfigDir {
                value: dir.to_path_buf(),
            })
        };
    }
    if let Some(xdg) = xdg_config_home.map(Path::new).filter(|d| d.is_absolute()) {
        return Ok(xdg.join("hooks"));
    }
    home.filter(|h| h.is_absolute())
        .map(|home| home.join(".config").join("hooks"))
        .ok_or(TrustError::NoConfigDir)
}

/// The config directory of this process (see [`config_dir_from`]; the home directory is
/// [`crate::home::home_dir`]).
///
/// # Errors
/// See [`config_dir_from`].
pub fn config_dir() -> Result<PathBuf, TrustError> {
    config_dir_from(
        std::env::var_os(CONFIG_DIR_ENV).as_deref(),
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        crate::home::home_dir().as_deref(),
    )
}

/// The trust store of this process: `<config dir>/trusted.json`.
///
/// # Errors
/// See [`config_dir_from`].
pub fn store_path() -> Result<PathBuf, TrustError> {
    Ok(config_dir()?.join(TRUST_FILE))
}

/// The lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _infallible = write!(out, "{b:02x}");
    }
    out
}

/// The lowercase hex SHA-256 of the file at `path` (read in chunks; symlinks followed).
///
/// # Errors
/// The file cannot be opened or read.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// The key of `path` in the trust store: its canonical path (symlinks resolved) when it
/// exists, else its lexically normalised absolute path.
#[must_use]
pub fn file_key(path: &Path) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
    };
    fs::canonicalize(&absolute)
        .unwrap_or_else(|_| normalize_lexically(&absolute))
        .to_string_lossy()
        .into_owned()
}

/// Whether a file is trusted, compared with the trust store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustStatus {
    /// Its current content is the trusted content.
    Trusted,
    /// It is not in the store.
    Untrusted,
    /// It is in the store with another content hash.
    Changed {
        /// The hash recorded when it was trusted.
        trusted: String,
        /// The hash of its content now.
        current: String,
    },
}

/// A SHA-256 hex string, checked while decoding (so a bad one has a position).
struct HashHex(String);

impl<'de> Deserialize<'de> for HashHex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(HashHex(s.to_ascii_lowercase()))
        } else {
            Err(serde::de::Error::custom(format!(
                "expected a SHA-256 hash (64 hex digits), found {:?}",
                json::one_line(&s, 80)
            )))
        }
    }
}

/// The format version, checked while decoding.
struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u64::deserialize(d)?;
        if v == u64::from(TRUST_VERSION) {
            Ok(Version)
        } else {
            Err(serde::de::Error::custom(format!(
                "unsupported trust store version {v} (this hooks reads version {TRUST_VERSION})"
            )))
        }
    }
}

#[derive(Deserialize)]
struct StoreIn {
    #[expect(dead_code, reason = "only checked")]
    version: Version,
    #[serde(default)]
    files: BTreeMap<String, HashHex>,
}

#[derive(Serialize)]
struct StoreOut<'a> {
    version: u32,
    files: &'a BTreeMap<String, String>,
}

/// The trust store: canonical file paths and the SHA-256 of the content that was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
    files: BTreeMap<String, String>,
}

impl TrustStore {
    /// Opens the store of this process ([`store_path`]).
    ///
    /// # Errors
    /// See [`TrustStore::open`].
    pub fn open_default() -> Result<Self, TrustError> {
        TrustStore::open(store_path()?)
    }

    /// Opens the store at `path`; a missing file is an empty store.
    ///
    /// # Errors
    /// The file cannot be read, or is not a valid trust store (bounded decoding; the error
    /// names `file:line:column`).
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, TrustError> {
        let path = path.into();
        let bytes = match fs::File::open(&path) {
            Ok(mut file) => json::read_bounded(&mut file).map_err(|source| TrustError::Read {
                path: path.clone(),
                source,
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(TrustStore {
                    path,
                    files: BTreeMap::new(),
                });
            }
            Err(source) => return Err(TrustError::Read { path, source }),
        };
        TrustStore::parse(path, &bytes)
    }

    /// Decodes a store whose file `path` holds `bytes` (the checks of [`TrustStore::open`],
    /// without reading the file).
    ///
    /// # Errors
    /// [`TrustError::Malformed`], naming `path:line:column`.
    pub fn parse(path: impl Into<PathBuf>, bytes: &[u8]) -> Result<Self, TrustError> {
        let path = path.into();
        let decoded: StoreIn = json::decode_object(bytes, &shown(&path))
            .map_err(|error| TrustError::Malformed { error })?;
        Ok(TrustStore {
            path,
            files: decoded
                .files
                .into_iter()
                .map(|(k, HashHex(v))| (k, v))
                .collect(),
        })
    }

    /// The store's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries, `(path, sha256 hex)`, sorted by path.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether the store has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The hash recorded for `file` ([`file_key`]), if any.
    #[must_use]
    pub fn get(&self, file: &Path) -> Option<&str> {
        self.files.get(&file_key(file)).map(String::as_str)
    }

    /// Compares `file`'s current content with the store.
    ///
    /// # Errors
    /// [`TrustError::Hash`]: the file cannot be read.
    pub fn status(&self, file: &Path) -> Result<TrustStatus, TrustError> {
        let Some(trusted) = self.get(file) else {
            return Ok(TrustStatus::Untrusted);
        };
        let current = sha256_file(file).map_err(|source| TrustError::Hash {
            path: file.to_path_buf(),
            source,
        })?;
        Ok(if current == trusted {
            TrustStatus::Trusted
        } else {
            TrustStatus::Changed {
                trusted: trusted.to_owned(),
                current,
            }
        })
    }

    /// Records `file`'s current content (in memory; [`TrustStore::save`] writes it). Returns
    /// the key, the hash, and the status before.
    ///
    /// # Errors
    /// [`TrustError::Hash`]: the file cannot be read, or is not a regular file.
    pub fn trust(&mut self, file: &Path) -> Result<(String, String, TrustStatus), TrustError> {
        let hash_err = |source| TrustError::Hash {
            path: file.to_path_buf(),
            source,
        };
        let meta = fs::metadata(file).map_err(hash_err)?;
        if !meta.is_file() {
            let what = if meta.is_dir() {
                "a directory; name a hook file inside it"
            } else {
                "not a regular file"
            };
            return Err(hash_err(io::Error::other(format!("it is {what}"))));
        }
        let hash = sha256_file(file).map_err(hash_err)?;
        let key = file_key(file);
        let before = match self.files.get(&key) {
            None => TrustStatus::Untrusted,
            Some(old) if *old == hash => TrustStatus::Trusted,
            Some(old) => TrustStatus::Changed {
                trusted: old.clone(),
                current: hash.clone(),
            },
        };
        self.files.insert(key.clone(), hash.clone());
        Ok((key, hash, before))
    }

    /// Removes `file` (by [`file_key`], or by the exact key text) from the store (in memory).
    /// Returns whether it was there.
    pub fn untrust(&mut self, file: &Path) -> bool {
        let key = file_key(file);
        self.files.remove(&key).is_some()
            || self.files.remove(file.to_string_lossy().as_ref()).is_some()
    }

    /// Writes the store atomically (a temporary file in the same directory, flushed, renamed
    /// over it); creates the directory. A symlinked store is written through to its target.
    ///
    /// # Errors
    /// [`TrustError::Write`].
    pub fn save(&self) -> Result<(), TrustError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TrustError::Write { path, source }
        };
        let target = if fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink()) {
            fs::canonicalize(&self.path).map_err(err(&self.path))?
        } else {
            self.path.clone()
        };
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(err(dir))?;
        let mut text = serde_json::to_string_pretty(&StoreOut {
            version: TRUST_VERSION,
            files: &self.files,
        })
        .map_err(|e| err(&target)(io::Error::other(e)))?;
        text.push('\n');
        let mut tmp = tempfile::Builder::new()
            .prefix(".trusted-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(err(dir))?;
        tmp.write_all(text.as_bytes()).map_err(err(tmp.path()))?;
        tmp.as_file().sync_all().map_err(err(tmp.path()))?;
        tmp.persist(&target).map_err(|e| err(&target)(e.error))?;
        Ok(())
    }
}

/// `path` for messages: control characters escaped (`\u{1b}`), so a file name cannot inject
/// terminal sequences.
#[must_use]
pub fn shown(path: &Path) -> String {
    let text = path.to_string_lossy();
    if !text.chars().any(char::is_control) {
        return text.into_owned();
    }
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// The command that trusts `path`, for hints: `hooks trust '<path>'`.
#[must_use]
pub fn trust_hint(path: &Path) -> String {
    format!("hooks trust {}", shell_quote(&shown(path)))
}

/// Whether the hook file at `path` (absolute) needs trust, given the `levels` at which
/// discovery reported it ([`hooks_core::loader::CapabilityResult::levels_of`]): not when it is
/// reported at user level; yes when it is reported at project level; otherwise (a configured
/// path discovery did not find) when it lies under `cwd`.
#[must_use]
pub fn needs_trust(path: &Path, cwd: &Path, levels: &[Level]) -> bool {
    if levels.contains(&Level::User) {
        return false;
    }
    levels.contains(&Level::Project) || under(&normalize_lexically(path), cwd)
}

/// Whether `path` is `dir` or inside it, lexically or after resolving symlinks.
fn under(path: &Path, dir: &Path) -> bool {
    if path.starts_with(normalize_lexically(dir)) {
        return true;
    }
    match (fs::canonicalize(path), fs::canonicalize(dir)) {
        (Ok(path), Ok(dir)) => path.starts_with(dir),
        _ => false,
    }
}

/// The trust check as the loader's [`FilePolicy`]: a file that [`needs_trust`] loads only
/// when the store records its current content; otherwise it is refused with a load error that
/// says why (not trusted, changed since trusted, or the store cannot be read) and how to trust
/// it. The store is opened once, when a file first needs it.
#[derive(Debug)]
pub struct TrustPolicy {
    /// `None`: the store of this process ([`store_path`]).
    store_path: Option<PathBuf>,
    store: OnceLock<Result<TrustStore, String>>,
}

impl TrustPolicy {
    /// The policy of `mode`; `None` for [`TrustMode::All`] (every file loads).
    #[must_use]
    pub fn new(mode: &TrustMode) -> Option<Self> {
        let store_path = match mode {
            TrustMode::All => return None,
            TrustMode::Check => None,
            TrustMode::CheckWith(path) => Some(path.clone()),
        };
        Some(TrustPolicy {
            store_path,
            store: OnceLock::new(),
        })
    }

    fn store(&self) -> &Result<TrustStore, String> {
        self.store.get_or_init(|| {
            match &self.store_path {
                Some(path) => TrustStore::open(path.clone()),
                None => TrustStore::open_default(),
            }
            .map_err(|e| e.to_string())
        })
    }
}

impl FilePolicy for TrustPolicy {
    fn check(&self, file: &FileCandidate<'_>) -> Result<(), String> {
        if !needs_trust(file.path, file.cwd, file.levels) {
            return Ok(());
        }
        refusal(self.store(), file.path).map_or(Ok(()), Err)
    }
}

/// Why the file at `path` may not run, or `None` when it is trusted.
fn refusal(store: &Result<TrustStore, String>, path: &Path) -> Option<String> {
    let file = shown(path);
    let hint = trust_hint(path);
    let skip = "or pass --trust-all to skip the check, e.g. in CI";
    let store = match store {
        Ok(store) => store,
        Err(e) => {
            return Some(format!(
                "Failed to load hook: {file} is a project hook file and its trust cannot be \
                 checked: {e}"
            ));
        }
    };
    match store.status(path) {
        Ok(TrustStatus::Trusted) => None,
        Ok(TrustStatus::Untrusted) => Some(format!(
            "Failed to load hook: {file} is a project hook file that is not trusted, so it does \
             not run; review it, then run `{hint}` ({skip})"
        )),
        Ok(TrustStatus::Changed { trusted, current }) => Some(format!(
            "Failed to load hook: {file} changed since it was trusted (sha256 {} then, {} now), \
             so it does not run; review it, then run `{hint}` ({skip})",
            &trusted[..12.min(trusted.len())],
            &current[..12.min(current.len())],
        )),
        Err(e) => Some(format!(
            "Failed to load hook: {file} is a project hook file and its trust cannot be \
             checked: {e}"
        )),
    }
}

/// Options of `hooks trust`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrustArgs {
    /// Hook files to trust [default: every project hook file discovered for the working
    /// directory].
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// List the trusted files and whether each still matches its recorded hash.
    #[arg(long, conflicts_with = "paths")]
    pub list: bool,
    /// The working directory: where hook files are discovered and relative paths start
    /// [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Options of `hooks untrust`.
#[derive(Debug, Clone, clap::Args)]
pub struct UntrustArgs {
    /// Hook files to remove from the trust store.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// Where relative paths start [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// The long help of `hooks trust`.
pub const TRUST_HELP: &str = "\
Project hook files (discovered under the working directory, or --hook paths under it) run only
when trusted: their SHA-256 is recorded in $HOOKS_CONFIG_DIR/trusted.json (else
$XDG_CONFIG_HOME/hooks/trusted.json, else ~/.config/hooks/trusted.json; each must be an absolute
path, a relative XDG_CONFIG_HOME is ignored). A file that changes must be trusted again.
User-level hook files and compiled-in hooks are always trusted. To skip the check (e.g. in CI),
pass --trust-all to list, run, claude or codex.

Exit status: 0 done; 1 a file or the trust store cannot be read or written (nothing was
changed); 2 invalid usage, no config directory (nothing was written), or the trust store is
malformed (it is left as it is).";

/// The long help of `hooks untrust`.
pub const UNTRUST_HELP: &str = "\
Exit status: 0 removed; 1 a path was not trusted (the others were removed) or the trust store
cannot be written; 2 invalid usage, no config directory, or the trust store is malformed (it is
left as it is).";

fn working_dir(cwd: Option<&PathBuf>, command: &str) -> Result<PathBuf, ExitCode> {
    let dir = match cwd.cloned().map_or_else(std::env::current_dir, Ok) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("hooks {command}: no current directory: {e}");
            return Err(ExitCode::from(2));
        }
    };
    dir.canonicalize().map_err(|e| {
        eprintln!(
            "hooks {command}: cannot use {} as the working directory: {e}",
            shown(&dir)
        );
        ExitCode::from(2)
    })
}

fn fail(command: &str, e: &TrustError) -> ExitCode {
    eprintln!("hooks {command}: {}", json::one_line(&e.to_string(), 2000));
    ExitCode::from(e.exit_code())
}

/// Runs `hooks trust`.
#[must_use]
pub fn run_trust(args: &TrustArgs) -> ExitCode {
    let cwd = match working_dir(args.cwd.as_ref(), "trust") {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let mut store = match TrustStore::open_default() {
        Ok(store) => store,
        Err(e) => return fail("trust", &e),
    };
    let mut out = io::stdout().lock();
    if args.list {
        return match list(&store, &mut out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("hooks trust: cannot write output: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let files: Vec<PathBuf> = if args.paths.is_empty() {
        let options = crate::home::discovery_options();
        if options.user_home().is_none() {
            eprintln!("hooks trust: warning: {}", crate::home::NO_HOME_WARNING);
        }
        let discovery = hooks_core::loader::discover_hooks(&cwd, &options);
        let files: Vec<PathBuf> = discovery
            .items
            .iter()
            .filter(|item| needs_trust(&item.path, &cwd, &discovery.levels_of(&item.path)))
            .filter(|item| item.path.is_file())
            .map(|item| item.path.clone())
            .collect();
        if files.is_empty() {
            let _ = writeln!(
                out,
                "No project hook files were found for {}; nothing to trust.",
                shown(&cwd)
            );
            return ExitCode::SUCCESS;
        }
        files
    } else {
        args.paths.iter().map(|p| cwd.join(p)).collect()
    };
    let mut lines = Vec::new();
    for file in &files {
        match store.trust(file) {
            Ok((key, hash, before)) => {
                let what = match before {
                    TrustStatus::Trusted => "already trusted",
                    TrustStatus::Untrusted => "trusted",
                    TrustStatus::Changed { .. } => "trusted again (changed)",
                };
                lines.push(format!(
                    "{what}: {} (sha256 {hash})",
                    shown(Path::new(&key))
                ));
            }
            Err(e) => {
                eprintln!(
                    "hooks trust: {}; nothing was trusted",
                    json::one_line(&e.to_string(), 2000)
                );
                return ExitCode::from(e.exit_code());
            }
        }
    }
    if let Err(e) = store.save() {
        return fail("trust", &e);
    }
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "Recorded in {}.", shown(store.path()));
    ExitCode::SUCCESS
}

/// Writes `hooks trust --list`: one line per entry, `STATUS  SHA256  PATH`, where STATUS is
/// `ok`, `changed` or `missing`.
fn list(store: &TrustStore, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Trusted hook files ({}):", shown(store.path()))?;
    if store.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for (path, hash) in store.entries() {
        let file = Path::new(path);
        let status = match sha256_file(file) {
            Ok(current) if current == hash => "ok",
            Ok(_) => "changed",
            Err(_) => "missing",
        };
        writeln!(out, "  {status:<8} {hash}  {}", shown(file))?;
    }
    out.flush()
}

/// Runs `hooks untrust`.
#[must_use]
pub fn run_untrust(args: &UntrustArgs) -> ExitCode {
    let cwd = match working_dir(args.cwd.as_ref(), "untrust") {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let mut store = match TrustStore::open_default() {
        Ok(store) => store,
        Err(e) => return fail("untrust", &e),
    };
    let mut removed = Vec::new();
    let mut missing = Vec::new();
    for path in &args.paths {
        let file = cwd.join(path);
        if store.untrust(&file) {
            removed.push(file);
        } else {
            missing.push(file);
        }
    }
    if !removed.is_empty()
        && let Err(e) = store.save()
    {
        return fail("untrust", &e);
    }
    let mut out = io::stdout().lock();
    for file in &removed {
        let _ = writeln!(out, "untrusted: {}", shown(file));
    }
    for file in &missing {
        eprintln!("hooks untrust: {} was not trusted", shown(file));
    }
    if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_dir_precedence_and_only_absolute_locations() {
        let home = Some(Path::new("/home/u"));
        let dir = |hooks: Option<&str>, xdg: Option<&str>, home| {
            config_dir_from(hooks.map(OsStr::new), xdg.map(OsStr::new), home)
        };
        assert_eq!(dir(Some("/c"), Some("/x"), home).unwrap(), Path::new("/c"));
        assert_eq!(
            dir(Some(""), Some("/x"), home).unwrap(),
            Path::new("/x/hooks")
        );
        assert_eq!(
            dir(None, Some("relative"), home).unwrap(),
            Path::new("/home/u/.config/hooks"),
            "a relative XDG_CONFIG_HOME is ignored"
        );
        assert!(matches!(
            dir(Some("rel/cfg"), Some("/x"), home),
            Err(TrustError::RelativeConfigDir { .. })
        ));
        assert!(matches!(
            dir(None, Some("relative"), None),
            Err(TrustError::NoConfigDir)
        ));
        assert!(matches!(
            dir(None, None, Some(Path::new("rel"))),
            Err(TrustError::NoConfigDir)
        ));
        assert_eq!(TrustError::NoConfigDir.exit_code(), 2);
    }

    #[test]
    fn sha256_of_known_input() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn store_round_trip_and_status() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("hook.sh");
        fs::write(&hook, "#!/bin/sh\n").unwrap();
        let path = dir.path().join("cfg/trusted.json");
        let mut store = TrustStore::open(&path).unwrap();
        assert_eq!(store.status(&hook).unwrap(), TrustStatus::Untrusted);
        store.trust(&hook).unwrap();
        store.save().unwrap();
        let store = TrustStore::open(&path).unwrap();
        assert_eq!(store.status(&hook).unwrap(), TrustStatus::Trusted);
        fs::write(&hook, "#!/bin/sh\necho changed\n").unwrap();
        assert!(matches!(
            store.status(&hook).unwrap(),
            TrustStatus::Changed { .. }
        ));
        let text = fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["files"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn malformed_stores_name_the_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trusted.json");
        for (text, needle) in [
            ("{\"version\": 1, \"files\": {", ":1:"),
            (
                "{\"version\": 2, \"files\": {}}",
                "unsupported trust store version 2",
            ),
            ("{\"version\": 1,\n \"files\": {\"/a\": \"xyz\"}}", ":2:"),
            ("", "empty input"),
            ("[]", "expected a JSON object"),
        ] {
            fs::write(&path, text).unwrap();
            let err = TrustStore::open(&path).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{err}");
            let message = err.to_string();
            assert!(message.contains(needle), "{text:?}: {message}");
            assert!(message.contains("trusted.json"), "{message}");
        }
    }

    #[test]
    fn shown_escapes_control_characters() {
        assert_eq!(shown(Path::new("/a/\x1b[31mb")), "/a/\\u{1b}[31mb");
        assert_eq!(
            trust_hint(Path::new("/a b/it's")),
            r"hooks trust '/a b/it'\''s'"
        );
    }

    #[test]
    fn user_level_wins_and_cwd_bounds_configured_paths() {
        let cwd = Path::new("/p");
        let (user, project) = (&[Level::User][..], &[Level::Project][..]);
        assert!(needs_trust(
            Path::new("/p/.xcsh/hooks/pre/a.sh"),
            cwd,
            project
        ));
        assert!(!needs_trust(
            Path::new("/p/.xcsh/hooks/pre/u.sh"),
            cwd,
            &[Level::Project, Level::User]
        ));
        assert!(!needs_trust(
            Path::new("/p/.xcsh/hooks/pre/u.sh"),
            cwd,
            user
        ));
        assert!(needs_trust(Path::new("/elsewhere/pre/c.sh"), cwd, project));
        assert!(needs_trust(Path::new("/p/./y/../x/pre/c.sh"), cwd, &[]));
        assert!(!needs_trust(Path::new("/elsewhere/pre/c.sh"), cwd, &[]));
    }
}
