use hookwright::prelude::*;

#[hook(event = "tool_call")]
async fn guard(_event: &ToolCallEvent, _ctx: &CommandContext) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard;
}
