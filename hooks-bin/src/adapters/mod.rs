//! Agent-CLI adapters: `hooks claude EVENT` and `hooks codex EVENT` serve the loaded hooks to
//! Claude Code and Codex through their command-hook protocols.
//!
//! One call is one hook invocation: the agent starts the process, writes one JSON object on
//! stdin, and reads the exit code, stdout and stderr. The adapter
//!
//! 1. checks the event name (one of [`AgentEvent`], as the agent spells it);
//! 2. decodes stdin with the bounded decoder of [`input`] (16 MiB, 64 levels of nesting,
//!    UTF-8; unknown fields ignored; a field it needs of the wrong type is an error);
//! 3. loads the hooks for the working directory (`--cwd`, else the agent's project directory
//!    (Claude Code's `CLAUDE_PROJECT_DIR`), else the input's `cwd`, else the process's; it must
//!    be a directory), builds a [`HookRunner`](hooks_core::HookRunner) on a current-thread tokio runtime, and emits the
//!    event(s) of the mapping table below;
//! 4. writes at most one JSON answer on stdout (nothing when the hooks have no opinion: the
//!    adapter never prints `allow`), and exits with the code of the table below.
//!
//! # Mapping
//!
//! | agent event | our event(s) | answer |
//! | --- | --- | --- |
//! | `PreToolUse` | `tool_call` | a block → `permissionDecision: "deny"` with the reason |
//! | `PostToolUse` | `tool_result` | new content → the output replaced (per agent: [`claude`], [`codex`]) |
//! | `PostToolUseFailure` (Claude) | `tool_result` with `isError: true` (result ignored, as upstream) | none |
//! | `UserPromptSubmit`, prompt `/name args` with a registered command | the command, with a [`CommandContext`](hooks_core::CommandContext) whose `notify` text is collected | `decision: "block"`, `reason` = the collected output |
//! | `UserPromptSubmit`, other prompts | `before_agent_start` | its message → `additionalContext` |
//! | `SessionStart` | `session_start` | messages sent with `send_message` → `additionalContext` |
//! | `SessionEnd` | `session_shutdown` | none |
//! | `PreCompact` | `session_before_compact` (`preparation.trigger` = the agent's trigger) | `cancel` → compaction blocked |
//! | `Stop` | `agent_end` (`last_assistant_message` as the one message) | none |
//!
//! Tool names, inputs and outputs are translated by [`tools`]. There is no interactive UI:
//! handlers see `has_ui() == false`, `confirm` answers `false`, `select`/`input` answer `None`.
//!
//! # Exit codes (both agents)
//!
//! Events are *gating* when their hooks decide what the agent may do or what the model sees:
//! `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `PreCompact`. The others are
//! *observational*. A name that is not a known event counts as gating.
//!
//! | outcome | gating event | observational event |
//! | --- | --- | --- |
//! | success, with or without an answer | 0 | 0 |
//! | the adapter fails: unknown event, invalid command line, stdin unreadable, bad input (malformed, truncated, empty, non-UTF-8, too deep, too large, wrong type, missing field), hooks fail to load, internal error or panic, stdout not writable | **2** | 1 |
//! | stdout closed or `/dev/null` (checked first, see [`stdio`]) | **2** | no failure: the hooks run |
//! | a handler or command returns an error, panics or times out | **2** | 1 |
//!
//! One rule gives every failure its code: [`Agent::failure_code`].
//!
//! Exit 2 is fail-closed: Claude Code and Codex both block the action on exit 2 with a
//! non-empty stderr, which is always one line naming the adapter, the event and the reason
//! (`hooks claude PreToolUse: blocked: hook guard panicked: boom`). Observational events exit 1
//! instead because exit 2 means something else there (on `Stop` it would make the agent go
//! on, with our error as the new prompt); both agents report exit 1 as a non-blocking error
//! and show the first stderr line. On a failing `PostToolUse`, Claude additionally gets the
//! tool output replaced by a `[tool output withheld: ...]` notice when its shape is known, so
//! a failing redaction hook does not leak the output it was meant to redact; Codex replaces the
//! output with the stderr reason on its own.
//!
//! Handler errors on `tool_call` come from [`HookRunner::emit_tool_call`](hooks_core::HookRunner::emit_tool_call); on other events
//! they are collected through [`HookRunner::on_error`](hooks_core::HookRunner::on_error).
pub mod claude;
pub mod codex;
mod dispatch;
pub mod input;
mod session;
pub mod stdio;
pub mod tools;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use hooks_core::LoadedHook;

use crate::trust::TrustMode;

use self::dispatch::{Answer, HookInput, Reply};
use self::input::one_line;
use self::session::Session;

/// Exit code: success (an answer on stdout, or no opinion).
pub const EXIT_OK: u8 = 0;
/// Exit code: the adapter or a hook failed on an observational event (a non-blocking error).
pub const EXIT_ERROR: u8 = 1;
/// Exit code: the adapter or a hook failed on a gating event (the agent blocks the action).
pub const EXIT_BLOCK: u8 = 2;

/// The longest stderr line written, in characters.
const MAX_REASON_CHARS: usize = 2000;

/// Produces the hooks to serve for a working directory.
pub type HookFactory = Arc<dyn Fn(&Path) -> Result<Vec<LoadedHook>, String> + Send + Sync>;

/// What an adapter run may be told besides the event and the input.
#[derive(Clone, Default)]
pub struct AdapterOptions {
    /// The working directory (`--cwd`); overrides the project directory and the input's `cwd`.
    pub cwd: Option<PathBuf>,
    /// The agent's project directory (Claude Code sets `CLAUDE_PROJECT_DIR` for its hook
    /// commands); overrides the input's `cwd`, which follows the agent's `cd` into a
    /// subdirectory, where the project's hook files would not be found.
    pub project_dir: Option<PathBuf>,
    /// Where the hooks come from; `None` loads the linked bundle with [`load_bundle`].
    pub hooks: Option<HookFactory>,
    /// A timeout for every async handler without its own (`None`: no timeout, as upstream).
    pub handler_timeout: Option<Duration>,
    /// How the linked bundle's project-level hook files are checked (`--trust-all`:
    /// [`TrustMode::All`]); default [`TrustMode::Check`].
    pub trust: TrustMode,
}

impl AdapterOptions {
    /// Options that serve the hooks `factory` builds (for tests and embedding hosts).
    #[must_use]
    pub fn with_hooks(factory: impl Fn(&Path) -> Vec<LoadedHook> + Send + Sync + 'static) -> Self {
        AdapterOptions {
            hooks: Some(Arc::new(move |cwd: &Path| Ok(factory(cwd)))),
            ..AdapterOptions::default()
        }
    }

    /// These options with the working directory `cwd`.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

impl fmt::Debug for AdapterOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterOptions")
            .field("cwd", &self.cwd)
            .field("project_dir", &self.project_dir)
            .field("hooks", &self.hooks.as_ref().map(|_| "<factory>"))
            .field("handler_timeout", &self.handler_timeout)
            .field("trust", &self.trust)
            .finish()
    }
}

/// Loads the hooks this binary serves for `cwd`, the way every `hooks` command does
/// ([`crate::load::load`]): the compiled-in bundle, then the hook files discovered for `cwd`,
/// project-level ones only when trusted ([`TrustMode::Check`]).
///
/// A hook that fails to load is an error, not a warning: a guard that did not load must not
/// look like a guard that let the call through.
///
/// # Errors
/// The load errors (`path: error`), joined into one line.
pub fn load_bundle(cwd: &Path) -> Result<Vec<LoadedHook>, String> {
    bundle_or_error(crate::load::load(cwd, &[], &TrustMode::Check))
}

/// [`load_bundle`] for one event, checking project-level hook files as `trust` says: the
/// hook-file discovery runs only for the events a hook file can handle
/// ([`AgentEvent::is_tool_event`]); the others get the compiled-in hooks alone, without
/// scanning a directory.
///
/// # Errors
/// The load errors (`path: error`), joined into one line.
pub fn load_bundle_for(
    cwd: &Path,
    event: AgentEvent,
    trust: &TrustMode,
) -> Result<Vec<LoadedHook>, String> {
    if event.is_tool_event() {
        bundle_or_error(crate::load::load(cwd, &[], trust))
    } else {
        bundle_or_error(crate::load::load_compiled(cwd))
    }
}

fn bundle_or_error(loaded: crate::load::Loaded) -> Result<Vec<LoadedHook>, String> {
    if loaded.errors.is_empty() {
        Ok(loaded.hooks)
    } else {
        Err(loaded
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.path, e.error))
            .collect::<Vec<_>>()
            .join("; "))
    }
}

/// Makes panics print nothing. A binary serving an adapter calls it first: handler panics are
/// caught and reported as one stderr line by the adapter, and the default panic message would
/// add lines that the agent shows as the block reason.
pub fn silence_panic_output() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// Reads the adapter's input (stdin), bounded; see [`input::read_bounded`].
///
/// # Errors
/// The reader's I/O error.
pub fn read_input(reader: &mut dyn std::io::Read) -> std::io::Result<Vec<u8>> {
    input::read_bounded(reader)
}

/// An agent CLI whose hook protocol an adapter speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code (`hooks claude EVENT`).
    Claude,
    /// Codex (`hooks codex EVENT`).
    Codex,
}

impl Agent {
    /// The subcommand name: `claude` or `codex`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }

    /// The events this agent's adapter serves, in the order of the mapping table.
    #[must_use]
    pub fn events(self) -> &'static [AgentEvent] {
        match self {
            Agent::Claude => AgentEvent::ALL,
            Agent::Codex => &[
                AgentEvent::PreToolUse,
                AgentEvent::PostToolUse,
                AgentEvent::UserPromptSubmit,
                AgentEvent::SessionStart,
                AgentEvent::SessionEnd,
                AgentEvent::PreCompact,
                AgentEvent::Stop,
            ],
        }
    }

    /// Our name for this agent's tool `name` (see [`tools`]).
    #[must_use]
    pub fn tool_name(self, name: &str) -> String {
        match self {
            Agent::Claude => tools::claude_tool_name(name),
            Agent::Codex => tools::codex_tool_name(name),
        }
    }

    /// The event `name` if this agent's adapter serves it.
    #[must_use]
    pub fn event(self, name: &str) -> Option<AgentEvent> {
        self.events().iter().copied().find(|e| e.as_str() == name)
    }

    /// Whether `hooks AGENT EVENT_NAME` is a gating call: `EVENT_NAME` is a gating event
    /// ([`AgentEvent::is_gating`]) or not an event this agent's adapter serves.
    #[must_use]
    pub fn is_gating(self, event_name: &str) -> bool {
        self.event(event_name).is_none_or(AgentEvent::is_gating)
    }

    /// The exit code of every failure of `hooks AGENT EVENT_NAME`, whatever failed (the
    /// command line, stdin, stdout, the input, loading, a hook, the adapter itself):
    /// [`EXIT_BLOCK`] on a gating call ([`Agent::is_gating`]), else [`EXIT_ERROR`].
    #[must_use]
    pub fn failure_code(self, event_name: &str) -> u8 {
        if self.is_gating(event_name) {
            EXIT_BLOCK
        } else {
            EXIT_ERROR
        }
    }

    /// Writes the one stderr line of a failure of `hooks AGENT EVENT_NAME`
    /// (`hooks claude PreToolUse: REASON`, cut to 2000 characters; a write error is ignored,
    /// there is nowhere left to report it) and returns [`Agent::failure_code`].
    pub fn fail(self, event_name: &str, reason: &str, err: &mut dyn std::io::Write) -> u8 {
        let line = one_line(
            &format!("hooks {self} {}: {reason}", one_line(event_name, 60)),
            MAX_REASON_CHARS,
        );
        let _ignored = writeln!(err, "{line}").and_then(|()| err.flush());
        self.failure_code(event_name)
    }
}

impl std::str::FromStr for Agent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude" => Ok(Agent::Claude),
            "codex" => Ok(Agent::Codex),
            other => Err(format!(
                "unknown agent `{other}` (expected claude or codex)"
            )),
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hook event as Claude Code and Codex name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AgentEvent {
    /// Before a tool runs.
    PreToolUse,
    /// After a tool succeeded.
    PostToolUse,
    /// After a tool failed (Claude Code only).
    PostToolUseFailure,
    /// A user prompt was submitted.
    UserPromptSubmit,
    /// A session started.
    SessionStart,
    /// A session ended.
    SessionEnd,
    /// Before a compaction.
    PreCompact,
    /// The agent finished responding.
    Stop,
}

impl AgentEvent {
    /// Every event, in the order of the mapping table.
    pub const ALL: &'static [AgentEvent] = &[
        AgentEvent::PreToolUse,
        AgentEvent::PostToolUse,
        AgentEvent::PostToolUseFailure,
        AgentEvent::UserPromptSubmit,
        AgentEvent::SessionStart,
        AgentEvent::SessionEnd,
        AgentEvent::PreCompact,
        AgentEvent::Stop,
    ];

    /// The agent's name for the event, e.g. `PreToolUse`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            AgentEvent::PreToolUse => "PreToolUse",
            AgentEvent::PostToolUse => "PostToolUse",
            AgentEvent::PostToolUseFailure => "PostToolUseFailure",
            AgentEvent::UserPromptSubmit => "UserPromptSubmit",
            AgentEvent::SessionStart => "SessionStart",
            AgentEvent::SessionEnd => "SessionEnd",
            AgentEvent::PreCompact => "PreCompact",
            AgentEvent::Stop => "Stop",
        }
    }

    /// Whether this event emits `tool_call` or `tool_result`, the only events a discovered
    /// hook file handles (it runs as a `PreToolUse`/`PostToolUse` script). The adapter looks
    /// for hook files only for these events.
    #[must_use]
    pub const fn is_tool_event(self) -> bool {
        matches!(
            self,
            AgentEvent::PreToolUse | AgentEvent::PostToolUse | AgentEvent::PostToolUseFailure
        )
    }

    /// Whether a failure on this event exits 2 (see the [module docs](self#exit-codes-both-agents)).
    #[must_use]
    pub const fn is_gating(self) -> bool {
        matches!(
            self,
            AgentEvent::PreToolUse
                | AgentEvent::PostToolUse
                | AgentEvent::UserPromptSubmit
                | AgentEvent::PreCompact
        )
    }
}

impl fmt::Display for AgentEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Encodes an [`Answer`] in an agent's JSON schema (`None`: print nothing).
pub(crate) type Encoder = fn(AgentEvent, &Answer) -> Option<Value>;

/// Runs one adapter call for `agent`; see the [module docs](self).
pub(crate) fn serve(
    agent: Agent,
    event_name: &str,
    input: &[u8],
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
    opts: &AdapterOptions,
    encode: Encoder,
) -> u8 {
    let event = agent.event(event_name);
    let reply = match event {
        None => Reply::failure(unknown_event(agent, event_name)),
        Some(event) => catch_unwind(AssertUnwindSafe(|| handle(agent, event, input, opts)))
            .unwrap_or_else(|payload| {
                let message = hooks_core::HandlerError::from_panic(&*payload);
                Reply::failure(format!("internal error: the adapter panicked: {message}"))
            }),
    };
    let mut failure = reply.failure;

    if let (Some(event), Some(answer)) = (event, &reply.answer)
        && let Some(json) = encode(event, answer)
    {
        let mut line = json.to_string();
        line.push('\n');
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            failure.get_or_insert_with(|| format!("cannot write the answer to stdout: {e}"));
        }
    }
    match failure {
        Some(failure) => agent.fail(event_name, &failure, err),
        None => EXIT_OK,
    }
}

fn unknown_event(agent: Agent, name: &str) -> String {
    let known: Vec<&str> = agent.events().iter().map(|e| e.as_str()).collect();
    format!(
        "unknown event `{}` (expected one of: {})",
        one_line(name, 60),
        known.join(", ")
    )
}

/// Decodes, loads, and dispatches; every failure becomes a [`Reply`] failure.
fn handle(agent: Agent, event: AgentEvent, bytes: &[u8], opts: &AdapterOptions) -> Reply {
    let input = match HookInput::decode(bytes, event) {
        Ok(input) => input,
        Err(e) => return Reply::failure(format!("invalid input: {e}")),
    };
    let cwd = match working_dir(opts, &input) {
        Ok(cwd) => cwd,
        Err(e) => return Reply::failure(e),
    };
    let hooks = match &opts.hooks {
        Some(factory) => factory(&cwd),
        None => load_bundle_for(&cwd, event, &opts.trust),
    };
    let hooks = match hooks {
        Ok(hooks) => hooks,
        Err(e) => return Reply::failure(format!("cannot load hooks: {e}")),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Reply::failure(format!("internal error: cannot start the runtime: {e}")),
    };
    let session = Session::new(
        agent,
        hooks,
        &cwd,
        input.session_id.as_ref().and_then(Value::as_str),
        opts.handler_timeout,
    );
    runtime.block_on(dispatch::dispatch(agent, event, input, &session))
}

/// The directory the hooks are loaded for: `--cwd`, else the project directory, else the
/// input's `cwd`, else the process's (a relative one is taken from the process's). It must be
/// a directory: hooks loaded for a missing one would silently lack the project's hook files.
fn working_dir(opts: &AdapterOptions, input: &HookInput) -> Result<PathBuf, String> {
    let given = opts
        .cwd
        .clone()
        .or_else(|| opts.project_dir.clone())
        .or_else(|| {
            input
                .cwd
                .as_deref()
                .filter(|c| !c.is_empty())
                .map(PathBuf::from)
        });
    let dir = match given {
        Some(dir) if dir.is_absolute() => dir,
        other => {
            let here = std::env::current_dir()
                .map_err(|e| format!("cannot determine the working directory: {e}"))?;
            other.map_or_else(|| here.clone(), |rel| here.join(rel))
        }
    };
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "the working directory {} is not a directory",
            dir.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gating_table() {
        let gating: Vec<_> = AgentEvent::ALL.iter().filter(|e| e.is_gating()).collect();
        assert_eq!(
            gating,
            [
                &AgentEvent::PreToolUse,
                &AgentEvent::PostToolUse,
                &AgentEvent::UserPromptSubmit,
                &AgentEvent::PreCompact
            ]
        );
        assert!(Agent::Codex.event("PostToolUseFailure").is_none());
    }
}
