//! `hooks trust` and `hooks untrust`: their options, help and runs.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::json as input;

use crate::trust::{TrustError, TrustStatus, TrustStore, project_hook_files, sha256_file, shown};

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
pass --trust-all to list, run or an agent adapter (hooks claude, hooks gemini, ...).

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

/// The working directory and the trust store of `hooks COMMAND`, or the exit status of the
/// failure (reported on stderr).
fn open(cwd: Option<&PathBuf>, command: &str) -> Result<(PathBuf, TrustStore), ExitCode> {
    let cwd = working_dir(cwd, command)?;
    let store = TrustStore::open_default().map_err(|e| fail(command, &e))?;
    Ok((cwd, store))
}

fn fail(command: &str, e: &TrustError) -> ExitCode {
    eprintln!("hooks {command}: {}", input::one_line(&e.to_string(), 2000));
    ExitCode::from(e.exit_code())
}

/// Runs `hooks trust`.
#[must_use]
pub fn run_trust(args: &TrustArgs) -> ExitCode {
    let (cwd, mut store) = match open(args.cwd.as_ref(), "trust") {
        Ok(opened) => opened,
        Err(code) => return code,
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
        let files = project_hook_files(&cwd, &options);
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
                    input::one_line(&e.to_string(), 2000)
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
    let (cwd, mut store) = match open(args.cwd.as_ref(), "untrust") {
        Ok(opened) => opened,
        Err(code) => return code,
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
