//! Gemini CLI's protocol ([`Gemini`]): `hooks gemini EVENT`, verified with Gemini CLI 0.61.0.
//!
//! Install it with `hooks install gemini`, which adds shell-form entries
//! (`{"type": "command", "command": "'/path/to/hooks' gemini BeforeTool"}`; Gemini CLI runs
//! them as `bash -c`) to `.gemini/settings.json` or `~/.gemini/settings.json`. Gemini CLI runs
//! a project's hooks only in a trusted folder (a headless run in an untrusted folder refuses to
//! start), and lists new project hooks on stderr on their first run. It has no fail-closed
//! switch.
//!
//! The input is the [shared hook JSON](super::hook_json) with Gemini's event names; tool
//! results are decoded as Gemini's `llmContent`. Tool names: [`GEMINI_TOOL_NAMES`].
//!
//! # Events and answers
//!
//! | event | ours | a decision is answered with |
//! | --- | --- | --- |
//! | `BeforeTool` | `tool_call` | `{"decision":"deny","reason":R}`: the model gets `{"error":"Tool execution blocked: R"}` |
//! | `AfterTool` | `tool_result` | new content → `{"decision":"deny","reason":TEXT}`: the model gets `{"error": TEXT}` instead of the result (Gemini has no other way to replace one) |
//! | `BeforeAgent` | a command / `before_agent_start` | a command's output → `{"decision":"deny","reason":OUTPUT}` (no model call; the run's `warnings` say `Agent execution blocked: OUTPUT`); a message → `hookSpecificOutput.additionalContext` |
//! | `BeforeModel` | `context` | changed messages → `hookSpecificOutput.llm_request.messages` (see below) |
//! | `SessionStart` | `session_start` | a message → `hookSpecificOutput.additionalContext` (put before the first prompt) |
//! | `SessionEnd` | `session_shutdown` | none |
//! | `PreCompress` with `trigger: "manual"` (`/compress`) | `session_before_compact` (`preparation.trigger` = `manual`) | none: Gemini CLI ignores the answer, so the handlers observe the compression and a `cancel` holds nothing |
//! | `PreCompress` with `trigger: "auto"` | nothing: Gemini CLI fires it before every model turn, before it checks whether the history is long enough to compress (`hooks install` puts the entry in a group with `"matcher": "manual"`, so these start no process) | none |
//! | `AfterAgent` | `agent_end` (`prompt_response` as the one message) | none |
//!
//! The adapter never answers `ask` (a headless run waits for ever).
//!
//! `BeforeModel` shows a hook only the text of the request: one message (`user`, `model` or
//! `system`) per content that has text, its text parts joined; contents with only tool calls
//! or tool results are left out, and a tool's output never reaches `context`. Gemini CLI puts
//! the answer's messages back in order, each replacing the text of the next content with text
//! (its tool calls and results kept), and appends any extra ones; so a message a handler drops
//! is sent as [`REMOVED_TEXT`] (the contents after it move up), never left as it was.
//!
//! # Exit codes
//!
//! Gemini CLI reads stdout (else stderr) as the answer whatever the exit code; without JSON,
//! exit 1 is a warning and any code above 1 with a message blocks (the message is the reason).
//! The adapter's failures follow [the adapter docs](super#exit-codes-both-agents): exit 2 with
//! the reason on stderr on a gating event (`BeforeTool`, `AfterTool`, `BeforeAgent`,
//! `BeforeModel`: the call, the result, the prompt or the model call is blocked; and
//! `PreCompress`, where Gemini CLI ignores it), exit 1 (a warning) elsewhere (exit 2 on
//! `AfterAgent` would make Gemini retry).

use serde::Deserialize;
use serde_json::{Value, json};

use hookwright::events::{AssistantMessage, Content, ContextEvent, Extra, Message, MessageContent};
use hookwright::tool_names::ToolNames;

use super::hook_json::{self, SESSION_END, SESSION_START, hook_specific, replacement_text};
use super::llm_content;
use super::protocol::{
    AgentCli, Form, HooksSwitch, InstallShape, Layout, ProjectDir, Protocol, Spec,
};
use super::terms::{AgentEvent, Call, Decision, Mapping, Request, invalid, missing};
use super::tool_io::join_text;
use crate::json::{self, InputError, one_line};

/// Gemini CLI's hook protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gemini;

/// `BeforeTool`: before a tool runs.
pub const BEFORE_TOOL: AgentEvent = AgentEvent::new("BeforeTool", Mapping::ToolCall);
/// `AfterTool`: after a tool ran.
pub const AFTER_TOOL: AgentEvent = AgentEvent::new("AfterTool", Mapping::ToolResult);
/// `BeforeAgent`: a prompt is about to start the agent.
pub const BEFORE_AGENT: AgentEvent = AgentEvent::new("BeforeAgent", Mapping::Prompt);
/// `BeforeModel`: before each model call, with the request's text.
pub const BEFORE_MODEL: AgentEvent = AgentEvent::new("BeforeModel", Mapping::Context);
/// `PreCompress`: before a compression of the history would run (see the [module
/// docs](self)).
pub const PRE_COMPRESS: AgentEvent = AgentEvent::new("PreCompress", Mapping::Compact);
/// `AfterAgent`: the agent answered a prompt.
pub const AFTER_AGENT: AgentEvent = AgentEvent::new("AfterAgent", Mapping::AgentEnd);

/// Gemini CLI's tool names that differ from ours.
pub const GEMINI_TOOL_NAMES: ToolNames = ToolNames::new(&[
    ("run_shell_command", "bash"),
    ("read_file", "read"),
    ("write_file", "write"),
    ("replace", "edit"),
    ("grep_search", "grep"),
    ("glob", "find"),
    ("list_directory", "ls"),
]);

/// What a message a `context` handler dropped is sent as (Gemini CLI would otherwise keep its
/// text; an empty text is refused by the Gemini API).
pub const REMOVED_TEXT: &str = "(message removed by a hook)";

/// Gemini CLI as `hooks` knows it ([`Protocol::spec`]).
static SPEC: Spec = Spec {
    name: "gemini",
    events: &[
        BEFORE_TOOL,
        AFTER_TOOL,
        BEFORE_AGENT,
        BEFORE_MODEL,
        SESSION_START,
        SESSION_END,
        PRE_COMPRESS,
        AFTER_AGENT,
    ],
    tool_names: &GEMINI_TOOL_NAMES,
    // Gemini CLI substitutes `$GEMINI_PROJECT_DIR` with the directory already quoted for the
    // `bash -c` it runs, so the reference must not be quoted again.
    project_dir: Some(ProjectDir {
        var: "GEMINI_PROJECT_DIR",
        spelled: "$GEMINI_PROJECT_DIR",
    }),
    cli: AgentCli {
        display_name: "Gemini CLI",
        executable: "gemini",
        about_note: "",
        exit_status: "Exit status: 0 (answer on stdout, or none); 2 blocks (reason on stderr), also when the adapter fails on a gating event; 1 a failure on an observational event (a warning in Gemini CLI).",
        switch: Some(HooksSwitch::SettingsKey {
            pointer: "/hooksConfig/enabled",
            off: false,
        }),
    },
    // Where `hooks install gemini` writes: `.gemini/settings.json`, shell-form entries.
    install: InstallShape {
        dir: ".gemini",
        user_dir: None,
        file: "settings.json",
        dir_env: None,
        form: Form::Shell,
        note: Some(
            "Gemini CLI runs the hooks of a project's .gemini/settings.json only in a trusted \
             folder: trust the folder when Gemini CLI asks (a headless run needs \
             GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust).",
        ),
        layout: Layout::Groups,
        command_key: "command",
        // Gemini CLI sends `PreCompress` with trigger `auto` before every model turn, which
        // emits nothing; a matcher (compared to the trigger as is) spares that process.
        matchers: &[("PreCompress", "manual")],
        http: false,
        trusts_entries: false,
        fail_closed: None,
    },
};

impl Protocol for Gemini {
    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn decode(&self, event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
        match event.mapping {
            Mapping::Context => decode_model_request(event, input),
            Mapping::AgentEnd => {
                let mut request = hook_json::decode(event, input, &GEMINI_TOOL_NAMES)?;
                let response: AgentResponse = json::decode_object(input, "stdin")?;
                if let (Call::AgentEnd(end), Some(text)) =
                    (&mut request.call, response.prompt_response)
                {
                    end.messages = vec![assistant(text)];
                }
                Ok(request)
            }
            Mapping::Compact => {
                let mut request = hook_json::decode(event, input, &GEMINI_TOOL_NAMES)?;
                let trigger: Trigger = json::decode_object(input, "stdin")?;
                if trigger.trigger.as_deref() != Some("manual") {
                    request.call = Call::None;
                }
                Ok(request)
            }
            _ => {
                let mut request = hook_json::decode(event, input, &GEMINI_TOOL_NAMES)?;
                request.call = llm_content::read(request.call);
                Ok(request)
            }
        }
    }

    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value> {
        match decision? {
            Decision::Deny { reason } | Decision::BlockPrompt { reason } => Some(deny(reason)),
            Decision::ReplaceOutput { content, .. } => Some(deny(&replacement_text(content))),
            Decision::WithholdOutput { reason, .. } => {
                Some(deny(&format!("[tool output withheld: {reason}]")))
            }
            Decision::Context { text } => Some(hook_json::context(event, text)),
            Decision::ReplaceMessages { received, messages } => Some(hook_specific(
                event,
                json!({ "llm_request": { "messages": request_messages(received, messages) } }),
            )),
            // Gemini CLI ignores PreCompress's answer: nothing holds a compression.
            Decision::CancelCompact { .. } => None,
        }
    }
}

/// `{"decision": "deny", "reason": REASON}`.
fn deny(reason: &str) -> Value {
    json!({ "decision": "deny", "reason": reason })
}

fn assistant(text: String) -> Message {
    Message::Assistant(AssistantMessage {
        content: vec![Content::text(text)],
        timestamp: None,
        extra: Extra::new(),
    })
}

/// `AfterAgent`'s answer, which the shared hook JSON does not read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AgentResponse {
    prompt_response: Option<String>,
}

/// `PreCompress`'s trigger: `manual` (`/compress`) or `auto`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Trigger {
    trigger: Option<String>,
}

/// The fields of a `BeforeModel` input read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ModelRequestInput {
    session_id: Option<Value>,
    cwd: Option<String>,
    hook_event_name: Option<String>,
    llm_request: Option<LlmRequest>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LlmRequest {
    messages: Vec<LlmMessage>,
}

#[derive(Debug, Deserialize)]
struct LlmMessage {
    role: String,
    content: Value,
}

/// A `BeforeModel` input as a `context` event: `user` messages as user messages, `model`
/// ones as assistant messages, any other role (`system`) kept as it is.
fn decode_model_request(event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
    let input: ModelRequestInput = json::decode_object(input, "stdin")?;
    if let Some(name) = &input.hook_event_name
        && name != event.name
    {
        return Err(invalid(format!(
            "hook_event_name is `{}` but the adapter was started for `{event}`; check the hook settings",
            one_line(name, 80)
        )));
    }
    let Some(request) = input.llm_request else {
        return Err(missing("llm_request", event));
    };
    let messages = request
        .messages
        .into_iter()
        .map(|m| {
            let text = match m.content {
                Value::String(text) => text,
                other => other.to_string(),
            };
            match m.role.as_str() {
                "user" => Message::user(text),
                "model" => assistant(text),
                _ => Message::Other(json!({ "role": m.role, "content": text })),
            }
        })
        .collect();
    Ok(Request {
        session_id: match input.session_id {
            Some(Value::String(id)) => Some(id),
            _ => None,
        },
        cwd: input.cwd,
        call: Call::Context(ContextEvent { messages }),
    })
}

/// `messages` as `llm_request.messages`, one `{role, content}` per message (an assistant is
/// `model`; a custom message or a tool result is `user`), then [`REMOVED_TEXT`] for each
/// `received` message past their number, so that Gemini CLI keeps none of their texts.
fn request_messages(received: &[Message], messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<Value> = messages
        .iter()
        .map(|m| json!({ "role": role(m), "content": text(m) }))
        .collect();
    for m in received.iter().skip(messages.len()) {
        out.push(json!({ "role": role(m), "content": REMOVED_TEXT }));
    }
    out
}

fn role(message: &Message) -> &str {
    match message {
        Message::Assistant(_) => "model",
        Message::Other(v) => v.get("role").and_then(Value::as_str).unwrap_or("user"),
        _ => "user",
    }
}

fn text(message: &Message) -> String {
    match message {
        Message::User(m) => m.content.to_text(),
        Message::Assistant(m) => join_text(&m.content),
        Message::ToolResult(m) => join_text(&m.content),
        Message::Custom(m) => m.content.to_text(),
        Message::Other(v) => match v.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(other) => serde_json::from_value::<MessageContent>(other.clone())
                .map_or_else(|_| other.to_string(), |c| c.to_text()),
            None => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `BeforeModel` input whose request has `messages`.
    fn before_model(messages: &Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "session_id": "s", "cwd": "/p", "hook_event_name": "BeforeModel",
            "llm_request": { "model": "m", "messages": messages },
        }))
        .unwrap()
    }

    fn context_messages(input: &[u8]) -> Vec<Message> {
        match Gemini.decode(BEFORE_MODEL, input).unwrap().call {
            Call::Context(event) => event.messages,
            other => panic!("not a context call: {other:?}"),
        }
    }

    #[test]
    fn before_model_messages_round_trip_through_ours_unchanged() {
        let sent = json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "list the files"},
            {"role": "model", "content": "here they are"},
            {"role": "user", "content": "thanks"},
        ]);
        let messages = context_messages(&before_model(&sent));
        assert_eq!(
            messages.iter().map(Message::role).collect::<Vec<_>>(),
            ["system", "user", "assistant", "user"]
        );
        assert_eq!(Value::Array(request_messages(&messages, &messages)), sent);
    }

    #[test]
    fn a_rewritten_message_is_sent_in_its_place_and_a_dropped_one_as_removed() {
        let sent = json!([
            {"role": "user", "content": "secret plan"},
            {"role": "model", "content": "noted"},
        ]);
        let received = context_messages(&before_model(&sent));
        let kept = vec![Message::user("public plan")];
        assert_eq!(
            Value::Array(request_messages(&received, &kept)),
            json!([
                {"role": "user", "content": "public plan"},
                {"role": "model", "content": REMOVED_TEXT},
            ])
        );
    }
}
