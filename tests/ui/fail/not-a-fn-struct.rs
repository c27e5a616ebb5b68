use hookwright::prelude::*;

#[hook(event = "tool_call")]
struct Guard;

fn main() {
    let _ = Guard;
}
