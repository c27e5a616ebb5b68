//! `hooks codex EVENT`: the Codex command-hook adapter.
//!
//! Install it with `hooks install codex`, which adds entries like
//! `{"type": "command", "command": "'/path/to/hooks' codex PreToolUse"}` to `.codex/hooks.json`
//! (Codex runs `command` through a shell; the path is quoted). Codex runs a new or changed
//! hook only after the user trusts it in `/hooks`.
//!
//! Served events: `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `SessionStart`,
//! `SessionEnd`, `PreCompact`, `Stop` (Codex has no `PostToolUseFailure`; it runs
//! `PostToolUse` after failing Bash commands too). Tool names: `Bash` → `bash`, `apply_patch`
//! stays `apply_patch` (its input is `{"command": PATCH}`); see [`super::tools`].
//!
//! # Answers
//!
//! Where Codex differs from Claude Code:
//!
//! - `allow` is accepted only together with `updatedInput`, and our hooks never rewrite input,
//!   so the adapter never prints `allow`: no opinion is empty stdout.
//! - `PostToolUse` has no `updatedToolOutput`: new content is sent as
//!   `{"decision":"block","reason":NEW_TEXT}`, which makes Codex replace the tool result with
//!   `reason`.
//! - A cancelled compaction is `{"continue":false,"stopReason":"Compaction cancelled by a hook"}`.
//! - Exit 2 blocks only with a non-empty stderr; the adapter's failure line is never empty. On
//!   `PostToolUse` exit 2 makes Codex replace the tool result with the stderr reason, so a
//!   failing redaction hook withholds the output without any stdout.
//!
//! The rest is as for Claude Code: `permissionDecision: "deny"` for a blocked tool call,
//! `decision: "block"` with the command's output for `/name args`, `additionalContext` for
//! injected messages. Exit codes: see [the adapter docs](super#exit-codes-both-agents).

use std::io::Write;

use serde_json::{Value, json};

use hooks_core::events::DEFAULT_BLOCK_REASON;
use hooks_core::tool_names::ToolNames;

use super::claude::replacement_text;
use super::{AdapterOptions, Agent, AgentEvent, Answer};

/// Codex's tool names that differ from ours: every shell tool is `bash`; `apply_patch` keeps
/// its name (its input is a patch, not an `edit` input).
pub const CODEX_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("Bash", "bash"),
    ("exec_command", "bash"),
    ("shell", "bash"),
    ("local_shell", "bash"),
    ("apply_patch", "apply_patch"),
]);

/// Serves one Codex hook call: `event` is Codex's event name, `input` the bytes read from
/// stdin (see [`super::read_input`]); the answer goes to `out`, a failure line to `err`.
/// Returns the exit code.
pub fn run(
    event: &str,
    input: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
    opts: &AdapterOptions,
) -> u8 {
    super::serve(Agent::Codex, event, input, out, err, opts, encode)
}

/// Codex's JSON for `answer` on `event`.
pub(crate) fn encode(event: AgentEvent, answer: &Answer) -> Option<Value> {
    match answer {
        Answer::Deny { reason } => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": event.as_str(),
                "permissionDecision": "deny",
                "permissionDecisionReason": deny_reason(reason),
            }
        })),
        Answer::ReplaceOutput { content, .. } => Some(json!({
            "decision": "block",
            "reason": replacement_text(content),
        })),
        Answer::WithholdOutput { .. } => None,
        Answer::Context { text } => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": event.as_str(),
                "additionalContext": text,
            }
        })),
        Answer::BlockPrompt { reason } => Some(json!({ "decision": "block", "reason": reason })),
        Answer::CancelCompact { reason } => {
            Some(json!({ "continue": false, "stopReason": reason }))
        }
    }
}

/// `reason` as Codex reads a deny: Codex ignores a deny whose reason is blank, and runs the
/// tool, so a reason of only whitespace is sent as [`DEFAULT_BLOCK_REASON`].
fn deny_reason(reason: &str) -> &str {
    if reason.trim().is_empty() {
        DEFAULT_BLOCK_REASON
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_shell_tools_are_bash_and_apply_patch_keeps_its_name() {
        assert_eq!(CODEX_TOOL_NAMES.ours("apply_patch"), "apply_patch");
        assert_eq!(CODEX_TOOL_NAMES.ours("exec_command"), "bash");
        assert_eq!(CODEX_TOOL_NAMES.theirs("bash"), "Bash");
    }
}
