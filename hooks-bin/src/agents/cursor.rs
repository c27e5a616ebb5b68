//! Cursor's protocol ([`Cursor`]): `hooks cursor EVENT`, written from Cursor's hook
//! documentation (as digested in INTEROP.md and the integrations it cites) and **not verified
//! against a Cursor binary**: no Cursor CLI package is reachable to test with.
//!
//! Install it with `hooks install cursor`, which adds shell-form entries (`{"type": "command",
//! "command": "'/path/to/hooks' cursor beforeShellExecution", "failClosed": true}`) to
//! `.cursor/hooks.json` or `~/.cursor/hooks.json`, `{"version": 1, "hooks": {event: [ENTRY,
//! ...]}}`. `failClosed: true`, on the gating events, is Cursor's own switch: a hook that
//! cannot start, crashes or times out then blocks instead of letting the action run.
//!
//! # Input
//!
//! Common: `conversation_id` (the session; `session_id` where Cursor sends one),
//! `hook_event_name` (when present it must be the event the adapter was started for),
//! `workspace_roots` (the first is the working directory unless the event has a `cwd`).
//! `beforeShellExecution` `{command, cwd}`; `beforeMCPExecution` `{tool_name, tool_input}`
//! (`tool_input` an object or a JSON string holding one); `beforeReadFile` `{file_path,
//! content}`; `beforeSubmitPrompt` `{prompt}`. Tool names: [`CURSOR_TOOL_NAMES`].
//!
//! # Events and answers
//!
//! Every answer is one JSON object; no opinion is `{}`.
//!
//! | event | ours | a decision is answered with |
//! | --- | --- | --- |
//! | `beforeShellExecution` | `tool_call` of `bash` (`{command, cwd}`) | `{"permission":"deny","user_message":R,"agent_message":R}` |
//! | `beforeMCPExecution` | `tool_call` of the MCP tool | the same |
//! | `beforeReadFile` | `tool_result` of `read`, the file's content as its content (Cursor asks before it hands the content to the model) | new content → `{"permission":"deny",...}`: Cursor cannot take a rewritten content, so the read is withheld |
//! | `beforeSubmitPrompt` | a command (`before_agent_start` runs, but Cursor takes no context here) | a command's output → `{"continue":false,"user_message":OUTPUT}` |
//! | `sessionStart` | `session_start` | a message → `{"additional_context":TEXT}` |
//! | `sessionEnd` | `session_shutdown` | `{}` |
//! | `stop` | `agent_end` (no message) | `{}` |
//!
//! Shell output (`afterShellExecution`) is not served: Cursor can neither replace nor withhold
//! it.
//!
//! # Exit codes
//!
//! Cursor reads exit 0 with JSON, exit 2 as a deny, anything else as a hook error (fail open
//! unless `failClosed`). The adapter's failures follow [the adapter
//! docs](super#exit-codes-both-agents): exit 2 on a gating event, exit 1 elsewhere.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use hookwright::events::{AgentEndEvent, ToolCallEvent, ToolResultEvent};
use hookwright::tool_names::ToolNames;

use super::hook_json::check_event_name;
use super::protocol::{
    AgentCli, FailClosed, FailValue, Form, InstallShape, Layout, Protocol, Spec,
};
use super::terms::{
    AgentEvent, Call, Decision, Mapping, Request, StartSource, invalid, missing, object_or_json,
};
use super::tool_io::{self, ToolOutputView};
use crate::json::{self, InputError};

/// Cursor's hook protocol (from its documentation; not verified against a binary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor;

/// `beforeShellExecution`: before a shell command runs.
pub const BEFORE_SHELL_EXECUTION: AgentEvent =
    AgentEvent::new("beforeShellExecution", Mapping::ToolCall);
/// `beforeMCPExecution`: before an MCP tool runs.
pub const BEFORE_MCP_EXECUTION: AgentEvent =
    AgentEvent::new("beforeMCPExecution", Mapping::ToolCall);
/// `beforeReadFile`: before a file's content is handed to the model.
pub const BEFORE_READ_FILE: AgentEvent = AgentEvent::new("beforeReadFile", Mapping::ToolResult);
/// `beforeSubmitPrompt`: a prompt is about to be sent.
pub const BEFORE_SUBMIT_PROMPT: AgentEvent = AgentEvent::new("beforeSubmitPrompt", Mapping::Prompt);
/// `sessionStart`: a session started.
pub const SESSION_START: AgentEvent = AgentEvent::new("sessionStart", Mapping::SessionStart);
/// `sessionEnd`: a session ended.
pub const SESSION_END: AgentEvent = AgentEvent::new("sessionEnd", Mapping::SessionEnd);
/// `stop`: the agent loop ended.
pub const STOP: AgentEvent = AgentEvent::new("stop", Mapping::AgentEnd);

/// Cursor's tool names (its `preToolUse` matchers) that differ from ours.
pub const CURSOR_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("Shell", "bash"),
    ("Read", "read"),
    ("Write", "write"),
    ("StrReplace", "edit"),
    ("Edit", "edit"),
    ("Grep", "grep"),
    ("Glob", "find"),
    ("LS", "ls"),
]);

/// Cursor as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "cursor",
    events: &[
        BEFORE_SHELL_EXECUTION,
        BEFORE_MCP_EXECUTION,
        BEFORE_READ_FILE,
        BEFORE_SUBMIT_PROMPT,
        SESSION_START,
        SESSION_END,
        STOP,
    ],
    tool_names: &CURSOR_TOOL_NAMES,
    // Not measured: no variable is relied on.
    project_dir: None,
    cli: AgentCli {
        display_name: "Cursor",
        executable: "cursor-agent",
        about_note: " (from Cursor's documentation; not verified against Cursor)",
        exit_status: "Exit status: 0 (answer on stdout, `{}` for none); 2 denies (reason on stderr), also when the adapter fails on a gating event; 1 a failure on an observational event.",
        switch: None,
    },
    // Where `hooks install cursor` writes: `.cursor/hooks.json`, shell-form entries, with
    // `failClosed` on the gating events.
    install: InstallShape {
        dir: ".cursor",
        user_dir: None,
        file: "hooks.json",
        dir_env: None,
        form: Form::Shell,
        note: Some(
            "Cursor support is written from its documentation and not verified against Cursor.",
        ),
        layout: Layout::Versioned,
        command_key: "command",
        matchers: &[],
        http: false,
        trusts_entries: false,
        fail_closed: Some(FailClosed {
            key: "failClosed",
            value: FailValue::True,
            versioned: false,
            since: [0, 0, 0],
        }),
    },
};

impl Protocol for Cursor {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn decode(&self, event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
        decode(event, input)
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        let Some(decision) = decision else {
            return Some(json!({}));
        };
        Some(match decision {
            Decision::Deny { reason } => deny(reason),
            Decision::ReplaceOutput { .. } => deny(
                "the file's content was withheld: a hook rewrote it, and Cursor cannot take a rewritten content",
            ),
            Decision::WithholdOutput { reason, .. } => {
                deny(&format!("the file's content was withheld: {reason}"))
            }
            Decision::BlockPrompt { reason } => {
                json!({ "continue": false, "user_message": reason })
            }
            Decision::Context { text } if event.mapping == Mapping::SessionStart => {
                json!({ "additional_context": text })
            }
            // Cursor takes no context on beforeSubmitPrompt.
            Decision::Context { .. }
            | Decision::CancelCompact { .. }
            | Decision::ReplaceMessages { .. } => json!({}),
        })
    }
}

/// `{"permission": "deny", "user_message": R, "agent_message": R}`.
fn deny(reason: &str) -> Value {
    json!({ "permission": "deny", "user_message": reason, "agent_message": reason })
}

/// The fields of the input read (see the [module docs](self)).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CursorInput {
    /// Any type; only a string is used.
    conversation_id: Option<Value>,
    session_id: Option<Value>,
    hook_event_name: Option<String>,
    workspace_roots: Option<Vec<Value>>,
    cwd: Option<String>,
    command: Option<String>,
    tool_name: Option<String>,
    tool_input: Option<Value>,
    file_path: Option<String>,
    content: Option<String>,
    prompt: Option<String>,
}

fn decode(event: AgentEvent, bytes: &[u8]) -> Result<Request, InputError> {
    let input: CursorInput = json::decode_object(bytes, "stdin")?;
    check_event_name(input.hook_event_name.as_deref(), event)?;
    let call = match event {
        BEFORE_SHELL_EXECUTION => {
            let command = input
                .command
                .clone()
                .ok_or_else(|| missing("command", event))?;
            let mut args = Map::new();
            args.insert("command".to_owned(), Value::String(command));
            if let Some(cwd) = &input.cwd {
                args.insert("cwd".to_owned(), Value::String(cwd.clone()));
            }
            Call::ToolCall(ToolCallEvent {
                tool_name: "bash".to_owned(),
                tool_call_id: String::new(),
                input: tool_io::canonical_input("bash", args),
            })
        }
        BEFORE_MCP_EXECUTION => {
            let name = input
                .tool_name
                .as_deref()
                .ok_or_else(|| missing("tool_name", event))?;
            let args = object_or_json(input.tool_input.as_ref(), "tool_input")?.unwrap_or_default();
            let name = CURSOR_TOOL_NAMES.ours(name);
            Call::ToolCall(ToolCallEvent {
                input: tool_io::canonical_input(&name, args),
                tool_name: name,
                tool_call_id: String::new(),
            })
        }
        BEFORE_READ_FILE => {
            let path = input
                .file_path
                .clone()
                .ok_or_else(|| missing("file_path", event))?;
            let text = input
                .content
                .clone()
                .ok_or_else(|| missing("content", event))?;
            let mut args = Map::new();
            args.insert("file_path".to_owned(), Value::String(path));
            let output = ToolOutputView::new(event.name, Value::String(text));
            Call::ToolResult {
                event: ToolResultEvent {
                    tool_name: "read".to_owned(),
                    tool_call_id: String::new(),
                    input: tool_io::canonical_input("read", args),
                    content: output.content().to_vec(),
                    details: None,
                    is_error: Some(false),
                    is_warning: None,
                },
                output,
            }
        }
        BEFORE_SUBMIT_PROMPT => Call::Prompt(
            input
                .prompt
                .clone()
                .ok_or_else(|| missing("prompt", event))?,
        ),
        SESSION_START => Call::SessionStart(StartSource::Startup),
        SESSION_END => Call::SessionEnd,
        STOP => Call::AgentEnd(AgentEndEvent {
            messages: Vec::new(),
        }),
        other => {
            return Err(invalid(format!(
                "{other} is not a Cursor event this adapter reads"
            )));
        }
    };
    let as_string = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let root = input
        .workspace_roots
        .as_ref()
        .and_then(|roots| roots.first())
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Request {
        cwd: input.cwd.clone().or(root),
        session_id: as_string(input.session_id).or_else(|| as_string(input.conversation_id)),
        call,
    })
}
