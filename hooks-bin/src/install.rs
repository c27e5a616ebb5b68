//! `hooks install claude|codex [--project|--user] [--dry-run]`: registers this binary as a
//! command hook of Claude Code or Codex, for the events the linked bundle handles.
//!
//! | target | scope | file | entry added per event |
//! | --- | --- | --- | --- |
//! | `claude` | project | `<cwd>/.claude/settings.json` | `{"hooks":[{"type":"command","command":BINARY,"args":["claude",EVENT]}]}` |
//! | `claude` | user | `$HOME/.claude/settings.json` | the same |
//! | `codex` | project | `<cwd>/.codex/hooks.json` | `{"hooks":[{"type":"command","command":"'BINARY' codex EVENT"}]}` |
//! | `codex` | user | `$CODEX_HOME/hooks.json` (`CODEX_HOME` as Codex reads it), else `$HOME/.codex/hooks.json` | the same |
//!
//! The working directory (`--cwd`) must exist. A user-level install needs an absolute `HOME`
//! (or, for Codex, an absolute `CODEX_HOME`): without one it fails and writes nothing, rather
//! than writing into the working directory.
//!
//! Events come from what the loaded hooks really handle ([`events_for`]): `tool_call` →
//! `PreToolUse`; `tool_result` → `PostToolUse` (and `PostToolUseFailure` for Claude);
//! `before_agent_start` or any command → `UserPromptSubmit`; `session_start` → `SessionStart`;
//! `session_shutdown` → `SessionEnd`; `session_before_compact` → `PreCompact`; `agent_end` →
//! `Stop`. Entries have no `matcher`, so they fire for every tool.
//!
//! Guarantees:
//!
//! - **Merge, never drop another tool's hook.** The file is parsed and only extended: every
//!   other key, every other tool's hooks and every other entry stay, in order. An entry that
//!   already runs this binary for the event (exec or shell form) is not added again.
//! - **Kept as written.** The file is edited in place (on its syntax tree, with
//!   `jsonc-parser`), not parsed and printed again: what the install does not change stays
//!   byte for byte as it was, numbers above all (`1E2`, `1.0`, `-0`, a 30-digit id keep
//!   every character), but also string escapes, key order, spacing and line breaks. The
//!   entries added are written in the file's own indentation; an object or array they are
//!   added to may gain line breaks (a one-line `{...}` becomes one property per line).
//! - **A moved binary is replaced, not added twice.** An entry that this tool installed from
//!   another path (see below) is pointed at this binary in place, keeping its position and its
//!   other fields; if the event already has an entry for this binary, the old entry is removed
//!   instead (with its group, when the group held nothing else), so each event runs one `hooks`.
//!   The output names the old path.
//! - **Idempotent.** When nothing is missing, nothing is written (no backup either) and the
//!   output says so.
//! - **Backup.** Before changing an existing file, its old content is written next to it as
//!   `settings.json.bak` / `hooks.json.bak`.
//! - **Atomic.** The new content goes to a temporary file in the same directory, which is
//!   flushed and renamed over the old one (a symlinked settings file is written through to its
//!   target), keeping the old file's permissions; a new file gets the usual `0666` minus the
//!   umask (`0644` mostly), like any file the user creates.
//! - **Dry run** (`--dry-run`) prints a unified diff and writes nothing.
//! - **Lenient where it is safe.** An empty (or whitespace-only) file counts as `{}`; a leading
//!   UTF-8 byte order mark is accepted and kept on write.
//! - **Bad files are errors, untouched.** A settings file that is not UTF-8, larger than 16 MiB,
//!   nested deeper than 64 levels, malformed, or whose `hooks` (or `hooks.EVENT`) has the wrong
//!   type gives a one-line error naming `file:line:column` (or the key), and nothing is
//!   written; so does a settings path that is a symlink to a missing file (the error names
//!   both).
//!
//! # Which entries are this tool's
//!
//! An entry counts as one this tool installed, and may be replaced, only when all of this
//! holds; anything else is another tool's and is never changed:
//!
//! - it is a handler (`"type": "command"`) under `hooks.EVENT`, for an event being installed;
//! - it runs exactly `PATH TARGET EVENT`: exec form (`"command": PATH, "args": [TARGET, EVENT]`)
//!   or shell form (`"command": "PATH TARGET EVENT"`, `PATH` plain or single-quoted as
//!   `install` writes it), with `TARGET` the agent of this file (`claude` / `codex`) and `EVENT`
//!   the key it is under: no other arguments, no pipes, no wrapper;
//! - `PATH` is absolute and its file name is this binary's (`hooks`, or the name of an
//!   author's own binary).

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use serde_json::{Value, json};
use similar::TextDiff;

use hooks_core::loader::path::normalize_lexically;
use hooks_core::{EventKind, HookRunner, JsonlSessionStore};

use crate::adapters::{self, AgentEvent};
use crate::json::{self, InputError};
use crate::text::{json_kind, shell_quote};

/// The agent CLI to install into (the adapter's [`adapters::Agent`]).
pub use crate::adapters::Agent as Target;

/// The environment variable Codex reads its config directory from (default `~/.codex`).
pub const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// A UTF-8 byte order mark, accepted at the start of a settings file and kept on write.
const BOM: char = '\u{feff}';

/// Where to install.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The project in the working directory (`<cwd>/.claude/settings.json`).
    #[default]
    Project,
    /// The user's home (`~/.claude/settings.json`).
    User,
}

impl Scope {
    /// `project` or `user`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an install failed. Nothing was written when it fails.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The settings file could not be decoded (`file:line:column: message`).
    #[error("{0}")]
    Input(#[from] InputError),
    /// The settings file is valid JSON but a key we must extend has the wrong type.
    #[error("{}: {message}; fix or move the file and try again", path.display())]
    Shape {
        /// The settings file.
        path: PathBuf,
        /// Which key, and what it should be.
        message: String,
    },
    /// The working directory does not exist or is not a directory.
    #[error("cannot use {} as the working directory: {source}", path.display())]
    WorkingDir {
        /// The directory given.
        path: PathBuf,
        /// Why it cannot be used.
        #[source]
        source: io::Error,
    },
    /// A user-level install without a usable home directory: the variables to set, e.g.
    /// `HOME` or `CODEX_HOME or HOME`.
    #[error(
        "cannot find the user's {target} config directory (no absolute HOME): set {vars} to an \
         absolute path, or install with --project"
    )]
    NoHome {
        /// The agent.
        target: Target,
        /// The environment variables that would name the directory.
        vars: &'static str,
    },
    /// An environment variable naming a config directory holds a relative path.
    #[error("{var} must be an absolute path, not `{}`", value.display())]
    RelativeDir {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: PathBuf,
    },
    /// The settings path (or a directory on the way to it) is a symlink whose target does not
    /// exist.
    #[error(
        "{} is a symlink to {}, which does not exist; create the target or remove the link, \
         then try again",
        link.display(),
        target.display()
    )]
    DanglingSymlink {
        /// The symlink.
        link: PathBuf,
        /// Where it points (resolved against the link's directory).
        target: PathBuf,
    },
    /// Reading the settings file failed.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// Writing the settings file, its backup or its directory failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The binary's path cannot be written into a settings file.
    #[error("the binary path {} is not valid UTF-8", .0.display())]
    BinaryPath(PathBuf),
    /// The hooks to install for could not be loaded.
    #[error("cannot load hooks: {0}")]
    Load(String),
    /// Writing the report failed.
    #[error("cannot write output: {0}")]
    Output(#[source] io::Error),
}

impl InstallError {
    /// The exit status of `hooks install` failing with this error: 2 for invalid usage (a
    /// working directory that does not exist), else 1.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            InstallError::WorkingDir { .. } => 2,
            _ => 1,
        }
    }
}

/// The settings file's name in the agent's config directory.
fn file_name(target: Target) -> &'static str {
    match target {
        Target::Claude => "settings.json",
        Target::Codex => "hooks.json",
    }
}

/// The agent's config directory under a project or home directory.
fn dir_name(target: Target) -> &'static str {
    match target {
        Target::Claude => ".claude",
        Target::Codex => ".codex",
    }
}

/// The settings file of `target` in `scope`, with `home` as the user's home directory and no
/// `CODEX_HOME` (see [`user_settings_path`] for the user-level file as the agent finds it).
#[must_use]
pub fn settings_path(target: Target, scope: Scope, cwd: &Path, home: &Path) -> PathBuf {
    let base = match scope {
        Scope::Project => cwd,
        Scope::User => home,
    };
    base.join(dir_name(target)).join(file_name(target))
}

/// The user-level settings file of `target`, from the environment values given: for Codex
/// `$CODEX_HOME/hooks.json` when `codex_home` is non-empty; else the file under `home` (see
/// [`settings_path`]).
///
/// # Errors
/// [`InstallError::RelativeDir`] for a relative `codex_home`; [`InstallError::NoHome`] when
/// `home` is needed and is empty or relative (it would put the file under the working
/// directory).
pub fn user_settings_path(
    target: Target,
    codex_home: Option<&OsStr>,
    home: &Path,
) -> Result<PathBuf, InstallError> {
    if target == Target::Codex
        && let Some(dir) = codex_home.filter(|d| !d.is_empty()).map(Path::new)
    {
        if !dir.is_absolute() {
            return Err(InstallError::RelativeDir {
                var: CODEX_HOME_ENV,
                value: dir.to_path_buf(),
            });
        }
        return Ok(dir.join(file_name(target)));
    }
    if !home.is_absolute() {
        return Err(InstallError::NoHome {
            target,
            vars: match target {
                Target::Claude => "HOME",
                Target::Codex => "CODEX_HOME or HOME",
            },
        });
    }
    Ok(settings_path(target, Scope::User, home, home))
}

/// The events of `target` that the hooks of `runner` handle (see the [module docs](self)).
#[must_use]
pub fn events_for(target: Target, runner: &HookRunner) -> Vec<AgentEvent> {
    let has = |kind| runner.has_handlers(kind);
    let mut events = Vec::new();
    if has(EventKind::ToolCall) {
        events.push(AgentEvent::PreToolUse);
    }
    if has(EventKind::ToolResult) {
        events.push(AgentEvent::PostToolUse);
        events.push(AgentEvent::PostToolUseFailure);
    }
    if has(EventKind::BeforeAgentStart) || !runner.get_registered_commands().is_empty() {
        events.push(AgentEvent::UserPromptSubmit);
    }
    if has(EventKind::SessionStart) {
        events.push(AgentEvent::SessionStart);
    }
    if has(EventKind::SessionShutdown) {
        events.push(AgentEvent::SessionEnd);
    }
    if has(EventKind::SessionBeforeCompact) {
        events.push(AgentEvent::PreCompact);
    }
    if has(EventKind::AgentEnd) {
        events.push(AgentEvent::Stop);
    }
    events.retain(|e| target.events().contains(e));
    events
}

/// Installs `binary` as the hook of `target` in `scope` for the events the linked bundle
/// handles in `cwd` (loaded with [`adapters::load_bundle`]); reports to `out`. `home` is the
/// user's home directory; a user-level Codex install also reads `CODEX_HOME` from the
/// environment ([`user_settings_path`]).
///
/// # Errors
/// See [`InstallError`]; nothing is written on error.
pub fn run(
    target: Target,
    scope: Scope,
    dry_run: bool,
    binary: &Path,
    cwd: &Path,
    home: &Path,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    let working_dir = |source| InstallError::WorkingDir {
        path: cwd.to_path_buf(),
        source,
    };
    let cwd = cwd.canonicalize().map_err(working_dir)?;
    if !cwd.is_dir() {
        return Err(working_dir(io::Error::from(io::ErrorKind::NotADirectory)));
    }
    let path = match scope {
        Scope::Project => settings_path(target, scope, &cwd, home),
        Scope::User => {
            user_settings_path(target, std::env::var_os(CODEX_HOME_ENV).as_deref(), home)?
        }
    };
    let hooks = adapters::load_bundle(&cwd).map_err(InstallError::Load)?;
    let runner = HookRunner::new(hooks, &cwd, Arc::new(JsonlSessionStore::in_memory(&cwd)));
    let events = events_for(target, &runner);
    let plan = Install {
        target,
        path,
        binary: if binary.is_absolute() {
            binary.to_path_buf()
        } else {
            cwd.join(binary)
        },
        dry_run,
    };
    plan.apply(&events, out).map(|_| ())
}

/// One install: which agent, which file, which binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The agent.
    pub target: Target,
    /// The settings file.
    pub path: PathBuf,
    /// The binary the entries run.
    pub binary: PathBuf,
    /// Print the diff instead of writing.
    pub dry_run: bool,
}

/// An entry this tool had installed from another binary path, found by [`Install::apply`]
/// (see the [module docs](self#which-entries-are-this-tools)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The event the entry is for.
    pub event: AgentEvent,
    /// The binary path the entry ran.
    pub old_binary: String,
    /// `false`: the entry now runs this binary, in the same place; `true`: it was removed,
    /// because the event already had an entry for this binary.
    pub removed: bool,
}

/// What [`Install::apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The events whose entries were (or, in a dry run, would be) added.
    pub added: Vec<AgentEvent>,
    /// The entries for another path of this binary that were (or would be) pointed at this
    /// binary or removed.
    pub replaced: Vec<Replaced>,
    /// The backup written, if any.
    pub backup: Option<PathBuf>,
    /// Whether the settings file was written.
    pub written: bool,
}

/// `PreToolUse, Stop`.
fn names(events: impl IntoIterator<Item = AgentEvent>) -> String {
    events
        .into_iter()
        .map(AgentEvent::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Install {
    /// Adds the entries for `events` that are missing and points this tool's entries for
    /// another binary path at this binary, reporting to `out`.
    ///
    /// # Errors
    /// See [`InstallError`]; nothing is written on error.
    pub fn apply(
        &self,
        events: &[AgentEvent],
        out: &mut dyn Write,
    ) -> Result<InstallReport, InstallError> {
        let binary = self
            .binary
            .to_str()
            .ok_or_else(|| InstallError::BinaryPath(self.binary.clone()))?;
        let shown = self.path.display().to_string();
        let old_text = read_settings(&self.path)?;
        let (bom, body) = match old_text.as_deref().map(|t| (t.strip_prefix(BOM), t)) {
            Some((Some(body), _)) => (true, body),
            Some((None, text)) => (false, text),
            None => (false, ""),
        };
        let blank = body.bytes().all(|b| b.is_ascii_whitespace());
        let root = parse_settings(if blank { "" } else { body }, &shown)?;
        let ours = Ours {
            target: self.target,
            binary,
            file_name: self.binary.file_name().unwrap_or_default(),
        };
        let (added, replaced) =
            merge(&root.object_value_or_set(), &ours, events).map_err(|message| {
                InstallError::Shape {
                    path: self.path.clone(),
                    message,
                }
            })?;
        let o = |r: io::Result<()>| r.map_err(InstallError::Output);
        let mut report = InstallReport {
            added,
            replaced,
            backup: None,
            written: false,
        };
        if events.is_empty() {
            o(writeln!(
                out,
                "The loaded hooks handle no {} event; nothing to install in {shown}.",
                self.target
            ))?;
            return Ok(report);
        }
        if report.added.is_empty() && report.replaced.is_empty() {
            o(writeln!(
                out,
                "{shown} is up to date ({} already installed); nothing changed.",
                names(events.iter().copied())
            ))?;
            return Ok(report);
        }
        let mut new_text = root.to_string();
        if blank {
            new_text.push('\n');
        }
        if bom {
            new_text.insert(0, BOM);
        }
        if self.dry_run {
            let old = old_text.as_deref().unwrap_or("");
            // `a/` + the path without its root, as `git diff --no-index` names absolute paths.
            let name = shown.trim_start_matches('/');
            let diff = TextDiff::from_lines(old, &new_text)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{name}"), &format!("b/{name}"))
                .to_string();
            o(write!(out, "{diff}"))?;
            o(self.summary(&report, true, out))?;
            o(writeln!(out, "Dry run: nothing written."))?;
            return Ok(report);
        }
        report.backup = write_settings(&self.path, old_text.as_deref(), &new_text)?;
        report.written = true;
        o(self.summary(&report, false, out))?;
        if let Some(backup) = &report.backup {
            o(writeln!(
                out,
                "Backup of the previous file: {}",
                backup.display()
            ))?;
        }
        if self.target == Target::Codex {
            o(writeln!(
                out,
                "Codex runs new hooks only after you review and trust them: open /hooks in Codex."
            ))?;
        }
        Ok(report)
    }

    /// One line per kind of change: what was (`done`) or would be added, replaced, removed.
    fn summary(
        &self,
        report: &InstallReport,
        dry_run: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let shown = self.path.display();
        let (add, replace, remove) = if dry_run {
            ("Would add", "Would replace", "Would remove")
        } else {
            ("Added", "Replaced", "Removed")
        };
        if !report.added.is_empty() {
            writeln!(
                out,
                "{add} {} hooks to {shown}.",
                names(report.added.iter().copied())
            )?;
        }
        // One line per old path and kind, in the order found.
        let mut lines: Vec<(bool, &str, Vec<AgentEvent>)> = Vec::new();
        for r in &report.replaced {
            match lines
                .iter_mut()
                .find(|(removed, old, _)| *removed == r.removed && *old == r.old_binary)
            {
                Some((_, _, events)) if events.contains(&r.event) => {}
                Some((_, _, events)) => events.push(r.event),
                None => lines.push((r.removed, &r.old_binary, vec![r.event])),
            }
        }
        for (removed, old, events) in lines {
            let events = names(events);
            if removed {
                writeln!(
                    out,
                    "{remove} the {events} entries running {old} from {shown}: {} already runs \
                     for them.",
                    self.binary.display()
                )?;
            } else {
                writeln!(
                    out,
                    "{replace} {old} with {} in the {events} entries of {shown}.",
                    self.binary.display()
                )?;
            }
        }
        Ok(())
    }
}

/// The file's text, `None` when it does not exist. Bounded like every other input.
fn read_settings(path: &Path) -> Result<Option<String>, InstallError> {
    let read_err = |source| InstallError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            dangling_symlink(path)?;
            return Ok(None);
        }
        Err(e) => return Err(read_err(e)),
    };
    let bytes = json::read_bounded(&mut file).map_err(read_err)?;
    Ok(Some(
        json::text(&bytes, &path.display().to_string())?.to_owned(),
    ))
}

/// For a `path` that does not exist: the error naming `path`, or the directory on the way to
/// it, that is a symlink to nothing.
fn dangling_symlink(path: &Path) -> Result<(), InstallError> {
    for p in path.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        if fs::metadata(p).is_ok() {
            break;
        }
        if let Ok(target) = fs::read_link(p) {
            let dir = p.parent().unwrap_or(Path::new(""));
            return Err(InstallError::DanglingSymlink {
                link: p.to_path_buf(),
                target: normalize_lexically(&dir.join(target)),
            });
        }
    }
    Ok(())
}

/// The handler entry that runs `binary` for `event`.
fn handler(target: Target, binary: &str, event: AgentEvent) -> Value {
    match target {
        Target::Claude => json!({
            "type": "command",
            "command": binary,
            "args": [target.as_str(), event.as_str()],
        }),
        Target::Codex => json!({
            "type": "command",
            "command": shell_command(target, binary, event),
        }),
    }
}

fn shell_command(target: Target, binary: &str, event: AgentEvent) -> String {
    format!(
        "{} {} {}",
        shell_quote(binary),
        target.as_str(),
        event.as_str()
    )
}

/// `word` with the quoting of [`shell_quote`] undone, when it is exactly what
/// [`shell_quote`] makes of some string (plain, or single-quoted with `'\''` for `'`).
fn shell_unquote(word: &str) -> Option<String> {
    let unquoted = match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        Some(inner) => inner.replace(r"'\''", "'"),
        None => word.to_owned(),
    };
    (shell_quote(&unquoted) == word).then_some(unquoted)
}

/// What makes a handler this tool's (see the [module docs](self#which-entries-are-this-tools)).
struct Ours<'a> {
    target: Target,
    /// This binary's path.
    binary: &'a str,
    /// This binary's file name.
    file_name: &'a OsStr,
}

/// How a handler of this tool runs its binary.
enum Form {
    /// `"command": PATH, "args": [TARGET, EVENT]`.
    Exec,
    /// `"command": "PATH TARGET EVENT"`.
    Shell,
}

impl Ours<'_> {
    /// Whether `entry` already runs this binary for `event`, in exec or shell form.
    fn runs_us(&self, entry: &Value, event: AgentEvent) -> bool {
        let (target, binary) = (self.target, self.binary);
        let Some(command) = entry.get("command").and_then(Value::as_str) else {
            return false;
        };
        let args: Option<Vec<&str>> = entry
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect());
        match args {
            Some(args) => command == binary && args == [target.as_str(), event.as_str()],
            None => {
                command == shell_command(target, binary, event)
                    || command == format!("{binary} {} {}", target.as_str(), event.as_str())
            }
        }
    }

    /// The binary path and form of `entry` when it is a handler this tool installed for
    /// `event`, from any path with this binary's file name.
    fn installed_by_us(&self, entry: &Value, event: AgentEvent) -> Option<(String, Form)> {
        if entry.get("type").and_then(Value::as_str) != Some("command") {
            return None;
        }
        let command = entry.get("command")?.as_str()?;
        let (path, form) = match entry.get("args") {
            Some(args) => {
                let args = args.as_array()?;
                let expected = [self.target.as_str(), event.as_str()];
                let matches = args.len() == expected.len()
                    && args
                        .iter()
                        .zip(expected)
                        .all(|(a, e)| a.as_str() == Some(e));
                (matches.then(|| command.to_owned())?, Form::Exec)
            }
            None => {
                let suffix = format!(" {} {}", self.target.as_str(), event.as_str());
                let word = command.strip_suffix(&suffix)?;
                (shell_unquote(word)?, Form::Shell)
            }
        };
        let p = Path::new(&path);
        (p.is_absolute() && p.file_name() == Some(self.file_name)).then_some((path, form))
    }
}

/// `text`, a settings file's content without its byte order mark, as a syntax tree that keeps
/// every byte of it (see the [module docs](self)); blank `text` gives an empty tree. It is
/// decoded with the bounded, strict decoder first, so a file that is not one JSON object is an
/// error naming `file:line:column`, as everywhere else (the tree's own parser also accepts
/// comments and trailing commas).
fn parse_settings(text: &str, shown: &str) -> Result<CstRootNode, InstallError> {
    if !text.is_empty() {
        json::decode_object::<serde_json::Map<String, Value>>(text.as_bytes(), shown)?;
    }
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
        InstallError::Input(InputError::Invalid {
            name: shown.to_owned(),
            message: e.to_string(),
        })
    })
}

/// The value of `node`, a JSON value of a settings file (already decoded, so it parses).
fn value_of(node: &CstNode) -> Value {
    serde_json::from_str(&node.to_string()).unwrap_or(Value::Null)
}

/// `value` as a value to insert into the syntax tree.
fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// The property `key` of `object`: the last one when the key is repeated, as a JSON parser
/// (and so the agent) reads it.
fn property(object: &CstObject, key: &str) -> Option<CstObjectProp> {
    object
        .properties()
        .into_iter()
        .rfind(|p| p.decoded_name().as_deref() == Some(key))
}

/// The object under `key` in `parent`, added when missing; `shown` names the key in the error.
fn object_under(parent: &CstObject, key: &str, shown: &str) -> Result<CstObject, String> {
    match property(parent, key) {
        None => Ok(parent
            .append(key, CstInputValue::Object(Vec::new()))
            .object_value_or_set()),
        Some(prop) => prop
            .object_value()
            .ok_or_else(|| wrong_type(&prop, shown, "an object")),
    }
}

/// The array under `key` in `parent`, added when missing; `shown` names the key in the error.
fn array_under(parent: &CstObject, key: &str, shown: &str) -> Result<CstArray, String> {
    match property(parent, key) {
        None => Ok(parent
            .append(key, CstInputValue::Array(Vec::new()))
            .array_value_or_set()),
        Some(prop) => prop
            .array_value()
            .ok_or_else(|| wrong_type(&prop, shown, "an array")),
    }
}

fn wrong_type(prop: &CstObjectProp, shown: &str, expected: &str) -> String {
    let found = prop.value().map_or(Value::Null, |v| value_of(&v));
    format!("{shown} must be {expected}, found {}", json_kind(&found))
}

/// The `hooks` list of a matcher group, when the group is an object with one.
fn handlers(group: &CstNode) -> Option<CstArray> {
    property(&group.as_object()?, "hooks")?.array_value()
}

/// Adds the missing entries to `root` and points (or, when the event already has one for this
/// binary, removes) this tool's entries for other paths of the binary, editing the syntax tree
/// in place so that everything else stays as written. Returns the events added and the entries
/// replaced, or which key has the wrong type.
fn merge(
    root: &CstObject,
    ours: &Ours<'_>,
    events: &[AgentEvent],
) -> Result<(Vec<AgentEvent>, Vec<Replaced>), String> {
    if events.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let hooks = object_under(root, "hooks", "`hooks`")?;
    let mut added = Vec::new();
    let mut replaced = Vec::new();
    for &event in events {
        let groups = array_under(&hooks, event.as_str(), &format!("`hooks.{event}`"))?;
        let mut present = groups.elements().iter().any(|group| {
            handlers(group).is_some_and(|list| {
                list.elements()
                    .iter()
                    .any(|h| ours.runs_us(&value_of(h), event))
            })
        });
        for group in groups.elements() {
            let Some(list) = handlers(&group) else {
                continue;
            };
            let mut removed_any = false;
            for h in list.elements() {
                let entry = value_of(&h);
                if ours.runs_us(&entry, event) {
                    continue;
                }
                let Some((old_binary, form)) = ours.installed_by_us(&entry, event) else {
                    continue;
                };
                replaced.push(Replaced {
                    event,
                    old_binary,
                    removed: present,
                });
                if present {
                    h.remove();
                    removed_any = true;
                    continue;
                }
                let command = match form {
                    Form::Exec => ours.binary.to_owned(),
                    Form::Shell => shell_command(ours.target, ours.binary, event),
                };
                if let Some(prop) = h.as_object().and_then(|o| property(&o, "command")) {
                    prop.set_value(CstInputValue::String(command));
                }
                present = true;
            }
            // A group that held nothing but the removed entries goes with them.
            if removed_any
                && list.elements().is_empty()
                && group.as_object().is_some_and(|g| g.properties().len() == 1)
            {
                group.remove();
            }
        }
        if !present {
            let entry = handler(ours.target, ours.binary, event);
            groups.append(cst_value(&json!({ "hooks": [entry] })));
            added.push(event);
        }
    }
    Ok((added, replaced))
}

/// Writes the backup (when there was a file) and the new content, each atomically. Returns
/// the backup's path.
fn write_settings(
    path: &Path,
    old_text: Option<&str>,
    new_text: &str,
) -> Result<Option<PathBuf>, InstallError> {
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError::Write { path, source }
    };
    // Write through a symlink to its target, so the link stays a link.
    let target = if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        fs::canonicalize(path).map_err(write_err(path))?
    } else {
        path.to_path_buf()
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(write_err(dir))?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let backup = match old_text {
        Some(old) => {
            let mut name = target.file_name().unwrap_or_default().to_os_string();
            name.push(".bak");
            let backup = target.with_file_name(name);
            atomic_write(&backup, old, permissions.clone())?;
            Some(backup)
        }
        None => None,
    };
    atomic_write(&target, new_text, permissions)?;
    Ok(backup)
}

/// Writes `text` to `path` through a temporary file in its directory, with `permissions`
/// (a new file: `0666` minus the umask, as for any file the user creates).
fn atomic_write(
    path: &Path,
    text: &str,
    permissions: Option<fs::Permissions>,
) -> Result<(), InstallError> {
    let err = |source| InstallError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hooks-install-").suffix(".tmp");
    #[cfg(unix)]
    if permissions.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // Applied at creation, so the umask narrows it (tempfile's default is 0600).
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(err)?;
    tmp.write_all(text.as_bytes()).map_err(err)?;
    if let Some(permissions) = permissions {
        fs::set_permissions(tmp.path(), permissions).map_err(err)?;
    }
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

impl FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "project" => Ok(Scope::Project),
            "user" => Ok(Scope::User),
            other => Err(format!(
                "unknown scope `{other}` (expected project or user)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(binary: &str) -> Ours<'_> {
        Ours {
            target: Target::Claude,
            binary,
            file_name: Path::new(binary).file_name().unwrap(),
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/hooks"), "/usr/bin/hooks");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }

    #[test]
    fn shell_unquote_undoes_exactly_our_quoting() {
        for s in ["/usr/bin/hooks", "/a b/it's", "/x/'q'", ""] {
            assert_eq!(shell_unquote(&shell_quote(s)).as_deref(), Some(s), "{s}");
        }
        assert_eq!(shell_unquote("/a b/hooks"), None, "unquoted space");
        assert_eq!(shell_unquote("\"/a b/hooks\""), None, "double quotes");
        assert_eq!(shell_unquote("'/usr/bin/hooks'"), None, "needless quotes");
    }

    #[test]
    fn merge_detects_shell_form() {
        let root = parse_settings(
            r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/x/hooks claude PreToolUse"}]}]}}"#,
            "settings.json",
        )
        .unwrap();
        let (added, replaced) = merge(
            &root.object_value_or_set(),
            &ours("/x/hooks"),
            &[AgentEvent::PreToolUse],
        )
        .unwrap();
        assert!(added.is_empty());
        assert!(replaced.is_empty());
    }

    #[test]
    fn only_exact_commands_of_a_binary_with_our_name_count_as_ours() {
        let o = ours("/new/hooks");
        let event = AgentEvent::PreToolUse;
        let ours_of = |entry: Value| o.installed_by_us(&entry, event).map(|(p, _)| p);
        let old = "/old/hooks";
        assert_eq!(
            ours_of(json!({"type": "command", "command": old, "args": ["claude", "PreToolUse"]})),
            Some(old.to_owned())
        );
        assert_eq!(
            ours_of(json!({"type": "command", "command": "'/o ld/hooks' claude PreToolUse"})),
            Some("/o ld/hooks".to_owned())
        );
        for other in [
            json!({"type": "command", "command": old, "args": ["claude", "Stop"]}),
            json!({"type": "command", "command": old, "args": ["codex", "PreToolUse"]}),
            json!({"type": "command", "command": old, "args": ["claude", "PreToolUse", "-v"]}),
            json!({"type": "command", "command": "/old/other-hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "hooks", "args": ["claude", "PreToolUse"]}),
            json!({"type": "command", "command": "bin/hooks claude PreToolUse"}),
            json!({"type": "command", "command": "/old/hooks claude PreToolUse | tee log"}),
            json!({"type": "command", "command": "nice /old/hooks claude PreToolUse"}),
            json!({"type": "prompt", "command": old, "args": ["claude", "PreToolUse"]}),
        ] {
            assert_eq!(ours_of(other.clone()), None, "{other}");
        }
    }
}
