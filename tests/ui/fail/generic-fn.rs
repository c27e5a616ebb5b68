use hookwright::prelude::*;

#[hook(event = "tool_call")]
fn guard<E: HookEvent>(_event: &E) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard::<ToolCallEvent>;
}
