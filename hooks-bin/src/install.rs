//! `hooks install claude|codex [--project|--user] [--dry-run]`: registers this binary as a
//! command hook of Claude Code or Codex, for the events the linked bundle handles.
//!
//! | target | scope | file | entry added per event |
//! | --- | --- | --- | --- |
//! | `claude` | project | `<cwd>/.claude/settings.json` | `{"hooks":[{"type":"command","command":BINARY,"args":["claude",EVENT]}]}` |
//! | `claude` | user | `<home>/.claude/settings.json` | the same |
//! | `codex` | project | `<cwd>/.codex/hooks.json` | `{"hooks":[{"type":"command","command":"'BINARY' codex EVENT"}]}` |
//! | `codex` | user | `<home>/.codex/hooks.json` | the same |
//!
//! Events come from what the loaded hooks really handle ([`events_for`]): `tool_call` →
//! `PreToolUse`; `tool_result` → `PostToolUse` (and `PostToolUseFailure` for Claude);
//! `before_agent_start` or any command → `UserPromptSubmit`; `session_start` → `SessionStart`;
//! `session_shutdown` → `SessionEnd`; `session_before_compact` → `PreCompact`; `agent_end` →
//! `Stop`. Entries have no `matcher`, so they fire for every tool.
//!
//! Guarantees:
//!
//! - **Merge, never drop.** The file is parsed and only appended to: every other key, every
//!   other tool's hooks and every other entry stay, in order. An entry that already runs this
//!   binary for the event (exec or shell form) is not added again.
//! - **Idempotent.** When nothing is missing, nothing is written (no backup either) and the
//!   output says so.
//! - **Backup.** Before changing an existing file, its old content is written next to it as
//!   `settings.json.bak` / `hooks.json.bak`.
//! - **Atomic.** The new content goes to a temporary file in the same directory, which is
//!   flushed and renamed over the old one (a symlinked settings file is written through to its
//!   target), keeping the old file's permissions.
//! - **Dry run** (`--dry-run`) prints a unified diff and writes nothing.
//! - **Bad files are errors, untouched.** A settings file that is not UTF-8, larger than 16 MiB,
//!   nested deeper than 64 levels, empty, malformed, or whose `hooks` (or `hooks.EVENT`) has the
//!   wrong type gives a one-line error naming `file:line:column` (or the key), and nothing is
//!   written.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use similar::TextDiff;

use hooks_core::{EventKind, HookRunner, JsonlSessionStore};

use crate::adapters::input::{self, InputError};
use crate::adapters::{self, AgentEvent};
use crate::text::{json_kind, shell_quote};

/// The agent CLI to install into (the adapter's [`adapters::Agent`]).
pub use crate::adapters::Agent as Target;

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

/// The settings file of `target` in `scope`.
#[must_use]
pub fn settings_path(target: Target, scope: Scope, cwd: &Path, home: &Path) -> PathBuf {
    let base = match scope {
        Scope::Project => cwd,
        Scope::User => home,
    };
    match target {
        Target::Claude => base.join(".claude").join("settings.json"),
        Target::Codex => base.join(".codex").join("hooks.json"),
    }
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
/// handles in `cwd` (loaded with [`adapters::load_bundle`]); reports to `out`.
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
    let hooks = adapters::load_bundle(cwd).map_err(InstallError::Load)?;
    let runner = HookRunner::new(hooks, cwd, Arc::new(JsonlSessionStore::in_memory(cwd)));
    let events = events_for(target, &runner);
    let plan = Install {
        target,
        path: settings_path(target, scope, cwd, home),
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

/// What [`Install::apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The events whose entries were (or, in a dry run, would be) added.
    pub added: Vec<AgentEvent>,
    /// The backup written, if any.
    pub backup: Option<PathBuf>,
    /// Whether the settings file was written.
    pub written: bool,
}

impl Install {
    /// Adds the entries for `events` that are missing, reporting to `out`.
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
        let mut root: Map<String, Value> = match &old_text {
            Some(text) => input::decode_object(text.as_bytes(), &shown)?,
            None => Map::new(),
        };
        let added = merge(&mut root, self.target, binary, events).map_err(|message| {
            InstallError::Shape {
                path: self.path.clone(),
                message,
            }
        })?;
        let names = |events: &[AgentEvent]| {
            events
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let o = |r: io::Result<()>| r.map_err(InstallError::Output);
        let mut report = InstallReport {
            added: added.clone(),
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
        if added.is_empty() {
            o(writeln!(
                out,
                "{shown} is up to date ({} already installed); nothing changed.",
                names(events)
            ))?;
            return Ok(report);
        }
        let mut new_text = serde_json::to_string_pretty(&Value::Object(root))
            .map_err(|e| InstallError::Output(io::Error::other(e)))?;
        new_text.push('\n');
        if self.dry_run {
            let old = old_text.as_deref().unwrap_or("");
            let diff = TextDiff::from_lines(old, &new_text)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{shown}"), &format!("b/{shown}"))
                .to_string();
            o(write!(out, "{diff}"))?;
            o(writeln!(
                out,
                "Dry run: would add {} to {shown}; nothing written.",
                names(&added)
            ))?;
            return Ok(report);
        }
        report.backup = write_settings(&self.path, old_text.as_deref(), &new_text)?;
        report.written = true;
        o(writeln!(out, "Added {} hooks to {shown}.", names(&added)))?;
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
}

/// The file's text, `None` when it does not exist. Bounded like every other input.
fn read_settings(path: &Path) -> Result<Option<String>, InstallError> {
    let read_err = |source| InstallError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    let bytes = input::read_bounded(&mut file).map_err(read_err)?;
    let shown = path.display().to_string();
    if bytes.len() > input::MAX_INPUT_BYTES {
        return Err(InputError::TooLarge {
            name: shown,
            limit: input::MAX_INPUT_BYTES,
        }
        .into());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            Err(InputError::NotUtf8 {
                name: shown,
                at: input::Position::of_offset(e.as_bytes(), offset),
                offset,
            }
            .into())
        }
    }
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

/// Whether `entry` (one handler object) already runs `binary` for `event`, in exec or shell
/// form.
fn runs_us(entry: &Value, target: Target, binary: &str, event: AgentEvent) -> bool {
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

/// Appends the missing entries to `root`; returns the events added, or which key has the
/// wrong type.
fn merge(
    root: &mut Map<String, Value>,
    target: Target,
    binary: &str,
    events: &[AgentEvent],
) -> Result<Vec<AgentEvent>, String> {
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let hooks = match hooks {
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "`hooks` must be an object, found {}",
                json_kind(other)
            ));
        }
    };
    let mut added = Vec::new();
    for &event in events {
        let groups = hooks
            .entry(event.as_str())
            .or_insert_with(|| Value::Array(Vec::new()));
        let groups = match groups {
            Value::Array(groups) => groups,
            other => {
                return Err(format!(
                    "`hooks.{event}` must be an array, found {}",
                    json_kind(other)
                ));
            }
        };
        let present = groups.iter().any(|group| {
            group
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|h| runs_us(h, target, binary, event)))
        });
        if !present {
            groups.push(json!({ "hooks": [handler(target, binary, event)] }));
            added.push(event);
        }
    }
    Ok(added)
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
    let mut tmp = tempfile::Builder::new()
        .prefix(".hooks-install-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(err)?;
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

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/hooks"), "/usr/bin/hooks");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }

    #[test]
    fn merge_detects_shell_form() {
        let mut root = serde_json::from_str::<Map<String, Value>>(
            r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/x/hooks claude PreToolUse"}]}]}}"#,
        )
        .unwrap();
        let added = merge(
            &mut root,
            Target::Claude,
            "/x/hooks",
            &[AgentEvent::PreToolUse],
        )
        .unwrap();
        assert!(added.is_empty());
    }
}
