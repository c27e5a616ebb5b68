//! One of our 25 events by name, with its JSON payload, emitted on a runner: the payload is
//! decoded as that event's type (unknown fields ignored, a missing or mistyped field an error
//! naming it), and the answer is the combined result of its rule, as JSON.
//!
//! | event | answer (`null`: none) |
//! | --- | --- |
//! | `tool_call` | `{block, reason}`; a handler's error or panic is `{block: true, reason}` with the error as the reason (upstream rethrows it) |
//! | `tool_result` | the last `{content, details, isError}` returned |
//! | `context` | `{messages}` when a handler replaced them |
//! | `before_agent_start` | the first result with a `message`, whole |
//! | `session_before_*` | the last result; a `cancel: true` ends the emission |
//! | `session.compacting` | the last `{context, prompt, preserveData}` returned |
//! | every other event | `null` |

use hooks_core::events::combine::Combiner;
use hooks_core::events::{
    AgentEndEvent, AgentStartEvent, AutoCompactionEndEvent, AutoCompactionStartEvent,
    AutoRetryEndEvent, AutoRetryStartEvent, BeforeAgentStartEvent, ContextEvent, Event, HookEvent,
    SessionBeforeBranchEvent, SessionBeforeCompactEvent, SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent, SessionBranchEvent, SessionCompactEvent, SessionCompactingEvent,
    SessionShutdownEvent, SessionStartEvent, SessionSwitchEvent, SessionTreeEvent,
    TodoReminderEvent, ToolCallEvent, ToolResultEvent, TtsrTriggeredEvent, TurnEndEvent,
    TurnStartEvent,
};
use hooks_core::{EventKind, HookError, HookRunner};
use serde_json::{Value, json};

/// A payload that is not the event it names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {event} payload: {message}")]
pub struct PayloadError {
    /// The event.
    pub event: &'static str,
    /// What is wrong, with the path of the field (`input: invalid type: ...`).
    pub message: String,
}

/// Decodes `payload` as the event `E`.
///
/// # Errors
/// What is missing or of the wrong type, naming the field.
pub fn decode<E: HookEvent>(payload: &Value) -> Result<E, PayloadError> {
    crate::json::from_value(payload).map_err(|e| PayloadError {
        event: E::NAME,
        message: e.to_string(),
    })
}

/// What one emission answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitted {
    /// The combined result (`Null` for none).
    pub result: Value,
    /// The error that blocked a `tool_call` (the other events' errors are reported to the
    /// runner's error listeners).
    pub failure: Option<HookError>,
}

impl Emitted {
    fn result(result: Value) -> Self {
        Emitted {
            result,
            failure: None,
        }
    }
}

/// Calls `$then!(kind, payload, [Kind => Type, ...])` with the events whose rule answers
/// one handler's result (every event but `tool_call` and `context`).
macro_rules! with_events {
    ($then:ident!($($args:tt)*)) => {
        $then!($($args)* [
            SessionStart => SessionStartEvent,
            SessionBeforeSwitch => SessionBeforeSwitchEvent,
            SessionSwitch => SessionSwitchEvent,
            SessionBeforeBranch => SessionBeforeBranchEvent,
            SessionBranch => SessionBranchEvent,
            SessionBeforeCompact => SessionBeforeCompactEvent,
            SessionCompacting => SessionCompactingEvent,
            SessionCompact => SessionCompactEvent,
            SessionBeforeTree => SessionBeforeTreeEvent,
            SessionTree => SessionTreeEvent,
            SessionShutdown => SessionShutdownEvent,
            BeforeAgentStart => BeforeAgentStartEvent,
            AgentStart => AgentStartEvent,
            AgentEnd => AgentEndEvent,
            TurnStart => TurnStartEvent,
            TurnEnd => TurnEndEvent,
            AutoCompactionStart => AutoCompactionStartEvent,
            AutoCompactionEnd => AutoCompactionEndEvent,
            AutoRetryStart => AutoRetryStartEvent,
            AutoRetryEnd => AutoRetryEndEvent,
            TtsrTriggered => TtsrTriggeredEvent,
            TodoReminder => TodoReminderEvent,
            ToolResult => ToolResultEvent,
        ])
    };
}

/// Whether `payload` is the event `kind` (decoded, not emitted).
///
/// # Errors
/// What is missing or of the wrong type, naming the field.
pub fn check(kind: EventKind, payload: &Value) -> Result<(), PayloadError> {
    macro_rules! check_kind {
        ($kind:ident, $payload:ident, [$($k:ident => $ty:ty,)*]) => {
            match $kind {
                EventKind::ToolCall => decode::<ToolCallEvent>($payload).map(drop),
                EventKind::Context => decode::<ContextEvent>($payload).map(drop),
                $(EventKind::$k => decode::<$ty>($payload).map(drop),)*
                other => Err(unknown(other)),
            }
        };
    }
    with_events!(check_kind!(kind, payload,))
}

fn unknown(kind: EventKind) -> PayloadError {
    PayloadError {
        event: kind.as_str(),
        message: "this host does not emit it".to_owned(),
    }
}

/// Emits `kind` with `payload` on `runner`.
///
/// # Errors
/// The payload is not that event.
pub async fn emit(
    runner: &HookRunner,
    kind: EventKind,
    payload: Value,
) -> Result<Emitted, PayloadError> {
    macro_rules! emit_kind {
        ($kind:ident, $payload:ident, [$($k:ident => $ty:ty,)*]) => {
            match $kind {
                EventKind::ToolCall => tool_call(runner, decode(&$payload)?).await,
                EventKind::Context => context(runner, decode(&$payload)?).await,
                $(EventKind::$k => last::<$ty>(runner, decode(&$payload)?).await,)*
                other => Err(unknown(other)),
            }
        };
    }
    with_events!(emit_kind!(kind, payload,))
}

/// An event whose rule answers one of its handlers' results (or none).
async fn last<E>(runner: &HookRunner, event: E) -> Result<Emitted, PayloadError>
where
    E: HookEvent,
    E::Rule: Combiner<E, Output = Option<<E as Event>::Result>>,
{
    let result = runner.emit(&event).await;
    Ok(Emitted::result(to_json(&result)))
}

async fn tool_call(runner: &HookRunner, event: ToolCallEvent) -> Result<Emitted, PayloadError> {
    Ok(match runner.emit_tool_call(&event).await {
        Ok(result) => Emitted::result(to_json(&result)),
        Err(e) => Emitted {
            result: json!({ "block": true, "reason": e.to_string() }),
            failure: Some(HookError {
                hook_path: e.hook_path.clone(),
                event: ToolCallEvent::NAME.to_owned(),
                error: e.error.message().to_owned(),
            }),
        },
    })
}

async fn context(runner: &HookRunner, event: ContextEvent) -> Result<Emitted, PayloadError> {
    Ok(Emitted::result(match runner.emit(&event).await {
        Some(messages) => json!({ "messages": messages }),
        None => Value::Null,
    }))
}

fn to_json(value: &impl serde::Serialize) -> Value {
    // Our result types serialize to JSON without fail (string keys, no non-finite floats from
    // a decoded payload).
    serde_json::to_value(value).unwrap_or(Value::Null)
}
