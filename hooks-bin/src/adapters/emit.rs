//! Our side of the [mapping](super#mapping), the same for every agent: a decoded [`Call`] is
//! emitted on a [`Session`]'s runner, and what the hooks did becomes a [`Reply`]: a
//! [`Decision`] for the protocol to encode, a failure for the transport to report, or both.

use hooks_core::ToolCallHookError;
use hooks_core::events::{
    ContextEvent, SessionBeforeCompactEvent, SessionShutdownEvent, SessionStartEvent,
    ToolCallEvent, ToolCallEventResult, ToolResultEvent,
};
use hooks_core::handler::HandlerErrorKind;

use super::MAX_REASON_CHARS;
use super::protocol::{Call, Decision};
use super::session::Session;
use super::tools::ToolOutputView;
use crate::json::one_line;
use crate::text::clean_text;

/// The result of one call: a decision, a failure, or both.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub(super) decision: Option<Decision>,
    pub(super) failure: Option<String>,
}

impl Reply {
    fn decision(decision: Decision) -> Self {
        Reply {
            decision: Some(decision),
            failure: None,
        }
    }

    pub(super) fn failure(failure: impl Into<String>) -> Self {
        Reply {
            decision: None,
            failure: Some(failure.into()),
        }
    }

    /// No decision; the handler errors reported, if any, as the failure.
    fn errors(s: &Session) -> Self {
        Reply {
            decision: None,
            failure: s.take_errors(),
        }
    }
}

/// Emits `call` on the runner of `s`.
pub(super) async fn emit(call: Call, s: &Session) -> Reply {
    match call {
        Call::ToolCall(event) => tool_call(&event, s).await,
        Call::ToolResult { event, output } => tool_result(&event, output, s).await,
        Call::ToolFailure(event) => {
            // On the error path the result is ignored, as upstream.
            let _ignored = s.runner.emit_tool_result(&event).await;
            Reply::errors(s)
        }
        Call::Prompt(prompt) => prompt_submitted(&prompt, s).await,
        Call::SessionStart => {
            let _ = s.runner.emit(&SessionStartEvent {}).await;
            let mut reply = context(s.take_messages());
            reply.failure = s.take_errors();
            reply
        }
        Call::SessionEnd => {
            let _ = s.runner.emit(&SessionShutdownEvent {}).await;
            Reply::errors(s)
        }
        Call::Compact(event) => compact(&event, s).await,
        Call::AgentEnd(event) => {
            let _ = s.runner.emit(&event).await;
            Reply::errors(s)
        }
        Call::Context(event) => context_chain(event, s).await,
        Call::None => Reply::default(),
    }
}

/// `context` over the messages the agent showed: a changed list replaces them; a handler's
/// error fails the call (the messages it was to filter must not reach the model unfiltered).
async fn context_chain(event: ContextEvent, s: &Session) -> Reply {
    let received = event.messages.clone();
    let messages = s.runner.emit_context(event.messages).await;
    if let Some(errors) = s.take_errors() {
        return Reply::failure(errors);
    }
    if messages == received {
        Reply::default()
    } else {
        Reply::decision(Decision::ReplaceMessages { received, messages })
    }
}

fn context(parts: Vec<String>) -> Reply {
    let text = parts.join("\n\n");
    if text.trim().is_empty() {
        Reply::default()
    } else {
        Reply::decision(Decision::Context { text })
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

async fn tool_call(event: &ToolCallEvent, s: &Session) -> Reply {
    match s.runner.emit_tool_call(event).await {
        Ok(result) => match result.and_then(ToolCallEventResult::into_block_reason) {
            Some(reason) => Reply::decision(Decision::Deny { reason }),
            None => Reply::default(),
        },
        Err(e) => Reply::failure(tool_call_failure(&e)),
    }
}

async fn tool_result(event: &ToolResultEvent, output: ToolOutputView, s: &Session) -> Reply {
    let result = s.runner.emit_tool_result(event).await;
    if let Some(errors) = s.take_errors() {
        return Reply {
            decision: Some(Decision::WithholdOutput {
                output,
                reason: one_line(&errors, MAX_REASON_CHARS),
            }),
            failure: Some(errors),
        };
    }
    match result.and_then(|r| r.content) {
        Some(content) if content != output.content() => {
            Reply::decision(Decision::ReplaceOutput { output, content })
        }
        _ => Reply::default(),
    }
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

async fn prompt_submitted(prompt: &str, s: &Session) -> Reply {
    if let Some((name, args)) = parse_command(prompt)
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
                Reply::decision(Decision::BlockPrompt { reason })
            }
        };
    }
    let result = s.runner.emit_before_agent_start(prompt, None).await;
    let mut parts: Vec<String> = result
        .and_then(|r| r.message)
        .map(|m| m.content.to_text())
        .into_iter()
        .collect();
    parts.extend(s.take_messages());
    let mut reply = context(parts);
    if let Some(errors) = s.take_errors() {
        reply = Reply::failure(errors);
    }
    reply
}

async fn compact(event: &SessionBeforeCompactEvent, s: &Session) -> Reply {
    let result = s.runner.emit(event).await;
    if let Some(errors) = s.take_errors() {
        return Reply::failure(errors);
    }
    match result {
        Some(r) if r.cancel == Some(true) => Reply::decision(Decision::CancelCompact {
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
