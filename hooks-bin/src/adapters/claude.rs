//! `hooks claude EVENT`: the Claude Code command-hook adapter.
//!
//! Install it with `hooks install claude`, which adds entries like
//! `{"type": "command", "command": "/path/to/hooks", "args": ["claude", "PreToolUse"]}`
//! (exec form: no shell, no profile scripts).
//!
//! # Answers
//!
//! At most one JSON object on stdout, and none when the hooks have no opinion (printing
//! `allow` would override the user's own permission rules):
//!
//! | event | hooks decided | stdout |
//! | --- | --- | --- |
//! | `PreToolUse` | a `tool_call` handler blocked | `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":REASON}}` |
//! | `PostToolUse` | a `tool_result` handler replaced the content, output shape known | `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":OUTPUT}}`, `OUTPUT` in the tool's own shape (Bash: `{stdout, stderr, interrupted, isImage}`; see [`super::tools`]) |
//! | `PostToolUse` | the same, shape unknown | `{"decision":"block","reason":NEW_TEXT}` (Claude is prompted with the new text) |
//! | `PostToolUse` | a `tool_result` handler failed (exit 2) | `updatedToolOutput` = `[tool output withheld: ERROR]` in the tool's shape, when known |
//! | `UserPromptSubmit` | `/name args` ran a command | `{"decision":"block","reason":OUTPUT}` (shown to the user; the prompt does not reach the model) |
//! | `UserPromptSubmit`, `SessionStart` | a message to inject | `{"hookSpecificOutput":{"hookEventName":EVENT,"additionalContext":TEXT}}` |
//! | `PreCompact` | `session_before_compact` cancelled | `{"decision":"block","reason":"Compaction cancelled by a hook"}` |
//!
//! Exit codes: see [the adapter docs](super#exit-codes-both-agents). Claude Code treats exit 2
//! as a block on every gating event (stderr is the reason shown) and exit 1 as a non-blocking
//! error (the first stderr line is shown); exit 1 never blocks, which is why no failure on a
//! gating event uses it.

use std::io::Write;

use serde_json::{Value, json};

use super::{AdapterOptions, Agent, AgentEvent, Answer};
use crate::adapters::tools::join_text;
use hooks_core::events::Content;

/// Serves one Claude Code hook call: `event` is Claude's event name, `input` the bytes read
/// from stdin (see [`super::read_input`]); the answer goes to `out`, a failure line to `err`.
/// Returns the exit code.
pub fn run(
    event: &str,
    input: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
    opts: &AdapterOptions,
) -> u8 {
    super::serve(Agent::Claude, event, input, out, err, opts, encode)
}

fn hook_specific(event: AgentEvent, fields: Value) -> Value {
    let mut inner = json!({ "hookEventName": event.as_str() });
    if let (Some(inner), Value::Object(fields)) = (inner.as_object_mut(), fields) {
        inner.extend(fields);
    }
    json!({ "hookSpecificOutput": inner })
}

/// Claude Code's JSON for `answer` on `event`.
pub(crate) fn encode(event: AgentEvent, answer: &Answer) -> Option<Value> {
    match answer {
        Answer::Deny { reason } => Some(hook_specific(
            event,
            json!({ "permissionDecision": "deny", "permissionDecisionReason": reason }),
        )),
        Answer::ReplaceOutput { view, content } => Some(match view.rewrite(content) {
            Some(output) => hook_specific(event, json!({ "updatedToolOutput": output })),
            None => json!({ "decision": "block", "reason": replacement_text(content) }),
        }),
        Answer::WithholdOutput { view, reason } => {
            let notice = Content::text(format!("[tool output withheld: {reason}]"));
            view.rewrite(&[notice])
                .map(|output| hook_specific(event, json!({ "updatedToolOutput": output })))
        }
        Answer::Context { text } => {
            Some(hook_specific(event, json!({ "additionalContext": text })))
        }
        Answer::BlockPrompt { reason } | Answer::CancelCompact { reason } => {
            Some(json!({ "decision": "block", "reason": reason }))
        }
    }
}

/// The text that replaces a tool's output where only text can be sent.
pub(crate) fn replacement_text(content: &[Content]) -> String {
    let text = join_text(content);
    if text.trim().is_empty() {
        "(tool output removed by a hook)".to_owned()
    } else {
        text
    }
}
