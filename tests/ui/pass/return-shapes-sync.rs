//! Every return shape a sync handler accepts, with and without the context, and what each
//! becomes when the handler runs.

use std::path::Path;
use std::sync::Arc;

use hookwright::prelude::*;
use hookwright::{HookRunner, JsonlSessionStore, registry};

#[hook(event = "tool_call")]
fn unit(_event: &ToolCallEvent) {}

#[hook(event = "tool_call")]
fn result(_event: &ToolCallEvent, _ctx: &HookContext) -> ToolCallEventResult {
    ToolCallEventResult::default()
}

#[hook(event = "tool_call")]
fn option(_event: &ToolCallEvent) -> Option<ToolCallEventResult> {
    None
}

#[hook(event = "tool_call")]
fn result_unit(_event: &ToolCallEvent, _ctx: &HookContext) -> Result<(), std::io::Error> {
    Ok(())
}

#[hook(event = "tool_call")]
fn result_result(_event: &ToolCallEvent) -> Result<ToolCallEventResult, String> {
    Ok(ToolCallEventResult::default())
}

#[hook(event = "tool_call")]
fn result_option(_event: &ToolCallEvent) -> Result<Option<ToolCallEventResult>, &'static str> {
    Ok(None)
}

#[hook(event = "tool_call")]
fn anyhow_option(event: &ToolCallEvent) -> anyhow::Result<Option<ToolCallEventResult>> {
    if event.tool_name == "fail" {
        anyhow::bail!("failing on purpose");
    }
    Ok((event.tool_name == "bash").then(|| ToolCallEventResult::block("no bash")))
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
    let call = |tool: &str| {
        serde_json::from_value::<ToolCallEvent>(serde_json::json!({
            "type": "tool_call", "toolName": tool, "toolCallId": "1", "input": {}
        }))
        .unwrap()
    };
    let blocked = runner.emit_tool_call(&call("bash")).await.unwrap().unwrap();
    assert_eq!(blocked.reason.as_deref(), Some("no bash"));
    let error = runner.emit_tool_call(&call("fail")).await.unwrap_err();
    assert!(error.to_string().contains("failing on purpose"), "{error}");
    assert!(
        !runner
            .emit_tool_call(&call("read"))
            .await
            .unwrap()
            .unwrap()
            .is_block()
    );
}
