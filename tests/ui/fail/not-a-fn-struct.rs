use hooks_core::prelude::*;

#[hook(event = "tool_call")]
struct Guard;

fn main() {
    let _ = Guard;
}
