use hookwright::prelude::*;

// A reference of the wrong type gets one error per parameter, naming the expected type: no
// second error about `HookEvent` listing every event.

#[command("handoff")]
fn handoff(_args: &String) {}

#[hook(event = "tool_call")]
fn guard(_event: &String) {}

fn main() {
    let _ = (handoff, guard);
}
