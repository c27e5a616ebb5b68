use hookwright::prelude::*;

#[hook(event = "tool_call")]
async fn guard(_event: &ToolCallEvent) -> Option<ToolResultEventResult> {
    None
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard;
}
