//! Claude Code's protocol ([`Claude`]): `hooks claude EVENT`.
//!
//! Events: all of the [shared hook JSON](super::hook_json) (`PreToolUse`, `PostToolUse`,
//! `PostToolUseFailure`, `UserPromptSubmit`, `SessionStart`, `SessionEnd`, `PreCompact`,
//! `Stop`). Tool names: [`CLAUDE_TOOL_NAMES`], shared with the loader's hook files. The project
//! directory: `CLAUDE_PROJECT_DIR`.
//!
//! Install it with `hooks install claude`, which adds entries like
//! `{"type": "command", "command": "/path/to/hooks", "args": ["claude", "PreToolUse"]}` to
//! `.claude/settings.json` (exec form: no shell, no profile scripts).
//!
//! # Answers
//!
//! At most one JSON object on stdout, and none when the hooks have no opinion (printing
//! `allow` would override the user's own permission rules):
//!
//! | event | hooks decided | stdout |
//! | --- | --- | --- |
//! | `PreToolUse` | a `tool_call` handler blocked | `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":REASON}}` |
//! | `PostToolUse` | a `tool_result` handler replaced the content, and the tool's output shape carries it | `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":OUTPUT}}`, `OUTPUT` in a shape of the tool's own output schema (Bash: `{stdout, stderr, interrupted, isImage, ...}`; every built-in tool's in [`super::tool_io`]) |
//! | `PostToolUse` | the same, but the shape cannot carry it (new text next to an image in a `Read` of an image, a changed PDF, ...) | `updatedToolOutput` = the notice `[tool output withheld: a hook changed it and Claude Code's Read image output cannot carry the change]` in a shape the tool accepts, and the notice as `systemMessage` (shown to the user) |
//! | `PostToolUse` | a `tool_result` handler failed (exit 2) | the same, with the notice `[tool output withheld: ERROR]` |
//! | `PostToolUse` | either of the last two, for an output of unknown shape (a tool with no entry in [`super::tool_io`]: `Edit`, `Write`, ...) | `{"continue":false,"stopReason":NOTICE}`: no `updatedToolOutput` is sure to fit its schema, and a misfit would send the original; the agent stops before the model sees the output (it stays in the session's transcript) |
//! | `UserPromptSubmit` | `/name args` ran a command | `{"decision":"block","reason":OUTPUT,"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","suppressOriginalPrompt":true}}`: Claude Code shows `UserPromptSubmit operation blocked by hook:` and `OUTPUT` to the user, without echoing the prompt (`suppressOriginalPrompt`), and the prompt does not reach the model |
//! | `UserPromptSubmit`, `SessionStart` | a message to inject | `{"hookSpecificOutput":{"hookEventName":EVENT,"additionalContext":TEXT}}` |
//! | `PreCompact` | `session_before_compact` cancelled | `{"decision":"block","reason":"Compaction cancelled by a hook[: NOTIFIED]"}` (shown as the compaction's error) |
//! | any but `SessionEnd` | hooks notified, set the status line, or sent a message with `display: true` | the answer (or `{}`) with `"systemMessage": TEXT` (shown to the user, never to the model; Claude Code 2.1.328 showed it in `-p` on `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `Stop` and a `compact` `SessionStart`, not on a `startup` `SessionStart` nor on `PreCompact`; dropped when the prompt is blocked) |
//!
//! Exit codes: see [the adapter docs](super#exit-codes-both-agents). Claude Code treats exit 2
//! as a block on every gating event (stderr is the reason shown) and exit 1 as a non-blocking
//! error (the first stderr line is shown); exit 1 never blocks, which is why no failure on a
//! gating event uses it.

use serde_json::{Value, json};

use hookwright::loader::claude::CLAUDE_TOOL_NAMES;

use super::hook_json::{
    self, POST_TOOL_USE, POST_TOOL_USE_FAILURE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END,
    SESSION_START, STOP, USER_PROMPT_SUBMIT, block, hook_specific,
};
use super::protocol::{
    AgentCli, FailClosed, FailValue, Form, HooksSwitch, InstallShape, Layout, ProjectDir, Protocol,
    Spec,
};
use super::terms::{AgentEvent, Decision};
use super::tool_io::{ToolOutputView, Unfit};

/// Claude Code's hook protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Claude;

/// Claude Code as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "claude",
    events: &[
        PRE_TOOL_USE,
        POST_TOOL_USE,
        POST_TOOL_USE_FAILURE,
        USER_PROMPT_SUBMIT,
        SESSION_START,
        SESSION_END,
        PRE_COMPACT,
        STOP,
    ],
    tool_names: &CLAUDE_TOOL_NAMES,
    // Claude Code substitutes `${CLAUDE_PROJECT_DIR}` itself in an exec-form entry (no shell
    // runs; plain `$CLAUDE_PROJECT_DIR` is not substituted there).
    project_dir: Some(ProjectDir {
        var: "CLAUDE_PROJECT_DIR",
        spelled: "${CLAUDE_PROJECT_DIR}",
    }),
    cli: AgentCli {
        display_name: "Claude Code",
        executable: "claude",
        about_note: "",
        exit_status: "Exit status: 0 (answer on stdout, or none); 2 blocks (reason on stderr), also when the adapter fails on a gating event; 1 a failure on an observational event.",
        switch: Some(HooksSwitch::SettingsKey {
            pointer: "/disableAllHooks",
            off: true,
        }),
    },
    // Where `hooks install claude` writes: `.claude/settings.json`, exec-form entries; gating
    // entries get `"onFailure": "block"` for Claude Code 2.1.295 and later (without it a hook
    // that cannot start, crashes or times out lets the tool run).
    install: InstallShape {
        dir: ".claude",
        user_dir: None,
        file: "settings.json",
        dir_env: None,
        form: Form::Exec,
        note: None,
        layout: Layout::Groups,
        command_key: "command",
        matchers: &[],
        http: true,
        trusts_entries: false,
        fail_closed: Some(FailClosed {
            key: "onFailure",
            value: FailValue::Text("block"),
            versioned: true,
            since: [2, 1, 295],
        }),
    },
};

impl Protocol for Claude {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } => Some(hook_json::deny(event, reason)),
            Decision::ReplaceOutput { output, content } => Some(match output.rewrite(content) {
                Ok(output) => hook_specific(event, json!({ "updatedToolOutput": output })),
                Err(unfit) => withhold(event, output, &cannot_carry(&unfit)),
            }),
            Decision::WithholdOutput { output, reason } => Some(withhold(
                event,
                output,
                &format!("[tool output withheld: {reason}]"),
            )),
            Decision::Context { text } => Some(hook_json::context(event, text)),
            Decision::BlockPrompt { reason } => {
                let mut answer = block(reason);
                answer["hookSpecificOutput"] = hook_specific(
                    event,
                    json!({ "suppressOriginalPrompt": true }),
                )["hookSpecificOutput"]
                    .take();
                Some(answer)
            }
            Decision::CancelCompact { reason } => Some(block(reason)),
            // No event of this agent shows the model's request.
            Decision::ReplaceMessages { .. } => None,
        }
    }

    fn tell_user(&self, event: AgentEvent, answer: Option<Value>, text: &str) -> Option<Value> {
        hook_json::with_system_message(event, answer, text)
    }
}

/// The notice that replaces an output whose shape cannot carry a hook's change.
fn cannot_carry(unfit: &Unfit) -> String {
    format!(
        "[tool output withheld: a hook changed it and Claude Code's {} output cannot carry the change]",
        unfit.output
    )
}

/// `output` replaced by `notice` in its own shape, the user told with a `systemMessage`; for an
/// output of unknown shape, which no `updatedToolOutput` is sure to fit (Claude Code would send
/// the original), `{"continue": false}` with `notice` as the reason: the agent stops before the
/// model sees the output.
fn withhold(event: AgentEvent, output: &ToolOutputView, notice: &str) -> Value {
    match output.withheld(notice) {
        Some(output) => {
            let mut answer = hook_specific(event, json!({ "updatedToolOutput": output }));
            answer["systemMessage"] = json!(notice);
            answer
        }
        None => hook_json::stop(notice),
    }
}
