//! Qwen Code's protocol ([`Qwen`]): `hooks qwen EVENT`, verified with Qwen Code 0.24.4.
//!
//! Install it with `hooks install qwen`, which adds shell-form entries (`{"type": "command",
//! "command": "'/path/to/hooks' qwen PreToolUse"}`; Qwen runs them as `bash -c`) to
//! `.qwen/settings.json` or `~/.qwen/settings.json`. A project's hooks run with no question
//! unless folder trust is on (`security.folderTrust.enabled`) and the folder untrusted; then
//! they are skipped without a word. Qwen Code has no fail-closed switch: only exit 2 blocks,
//! and a hook that cannot start, crashes or times out lets the call run.
//!
//! The input is the [shared hook JSON](super::hook_json); tool results are
//! decoded as `llmContent` (as Gemini's). Tool names: [`QWEN_TOOL_NAMES`].
//!
//! # Events and answers
//!
//! | event | ours | a decision is answered with |
//! | --- | --- | --- |
//! | `PreToolUse` | `tool_call` | `hookSpecificOutput.permissionDecision: "deny"` + reason: the model gets the reason verbatim |
//! | `PostToolUse` | `tool_result` | new content → `{"continue":false,"stopReason":TEXT}`: Qwen replaces the result with `TEXT` and the turn goes on (`decision:"block"` and `updatedToolOutput` are ignored) |
//! | `PostToolUseFailure` | `tool_result` with `isError: true` (`error` as its content; result ignored) | none |
//! | `UserPromptSubmit` with `submitted_prompt` | a command / `before_agent_start` | a command's output → `{"decision":"block","reason":OUTPUT}` (no model call; `qwen -p` shows the reason nowhere); a message → `hookSpecificOutput.additionalContext` (its own tagged part of the prompt) |
//! | `UserPromptSubmit` without `submitted_prompt` | nothing: Qwen fires it again for each model send that is no user's prompt (a tool result, `prompt: ""`) | none |
//! | `SessionStart` | `session_start` | a message → `hookSpecificOutput.additionalContext` (appended to the system prompt) |
//! | `SessionEnd` | `session_shutdown` (it does not fire in `qwen -p`) | none |
//! | `PreCompact` | `session_before_compact` (`preparation.trigger` = `manual` for `/compress`, else `auto`; `customInstructions`) | none: Qwen Code cannot hold a compaction (it reads only `additionalContext`, as more instructions for the summary), so the handlers observe it and a `cancel` holds nothing |
//! | `Stop` | `agent_end` (`last_assistant_message`) | none |
//!
//! # Exit codes
//!
//! As in [the adapter docs](super#exit-codes-both-agents), with one difference: Qwen Code
//! reads no stdout on exit 2 and lets the output through, so a failing `PostToolUse` exits 0
//! with the output withheld (`continue: false` with a `[tool output withheld: LINE]` notice,
//! [`Protocol::failure_answer`]); with exit 2 the original output would reach the model.

use serde::Deserialize;
use serde_json::Value;

use hookwright::tool_names::ToolNames;

use super::hook_json::{
    self, POST_TOOL_USE, POST_TOOL_USE_FAILURE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END,
    SESSION_START, STOP, USER_PROMPT_SUBMIT, block, replacement_text,
};
use super::llm_content;
use super::protocol::{AgentCli, Form, InstallShape, Layout, ProjectDir, Protocol, Spec};
use super::terms::{AgentEvent, Call, Decision, Mapping, Request};
use crate::json::{self, InputError};

/// Qwen Code's hook protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Qwen;

/// Qwen Code's tool names that differ from ours.
pub const QWEN_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("run_shell_command", "bash"),
    ("read_file", "read"),
    ("write_file", "write"),
    ("edit", "edit"),
    ("grep_search", "grep"),
    ("glob", "find"),
    ("list_directory", "ls"),
]);

/// Qwen Code as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "qwen",
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
    tool_names: &QWEN_TOOL_NAMES,
    // Exported, expanded by the `bash -c` it runs the command with: double-quoted.
    project_dir: Some(ProjectDir {
        var: "QWEN_PROJECT_DIR",
        spelled: "\"$QWEN_PROJECT_DIR\"",
    }),
    cli: AgentCli {
        display_name: "Qwen Code",
        executable: "qwen",
        about_note: "",
        exit_status: "Exit status: 0 (answer on stdout, or none; also a failing PostToolUse, whose answer withholds the output, since Qwen Code reads no answer on exit 2); 2 blocks (reason on stderr), when the adapter fails on another gating event; 1 a failure on an observational event.",
        switch: None,
    },
    // Where `hooks install qwen` writes: `.qwen/settings.json`, shell-form entries.
    install: InstallShape {
        dir: ".qwen",
        user_dir: None,
        file: "settings.json",
        dir_env: None,
        form: Form::Shell,
        note: Some(
            "Qwen Code skips a project's hooks without a word when folder trust is on \
             (security.folderTrust.enabled) and the folder is not trusted.",
        ),
        layout: Layout::Groups,
        command_key: "command",
        matchers: &[],
        http: false,
        trusts_entries: false,
        fail_closed: None,
    },
};

impl Protocol for Qwen {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn decode(&self, event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
        let mut request = hook_json::decode(event, input, &QWEN_TOOL_NAMES)?;
        request.call = match request.call {
            Call::Prompt(_) => {
                let submitted: Submitted = json::decode_object(input, "stdin")?;
                submitted.submitted_prompt.map_or(Call::None, Call::Prompt)
            }
            other => llm_content::read(other),
        };
        Ok(request)
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } => Some(hook_json::deny(event, reason)),
            Decision::ReplaceOutput { content, .. } => {
                Some(hook_json::stop(&replacement_text(content)))
            }
            Decision::WithholdOutput { reason, .. } => Some(hook_json::stop(&format!(
                "[tool output withheld: {reason}]"
            ))),
            Decision::Context { text } => Some(hook_json::context(event, text)),
            Decision::BlockPrompt { reason } => Some(block(reason)),
            // Qwen Code cannot hold a compaction; it has no model-request event.
            Decision::CancelCompact { .. } | Decision::ReplaceMessages { .. } => None,
        }
    }

    /// A failed `PostToolUse` answers the output withheld, with exit 0: Qwen Code reads no
    /// answer on exit 2 and lets the output through.
    fn failure_answer(&self, event: AgentEvent, line: &str) -> Option<Value> {
        (event.mapping == Mapping::ToolResult)
            .then(|| hook_json::stop(&format!("[tool output withheld: {line}]")))
    }
}

/// The prompt a user submitted, which only a user's prompt has.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Submitted {
    submitted_prompt: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qwen_shell_tool_is_bash_both_ways() {
        assert_eq!(QWEN_TOOL_NAMES.ours("run_shell_command"), "bash");
        assert_eq!(QWEN_TOOL_NAMES.theirs("bash"), "run_shell_command");
        assert_eq!(QWEN_TOOL_NAMES.theirs("read"), "read_file");
    }
}
