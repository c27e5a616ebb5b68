//! What the adapters read from the input ([`HookInput`]), what the hooks decided ([`Answer`]),
//! and the mapping of each agent event onto our events (see the [adapter docs](super#mapping)).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use hooks_core::ToolCallHookError;
use hooks_core::events::{
    AgentEndEvent, AssistantMessage, Content, Extra, Message, SessionBeforeCompactEvent,
    SessionShutdownEvent, SessionStartEvent, ToolCallEvent, ToolCallEventResult, ToolInput,
    ToolResultEvent,
};
use hooks_core::handler::HandlerErrorKind;

use super::session::Session;
use super::tools::{self, ToolOutputView};
use super::{Agent, AgentEvent, MAX_REASON_CHARS};
use crate::json::{self, InputError, one_line};
use crate::text::clean_text;

/// The fields of an agent's hook input the adapters read. Every other field is ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct HookInput {
    /// Not needed to decide, so any type is accepted; only a string is used.
    pub(crate) session_id: Option<Value>,
    pub(crate) cwd: Option<String>,
    pub(crate) hook_event_name: Option<String>,
    pub(crate) tool_name: Option<String>,
    pub(crate) tool_input: Option<Map<String, Value>>,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) tool_response: Option<Value>,
    pub(crate) error: Option<Value>,
    pub(crate) prompt: Option<String>,
    pub(crate) trigger: Option<Value>,
    pub(crate) custom_instructions: Option<Value>,
    pub(crate) last_assistant_message: Option<Value>,
}

impl HookInput {
    /// The tool call's name, id and input in our terms ([`tools`]), taken out of the input.
    fn take_tool_call(&mut self, agent: Agent) -> (String, String, ToolInput) {
        let name = agent.tool_name(self.tool_name.as_deref().unwrap_or_default());
        let input = tools::canonical_input(&name, self.tool_input.take().unwrap_or_default());
        (name, self.tool_use_id.take().unwrap_or_default(), input)
    }

    /// Decodes and checks the input for `event`.
    pub(super) fn decode(bytes: &[u8], event: AgentEvent) -> Result<HookInput, InputError> {
        let input: HookInput = json::decode_object(bytes, "stdin")?;
        let invalid = |message: String| InputError::Invalid {
            name: "stdin".to_owned(),
            message,
        };
        if let Some(name) = &input.hook_event_name
            && name != event.as_str()
        {
            return Err(invalid(format!(
                "hook_event_name is `{}` but the adapter was started for `{event}`; check the hook settings",
                one_line(name, 80)
            )));
        }
        let mut required: &[&str] = match event {
            AgentEvent::PreToolUse | AgentEvent::PostToolUse => &["tool_name", "tool_input"],
            AgentEvent::PostToolUseFailure => &["tool_name"],
            AgentEvent::UserPromptSubmit => &["prompt"],
            _ => &[],
        };
        while let Some((field, rest)) = required.split_first() {
            let present = match *field {
                "tool_name" => input.tool_name.is_some(),
                "tool_input" => input.tool_input.is_some(),
                _ => input.prompt.is_some(),
            };
            if !present {
                return Err(invalid(format!(
                    "missing field `{field}` (required for {event})"
                )));
            }
            required = rest;
        }
        Ok(input)
    }
}

/// What the hooks decided, before it is written in an agent's schema.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// Block the tool call.
    Deny { reason: String },
    /// Replace the tool's output with `content`.
    ReplaceOutput {
        view: ToolOutputView,
        content: Vec<Content>,
    },
    /// Withhold the tool's output because a hook failed (only with a failure).
    WithholdOutput {
        view: ToolOutputView,
        reason: String,
    },
    /// Add context for the model.
    Context { text: String },
    /// Block the prompt; `reason` is shown to the user (a command's output).
    BlockPrompt { reason: String },
    /// Cancel the compaction.
    CancelCompact { reason: String },
}

/// The result of one adapter run: an answer, a failure, or both.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub(super) answer: Option<Answer>,
    pub(super) failure: Option<String>,
}

impl Reply {
    pub(super) fn answer(answer: Answer) -> Self {
        Reply {
            answer: Some(answer),
            failure: None,
        }
    }

    pub(super) fn failure(failure: impl Into<String>) -> Self {
        Reply {
            answer: None,
            failure: Some(failure.into()),
        }
    }
}

pub(super) async fn dispatch(
    agent: Agent,
    event: AgentEvent,
    input: HookInput,
    s: &Session,
) -> Reply {
    match event {
        AgentEvent::PreToolUse => pre_tool_use(agent, input, s).await,
        AgentEvent::PostToolUse => post_tool_use(agent, input, s).await,
        AgentEvent::PostToolUseFailure => post_tool_use_failure(agent, input, s).await,
        AgentEvent::UserPromptSubmit => user_prompt_submit(input, s).await,
        AgentEvent::SessionStart => {
            let _ = s.runner.emit(&SessionStartEvent {}).await;
            let mut reply = context_reply(s.take_messages());
            reply.failure = s.take_errors();
            reply
        }
        AgentEvent::SessionEnd => {
            let _ = s.runner.emit(&SessionShutdownEvent {}).await;
            failure_reply(s)
        }
        AgentEvent::PreCompact => pre_compact(input, s).await,
        AgentEvent::Stop => {
            let messages = input
                .last_assistant_message
                .as_ref()
                .and_then(Value::as_str)
                .map(|text| {
                    vec![Message::Assistant(AssistantMessage {
                        content: vec![Content::text(text)],
                        timestamp: None,
                        extra: Extra::new(),
                    })]
                })
                .unwrap_or_default();
            let _ = s.runner.emit(&AgentEndEvent { messages }).await;
            failure_reply(s)
        }
    }
}

fn failure_reply(s: &Session) -> Reply {
    Reply {
        answer: None,
        failure: s.take_errors(),
    }
}

fn context_reply(parts: Vec<String>) -> Reply {
    let text = parts.join("\n\n");
    if text.trim().is_empty() {
        Reply::default()
    } else {
        Reply::answer(Answer::Context { text })
    }
}

fn tool_call_failure(e: &ToolCallHookError) -> String {
    let hook = &e.hook_path;
    let message = e.error.message();
    match e.error.kind() {
        HandlerErrorKind::Panic => format!("blocked: hook {hook} panicked: {message}"),
        HandlerErrorKind::Timeout => format!("blocked: hook {hook}: {message}"),
        _ => format!("blocked: hook {hook} failed: {message}"),
    }
}

async fn pre_tool_use(agent: Agent, mut input: HookInput, s: &Session) -> Reply {
    let (tool_name, tool_call_id, tool_input) = input.take_tool_call(agent);
    let event = ToolCallEvent {
        tool_name,
        tool_call_id,
        input: tool_input,
    };
    match s.runner.emit_tool_call(&event).await {
        Ok(result) => match result.and_then(ToolCallEventResult::into_block_reason) {
            Some(reason) => Reply::answer(Answer::Deny { reason }),
            None => Reply::default(),
        },
        Err(e) => Reply::failure(tool_call_failure(&e)),
    }
}

async fn post_tool_use(agent: Agent, mut input: HookInput, s: &Session) -> Reply {
    let (tool_name, tool_call_id, tool_input) = input.take_tool_call(agent);
    let response = input.tool_response.unwrap_or(Value::Null);
    let view = ToolOutputView::new(response);
    let event = ToolResultEvent {
        tool_name,
        tool_call_id,
        input: tool_input,
        content: view.content().to_vec(),
        details: Some(view.original().clone()),
        is_error: Some(false),
        is_warning: None,
    };
    let result = s.runner.emit_tool_result(&event).await;
    if let Some(errors) = s.take_errors() {
        return Reply {
            answer: Some(Answer::WithholdOutput {
                view,
                reason: one_line(&errors, MAX_REASON_CHARS),
            }),
            failure: Some(errors),
        };
    }
    match result.and_then(|r| r.content) {
        Some(content) if content != view.content() => {
            Reply::answer(Answer::ReplaceOutput { view, content })
        }
        _ => Reply::default(),
    }
}

async fn post_tool_use_failure(agent: Agent, mut input: HookInput, s: &Session) -> Reply {
    let (tool_name, tool_call_id, tool_input) = input.take_tool_call(agent);
    let error = match input.error {
        Some(Value::String(text)) => text,
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let event = ToolResultEvent {
        tool_name,
        tool_call_id,
        input: tool_input,
        content: vec![Content::text(error)],
        details: None,
        is_error: Some(true),
        is_warning: None,
    };
    // On the error path the result is ignored, as upstream.
    let _ignored = s.runner.emit_tool_result(&event).await;
    failure_reply(s)
}

/// `/name args` → (`name`, `args`).
fn parse_command(prompt: &str) -> Option<(&str, &str)> {
    let rest = prompt.strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    (!name.is_empty()).then_some((name, args))
}

async fn user_prompt_submit(input: HookInput, s: &Session) -> Reply {
    let prompt = input.prompt.unwrap_or_default();
    if let Some((name, args)) = parse_command(&prompt)
        && s.runner.get_command(name).is_some()
    {
        let outcome = s.runner.run_command(name, args).await;
        return match outcome {
            Some(Err(e)) => {
                let what = if e.kind() == HandlerErrorKind::Panic {
                    "panicked"
                } else {
                    "failed"
                };
                Reply::failure(format!("command /{name} {what}: {}", e.message()))
            }
            _ => {
                let mut parts = s.take_notes();
                parts.extend(s.take_messages());
                let output = clean_text(parts.join("\n").trim());
                let reason = if output.is_empty() {
                    format!("/{name} done.")
                } else {
                    output
                };
                Reply::answer(Answer::BlockPrompt { reason })
            }
        };
    }
    let result = s.runner.emit_before_agent_start(&prompt, None).await;
    let mut parts: Vec<String> = result
        .and_then(|r| r.message)
        .map(|m| m.content.to_text())
        .into_iter()
        .collect();
    parts.extend(s.take_messages());
    let mut reply = context_reply(parts);
    if let Some(errors) = s.take_errors() {
        reply = Reply::failure(errors);
    }
    reply
}

async fn pre_compact(input: HookInput, s: &Session) -> Reply {
    let mut preparation = json!({ "firstKeptEntryId": "", "tokensBefore": 0 });
    if let Some(trigger) = input.trigger {
        preparation["trigger"] = trigger;
    }
    let mut wire = json!({ "type": "session_before_compact", "preparation": preparation });
    if let Some(Value::String(text)) = input.custom_instructions
        && !text.is_empty()
    {
        wire["customInstructions"] = Value::String(text);
    }
    let event: SessionBeforeCompactEvent = match serde_json::from_value(wire) {
        Ok(event) => event,
        Err(e) => return Reply::failure(format!("internal error: {e}")),
    };
    let result = s.runner.emit(&event).await;
    if let Some(errors) = s.take_errors() {
        return Reply::failure(errors);
    }
    match result {
        Some(r) if r.cancel == Some(true) => Reply::answer(Answer::CancelCompact {
            reason: "Compaction cancelled by a hook".to_owned(),
        }),
        _ => Reply::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(parse_command("/handoff a b "), Some(("handoff", "a b")));
        assert_eq!(parse_command("/x"), Some(("x", "")));
        assert_eq!(parse_command("/"), None);
        assert_eq!(parse_command("hi /x"), None);
    }
}
