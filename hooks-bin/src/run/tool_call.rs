//! One tool call of an agent run: the built-in tool through [`hookwright::HookToolWrapper`] (so
//! `tool_call` and `tool_result` handlers run), recorded before and after the hooks change it.

use hookwright::events::{AssistantMessage, Content, Extra, Message, ToolInput, ToolResultMessage};
use hookwright::{Tool, ToolError};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::agent_run::{AgentRun, now_ms};
use super::driver::Driver;
use super::transcript::ToolRecord;

impl Driver {
    /// One tool call through [`hookwright::HookToolWrapper`].
    pub(super) async fn tool_call(&mut self, name: &str, input: &ToolInput, id: &str) {
        if self.run.is_none() {
            self.start_run(None, None).await;
        } else if self.run.as_ref().is_some_and(AgentRun::turn_has_tool) {
            self.end_turn().await;
            self.begin_turn().await;
        }
        let call = Message::Assistant(AssistantMessage {
            content: vec![Content::Other(json!({
                "type": "toolCall",
                "id": id,
                "name": name,
                "arguments": input,
            }))],
            timestamp: Some(now_ms()),
            extra: Extra::new(),
        });
        self.shared.append_message(call.clone());
        let Some(tool) = self.tools.get(name) else {
            self.shared.fail(&format!("unknown tool {name}"));
            return;
        };
        let call_event = hookwright::events::ToolCallEvent {
            tool_name: name.to_owned(),
            tool_call_id: id.to_owned(),
            input: input.clone(),
        };
        let handled = self.runner.has_handlers(hookwright::EventKind::ToolCall);
        self.shared.out.event("tool_call", handled, &call_event);
        let cancel = CancellationToken::new();
        let running = self
            .shared
            .interrupts
            .tool_running(format!("{name} {id}"), cancel.clone());
        let outcome = tool.execute(id, input, &cancel, None).await;
        drop(running);
        let raw = tool.inner().take();
        let record = match &outcome {
            Ok(output) => ToolRecord {
                tool: name.to_owned(),
                tool_call_id: id.to_owned(),
                status: "ok",
                changed_by_hooks: raw
                    .as_ref()
                    .and_then(|r| r.as_ref().ok())
                    .is_some_and(|r| r.content != output.content || r.details != output.details),
                content: output.content.clone(),
                details: output.details.clone(),
                reason: None,
            },
            Err(error) => {
                let status = match error {
                    ToolError::Blocked { .. } | ToolError::Hook(_) => "blocked",
                    ToolError::Cancelled => "cancelled",
                    _ => "error",
                };
                ToolRecord {
                    tool: name.to_owned(),
                    tool_call_id: id.to_owned(),
                    status,
                    changed_by_hooks: false,
                    content: vec![Content::text(error.to_string())],
                    details: None,
                    reason: Some(error.to_string()),
                }
            }
        };
        self.shared.out.tool_result(&record);
        let result = ToolResultMessage {
            tool_call_id: id.to_owned(),
            tool_name: name.to_owned(),
            content: record.content.clone(),
            details: record.details.clone(),
            is_error: record.status != "ok",
            timestamp: Some(now_ms()),
            extra: Extra::new(),
        };
        self.shared
            .append_message(Message::ToolResult(result.clone()));
        if let Some(run) = &mut self.run {
            run.add_tool_call(call, result);
        }
    }
}
