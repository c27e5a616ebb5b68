//! Copilot CLI's protocol ([`Copilot`]): `hooks copilot EVENT`, verified with Copilot CLI
//! 1.0.102, in Copilot's own hook format (camelCase events and inputs).
//!
//! Install it with `hooks install copilot`, which adds shell-form entries
//! (`{"type": "command", "bash": "'/path/to/hooks' copilot preToolUse"}`; Copilot runs them
//! as `bash -c`) to `.github/hooks/hooks.json` in a project or `~/.copilot/hooks/hooks.json`
//! (`$COPILOT_HOME/hooks/hooks.json`), `{"version": 1, "hooks": {event: [ENTRY, ...]}}`.
//! Copilot CLI loads a project's hooks only in a trusted folder (`--trust-folder`, or
//! `COPILOT_ALLOW_ALL=true`); untrusted, it skips them without a word. It needs no
//! fail-closed switch on `preToolUse`: every non-zero exit (and a missing binary) denies the
//! call there; only a timeout lets it run.
//!
//! # Input
//!
//! `sessionId`, `cwd`; `toolName` and `toolArgs` on tool events (`toolArgs` is documented as a
//! JSON string and arrives as an object in 1.0.102: both are accepted, a string must hold an
//! object); `toolResult {resultType, textResultForLlm}` on `postToolUse`, whose
//! `textResultForLlm` is the result's content (a `resultType` other than `success` is a failed
//! tool); `prompt` on `userPromptSubmitted`. Copilot's Claude-format input (it has
//! `hook_event_name`) is refused with an error naming the format. Tool names:
//! [`COPILOT_TOOL_NAMES`].
//!
//! # Events and answers
//!
//! | event | ours | a decision is answered with |
//! | --- | --- | --- |
//! | `preToolUse` | `tool_call` | `{"permissionDecision":"deny","permissionDecisionReason":R}`: the model gets `Denied by preToolUse hook: R` |
//! | `postToolUse` | `tool_result` | new content → `{"modifiedResult":{"resultType":TYPE,"textResultForLlm":TEXT}}`: the model gets exactly `TEXT` |
//! | `userPromptSubmitted` | a command / `before_agent_start` | a command's output → `{"decision":"block","reason":OUTPUT}` (no model call; `copilot -p` shows `OUTPUT` as a `policy_blocked` warning and exits 1); a message → `{"additionalContext":TEXT}` |
//! | `sessionStart` | `session_start` | a message → `{"additionalContext":TEXT}` (a user message before the prompt) |
//! | `sessionEnd` | `session_shutdown` | none |
//! | `agentStop` | `agent_end` (no message: the input has none) | none |
//!
//! `preCompact` is not served: Copilot CLI 1.0.102 documents it as unable to block a
//! compaction, and its input (built in the native runtime, not in the bundled JS) was never
//! seen: no run here compacted, so there is nothing verified to map onto
//! `session_before_compact`.
//!
//! # Exit codes
//!
//! The adapter's failures follow [the adapter docs](super#exit-codes-both-agents), but for
//! the tool events: Copilot drops a failing hook's stderr, so a failing `preToolUse` answers a
//! deny whose reason is the failure line, and a failing `postToolUse` the output withheld in
//! `modifiedResult`, both with exit 0 ([`Protocol::failure_answer`]); the model gets `Denied
//! by preToolUse hook: hooks copilot preToolUse: ...` rather than `hook exited with code 2`.
//! Over `hooks serve`'s `/copilot/EVENT` (Copilot's `"type": "http"` hooks) these are the
//! same 200 answers, and a failure that exits 2 (`userPromptSubmitted`, an unknown event)
//! answers 200 with `{"decision":"block","reason":LINE}` ([`Protocol::http_block`]).

use serde::Deserialize;
use serde_json::{Value, json};

use hookwright::events::{AgentEndEvent, ToolCallEvent, ToolInput, ToolResultEvent};
use hookwright::tool_names::ToolNames;

use super::hook_json::replacement_text;
use super::protocol::{AgentCli, Form, InstallShape, Layout, ProjectDir, Protocol, Spec};
use super::terms::{
    AgentEvent, Call, Decision, Mapping, Request, StartSource, invalid, missing, object_or_json,
};
use super::tool_io::{self, ToolOutputView};
use crate::json::{self, InputError};

/// Copilot CLI's hook protocol (its own format).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copilot;

/// `preToolUse`: before a tool runs.
pub const PRE_TOOL_USE: AgentEvent = AgentEvent::new("preToolUse", Mapping::ToolCall);
/// `postToolUse`: after a tool ran.
pub const POST_TOOL_USE: AgentEvent = AgentEvent::new("postToolUse", Mapping::ToolResult);
/// `userPromptSubmitted`: a prompt was submitted.
pub const USER_PROMPT_SUBMITTED: AgentEvent =
    AgentEvent::new("userPromptSubmitted", Mapping::Prompt);
/// `sessionStart`: a session started.
pub const SESSION_START: AgentEvent = AgentEvent::new("sessionStart", Mapping::SessionStart);
/// `sessionEnd`: a session ended.
pub const SESSION_END: AgentEvent = AgentEvent::new("sessionEnd", Mapping::SessionEnd);
/// `agentStop`: the agent finished responding.
pub const AGENT_STOP: AgentEvent = AgentEvent::new("agentStop", Mapping::AgentEnd);

/// Copilot CLI's tool names that differ from ours (`bash`, `edit` and `grep` are ours too).
pub const COPILOT_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("bash", "bash"),
    ("view", "read"),
    ("create", "write"),
    ("edit", "edit"),
    ("grep", "grep"),
    ("glob", "find"),
]);

/// The variable Copilot CLI reads its config directory from (default `~/.copilot`).
pub const COPILOT_HOME_ENV: &str = "COPILOT_HOME";

/// Copilot CLI as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "copilot",
    events: &[
        PRE_TOOL_USE,
        POST_TOOL_USE,
        USER_PROMPT_SUBMITTED,
        SESSION_START,
        SESSION_END,
        AGENT_STOP,
    ],
    tool_names: &COPILOT_TOOL_NAMES,
    // Exported, expanded by the `bash` it runs the command with: double-quoted.
    project_dir: Some(ProjectDir {
        var: "COPILOT_PROJECT_DIR",
        spelled: "\"$COPILOT_PROJECT_DIR\"",
    }),
    cli: AgentCli {
        display_name: "Copilot CLI",
        executable: "copilot",
        about_note: " (its own format)",
        exit_status: "Exit status: 0 (answer on stdout, or none; also a failing preToolUse or postToolUse, whose answer denies the call or withholds the output, since Copilot CLI drops stderr and lets a failed postToolUse through); 2 a failure on another gating event; 1 a failure on an observational event.",
        switch: None,
    },
    // Where `hooks install copilot` writes: `.github/hooks/hooks.json` in a project,
    // `~/.copilot/hooks/hooks.json` for the user; shell-form entries under `bash`.
    install: InstallShape {
        dir: ".github",
        user_dir: Some(".copilot"),
        file: "hooks/hooks.json",
        dir_env: Some(COPILOT_HOME_ENV),
        form: Form::Shell,
        note: Some(
            "Copilot CLI loads a project's .github/hooks only in a trusted folder: trust the folder \
             when Copilot asks (a prompt-mode run needs --trust-folder or COPILOT_ALLOW_ALL=true); \
             untrusted, the hooks are skipped without a word.",
        ),
        layout: Layout::Versioned,
        command_key: "bash",
        matchers: &[],
        http: false,
        trusts_entries: false,
        fail_closed: None,
    },
};

impl Protocol for Copilot {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn decode(&self, event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
        decode(event, input)
    }

    fn encode(&self, _event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } => Some(deny(reason)),
            Decision::ReplaceOutput { output, content } => {
                Some(modified_result(output, &replacement_text(content)))
            }
            Decision::WithholdOutput { output, reason } => Some(modified_result(
                output,
                &format!("[tool output withheld: {reason}]"),
            )),
            Decision::Context { text } => Some(json!({ "additionalContext": text })),
            Decision::BlockPrompt { reason } => {
                Some(json!({ "decision": "block", "reason": reason }))
            }
            Decision::CancelCompact { .. } | Decision::ReplaceMessages { .. } => None,
        }
    }

    /// A failed `preToolUse` answers a deny holding the failure line, and a failed
    /// `postToolUse` the output withheld: Copilot CLI drops stderr on a failure, and lets a
    /// failed `postToolUse`'s output through.
    fn failure_answer(&self, event: AgentEvent, line: &str) -> Option<Value> {
        match event.mapping {
            Mapping::ToolCall => Some(deny(line)),
            Mapping::ToolResult => Some(json!({ "modifiedResult": {
                "resultType": "failure",
                "textResultForLlm": format!("[tool output withheld: {line}]"),
            }})),
            _ => None,
        }
    }
}

/// `{"permissionDecision": "deny", "permissionDecisionReason": REASON}`.
fn deny(reason: &str) -> Value {
    json!({ "permissionDecision": "deny", "permissionDecisionReason": reason })
}

/// `{"modifiedResult": {"resultType": TYPE, "textResultForLlm": TEXT}}`, `TYPE` the
/// result's own.
fn modified_result(output: &ToolOutputView, text: &str) -> Value {
    let result_type = output.original()["resultType"]
        .as_str()
        .unwrap_or("success");
    json!({ "modifiedResult": { "resultType": result_type, "textResultForLlm": text } })
}

/// The fields of the input read (see the [module docs](self)).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct CopilotInput {
    /// Any type; only a string is used.
    session_id: Option<Value>,
    cwd: Option<String>,
    tool_name: Option<String>,
    tool_args: Option<Value>,
    tool_result: Option<ToolResult>,
    prompt: Option<String>,
    /// `sessionStart`'s `new`, `resume`, ...
    source: Option<String>,
    /// Only in Copilot's Claude format, which this adapter does not speak.
    #[serde(rename = "hook_event_name")]
    hook_event_name: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ToolResult {
    result_type: Option<String>,
    text_result_for_llm: Option<String>,
}

fn decode(event: AgentEvent, bytes: &[u8]) -> Result<Request, InputError> {
    let input: CopilotInput = json::decode_object(bytes, "stdin")?;
    if input.hook_event_name.is_some() {
        return Err(invalid(format!(
            "this is Copilot CLI's Claude-format input (it has `hook_event_name`), but `hooks \
             copilot {event}` reads Copilot's own format; install with `hooks install copilot`"
        )));
    }
    let call = match event.mapping {
        Mapping::ToolCall => {
            let (tool_name, input) = tool_call(&input, event)?;
            Call::ToolCall(ToolCallEvent {
                tool_name,
                tool_call_id: String::new(),
                input,
            })
        }
        Mapping::ToolResult => {
            let (tool_name, tool_input) = tool_call(&input, event)?;
            let result = input
                .tool_result
                .as_ref()
                .ok_or_else(|| missing("toolResult", event))?;
            let result_type = result.result_type.as_deref().unwrap_or("success");
            let text = result.text_result_for_llm.clone().unwrap_or_default();
            // The text is the content (one text block); the result type rides along for the
            // rewrite.
            let output = ToolOutputView::new(
                input.tool_name.as_deref().unwrap_or_default(),
                json!({ "content": [{ "type": "text", "text": text }], "resultType": result_type }),
            );
            Call::ToolResult {
                event: ToolResultEvent {
                    tool_name,
                    tool_call_id: String::new(),
                    input: tool_input,
                    content: output.content().to_vec(),
                    details: Some(json!({
                        "resultType": result_type,
                        "textResultForLlm": text,
                    })),
                    is_error: Some(result_type != "success"),
                    is_warning: None,
                },
                output,
            }
        }
        Mapping::Prompt => Call::Prompt(
            input
                .prompt
                .clone()
                .ok_or_else(|| missing("prompt", event))?,
        ),
        Mapping::SessionStart => {
            Call::SessionStart(StartSource::from_agent(input.source.as_deref()))
        }
        Mapping::SessionEnd => Call::SessionEnd,
        Mapping::AgentEnd => Call::AgentEnd(AgentEndEvent {
            messages: Vec::new(),
        }),
        Mapping::ToolFailure | Mapping::Compact | Mapping::Context => {
            return Err(invalid(format!(
                "{event} is not a Copilot CLI event this adapter reads"
            )));
        }
    };
    Ok(Request {
        session_id: match input.session_id {
            Some(Value::String(id)) => Some(id),
            _ => None,
        },
        cwd: input.cwd,
        call,
    })
}

/// The tool call's name and input in our terms: `toolArgs` an object, or a JSON string holding
/// one (decoded with the same bounds as stdin).
fn tool_call(input: &CopilotInput, event: AgentEvent) -> Result<(String, ToolInput), InputError> {
    let name = input
        .tool_name
        .as_deref()
        .ok_or_else(|| missing("toolName", event))?;
    let args = object_or_json(input.tool_args.as_ref(), "toolArgs")?
        .ok_or_else(|| missing("toolArgs", event))?;
    let name = COPILOT_TOOL_NAMES.ours(name);
    let input = tool_io::canonical_input(&name, args);
    Ok((name, input))
}
