use hookwright::prelude::*;

// `timeout` for `timeout_ms`: the error suggests the key with its unit.
#[hook(event = "turn_start", timeout = 500)]
async fn slow(_event: &TurnStartEvent) {}

fn main() {
    let _ = slow;
}
