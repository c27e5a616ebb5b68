use hookwright::prelude::*;

#[command("")]
async fn handoff(_args: &str, _ctx: &CommandContext) {}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = handoff;
}
