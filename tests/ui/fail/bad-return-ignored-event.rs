use hookwright::prelude::*;

#[hook(event = "turn_start")]
fn count(_event: &TurnStartEvent) -> Option<ToolCallEventResult> {
    None
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = count;
}
