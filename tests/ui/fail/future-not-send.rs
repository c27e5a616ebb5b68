use std::rc::Rc;

use hookwright::prelude::*;

async fn pause() {}

#[hook(event = "tool_call")]
async fn guard(event: &ToolCallEvent) {
    let name = Rc::new(event.tool_name.clone());
    pause().await;
    drop(name);
}

fn main() {
    // The function is still emitted: no "cannot find" error follows the real one.
    let _ = guard;
}
