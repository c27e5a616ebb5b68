use hookwright::prelude::*;

#[hook(event = "tool_call")]
const GUARD: u32 = 1;

fn main() {
    let _ = GUARD;
}
