//! The hook JSON that Claude Code defined and Codex (like Qwen Code and Factory Droid) reads
//! and writes with small differences: its event names, its input fields and how they decode
//! into our terms, and the pieces of an answer the agents share. The protocols of
//! [`claude`](super::claude) and [`codex`](super::codex) are built from it.
//!
//! The input fields read are `session_id` (any type; only a string is used), `cwd`,
//! `hook_event_name` (when present it must be the event the adapter was started for),
//! `tool_name`, `tool_input` and `tool_use_id` (tool events), `tool_response` (`PostToolUse`),
//! `error` (`PostToolUseFailure`), `prompt` (`UserPromptSubmit`), `source` (`SessionStart`;
//! any type, only a known string is used), `trigger` and
//! `custom_instructions` (`PreCompact`) and `last_assistant_message` (`Stop`). Every other
//! field is ignored; a field of the wrong type is an error naming it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use hookwright::events::{
    AgentEndEvent, AssistantMessage, Content, Extra, Message, SessionBeforeCompactEvent,
    ToolCallEvent, ToolInput, ToolResultEvent,
};
use hookwright::tool_names::ToolNames;

use super::terms::{AgentEvent, Call, Mapping, Request, StartSource, invalid, missing};
use super::tool_io::{self, ToolOutputView, join_text};
use crate::json::{self, InputError, one_line};

/// `PreToolUse`: before a tool runs.
pub const PRE_TOOL_USE: AgentEvent = AgentEvent::new("PreToolUse", Mapping::ToolCall);
/// `PostToolUse`: after a tool succeeded (Codex: after failing Bash commands too).
pub const POST_TOOL_USE: AgentEvent = AgentEvent::new("PostToolUse", Mapping::ToolResult);
/// `PostToolUseFailure`: after a tool failed (Claude Code only).
pub const POST_TOOL_USE_FAILURE: AgentEvent =
    AgentEvent::new("PostToolUseFailure", Mapping::ToolFailure);
/// `UserPromptSubmit`: a user prompt was submitted.
pub const USER_PROMPT_SUBMIT: AgentEvent = AgentEvent::new("UserPromptSubmit", Mapping::Prompt);
/// `SessionStart`: a session started.
pub const SESSION_START: AgentEvent = AgentEvent::new("SessionStart", Mapping::SessionStart);
/// `SessionEnd`: a session ended.
pub const SESSION_END: AgentEvent = AgentEvent::new("SessionEnd", Mapping::SessionEnd);
/// `PreCompact`: before a compaction.
pub const PRE_COMPACT: AgentEvent = AgentEvent::new("PreCompact", Mapping::Compact);
/// `Stop`: the agent finished responding.
pub const STOP: AgentEvent = AgentEvent::new("Stop", Mapping::AgentEnd);

/// The fields of the input read (see the [module docs](self)).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct HookInput {
    /// Not needed to decide, so any type is accepted; only a string is used.
    session_id: Option<Value>,
    cwd: Option<String>,
    hook_event_name: Option<String>,
    tool_name: Option<String>,
    tool_input: Option<Map<String, Value>>,
    tool_use_id: Option<String>,
    tool_response: Option<Value>,
    error: Option<Value>,
    prompt: Option<String>,
    trigger: Option<Value>,
    custom_instructions: Option<Value>,
    source: Option<Value>,
    last_assistant_message: Option<Value>,
}

/// Decodes the input of one call of `event`, with the agent's tool names `tool_names`.
///
/// # Errors
/// The decoder's ([`crate::json`]), a `hook_event_name` naming another event, or a missing
/// field the event needs.
pub fn decode(
    event: AgentEvent,
    bytes: &[u8],
    tool_names: &ToolNames,
) -> Result<Request, InputError> {
    let mut input: HookInput = json::decode_object(bytes, "stdin")?;
    check(&input, event)?;
    let call = match event.mapping {
        Mapping::ToolCall => {
            let (tool_name, tool_call_id, input) = input.take_tool_call(tool_names);
            Call::ToolCall(ToolCallEvent {
                tool_name,
                tool_call_id,
                input,
            })
        }
        Mapping::ToolResult => {
            let theirs = input.tool_name.clone().unwrap_or_default();
            let (tool_name, tool_call_id, tool_input) = input.take_tool_call(tool_names);
            let response = input.tool_response.take().unwrap_or(Value::Null);
            let output = ToolOutputView::new(&theirs, response);
            let event = ToolResultEvent {
                tool_name,
                tool_call_id,
                input: tool_input,
                content: output.content().to_vec(),
                details: Some(output.original().clone()),
                is_error: Some(false),
                is_warning: None,
            };
            Call::ToolResult { event, output }
        }
        Mapping::ToolFailure => {
            let (tool_name, tool_call_id, tool_input) = input.take_tool_call(tool_names);
            let error = match input.error.take() {
                Some(Value::String(text)) => text,
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            Call::ToolFailure(ToolResultEvent {
                tool_name,
                tool_call_id,
                input: tool_input,
                content: vec![Content::text(error)],
                details: None,
                is_error: Some(true),
                is_warning: None,
            })
        }
        Mapping::Prompt => Call::Prompt(input.prompt.take().unwrap_or_default()),
        Mapping::SessionStart => Call::SessionStart(StartSource::from_agent(
            input.source.as_ref().and_then(Value::as_str),
        )),
        Mapping::SessionEnd => Call::SessionEnd,
        Mapping::Compact => Call::Compact(compaction(&mut input)?),
        Mapping::Context => {
            return Err(invalid(format!(
                "{event} carries no model request in this hook JSON"
            )));
        }
        Mapping::AgentEnd => Call::AgentEnd(AgentEndEvent {
            messages: input
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
                .unwrap_or_default(),
        }),
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

/// Checks that the input is for `event` and has the fields it needs.
fn check(input: &HookInput, event: AgentEvent) -> Result<(), InputError> {
    check_event_name(input.hook_event_name.as_deref(), event)?;
    let required: &[&str] = match event.mapping {
        Mapping::ToolCall | Mapping::ToolResult => &["tool_name", "tool_input"],
        Mapping::ToolFailure => &["tool_name"],
        Mapping::Prompt => &["prompt"],
        _ => &[],
    };
    for &field in required {
        let present = match field {
            "tool_name" => input.tool_name.is_some(),
            "tool_input" => input.tool_input.is_some(),
            _ => input.prompt.is_some(),
        };
        if !present {
            return Err(missing(field, event));
        }
    }
    Ok(())
}

/// Checks that `hook_event_name`, when the input has one, is `event`'s name.
///
/// # Errors
/// It names another event.
pub(super) fn check_event_name(name: Option<&str>, event: AgentEvent) -> Result<(), InputError> {
    match name {
        Some(name) if name != event.name => Err(invalid(format!(
            "hook_event_name is `{}` but the adapter was started for `{event}`; check the hook settings",
            one_line(name, 80)
        ))),
        _ => Ok(()),
    }
}

impl HookInput {
    /// The tool call's name, id and input in our terms ([`tools`]), taken out of the input.
    fn take_tool_call(&mut self, tool_names: &ToolNames) -> (String, String, ToolInput) {
        let name = tool_names.ours(self.tool_name.as_deref().unwrap_or_default());
        let input = tool_io::canonical_input(&name, self.tool_input.take().unwrap_or_default());
        (name, self.tool_use_id.take().unwrap_or_default(), input)
    }
}

/// The `session_before_compact` event of a `PreCompact` input: `preparation.trigger` is the
/// agent's trigger, `customInstructions` its non-empty custom instructions.
fn compaction(input: &mut HookInput) -> Result<SessionBeforeCompactEvent, InputError> {
    let mut preparation = json!({ "firstKeptEntryId": "", "tokensBefore": 0 });
    if let Some(trigger) = input.trigger.take() {
        preparation["trigger"] = trigger;
    }
    let mut wire = json!({ "type": "session_before_compact", "preparation": preparation });
    if let Some(Value::String(text)) = input.custom_instructions.take()
        && !text.is_empty()
    {
        wire["customInstructions"] = Value::String(text);
    }
    serde_json::from_value(wire).map_err(|e| invalid(format!("internal error: {e}")))
}

/// `{"hookSpecificOutput": {"hookEventName": EVENT, ...fields}}`.
#[must_use]
pub fn hook_specific(event: AgentEvent, fields: Value) -> Value {
    let mut inner = json!({ "hookEventName": event.name });
    if let (Some(inner), Value::Object(fields)) = (inner.as_object_mut(), fields) {
        inner.extend(fields);
    }
    json!({ "hookSpecificOutput": inner })
}

/// `{"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": "deny",
/// "permissionDecisionReason": REASON}}`: a tool call denied.
#[must_use]
pub fn deny(event: AgentEvent, reason: &str) -> Value {
    hook_specific(
        event,
        json!({ "permissionDecision": "deny", "permissionDecisionReason": reason }),
    )
}

/// `{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`: context for
/// the model.
#[must_use]
pub fn context(event: AgentEvent, text: &str) -> Value {
    hook_specific(event, json!({ "additionalContext": text }))
}

/// `{"continue": false, "stopReason": REASON}`: the agent stops (on `PostToolUse` of Qwen
/// Code, the tool's result is replaced with `REASON`; on Codex's `PreCompact` the compaction
/// is held).
#[must_use]
pub fn stop(reason: &str) -> Value {
    json!({ "continue": false, "stopReason": reason })
}

/// `{"decision": "block", "reason": REASON}`.
#[must_use]
pub fn block(reason: &str) -> Value {
    json!({ "decision": "block", "reason": reason })
}

/// The text that replaces a tool's output where only text can be sent: the text chunks, and a
/// line for the other chunks (images), which text cannot carry; never blank (Codex ignores a
/// block whose reason is blank).
#[must_use]
pub fn replacement_text(content: &[Content]) -> String {
    let mut text = join_text(content);
    let left_out = content.iter().filter(|c| c.as_text().is_none()).count();
    if left_out > 0 {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "[{left_out} non-text part(s) of the tool output withheld: the answer to the agent carries text only]"
        ));
    }
    if text.trim().is_empty() {
        "(tool output removed by a hook)".to_owned()
    } else {
        text
    }
}

/// The longest `systemMessage` written, in characters (Claude Code shows 4000, and writes a
/// longer one to a file with a preview instead).
pub const MAX_SYSTEM_MESSAGE_CHARS: usize = 4000;

/// `answer` with `text` as its top-level `systemMessage`, which Claude Code and Codex show to
/// the user and never send to the model; `{"systemMessage": TEXT}` when there is no answer.
/// A `systemMessage` the answer already has (a withheld output's notice) comes first, `text`
/// on the lines after it. `text` is cleaned of escape sequences and control characters
/// (newlines kept) and the whole cut to [`MAX_SYSTEM_MESSAGE_CHARS`]. Not on `SessionEnd`,
/// where neither agent shows it (and Codex has no output schema).
#[must_use]
pub fn with_system_message(event: AgentEvent, answer: Option<Value>, text: &str) -> Option<Value> {
    if event.mapping == Mapping::SessionEnd {
        return answer;
    }
    let text = crate::text::clean_text(text);
    let text = text.trim();
    if text.is_empty() {
        return answer;
    }
    let mut answer = answer.unwrap_or_else(|| json!({}));
    if let Some(object) = answer.as_object_mut() {
        let text = match object.get("systemMessage").and_then(Value::as_str) {
            Some(already) if !already.is_empty() => format!("{already}\n{text}"),
            _ => text.to_owned(),
        };
        let text: String = match text.char_indices().nth(MAX_SYSTEM_MESSAGE_CHARS - 1) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        };
        object.insert("systemMessage".to_owned(), Value::String(text));
    }
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_hooks_say_is_added_after_a_system_message_the_answer_already_has() {
        let event = POST_TOOL_USE;
        let answer = json!({"systemMessage": "[tool output withheld: x]", "continue": false});
        let told = with_system_message(event, Some(answer), "status: 2 tools").unwrap();
        assert_eq!(
            told,
            json!({"systemMessage": "[tool output withheld: x]\nstatus: 2 tools", "continue": false})
        );
    }
}
