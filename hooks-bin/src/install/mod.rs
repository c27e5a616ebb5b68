//! `hooks install AGENT [--project|--user] [--dry-run] [--claude-version V]`: registers this
//! binary as a command hook of an agent CLI, for the events the linked bundle handles. (`hooks
//! install pi|omp` puts the bridge extension in place instead: [`extension`].)
//!
//! | target | scope | file | entry added per event |
//! | --- | --- | --- | --- |
//! | `claude` | project | `<cwd>/.claude/settings.json` | `{"hooks":[{"type":"command","command":BINARY,"args":["claude",EVENT]}]}` (gating events: with `"onFailure":"block"`) |
//! | `claude` | user | `$HOME/.claude/settings.json` | the same |
//! | `codex` | project | `<cwd>/.codex/hooks.json` | `{"hooks":[{"type":"command","command":"'BINARY' codex EVENT"}]}` |
//! | `codex` | user | `$CODEX_HOME/hooks.json` (`CODEX_HOME` as Codex reads it), else `$HOME/.codex/hooks.json` | the same |
//! | `gemini` | project, user | `<cwd>/.gemini/settings.json`, `$HOME/.gemini/settings.json` | `{"hooks":[{"type":"command","command":"'BINARY' gemini EVENT"}]}` |
//! | `qwen` | project, user | `<cwd>/.qwen/settings.json`, `$HOME/.qwen/settings.json` | `{"hooks":[{"type":"command","command":"'BINARY' qwen EVENT"}]}` |
//! | `droid` | project, user | `<cwd>/.factory/settings.json`, `$HOME/.factory/settings.json` | `{"hooks":[{"type":"command","command":"'BINARY' droid EVENT"}]}` |
//! | `copilot` | project | `<cwd>/.github/hooks/hooks.json` | `{"type":"command","bash":"'BINARY' copilot EVENT"}`, straight under the event, in `{"version":1,"hooks":{...}}` |
//! | `copilot` | user | `$COPILOT_HOME/hooks/hooks.json`, else `$HOME/.copilot/hooks/hooks.json` | the same |
//! | `cursor` | project, user | `<cwd>/.cursor/hooks.json`, `$HOME/.cursor/hooks.json` | `{"type":"command","command":"'BINARY' cursor EVENT"}` in `{"version":1,"hooks":{...}}` (gating events: with `"failClosed":true`) |
//!
//! What differs per agent is its file's shape, an [`InstallShape`](crate::agents::InstallShape) that its protocol gives
//! ([`Protocol::install`](crate::agents::Protocol::install)): the directory and file name, the
//! variable naming its user-level directory, the form of an entry (exec or shell) and the key
//! holding its command, how the file lists an event's entries ([`Layout`](crate::agents::Layout)),
//! and the agent's fail-closed key. The rest
//! is the same for every agent: the merge on the file's syntax tree (`merge.rs`), what counts
//! as this tool's entry (`shape.rs`), the file's bounded read and atomic write (`file.rs`), and
//! the report (`apply.rs`).
//!
//! `BINARY` in the table is the command [`command::choose`] picks, said in one line of the
//! output (see [below](#the-command-an-entry-runs)).
//!
//! The working directory (`--cwd`) must exist. A user-level install needs an absolute `HOME`
//! (or, for Codex, an absolute `CODEX_HOME`): without one it fails and writes nothing, rather
//! than writing into the working directory.
//!
//! Events come from what the loaded hooks really handle ([`events_for`]): for Claude Code,
//! `tool_call` → `PreToolUse`; `tool_result` → `PostToolUse` (and `PostToolUseFailure`);
//! `before_agent_start` or any command → `UserPromptSubmit`; `session_start` → `SessionStart`
//! (and, with `--http`, always: its entry is what starts the server);
//! `session_shutdown` → `SessionEnd`; `session_before_compact` → `PreCompact`; `agent_end` →
//! `Stop`; the other agents' events by the same [`Mapping`](crate::agents::Mapping) (Gemini CLI's
//! `BeforeModel` for `context`). Entries have no `matcher`, so they fire for every tool; the
//! one exception is Gemini CLI's `PreCompress`, whose group has `"matcher": "manual"`
//! ([`InstallShape::matchers`](crate::agents::InstallShape::matchers)): Gemini CLI sends
//! it with trigger `auto` before every model turn, where it emits nothing, and compares the
//! matcher to the trigger as is, so no process of ours is started for those.
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
//! - **Fail-closed entries (Claude Code).** Every gating entry (`PreToolUse`, `PostToolUse`,
//!   `UserPromptSubmit`, `PreCompact`) gets `"onFailure": "block"`, so that Claude Code blocks
//!   the action when the hook cannot start, crashes or times out (without it, it lets the
//!   action run). Claude Code reads the key from 2.1.295 on: the version comes from
//!   `--claude-version`, else from `claude --version` of the `claude` on `PATH`; for an older
//!   one no entry gets it and the output says so; when it cannot be found (or its version
//!   read) the key is written anyway (2.1.294 was measured to ignore it) and the output says
//!   that. An entry of ours already there gets the key in place (a reinstall upgrades it);
//!   whether an entry is ours is decided by its command alone, never by this key.
//! - **Idempotent.** When nothing is missing, nothing is written (no backup either) and the
//!   output says so.
//! - **Backup.** Before changing an existing file, its old content is written next to it as
//!   `settings.json.bak` / `hooks.json.bak`.
//! - **Atomic.** The new content goes to a temporary file in the same directory, which is
//!   flushed and renamed over the old one (a symlinked settings file is written through to its
//!   target), keeping the old file's permissions; a new file gets the usual `0666` minus the
//!   umask (`0644` mostly), like any file the user creates.
//! - **The secret stays out of git** (`--http`). Before the file that holds the secret of
//!   `hooks serve` is written, a tracked one (or a tracked backup of it) is refused, and one
//!   git does not ignore gets a rule in the clone's `info/exclude` ([`git`]).
//! - **Dry run** (`--dry-run`) prints a unified diff and writes nothing.
//! - **Lenient where it is safe.** An empty (or whitespace-only) file counts as `{}`; a leading
//!   UTF-8 byte order mark is accepted and kept on write.
//! - **Bad files are errors, untouched.** A settings file that is not UTF-8, larger than 16 MiB,
//!   nested deeper than 64 levels, malformed, or whose `hooks` (or `hooks.EVENT`) has the wrong
//!   type gives a one-line error naming `file:line:column` (or the key), and nothing is
//!   written; so does a settings path that is a symlink to a missing file (the error names
//!   both).
//!
//! # Trusting Codex hooks
//!
//! Codex 0.169.0 runs a hook only once the user trusted it, and skips an untrusted one without
//! a word; `hooks install codex` says so when it is done. `--trust` writes that trust itself,
//! for exactly the entries it installed (`codex_trust.rs`): one
//! `[hooks.state."<absolute hooks.json>:<event>:<group>:<handler>"]` table with
//! `trusted_hash = "sha256:<hex>"` per entry in the user's `config.toml` (`$CODEX_HOME`, else
//! `~/.codex`), as Codex's `/hooks` review writes it, edited in place with `toml_edit` (every
//! other byte kept), with a backup and an atomic write; a run where everything is already
//! trusted writes nothing. A project-level `.codex/hooks.json` also needs the project itself
//! trusted by Codex.
//!
//! # The command an entry runs
//!
//! A project's settings file is committed, so its entries must run on every teammate's
//! machine, not only on this one. `install --project` writes, and says in one line which and
//! why (`Entries run `hooks`: `hooks` on PATH is this binary.`):
//!
//! 1. **the bare name** (`hooks`) when the first `hooks` on `PATH` is this binary (the same
//!    file after symlinks), with no relative `PATH` entry before it (where a repository's
//!    own `hooks` would answer first); or the name `--command NAME` states. `NAME` must be
//!    this binary's name (only an entry of that name is recognised as this tool's below),
//!    and on `PATH` here it must be this binary: a name that leads to another file is
//!    refused always (the entry would run something else); a name that is not on `PATH`
//!    here is refused unless `--allow-missing` says it is meant (teammates have it, this
//!    machine will), and then `doctor` reports it until it is;
//! 2. **a path relative to the project** when the binary lives inside it (after symlinks),
//!    through the agent's project-directory variable ([`command::project_dir`]), spelled as
//!    each agent needs it (measured with Claude Code 2.1.328, Gemini CLI 0.61.0, Qwen Code
//!    0.24.4, Factory Droid 0.225.2, Copilot CLI 1.0.102; each runs its hooks in the project
//!    directory): Claude Code `"command": "${CLAUDE_PROJECT_DIR}/REL"` (exec form, no shell:
//!    Claude Code substitutes the braced form itself, not `$CLAUDE_PROJECT_DIR`); Gemini CLI
//!    `$GEMINI_PROJECT_DIR/REL` (it substitutes the variable with the directory already
//!    quoted before its `bash -c`, so quoting it again would break a path with a space);
//!    Qwen Code `"$QWEN_PROJECT_DIR"/REL` (`bash -c`; its `QWEN_CODE_PROJECT_DIR` is its own
//!    data directory under `~/.qwen/projects`, not the project), Factory Droid
//!    `"$FACTORY_PROJECT_DIR"/REL` (`sh -c`), Copilot CLI `"$COPILOT_PROJECT_DIR"/REL`
//!    (`bash`). Started in a subdirectory, none of these five ran the project's hooks at all,
//!    so the variable names the directory that holds the settings file. Codex sets no such
//!    variable, and started in a subdirectory of a git project it loads the project's
//!    `.codex/hooks.json` and runs the hook in that subdirectory (measured with 0.169.0), so
//!    a relative path would break (or name a file of the subdirectory): it falls back to the
//!    next rule, and says so; so does Cursor (not measured);
//! 3. **the absolute path** only when neither holds.
//!
//! A user-level install writes the bare name when it resolves, else the absolute path: the
//! user's settings are this machine's own and serve every project, so no project path fits
//! and a path of this machine is right. `--http`'s entries always name the absolute path:
//! they go to a personal file, and their URL is derived from it.
//!
//! An entry of ours in another portable form that runs this binary here too (a project-
//! relative entry a teammate committed, when `hooks` is on `PATH` here as well) is up to
//! date: installs on different machines do not rewrite each other's entries. An absolute
//! entry is replaced by the portable command in place, as a moved binary is.
//!
//! # Which entries are this tool's
//!
//! An entry counts as one this tool installed, and may be replaced, only when all of this
//! holds; anything else is another tool's and is never changed:
//!
//! - it is a handler (`"type": "command"`) under `hooks.EVENT`, for an event being installed;
//! - it runs exactly `COMMAND TARGET EVENT`: exec form (`"command": COMMAND, "args": [TARGET,
//!   EVENT]`) or shell form (`"command": "COMMAND TARGET EVENT"`, `COMMAND` as `install`
//!   writes it, a path plain or single-quoted; under `bash` for Copilot CLI), with `TARGET`
//!   the agent of this file (`claude`, `codex`, ...) and `EVENT` the key it is under: no
//!   other arguments, no pipes, no wrapper;
//! - `COMMAND` is one of the three forms above, spelled exactly as `install` writes them for
//!   this agent: an absolute path, a bare name (no `/`), or the agent's spelled variable,
//!   `/` and a relative path without `.` or `..` (another variable, another spelling, a
//!   relative path without the variable, a `$` anywhere else: not ours); and its file name
//!   is this binary's (`hooks`, or the name of an author's own binary).
//!
//! A bare `hooks claude PreToolUse` is therefore counted as this tool's even when `hooks` is
//! not on `PATH` here: it is the exact command line this tool's CLI takes and `install`
//! writes, the same rule as for an absolute path of that file name (whose file is not
//! compared either), and it lets a teammate's uninstall remove what another's install
//! committed. Another program named `hooks` that takes exactly an agent's name and an event
//! would be taken for this one; naming a bundle's binary after the bundle avoids that.
//!
//! For Claude Code, the entries of this binary's server (`--http`'s) are this tool's too: an
//! `"type": "http"` entry whose URL is the server's route for the event
//! (`http://127.0.0.1:PORT/claude/EVENT`, the port derived from the binary's path), with any
//! query or none, and the command entry `PATH claude SessionStart --via-server` (exec form,
//! `PATH` absolute with this binary's file name). A plain install replaces them with command entries, and `--http` the
//! command entries with them: each event runs one entry of this tool's.
mod apply;
mod codex_trust;
pub mod command;
pub mod created;
mod error;
pub mod extension;
mod file;
mod found;
pub mod git;
mod merge;
mod shape;
mod uninstall;
mod version;

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookwright::{HookRunner, JsonlSessionStore};

use crate::agents::AgentEvent;

pub use apply::{Install, InstallReport, Replaced};
pub use codex_trust::{CodexConfig, Trusted, snake_case, trust_hash};
pub use error::InstallError;
pub use found::{Found, Runs, find_ours, read_object};
pub use shape::{HTTP_TIMEOUT_SECS, HttpHooks, UNREACHABLE_QUERY, VIA_SERVER};
pub use uninstall::{Uninstall, UninstallReport};
pub use version::{
    AgentVersion, VERSION_TIMEOUT, decide as decide_fail_closed, parse_version, version_in,
};

/// The agent CLI to install into (the adapter's [`crate::agents::Agent`]).
pub use crate::agents::Agent as Target;

/// The project's personal Claude Code settings file (not committed: Claude Code has git
/// ignore it), where `--http` installs a project's entries.
pub const LOCAL_SETTINGS: &str = "settings.local.json";

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

/// The settings file of `target` in `scope`, with `home` as the user's home directory and no
/// config-directory variable (see [`user_settings_path`] for the user-level file as the agent
/// finds it).
#[must_use]
pub fn settings_path(target: Target, scope: Scope, cwd: &Path, home: &Path) -> PathBuf {
    let shape = target.protocol().install();
    let (base, dir) = match scope {
        Scope::Project => (cwd, shape.dir),
        Scope::User => (home, shape.user_dir.unwrap_or(shape.dir)),
    };
    base.join(dir).join(shape.file)
}

/// The user-level settings file of `target`, from the environment values given: when the agent
/// has a config-directory variable ([`InstallShape::dir_env`](crate::agents::InstallShape::dir_env), Codex's `CODEX_HOME`) and
/// `dir_env_value`, its value, is non-empty, the file in that directory; else the file under
/// `home` (see [`settings_path`]).
///
/// # Errors
/// [`InstallError::RelativeDir`] for a relative `dir_env_value`; [`InstallError::NoHome`] when
/// `home` is needed and is empty or relative (it would put the file under the working
/// directory).
pub fn user_settings_path(
    target: Target,
    dir_env_value: Option<&OsStr>,
    home: &Path,
) -> Result<PathBuf, InstallError> {
    let shape = target.protocol().install();
    if let Some(var) = shape.dir_env
        && let Some(dir) = dir_env_value.filter(|d| !d.is_empty()).map(Path::new)
    {
        if !dir.is_absolute() {
            return Err(InstallError::RelativeDir {
                var,
                value: dir.to_path_buf(),
            });
        }
        return Ok(dir.join(shape.file));
    }
    if !home.is_absolute() {
        return Err(InstallError::NoHome {
            target,
            vars: shape
                .dir_env
                .map_or_else(|| "HOME".to_owned(), |var| format!("{var} or HOME")),
        });
    }
    Ok(settings_path(target, Scope::User, home, home))
}

/// The value of `target`'s config-directory variable (Codex's `CODEX_HOME`) in the
/// environment, if it has one.
fn dir_env_value(target: Target) -> Option<std::ffi::OsString> {
    target
        .protocol()
        .install()
        .dir_env
        .and_then(std::env::var_os)
}

/// The file `install` writes for `target` in `scope` (`http`: with `--http`), `cwd` being
/// the canonical working directory.
fn install_path(
    target: Target,
    scope: Scope,
    http: bool,
    cwd: &Path,
    home: &Path,
) -> Result<PathBuf, InstallError> {
    Ok(match scope {
        Scope::Project if http => {
            settings_path(target, scope, cwd, home).with_file_name(LOCAL_SETTINGS)
        }
        Scope::Project => settings_path(target, scope, cwd, home),
        Scope::User => user_settings_path(target, dir_env_value(target).as_deref(), home)?,
    })
}

/// Whether `target` takes `--http` (HTTP hooks to `hooks serve`,
/// [`InstallShape::http`](crate::agents::InstallShape::http)): Claude Code only.
#[must_use]
pub fn takes_http(target: Target) -> bool {
    target.protocol().install().http
}

/// Removes this tool's entries ([`Uninstall`]) from every file `install` writes for `target`
/// in `scope` (with and without `--http`, when the agent [`takes_http`]), as `install::run`
/// takes its arguments: of `options`, `dry_run`, and `http`, the server's entries to
/// recognise (its URL for `binary`; the secret is not compared). Reports to `out`.
///
/// # Errors
/// See [`InstallError`]; a file already changed stays changed when a later one fails.
pub fn uninstall(
    target: Target,
    scope: Scope,
    options: &Options,
    binary: &Path,
    cwd: &Path,
    home: &Path,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    let (dry_run, http) = (options.dry_run, &options.http);
    let (cwd, binary) = placed(cwd, binary)?;
    let paths = settings_files(target, scope, &cwd, home)?;
    let record = created::record_path();
    for path in paths {
        Uninstall {
            target,
            path,
            binary: binary.clone(),
            http: http.clone(),
            dry_run,
            record: record.clone(),
        }
        .apply(out)?;
    }
    Ok(())
}

/// `cwd` made canonical (it must exist), and `binary` made absolute against it.
fn placed(cwd: &Path, binary: &Path) -> Result<(PathBuf, PathBuf), InstallError> {
    let cwd = cwd
        .canonicalize()
        .map_err(|source| InstallError::WorkingDir {
            path: cwd.to_path_buf(),
            source,
        })?;
    let binary = if binary.is_absolute() {
        binary.to_path_buf()
    } else {
        cwd.join(binary)
    };
    Ok((cwd, binary))
}

/// Every file `install` writes for `target` in `scope`, with and without `--http` (when the
/// agent [`takes_http`]): what `uninstall` cleans and `doctor` checks. `cwd` is the canonical
/// project directory; a user-level file follows the agent's config-directory variable
/// ([`user_settings_path`]).
///
/// # Errors
/// No absolute home (or config directory) for the user's files.
pub fn settings_files(
    target: Target,
    scope: Scope,
    cwd: &Path,
    home: &Path,
) -> Result<Vec<PathBuf>, InstallError> {
    let mut paths = vec![install_path(target, scope, false, cwd, home)?];
    if takes_http(target) {
        let local = install_path(target, scope, true, cwd, home)?;
        if !paths.contains(&local) {
            paths.push(local);
        }
    }
    Ok(paths)
}

/// The events of `target` that the hooks of `runner` handle (see the [module docs](self)), in
/// the protocol's order.
#[must_use]
pub fn events_for(target: Target, runner: &HookRunner) -> Vec<AgentEvent> {
    target
        .protocol()
        .events()
        .iter()
        .copied()
        .filter(|event| event.mapping.is_handled_by(runner))
        .collect()
}

/// What `hooks install` was asked besides the agent and the scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Print the change as a diff; write nothing (`--dry-run`).
    pub dry_run: bool,
    /// The installed agent's version as the user stated it (`--claude-version`), for an agent
    /// with a fail-closed key ([`FailClosed`](crate::agents::FailClosed), Claude Code's
    /// `onFailure`); without it the agent's executable on `PATH` is asked
    /// ([`AgentVersion::detect`]).
    pub agent_version: Option<String>,
    /// Codex: trust the entries installed in the user's `config.toml`, as Codex's own review
    /// does (`--trust`; see [`codex_trust`](self#trusting-codex-hooks)).
    pub trust: bool,
    /// `--http` (Claude Code): HTTP hooks to `hooks serve` (see [`HttpHooks`]). They hold
    /// the secret, so they go into a file that is not committed: the user's settings, or the
    /// project's personal `.claude/settings.local.json`; the file is made mode 0600. In a git
    /// work tree, git is made to ignore it first, and a tracked one is refused ([`git`]).
    pub http: Option<HttpHooks>,
    /// `--command NAME`: the bare name the entries run, stated (it must be this binary's
    /// name; see [`command::choose`]).
    pub command: Option<String>,
    /// `--allow-missing`: write `--command`'s name even when it is not on `PATH` here.
    pub allow_missing: bool,
}

/// Installs `binary` as the hook of `target` in `scope` for the events the linked bundle
/// handles in `cwd` (loaded with [`crate::call::load_bundle`]); reports to `out`. For Claude Code
/// in the project, where a plain install writes `.claude/settings.json` and `--http`
/// `.claude/settings.local.json`, this tool's entries in the other of the two are removed
/// (as [`Uninstall`] removes them), so that each event runs one of them. `home` is the
/// user's home directory; a user-level install also reads the agent's config-directory
/// variable (Codex's `CODEX_HOME`) from the environment ([`user_settings_path`]), and so does
/// `--trust` for the `config.toml` it writes. For an agent with a fail-closed key,
/// [`decide_fail_closed`] says whether it is written, in a line printed first.
///
/// # Errors
/// See [`InstallError`]; nothing is written on error, but for the project's other file, whose
/// error comes after the install was written.
pub fn run(
    target: Target,
    scope: Scope,
    options: &Options,
    binary: &Path,
    cwd: &Path,
    home: &Path,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    let fail_closed = target.protocol().install().fail_closed;
    let executable = fail_closed
        .filter(|f| f.versioned)
        .map(|_| target.protocol().cli().executable);
    let version = match (options.agent_version.as_deref(), executable) {
        (Some(stated), Some(_)) => Some(AgentVersion::Stated(parse_version(stated).ok_or_else(
            || InstallError::Version {
                target,
                given: stated.to_owned(),
            },
        )?)),
        (Some(_), None) => return Err(InstallError::NoVersionCheck { target }),
        (None, Some(executable)) => Some(AgentVersion::detect(
            executable,
            std::env::var_os("PATH").as_deref(),
        )),
        (None, None) => None,
    };
    if options.trust && !target.protocol().install().trusts_entries {
        return Err(InstallError::NoTrustStep { target });
    }
    let given = cwd.to_path_buf();
    let (cwd, binary) = placed(cwd, binary)?;
    if !cwd.is_dir() {
        return Err(InstallError::WorkingDir {
            path: given,
            source: io::Error::from(io::ErrorKind::NotADirectory),
        });
    }
    let dir_env_value = dir_env_value(target);
    let path = install_path(target, scope, options.http.is_some(), &cwd, home)?;
    // Codex keeps its trust in the user's config.toml, beside the user-level hooks.json.
    let config = if options.trust {
        let user = user_settings_path(target, dir_env_value.as_deref(), home)?;
        Some(user.with_file_name("config.toml"))
    } else {
        None
    };
    let hooks = crate::call::load_bundle(&cwd).map_err(InstallError::Load)?;
    let runner = HookRunner::new(hooks, &cwd, Arc::new(JsonlSessionStore::in_memory(&cwd)));
    let mut events = events_for(target, &runner);
    if options.http.is_some() {
        // The `SessionStart` command entry is what starts the server (`--via-server`): it is
        // written whether or not the hooks handle `session_start`, or no session would start
        // the server, and every HTTP call would fail (and each gating one block).
        events = target
            .protocol()
            .events()
            .iter()
            .copied()
            .filter(|e| events.contains(e) || !HttpHooks::over_http(*e))
            .collect();
    }
    let mut on_failure_block = false;
    if let Some(f) = fail_closed
        && events.iter().any(|e| e.mapping.is_gating())
    {
        match &version {
            Some(version) => {
                let (write, line) = decide_fail_closed(&f, target.protocol().cli(), version);
                on_failure_block = write;
                writeln!(out, "{line}").map_err(InstallError::Output)?;
            }
            // Every version of the agent reads the key (Cursor's `failClosed`).
            None => on_failure_block = true,
        }
    }
    let path_var = std::env::var_os("PATH");
    let chosen = command::choose(&command::Choice {
        target,
        scope,
        http: options.http.is_some(),
        binary: &binary,
        project: &cwd,
        path_var: path_var.as_deref(),
        stated: options.command.as_deref(),
        allow_missing: options.allow_missing,
    })?;
    if options.http.is_none() {
        writeln!(
            out,
            "Entries run `{}`: {}.",
            chosen
                .command
                .word(target, target.protocol().install().form),
            chosen.why
        )
        .map_err(InstallError::Output)?;
    }
    let plan = Install {
        target,
        path,
        binary,
        command: Some(chosen.clone()),
        dry_run: options.dry_run,
        on_failure_block,
        http: options.http.clone(),
    };
    if plan.http.is_some() {
        // Before the secret goes into it: refused when git tracks it, else ignored.
        git::keep_out(&plan.path, options.dry_run, out)?;
    }
    let dirs = created::missing_dirs(&plan.path);
    let new_file = std::fs::symlink_metadata(&plan.path).is_err();
    let report = plan.apply(&events, out)?;
    if new_file && report.written {
        let remembered = created::record_path()
            .ok_or_else(|| "no config directory".to_owned())
            .and_then(|record| {
                created::remember(&record, &plan.path, dirs)
                    .map_err(|e| format!("{}: {e}", record.display()))
            });
        if let Err(why) = remembered {
            writeln!(
                out,
                "Cannot record that install created {} ({why}): uninstall will leave it, empty.",
                plan.path.display()
            )
            .map_err(InstallError::Output)?;
        }
    }
    if scope == Scope::Project && takes_http(target) {
        // The project's other file (`settings.json` beside `--http`'s `settings.local.json`)
        // loses this tool's entries: each event runs one of them, in the form asked for.
        let other = install_path(target, scope, options.http.is_none(), &cwd, home)?;
        let mut said = Vec::new();
        let removed = Uninstall {
            target,
            path: other,
            binary: plan.binary.clone(),
            http: options.http.clone(),
            dry_run: options.dry_run,
            record: created::record_path(),
        }
        .apply(&mut said)?;
        if !removed.removed.is_empty() {
            out.write_all(&said).map_err(InstallError::Output)?;
        }
    }
    // What the agent still asks of the user (Codex: trust), unless this install did it.
    if let Some(note) = target.protocol().install().note
        && report.written
        && config.is_none()
    {
        writeln!(out, "{note}").map_err(InstallError::Output)?;
    }
    if let Some(config) = config {
        codex_trust::trust(
            &plan,
            &report.content,
            &events,
            &config,
            options.dry_run,
            out,
        )?;
    }
    Ok(())
}
