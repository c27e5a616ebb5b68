//! Our side of the [mapping](super#mapping), the same for every agent: a decoded [`Call`] is
//! emitted on a [`Session`]'s runner, and what the hooks did becomes a [`Reply`]: a
//! [`Decision`] for the protocol to encode, a failure for the transport to report, or both,
//! and what the hooks said to the user ([`Reply::notice`]).

use hookwright::ToolCallHookError;
use hookwright::events::{
    ContextEvent, SessionBeforeCompactEvent, SessionShutdownEvent, SessionStartEvent,
    SessionSwitchEvent, SwitchReason, ToolCallEvent, ToolCallEventResult, ToolResultEvent,
};
use hookwright::handler::HandlerErrorKind;

use super::MAX_REASON_CHARS;
use super::session::{Sent, Session};
use crate::agents::tool_io::ToolOutputView;
use crate::agents::{Call, Decision, StartSource};
use crate::json::one_line;
use crate::text::clean_text;

/// The result of one call: a decision, a failure, or both, and what the hooks said to the
/// user.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub(super) decision: Option<Decision>,
    pub(super) failure: Option<String>,
    /// What the hooks said to the user that no decision carries: what they notified
    /// (`ctx.ui().notify`), the status line when they set it (`status: ...`), and the
    /// messages sent with `display: true` (their renderer's lines, else their text), in that
    /// order; the protocol shows it where the agent has a channel for the user
    /// ([`Protocol::tell_user`](super::Protocol::tell_user)).
    pub(super) notice: Vec<String>,
}

impl Reply {
    fn decision(decision: Decision) -> Self {
        Reply {
            decision: Some(decision),
            ..Reply::default()
        }
    }

    pub(super) fn failure(failure: impl Into<String>) -> Self {
        Reply {
            failure: Some(failure.into()),
            ..Reply::default()
        }
    }

    /// No decision; the handler errors reported, if any, as the failure.
    fn errors(s: &Session) -> Self {
        Reply {
            failure: s.take_errors(),
            ..Reply::default()
        }
    }
}

/// Emits `call` on the runner of `s`.
pub(super) async fn emit(call: Call, s: &Session) -> Reply {
    let reply = emit_call(call, s).await;
    with_notice(reply, s)
}

/// The reply to the agent's session start once `session_start` was emitted on `s` (by a
/// resident host, when the call built the session): as [`emit`] answers a new session's
/// `SessionStart`.
pub(super) fn started(s: &Session) -> Reply {
    with_notice(start_reply(s), s)
}

/// `reply` with what the hooks told the user in the call.
fn with_notice(mut reply: Reply, s: &Session) -> Reply {
    reply.notice.extend(s.take_notes());
    reply
        .notice
        .extend(s.take_status().map(|line| format!("status: {line}")));
    reply
        .notice
        .extend(s.take_messages().into_iter().filter_map(|m| m.shown));
    reply
}

/// The events of `call`, and what they decided.
async fn emit_call(call: Call, s: &Session) -> Reply {
    match call {
        Call::ToolCall(event) => tool_call(&event, s).await,
        Call::ToolResult { event, output } => tool_result(&event, output, s).await,
        Call::ToolFailure(event) => {
            // On the error path the result is ignored, as upstream.
            let _ignored = s.runner.emit_tool_result(&event).await;
            Reply::errors(s)
        }
        Call::Prompt(prompt) => prompt_submitted(&prompt, s).await,
        Call::SessionStart(source) => session_started(source, s).await,
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

/// `SessionStart` by its source: `session_start` for a new session, `session_switch` for one
/// resumed, cleared or forked, nothing after a compaction (the session goes on).
async fn session_started(source: StartSource, s: &Session) -> Reply {
    let reason = match source {
        StartSource::Startup => {
            let _ = s.runner.emit(&SessionStartEvent {}).await;
            return start_reply(s);
        }
        StartSource::Resume => SwitchReason::Resume,
        StartSource::Clear => SwitchReason::New,
        StartSource::Fork => SwitchReason::Fork,
        StartSource::Compact => return Reply::default(),
    };
    let switch = SessionSwitchEvent {
        reason,
        previous_session_file: None,
    };
    let _ = s.runner.emit(&switch).await;
    start_reply(s)
}

/// The messages sent at a session start as context, the errors as the failure.
fn start_reply(s: &Session) -> Reply {
    let mut reply = context(Vec::new(), s.take_messages());
    reply.failure = s.take_errors();
    reply
}

/// `parts` and the texts of `messages`, joined with blank lines, as context for the model;
/// the displayed messages also go to the user.
fn context(mut parts: Vec<String>, messages: Vec<Sent>) -> Reply {
    let mut notice = Vec::new();
    for message in messages {
        parts.push(message.text);
        notice.extend(message.shown);
    }
    let text = parts.join("\n\n");
    let decision = (!text.trim().is_empty()).then_some(Decision::Context { text });
    Reply {
        decision,
        notice,
        ..Reply::default()
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
            ..Reply::default()
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
        return command(name, args, s).await;
    }
    let result = s.runner.emit_before_agent_start(prompt, None).await;
    let mut messages = Vec::new();
    if let Some(message) = result.and_then(|r| r.message) {
        let text = message.content.to_text();
        let shown = message.display.then(|| text.clone());
        messages.push(Sent { text, shown });
    }
    messages.extend(s.take_messages());
    let mut reply = context(Vec::new(), messages);
    if let Some(errors) = s.take_errors() {
        reply = Reply::failure(errors);
    }
    reply
}

/// The command `/name args`: its answer blocks the prompt (the command ran instead), with
/// everything the command said to the user as the reason: what it notified, the status line
/// it set, the messages it sent, and each session action the agent cannot do from a hook.
async fn command(name: &str, args: &str, s: &Session) -> Reply {
    if let Some(Err(e)) = s.runner.run_command(name, args).await {
        let what = if e.kind() == HandlerErrorKind::Panic {
            "panicked"
        } else {
            "failed"
        };
        return Reply::failure(format!("command /{name} {what}: {}", e.message()));
    }
    let mut parts = s.take_notes();
    parts.extend(s.take_status().map(|line| format!("status: {line}")));
    parts.extend(
        s.take_messages()
            .into_iter()
            .map(|m| m.shown.unwrap_or(m.text)),
    );
    parts.extend(s.take_unavailable().into_iter().map(|what| {
        format!(
            "/{name}: {what} is not available through the {} hook adapter (the agent owns \
             its sessions); nothing was done.",
            s.agent
        )
    }));
    let output = clean_text(parts.join("\n").trim());
    let reason = if output.is_empty() {
        format!("/{name} done.")
    } else {
        output
    };
    Reply::decision(Decision::BlockPrompt { reason })
}

async fn compact(event: &SessionBeforeCompactEvent, s: &Session) -> Reply {
    let result = s.runner.emit(event).await;
    if let Some(errors) = s.take_errors() {
        return Reply::failure(errors);
    }
    match result {
        Some(r) if r.cancel == Some(true) => {
            // What the hooks notified says why: it goes with the reason, which both agents
            // show where they show nothing else of a PreCompact hook.
            let mut reason = "Compaction cancelled by a hook".to_owned();
            let notes = s.take_notes();
            if !notes.is_empty() {
                reason = format!("{reason}: {}", clean_text(&notes.join("; ")));
            }
            Reply::decision(Decision::CancelCompact { reason })
        }
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
