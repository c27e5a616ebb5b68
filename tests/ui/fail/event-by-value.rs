use hookwright::prelude::*;

#[hook(event = "tool_call")]
fn guard(_event: ToolCallEvent) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard;
}
