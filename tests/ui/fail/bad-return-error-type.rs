use hookwright::prelude::*;

struct NotDisplay;

#[hook(event = "tool_call")]
fn guard(_event: &ToolCallEvent) -> Result<(), NotDisplay> {
    Err(NotDisplay)
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard;
}
