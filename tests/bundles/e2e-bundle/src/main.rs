//! `hooks-e2e`: an author's own `hooks` binary (every command of `hooks`), linking the examples
//! bundle and more hooks, which the e2e suite looks for in the model's requests: a
//! `before_agent_start` message, a `session_start` message (context only), a `context`
//! handler that rewrites a marked user message, a `context` handler that ends the server process
//! when a marker file says so (a server that dies while it handles an event), and a
//! `ttsr_triggered` handler, an event pi cannot deliver (the bridge names it at start). See
//! tests/tests/e2e/scenarios/pi_bridge.rs and the `*_bundle` scenarios.

use std::process::ExitCode;

use hookwright::HookApiError;
use hookwright::prelude::*;
use hookwright_examples as _;

/// The text of the message injected before every agent run.
const INJECTED: &str = "E2E-BEFORE-AGENT-START";

/// Injects a `e2e-context` message (shown) before every agent run.
#[hook(event = "before_agent_start")]
fn inject_context(_event: &BeforeAgentStartEvent) -> BeforeAgentStartEventResult {
    BeforeAgentStartEventResult {
        message: Some(InjectedMessage {
            custom_type: "e2e-context".to_owned(),
            content: MessageContent::Text(INJECTED.to_owned()),
            display: true,
            details: None,
            attribution: None,
        }),
    }
}

/// The text of the message sent when a session starts.
const SESSION_CONTEXT: &str = "E2E-SESSION-START-CONTEXT";

/// A user message's text that [`rewrite_marked`] replaces, and what it puts in its place.
const REWRITE_ME: &str = "E2E-CONTEXT-REWRITE-ME";
/// See [`REWRITE_ME`].
const REWRITTEN: &str = "E2E-CONTEXT-REWRITTEN";

/// Sends an `e2e-session` message for the model's context only (not displayed) when a session
/// starts.
///
/// # Errors
/// When the host has not set up message sending.
#[hook(event = "session_start")]
fn session_context(_event: &SessionStartEvent, ctx: &HookContext) -> Result<(), HookApiError> {
    let mut message = CustomMessage::new("e2e-session", SESSION_CONTEXT);
    message.display = false;
    ctx.send_message(message, SendMessageOptions::default())
}

/// Before every model call, replaces [`REWRITE_ME`] with [`REWRITTEN`] in the user messages'
/// text; no opinion when no message has it.
#[hook(event = "context")]
fn rewrite_marked(event: &ContextEvent) -> Option<ContextEventResult> {
    let mut changed = false;
    let messages = event
        .messages
        .iter()
        .map(|message| match message {
            Message::User(user) if user.content.to_text().contains(REWRITE_ME) => {
                changed = true;
                Message::user(user.content.to_text().replace(REWRITE_ME, REWRITTEN))
            }
            other => other.clone(),
        })
        .collect();
    changed.then_some(ContextEventResult {
        messages: Some(messages),
    })
}

/// The marker file (under the session's working directory) that makes the next `context`
/// emission end the process, once: [`exit_in_context`].
const EXIT_IN_CONTEXT: &str = ".hooks/e2e-exit-in-context";

/// When [`EXIT_IN_CONTEXT`] exists, removes it and ends the process (status 3) before
/// answering: the process serving the hooks dies in the middle of a `context` emission (for
/// the bridge's scenarios; a command adapter call exits 3).
#[hook(event = "context")]
fn exit_in_context(_event: &ContextEvent, ctx: &HookContext) {
    if std::fs::remove_file(ctx.cwd().join(EXIT_IN_CONTEXT)).is_ok() {
        std::process::exit(3);
    }
}

/// Notes the rules that fired (oh-my-pi only: pi has no such event).
#[hook(event = "ttsr_triggered")]
fn note_rules(event: &TtsrTriggeredEvent, ctx: &HookContext) {
    ctx.ui().notify(
        &format!("{} rules fired", event.rules.len()),
        NotifyKind::Info,
    );
}

fn main() -> ExitCode {
    hookwright_cli::main()
}
