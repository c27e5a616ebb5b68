use hookwright::prelude::*;

// A zero-width space: the name lists as `/handoff` but `/handoff` would not run it.
#[command("hand\u{200b}off")]
fn handoff(_args: &str) {}

fn main() {
    let _ = handoff;
}
