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

use hookwright::events::combine::{
    Cancels, Chain, Combiner, FirstMessage, Ignore, LastWins, Strict, UntilCancel,
};
use hookwright::events::{BeforeAgentStartEvent, ContextEvent, HookEvent, ToolCallEvent};
use hookwright::{EventKind, HookError, HookRunner};
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

/// Whether `payload` is the event `kind` (decoded, not emitted).
///
/// # Errors
/// What is missing or of the wrong type, naming the field.
pub fn check(kind: EventKind, payload: &Value) -> Result<(), PayloadError> {
    macro_rules! check_kind {
        ($(($kind:ident, $name:literal, $event:ident $($rest:tt)*))*) => {
            match kind {
                $(EventKind::$kind => decode::<hookwright::events::$event>(payload).map(drop),)*
                other => Err(unknown(other)),
            }
        };
    }
    hookwright::for_each_event!(check_kind)
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
        ($(($kind:ident, $name:literal, $event:ident $($rest:tt)*))*) => {
            match kind {
                $(EventKind::$kind => {
                    Ok(answer::<hookwright::events::$event>(runner, decode(&payload)?).await)
                })*
                other => Err(unknown(other)),
            }
        };
    }
    hookwright::for_each_event!(emit_kind)
}

/// Emits `event` and answers what its rule makes of the handlers' results.
async fn answer<E>(runner: &HookRunner, event: E) -> Emitted
where
    E: HookEvent,
    E::Rule: Answer<E>,
{
    E::Rule::emitted(runner.emit(&event).await)
}

/// What an emission under a combine rule answers on the wire (the table above).
trait Answer<E: HookEvent>: Combiner<E> {
    /// The emission's answer, `output`, as JSON.
    fn emitted(output: Self::Output) -> Emitted;
}

// The rules whose emission answers one of its handlers' results, or none.

impl<E: HookEvent> Answer<E> for Ignore {
    fn emitted(output: Self::Output) -> Emitted {
        Emitted::result(to_json(&output))
    }
}

impl<E: HookEvent> Answer<E> for LastWins<E> {
    fn emitted(output: Self::Output) -> Emitted {
        Emitted::result(to_json(&output))
    }
}

impl<E: HookEvent<Result: Cancels>> Answer<E> for UntilCancel<E> {
    fn emitted(output: Self::Output) -> Emitted {
        Emitted::result(to_json(&output))
    }
}

impl Answer<BeforeAgentStartEvent> for FirstMessage {
    fn emitted(output: Self::Output) -> Emitted {
        Emitted::result(to_json(&output))
    }
}

impl Answer<ToolCallEvent> for Strict {
    fn emitted(output: Self::Output) -> Emitted {
        match output {
            Ok(result) => Emitted::result(to_json(&result)),
            Err(e) => Emitted {
                result: json!({ "block": true, "reason": e.to_string() }),
                failure: Some(HookError {
                    hook_path: e.hook_path.clone(),
                    event: ToolCallEvent::NAME.to_owned(),
                    error: e.error.message().to_owned(),
                }),
            },
        }
    }
}

impl Answer<ContextEvent> for Chain {
    fn emitted(output: Self::Output) -> Emitted {
        Emitted::result(match output {
            Some(messages) => json!({ "messages": messages }),
            None => Value::Null,
        })
    }
}

fn to_json(value: &impl serde::Serialize) -> Value {
    // Our result types serialize to JSON without fail (string keys, no non-finite floats from
    // a decoded payload).
    serde_json::to_value(value).unwrap_or(Value::Null)
}
