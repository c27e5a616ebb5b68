//! [`Recorded`]: the built-in tool of a tool call as the wrapper runs it, keeping what the
//! real tool returned before `tool_result` handlers change it.

use std::sync::{Arc, Mutex};

use hookwright::events::{Content, ToolInput};
use hookwright::tool::UpdateCallback;
use hookwright::{Tool, ToolError, ToolOutput};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::transcript::Transcript;
use crate::run::tools::BuiltinTool;
use crate::sync::Locked as _;

/// A tool that keeps what the real tool returned, before `tool_result` handlers change it, and
/// records the `tool_result` event the wrapper is about to emit.
pub(super) struct Recorded {
    pub(super) tool: BuiltinTool,
    pub(super) out: Arc<Transcript>,
    pub(super) result_handled: bool,
    pub(super) raw: Mutex<Option<Result<ToolOutput, ToolError>>>,
}

impl Recorded {
    pub(super) fn take(&self) -> Option<Result<ToolOutput, ToolError>> {
        self.raw.locked().take()
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
            &hookwright::events::ToolResultEvent {
                tool_name: self.tool.name().to_owned(),
                tool_call_id: call_id.to_owned(),
                input: input.clone(),
                content,
                details,
                is_error: Some(is_error),
                is_warning: None,
            },
        );
        *self.raw.locked() = Some(out.clone());
        out
    }
}
