use hookwright::prelude::*;

#[command("handoff")]
fn handoff(_args: &str, _ctx: &CommandContext, _extra: u32) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = handoff;
}
