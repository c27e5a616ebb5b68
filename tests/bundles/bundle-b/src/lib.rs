//! Test bundle B: like bundle A (see its docs); its `zz_shared` handler comes after A's.

use hookwright::prelude::*;

fn append(event: &ContextEvent, name: &str) -> ContextEventResult {
    let mut messages = event.messages.clone();
    messages.push(Message::user(name));
    ContextEventResult {
        messages: Some(messages),
    }
}

#[hook(event = "context", hook = "zz_shared")]
fn b_shared(event: &ContextEvent) -> ContextEventResult {
    append(event, "b_shared")
}

#[hook(event = "context")]
fn b1(event: &ContextEvent) -> ContextEventResult {
    append(event, "b1")
}

#[command("b-cmd")]
async fn b_cmd(_args: &str, _ctx: &CommandContext) -> Result<(), std::fmt::Error> {
    Ok(())
}

#[hook(event = "context")]
async fn b2(event: &ContextEvent, _ctx: &HookContext) -> ContextEventResult {
    append(event, "b2")
}

#[renderer("b-type")]
fn b_render(
    message: &CustomMessage,
    options: RenderOptions,
    _theme: &Theme,
) -> Option<Vec<String>> {
    options.expanded.then(|| vec![message.content.to_text()])
}
