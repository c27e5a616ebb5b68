//! Agent-CLI adapters: `hooks AGENT EVENT` serves the loaded hooks to an agent through its
//! command-hook protocol: Claude Code ([`claude`]), Codex ([`codex`]), Gemini CLI
//! ([`gemini`]), Copilot CLI ([`copilot`]), Qwen Code ([`qwen`]), Factory Droid ([`droid`]),
//! and Cursor ([`cursor`], from its documentation, not verified against Cursor).
//!
//! # What an agent implements
//!
//! One file per agent with one unit struct implementing [`Protocol`]:
//! its name, its events and what each is in our terms ([`AgentEvent`], [`Mapping`]), its tool
//! names (a two-way [`ToolNames`](hooks_core::tool_names::ToolNames) table), how its input
//! decodes into our events ([`Protocol::decode`]), how our [`Decision`] is written in its schema
//! ([`Protocol::encode`]), and where `hooks install` registers it
//! ([`InstallShape`]). [`Agent`] names it. What several agents
//! share lives in [`hook_json`] (the hook JSON Claude Code defined and Codex reuses), not in
//! one agent's file. The rest is the same for every agent: [`answer()`] runs one call through a
//! protocol and gives its [`Outcome`] (exit code, stdout, stderr) for any transport; the
//! command transport ([`command`]) reads stdin and writes the outcome.
//!
//! # One call
//!
//! One call is one hook invocation: the agent starts the process, writes one JSON object on
//! stdin, and reads the exit code, stdout and stderr. The adapter
//!
//! 1. checks the event name (one of the protocol's [`AgentEvent`]s, as the agent spells it);
//! 2. decodes stdin with the bounded decoder of [`crate::json`] (16 MiB, 64 levels of nesting,
//!    UTF-8; unknown fields ignored; a field it needs of the wrong type is an error);
//! 3. loads the hooks for the working directory (`--cwd`, else the agent's project directory
//!    (Claude Code's `CLAUDE_PROJECT_DIR`), else the input's `cwd`, else the process's; it must
//!    be a directory), builds a [`HookRunner`](hooks_core::HookRunner) on a current-thread
//!    tokio runtime, and emits the event(s) of the mapping table below;
//! 4. writes at most one JSON answer on stdout (nothing when the hooks have no opinion: the
//!    adapter never prints `allow`), and exits with the code of the table below.
//!
//! # Mapping
//!
//! | agent event ([`Mapping`]) | our event(s) | answer |
//! | --- | --- | --- |
//! | `PreToolUse` (`ToolCall`) | `tool_call` | a block → `permissionDecision: "deny"` with the reason |
//! | `PostToolUse` (`ToolResult`) | `tool_result` | new content → the output replaced (per agent: [`claude`], [`codex`]) |
//! | `PostToolUseFailure` (`ToolFailure`; Claude) | `tool_result` with `isError: true` (result ignored, as upstream) | none |
//! | `UserPromptSubmit` (`Prompt`), prompt `/name args` with a registered command | the command, with a [`CommandContext`](hooks_core::CommandContext) whose `notify` text, status line and messages are collected; its session actions (`new_session`, `branch`, `navigate_tree`) answer `cancelled` | `decision: "block"`, `reason` = the collected output, and for each session action `/name: ... is not available through the AGENT hook adapter (the agent owns its sessions); nothing was done.` |
//! | `UserPromptSubmit` (`Prompt`), other prompts | `before_agent_start` | its message → `additionalContext` |
//! | `SessionStart` (`SessionStart`), `source` `startup` (or none, or unknown) | `session_start` | messages sent with `send_message` → `additionalContext` |
//! | `SessionStart`, `source` `resume` / `clear` / `fork` (Codex) | `session_switch` with reason `resume` / `new` / `fork`, no `previousSessionFile` | the same |
//! | `SessionStart`, `source` `compact` | nothing (the session goes on; `session_compact` would need the compaction's summary, which the agent does not send) | none |
//! | `SessionEnd` (`SessionEnd`) | `session_shutdown` | none |
//! | `PreCompact` (`Compact`) | `session_before_compact` (`preparation.trigger` = the agent's trigger) | `cancel` → compaction blocked |
//! | `Stop` (`AgentEnd`) | `agent_end` (`last_assistant_message` as the one message) | none |
//! | `BeforeModel` (`Context`; Gemini CLI) | `context` over the request's text messages | changed messages → the request's text replaced |
//!
//! The table names Claude Code's events; each other agent's file has its own table with its
//! event names and answers.
//!
//! Tool inputs and outputs are translated by [`tools`]. There is no interactive UI:
//! handlers see `has_ui() == false`, `confirm` answers `false`, `select`/`input` answer `None`.
//! What hooks say to the user on any event — `notify` texts, the status line when they set it
//! (`status: SEGMENTS`), messages sent with `display: true` (rendered by their type's
//! renderer, plain theme) — is added to the answer for the user where the agent shows it and
//! never sends it to the model ([`Protocol::tell_user`]; Claude Code and Codex: top-level
//! `systemMessage`, not on `SessionEnd`), unless an answer already carries it (a command's
//! output, a cancelled compaction's reason).
//!
//! # Exit codes (both agents)
//!
//! Events are *gating* when their hooks decide what the agent may do or what the model sees
//! ([`Mapping::is_gating`]): `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `PreCompact`.
//! The others are *observational*. A name that is not a known event counts as gating.
//!
//! | outcome | gating event | observational event |
//! | --- | --- | --- |
//! | success, with or without an answer | 0 | 0 |
//! | the adapter fails: unknown event, invalid command line, stdin unreadable, bad input (malformed, truncated, empty, non-UTF-8, too deep, too large, wrong type, missing field), hooks fail to load, internal error or panic, stdout not writable | **2** | 1 |
//! | stdout closed or `/dev/null` (checked first, see [`command`]) | **2** | no failure: the hooks run |
//! | a handler or command returns an error, panics or times out | **2** | 1 |
//!
//! One rule gives every failure its code: [`Protocol::failure_code`].
//!
//! Exit 2 is fail-closed: Claude Code and Codex both block the action on exit 2 with a
//! non-empty stderr, which is always one line naming the adapter, the event and the reason
//! (`hooks claude PreToolUse: blocked: hook guard panicked: boom`). The one exception is
//! Codex's `PreCompact`: Codex compacts after any exit code, so a failure there exits 0 with
//! the answer that holds the compaction, `{"continue":false,"stopReason":LINE}` with the
//! failure line ([`Protocol::failure_answer`]); only where stdout cannot carry it (closed,
//! `/dev/null`, not writable) is it exit 2. Observational events exit 1 instead because exit
//! 2 means something else there (on `Stop` it would make the agent go on, with our error as
//! the new prompt); both agents report exit 1 as a non-blocking error and show the first
//! stderr line. On a failing `PostToolUse`, Claude additionally gets the tool output replaced
//! by a `[tool output withheld: ...]` notice in a shape the tool accepts (for a tool
//! whose shape is not known, `continue: false`: see [`claude`]), so a failing redaction
//! hook does not leak the output it was meant to redact; Codex replaces the output with the
//! stderr reason on its own.
//!
//! # Kill switch
//!
//! With `HOOKS_DISABLE=1` in the environment every call answers "no opinion" at once (exit 0,
//! nothing on stdout, before anything else is checked or loaded) and says on stderr that hooks
//! are disabled ([`disabled_outcome`]): the fail-open lever a user pulls knowingly.
//!
//! Handler errors on `tool_call` come from [`HookRunner::emit_tool_call`](hooks_core::HookRunner::emit_tool_call); on other events
//! they are collected through [`HookRunner::on_error`](hooks_core::HookRunner::on_error).
mod answer;
pub mod claude;
pub mod codex;
pub mod command;
pub mod copilot;
pub mod cursor;
mod disable;
pub mod droid;
mod emit;
pub mod gemini;
pub mod hook_json;
mod llm_content;
mod protocol;
pub mod qwen;
pub mod resident;
mod session;
pub mod tools;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hooks_core::LoadedHook;

use crate::trust::TrustMode;

pub use self::answer::{
    Answered, CallFacts, Outcome, answer, answer_call, answer_with_decision, audited, no_opinion,
};
pub use self::disable::{
    DISABLE_ENV, disabled_line, disabled_outcome, hooks_disabled, off_outcome,
};
pub use self::protocol::{
    AgentCli, AgentEvent, Call, Decision, FailClosed, FailValue, Form, HooksSwitch, InstallShape,
    Layout, Mapping, OnFailure, Protocol, Request, StartSource,
};

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
    /// The mode and the decision log ([`crate::audit`]); default: enforce, no log.
    pub audit: crate::audit::Settings,
    /// Where the handlers of a call record what they did
    /// ([`crate::explain::trace`]): `hooks explain`, and the decision log of a command call.
    /// `None`: the handlers are not wrapped.
    pub runs: Option<crate::explain::trace::Runs>,
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
            .field("audit", &self.audit)
            .field("runs", &self.runs.is_some())
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
/// ([`Mapping::is_tool_event`]); the others get the compiled-in hooks alone, without scanning
/// a directory.
///
/// # Errors
/// The load errors (`path: error`), joined into one line.
pub fn load_bundle_for(
    cwd: &Path,
    event: AgentEvent,
    trust: &TrustMode,
) -> Result<Vec<LoadedHook>, String> {
    if event.mapping.is_tool_event() {
        bundle_or_error(crate::load::load(cwd, &[], trust))
    } else {
        bundle_or_error(crate::load::load_compiled(cwd))
    }
}

pub(super) fn bundle_or_error(loaded: crate::load::Loaded) -> Result<Vec<LoadedHook>, String> {
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

/// An agent CLI whose hook protocol `hooks` speaks: the name of a [`Protocol`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code (`hooks claude EVENT`, [`claude::Claude`]).
    Claude,
    /// Codex (`hooks codex EVENT`, [`codex::Codex`]).
    Codex,
    /// Gemini CLI (`hooks gemini EVENT`, [`gemini::Gemini`]).
    Gemini,
    /// Copilot CLI (`hooks copilot EVENT`, [`copilot::Copilot`]).
    Copilot,
    /// Qwen Code (`hooks qwen EVENT`, [`qwen::Qwen`]).
    Qwen,
    /// Factory Droid (`hooks droid EVENT`, [`droid::Droid`]).
    Droid,
    /// Cursor (`hooks cursor EVENT`, [`cursor::Cursor`]; from its documentation, not verified).
    Cursor,
}

impl Agent {
    /// Every agent.
    pub const ALL: &'static [Agent] = &[
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Droid,
        Agent::Cursor,
    ];

    /// The agent's protocol.
    #[must_use]
    pub fn protocol(self) -> &'static dyn Protocol {
        match self {
            Agent::Claude => &claude::Claude,
            Agent::Codex => &codex::Codex,
            Agent::Gemini => &gemini::Gemini,
            Agent::Copilot => &copilot::Copilot,
            Agent::Qwen => &qwen::Qwen,
            Agent::Droid => &droid::Droid,
            Agent::Cursor => &cursor::Cursor,
        }
    }

    /// The agent's own name, for messages: `Claude Code` or `Codex` ([`AgentCli`]).
    #[must_use]
    pub fn display_name(self) -> &'static str {
        self.protocol().cli().display_name
    }

    /// The agent's executable on `PATH`: `claude` ([`AgentCli`]).
    #[must_use]
    pub fn executable(self) -> &'static str {
        self.protocol().cli().executable
    }

    /// The subcommand name: `claude` or `codex` ([`Protocol::name`]).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.protocol().name()
    }
}

impl std::str::FromStr for Agent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL
            .iter()
            .copied()
            .find(|agent| agent.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Agent::ALL.iter().map(|a| a.as_str()).collect();
                format!(
                    "unknown agent `{s}` (expected one of: {})",
                    known.join(", ")
                )
            })
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gating_table() {
        let events = Agent::Claude.protocol().events();
        let gating: Vec<_> = events
            .iter()
            .filter(|e| e.mapping.is_gating())
            .map(|e| e.name)
            .collect();
        assert_eq!(
            gating,
            [
                "PreToolUse",
                "PostToolUse",
                "UserPromptSubmit",
                "PreCompact"
            ]
        );
        assert!(
            Agent::Codex
                .protocol()
                .event("PostToolUseFailure")
                .is_none()
        );
    }
}
