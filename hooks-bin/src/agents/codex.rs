//! Codex's protocol ([`Codex`]): `hooks codex EVENT`.
//!
//! Install it with `hooks install codex`, which adds entries like
//! `{"type": "command", "command": "'/path/to/hooks' codex PreToolUse"}` to `.codex/hooks.json`
//! (Codex runs `command` through a shell; the path is quoted). Codex runs a new or changed
//! hook only after the user trusts it in `/hooks` (or `hooks install codex --trust` wrote
//! that trust into `config.toml`), and skips an untrusted one silently.
//!
//! Served events: `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `SessionStart`,
//! `SessionEnd`, `PreCompact`, `Stop` (Codex has no `PostToolUseFailure`; it runs
//! `PostToolUse` after failing Bash commands too). Tool names: `Bash` → `bash`, `apply_patch`
//! stays `apply_patch` (its input is `{"command": PATCH}`): [`CODEX_TOOL_NAMES`]; see
//! [`super::tool_io`].
//!
//! # Answers
//!
//! Where Codex differs from Claude Code:
//!
//! - `allow` is accepted only together with `updatedInput`, and our hooks never rewrite input,
//!   so the adapter never prints `allow`: no opinion is empty stdout.
//! - `PostToolUse` has no `updatedToolOutput`: new content is sent as
//!   `{"decision":"block","reason":NEW_TEXT}`, which makes Codex replace the tool result with
//!   `reason`, for every tool whose call fires `PostToolUse` (`exec_command`, and a
//!   `write_stdin` that sees the command end, both as `Bash`; `view_image`). `NEW_TEXT` is the
//!   text chunks; other chunks (an image) cannot be carried by text and are withheld, with a
//!   line saying so.
//! - A cancelled compaction is `{"continue":false,"stopReason":"Compaction cancelled by a hook"}`,
//!   the only answer that holds a compaction in Codex 0.169.0 (it also ends the turn). A
//!   failure on `PreCompact` answers the same, with the failure line as `stopReason`, and exits
//!   0: Codex compacts after any exit code, 2 included.
//! - A deny whose reason is blank is ignored (Codex runs the tool), so a reason of only
//!   whitespace is sent as the default block reason.
//! - Exit 2 blocks only with a non-empty stderr; the adapter's failure line is never empty. On
//!   `PostToolUse` exit 2 makes Codex replace the tool result with the stderr reason, so a
//!   failing redaction hook withholds the output without any stdout.
//!
//! The rest is as for Claude Code: `permissionDecision: "deny"` for a blocked tool call,
//! `decision: "block"` with the command's output for `/name args`, `additionalContext` for
//! injected messages. Exit codes: see [the adapter docs](super#exit-codes-both-agents).

use serde_json::Value;

use hookwright::events::DEFAULT_BLOCK_REASON;
use hookwright::tool_names::ToolNames;

use super::hook_json::{
    self, POST_TOOL_USE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END, SESSION_START, STOP,
    USER_PROMPT_SUBMIT, block, replacement_text,
};
use super::protocol::{AgentCli, Form, HooksSwitch, InstallShape, Layout, Protocol, Spec};
use super::terms::{AgentEvent, Decision, Mapping};

/// Codex's hook protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Codex;

/// Codex's tool names that differ from ours: every shell tool is `bash`; `apply_patch` keeps
/// its name (its input is a patch, not an `edit` input).
pub const CODEX_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("Bash", "bash"),
    ("exec_command", "bash"),
    ("shell", "bash"),
    ("local_shell", "bash"),
    ("apply_patch", "apply_patch"),
]);

/// The environment variable Codex reads its config directory from (default `~/.codex`).
pub const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// Codex as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "codex",
    events: &[
        PRE_TOOL_USE,
        POST_TOOL_USE,
        USER_PROMPT_SUBMIT,
        SESSION_START,
        SESSION_END,
        PRE_COMPACT,
        STOP,
    ],
    tool_names: &CODEX_TOOL_NAMES,
    // Codex sets none; started in a subdirectory it loads the project's `.codex/hooks.json`
    // and runs the hook there (measured: cwd `proj/sub`), where a relative path would name a
    // file of that subdirectory.
    project_dir: None,
    cli: AgentCli {
        display_name: "Codex",
        executable: "codex",
        about_note: "",
        exit_status: "Exit status: 0 (answer on stdout, or none); 2 blocks (reason on stderr), also when the adapter fails on a gating event; 1 a failure on an observational event.",
        switch: Some(HooksSwitch::CodexFeature),
    },
    // Where `hooks install codex` writes: `.codex/hooks.json` (or `$CODEX_HOME/hooks.json`),
    // shell-form entries (Codex runs `command` through a shell).
    install: InstallShape {
        dir: ".codex",
        user_dir: None,
        file: "hooks.json",
        dir_env: Some(CODEX_HOME_ENV),
        form: Form::Shell,
        note: Some(
            "Codex runs new or changed hooks only after you trust them, and skips the others \
             without a word: open /hooks in Codex to review and trust them, or install again with \
             --trust to trust exactly these entries; an unattended `codex exec \
             --dangerously-bypass-hook-trust` runs hooks without trust.",
        ),
        layout: Layout::Groups,
        command_key: "command",
        matchers: &[],
        http: false,
        trusts_entries: true,
        fail_closed: None,
    },
};

impl Protocol for Codex {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } => Some(hook_json::deny(event, deny_reason(reason))),
            Decision::ReplaceOutput { content, .. } => Some(block(&replacement_text(content))),
            Decision::WithholdOutput { .. } => None,
            Decision::Context { text } => Some(hook_json::context(event, text)),
            Decision::BlockPrompt { reason } => Some(block(reason)),
            Decision::CancelCompact { reason } => Some(hook_json::stop(reason)),
            // No event of this agent shows the model's request.
            Decision::ReplaceMessages { .. } => None,
        }
    }

    fn tell_user(&self, event: AgentEvent, answer: Option<Value>, text: &str) -> Option<Value> {
        hook_json::with_system_message(event, answer, text)
    }

    /// Codex compacts after a failing `PreCompact` hook, whatever its exit code (exit 2
    /// included); only `continue: false` holds a compaction, so a failure answers that.
    fn failure_answer(&self, event: AgentEvent, line: &str) -> Option<Value> {
        (event.mapping == Mapping::Compact).then(|| hook_json::stop(line))
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
