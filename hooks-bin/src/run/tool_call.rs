//! One tool call of an agent run: the built-in tool through [`hooks_core::HookToolWrapper`] (so
//! `tool_call` and `tool_result` handlers run), recorded before and after the hooks change it.

use std::sync::{Arc, Mutex};

use hooks_core::events::{AssistantMessage, Content, Extra, Message, ToolInput, ToolResultMessage};
use hooks_core::tool::UpdateCallback;
use hooks_core::{Tool, ToolError, ToolOutput};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::agent::{AgentRun, now_ms};
use super::driver::Driver;
use super::transcript::{ToolRecord, Transcript};
use crate::tools::BuiltinTool;

/// A tool that keeps what the real tool returned, before `tool_result` handlers change it, and
/// records the `tool_result` event the wrapper is about to emit.
pub(super) struct Recorded {
    pub(super) tool: BuiltinTool,
    pub(super) out: Arc<Transcript>,
    pub(super) result_handled: bool,
    pub(super) raw: Mutex<Option<Result<ToolOutput, ToolError>>>,
}

impl Recorded {
    fn take(&self) -> Option<Result<ToolOutput, ToolError>> {
        self.raw
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl Tool for Recorded {
    fn name(&self) -> &str {
        self.tool.name()
    }
    fn description(&self) -> &str {
        self.tool.description()
    }
    fn parameters(&self) -> &Value {
        self.tool.parameters()
    }
    async fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        let out = self.tool.execute(call_id, input, cancel, on_update).await;
        let (content, details, is_error) = match &out {
            Ok(o) => (o.content.clone(), o.details.clone(), false),
            Err(e) => (vec![Content::text(e.to_string())], None, true),
        };
        self.out.event(
            "tool_result",
            self.result_handled,
            &hooks_core::events::ToolResultEvent {
                tool_name: self.tool.name().to_owned(),
                tool_call_id: call_id.to_owned(),
                input: input.clone(),
                content,
                details,
                is_error: Some(is_error),
                is_warning: None,
            },
        );
        *self
            .raw
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(out.clone());
        out
    }
}

impl Driver {
    /// One tool call through [`hooks_core::HookToolWrapper`].
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
        let call_event = hooks_core::events::ToolCallEvent {
            tool_name: name.to_owned(),
            tool_call_id: id.to_owned(),
            input: input.clone(),
        };
        let handled = self.runner.has_handlers(hooks_core::EventKind::ToolCall);
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
