//! Every return shape an `async fn` handler accepts, with and without the context, and what
//! each becomes when the handler runs.

use std::path::Path;
use std::sync::Arc;

use hookwright::prelude::*;
use hookwright::{HookRunner, JsonlSessionStore, registry};

#[hook(event = "tool_result")]
async fn unit(_event: &ToolResultEvent) {}

#[hook(event = "tool_result")]
async fn result(_event: &ToolResultEvent, _ctx: &HookContext) -> ToolResultEventResult {
    ToolResultEventResult::default()
}

#[hook(event = "tool_result")]
async fn option(_event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    None
}

#[hook(event = "tool_result")]
async fn result_unit(_event: &ToolResultEvent, ctx: &HookContext) -> Result<(), std::io::Error> {
    let _ = ctx.cwd();
    tokio::task::yield_now().await;
    Ok(())
}

#[hook(event = "tool_result")]
async fn result_result(_event: &ToolResultEvent) -> Result<ToolResultEventResult, String> {
    Ok(ToolResultEventResult::default())
}

#[hook(event = "tool_result")]
async fn result_option(
    _event: &ToolResultEvent,
) -> Result<Option<ToolResultEventResult>, &'static str> {
    Ok(None)
}

#[hook(event = "tool_result")]
async fn anyhow_option(event: &ToolResultEvent) -> anyhow::Result<Option<ToolResultEventResult>> {
    tokio::task::yield_now().await;
    if event.tool_name == "fail" {
        anyhow::bail!("failing on purpose");
    }
    Ok(Some(ToolResultEventResult::default()))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let names: Vec<&str> = registry::registrations().iter().map(|r| r.name()).collect();
    assert_eq!(
        names,
        [
            "unit",
            "result",
            "option",
            "result_unit",
            "result_result",
            "result_option",
            "anyhow_option"
        ]
    );
    let cwd = Path::new(".");
    let hooks = registry::compiled_hooks(cwd).unwrap();
    let runner = HookRunner::new(hooks, cwd, Arc::new(JsonlSessionStore::in_memory(cwd)));
    let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.error.clone()));
    let event = |tool: &str| {
        serde_json::from_value::<ToolResultEvent>(serde_json::json!({
            "type": "tool_result", "toolName": tool, "toolCallId": "1", "input": {},
            "content": [], "isError": false
        }))
        .unwrap()
    };
    assert!(runner.emit_tool_result(&event("read")).await.is_some());
    assert!(errors.lock().unwrap().is_empty());
    runner.emit_tool_result(&event("fail")).await;
    assert_eq!(errors.lock().unwrap().len(), 1);
}
