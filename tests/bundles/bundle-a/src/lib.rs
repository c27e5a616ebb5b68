//! Test bundle A: `context` handlers that each append their name to the messages, so the
//! order in which a runner calls them is visible; one command; one handler in a hook shared
//! with bundle B. See `tests/tests/cross_crate.rs`.

use hookwright::prelude::*;

mod more;

/// Appends `name` to the messages of `event`.
#[must_use]
pub fn append(event: &ContextEvent, name: &str) -> ContextEventResult {
    let mut messages = event.messages.clone();
    messages.push(Message::user(name));
    ContextEventResult {
        messages: Some(messages),
    }
}

#[hook(event = "context")]
fn a1(event: &ContextEvent) -> ContextEventResult {
    append(event, "a1")
}

#[hook(event = "context")]
async fn a2(event: &ContextEvent, _ctx: &HookContext) -> Option<ContextEventResult> {
    Some(append(event, "a2"))
}

#[hook(event = "turn_start")]
fn a_turn(_event: &TurnStartEvent) {}

#[command("a-cmd", description = "bundle A's command")]
fn a_cmd(_args: &str) {}

#[hook(event = "context")]
fn a3(event: &ContextEvent) -> Result<ContextEventResult, String> {
    Ok(append(event, "a3"))
}

#[hook(event = "context", hook = "zz_shared")]
fn a_shared(event: &ContextEvent) -> ContextEventResult {
    append(event, "a_shared")
}
