use hookwright::prelude::*;

#[command("handoff", desc = "Create a new session")]
fn handoff(_args: &str) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = handoff;
}
