//! Factory Droid's protocol ([`Droid`]): `hooks droid EVENT`, verified with Factory Droid
//! 0.225.2.
//!
//! Install it with `hooks install droid`, which adds shell-form entries (`{"type": "command",
//! "command": "'/path/to/hooks' droid PreToolUse"}`; Droid runs them as `sh -c`) to
//! `.factory/settings.json` or `~/.factory/settings.json`. A project's hooks run with no trust
//! step. Droid has no fail-closed switch: exit 2 blocks (exit 3 aborts the agent), and a hook
//! that cannot start or times out lets the call run.
//!
//! The input is the [shared hook JSON](super::hook_json) (a tool's `tool_response` is a plain
//! string). Tool names: [`DROID_TOOL_NAMES`].
//!
//! # Events and answers
//!
//! | event | ours | a decision is answered with |
//! | --- | --- | --- |
//! | `PreToolUse` | `tool_call` | `hookSpecificOutput.permissionDecision: "deny"` + reason: the model gets `Error: R` |
//! | `PostToolUse` | `tool_result` | new content → `{"continue":false,"stopReason":...}`: Droid cannot replace a tool's result (`decision:"block"` and `updatedToolOutput` are ignored), so a rewrite withholds the result by ending the run before the model sees it |
//! | `UserPromptSubmit` | a command / `before_agent_start` | a command's output → `{"decision":"block","reason":OUTPUT}`; a message → `hookSpecificOutput.additionalContext` (`droid exec` never fires this event: a `/name` prompt goes to the model) |
//! | `SessionStart` | `session_start` | a message → `hookSpecificOutput.additionalContext` (the first user message) |
//! | `SessionEnd` | `session_shutdown` | none |
//! | `PreCompact` | `session_before_compact` (`preparation.trigger`: Droid sends `manual` when the compaction has custom instructions, else `auto`; `customInstructions`) | `cancel` → exit 2 with `Compaction cancelled by a hook[: NOTIFIED]` on stderr ([`Protocol::exit_reason`]): Droid reads only a `PreCompact` hook's exit code, and 2 (or 3) keeps the messages as they are |
//! | `Stop` | `agent_end` (no message: the input has none) | none |
//!
//! Droid masks some key formats in tool output itself, before any hook sees it (0.225.2: a
//! long `sk-...` key, a `ghp_...` token), but not others (`API_KEY=sk-12345` reached hooks and
//! the model unmasked): the redactor is not redundant.
//!
//! # Exit codes
//!
//! As in [the adapter docs](super#exit-codes-both-agents), except on `PostToolUse`: there Droid
//! gives an exit 2's stderr to the model and lets the output through, so a failure exits 0
//! and ends the run with `continue: false` ([`Protocol::failure_answer`]).

use serde_json::Value;

use hookwright::tool_names::ToolNames;

use super::hook_json::{
    self, POST_TOOL_USE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END, SESSION_START, STOP,
    USER_PROMPT_SUBMIT, block,
};
use super::protocol::{AgentCli, Form, InstallShape, Layout, ProjectDir, Protocol, Spec};
use super::terms::{AgentEvent, Decision, Mapping};

/// Factory Droid's hook protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Droid;

/// Factory Droid's tool names that differ from ours.
pub const DROID_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("Execute", "bash"),
    ("Read", "read"),
    ("Create", "write"),
    ("Edit", "edit"),
    ("Grep", "grep"),
    ("Glob", "find"),
    ("LS", "ls"),
]);

/// What the run ends with when a tool's output was rewritten or withheld (Droid shows it
/// nowhere; the model never sees the output).
pub const WITHHELD: &str =
    "tool output withheld by a hook: Factory Droid cannot replace a tool result, so the run ends";

/// Factory Droid as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "droid",
    events: &[
        PRE_TOOL_USE,
        POST_TOOL_USE,
        USER_PROMPT_SUBMIT,
        SESSION_START,
        SESSION_END,
        PRE_COMPACT,
        STOP,
    ],
    tool_names: &DROID_TOOL_NAMES,
    // Exported, expanded by the `sh -c` it runs the command with: double-quoted.
    project_dir: Some(ProjectDir {
        var: "FACTORY_PROJECT_DIR",
        spelled: "\"$FACTORY_PROJECT_DIR\"",
    }),
    cli: AgentCli {
        display_name: "Factory Droid",
        executable: "droid",
        about_note: "",
        exit_status: "Exit status: 0 (answer on stdout, or none; also a failing PostToolUse, whose answer ends the run before the model sees the output); 2 blocks (reason on stderr), when the adapter fails on another gating event; 1 a failure on an observational event.",
        switch: None,
    },
    // Where `hooks install droid` writes: `.factory/settings.json`, shell-form entries.
    install: InstallShape {
        dir: ".factory",
        user_dir: None,
        file: "settings.json",
        dir_env: None,
        form: Form::Shell,
        note: None,
        layout: Layout::Groups,
        command_key: "command",
        matchers: &[],
        http: false,
        trusts_entries: false,
        fail_closed: None,
    },
};

impl Protocol for Droid {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } => Some(hook_json::deny(event, reason)),
            Decision::ReplaceOutput { .. } => Some(hook_json::stop(WITHHELD)),
            Decision::WithholdOutput { reason, .. } => {
                Some(hook_json::stop(&format!("{WITHHELD} ({reason})")))
            }
            Decision::Context { text } => Some(hook_json::context(event, text)),
            Decision::BlockPrompt { reason } => Some(block(reason)),
            // A cancel is the exit code (`exit_reason`); Droid has no model-request event.
            Decision::CancelCompact { .. } | Decision::ReplaceMessages { .. } => None,
        }
    }

    /// A cancelled compaction exits 2 with its reason: Droid reads nothing else of a
    /// `PreCompact` hook.
    fn exit_reason(&self, _event: AgentEvent, decision: &Decision) -> Option<String> {
        match decision {
            Decision::CancelCompact { reason } => Some(reason.clone()),
            _ => None,
        }
    }

    /// A failed `PostToolUse` ends the run before the model sees the output, with exit 0:
    /// Droid shows an exit 2's stderr to the model and lets the output through.
    fn failure_answer(&self, event: AgentEvent, line: &str) -> Option<Value> {
        (event.mapping == Mapping::ToolResult)
            .then(|| hook_json::stop(&format!("{WITHHELD} ({line})")))
    }
}
