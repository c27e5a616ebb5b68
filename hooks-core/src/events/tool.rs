//! Tool events (SPEC-DETAILS section 1.3): `tool_call` before a tool runs, `tool_result` after.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::hook_event;
use super::message::Content;

/// A tool's input: a JSON object (`Record<string, unknown>`).
pub type ToolInput = Map<String, Value>;

/// `tool_call`: a tool is about to run. Any handler may block it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ToolCallEvent {
    /// The tool's name, e.g. `bash`.
    pub tool_name: String,
    /// The id of this call.
    pub tool_call_id: String,
    /// The tool's input.
    pub input: ToolInput,
}
hook_event!(
    ToolCallEvent,
    "tool_call",
    ToolCall,
    ToolCallEventResult,
    LastWinsUntilBlock,
    |r| r.block == Some(true)
);

impl ToolCallEvent {
    /// The input field `key` as a string, if it is one.
    #[must_use]
    pub fn input_str(&self, key: &str) -> Option<&str> {
        self.input.get(key).and_then(Value::as_str)
    }
}

/// Result of `tool_call`: `block: true` stops the call, with `reason` as the error text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallEventResult {
    /// `true` blocks the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<bool>,
    /// Why the call is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ToolCallEventResult {
    /// A result that blocks the call with `reason`.
    #[must_use]
    pub fn block(reason: impl Into<String>) -> Self {
        ToolCallEventResult {
            block: Some(true),
            reason: Some(reason.into()),
        }
    }

    /// Whether this result blocks.
    #[must_use]
    pub fn is_block(&self) -> bool {
        self.block == Some(true)
    }
}

/// `tool_result`: a tool ran (or failed). Handlers may override `content` and `details`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ToolResultEvent {
    /// The tool's name.
    pub tool_name: String,
    /// The id of this call.
    pub tool_call_id: String,
    /// The tool's input.
    pub input: ToolInput,
    /// The tool's output (on failure: one text chunk with the error).
    pub content: Vec<Content>,
    /// Tool-specific details (`BashToolDetails`, `ReadToolDetails`, ...). `None` (upstream
    /// `undefined`, e.g. on the error path) is left out of the JSON, as upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Whether the tool warned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_warning: Option<bool>,
}
hook_event!(
    ToolResultEvent,
    "tool_result",
    ToolResult,
    ToolResultEventResult,
    LastWins
);

impl ToolResultEvent {
    /// Whether this is the result of a failed tool (`isError: true`).
    #[must_use]
    pub fn failed(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// Result of `tool_result`: overrides of the tool's output. Only `content` and `details` are
/// applied; `is_error` and `is_warning` are accepted but ignored, as upstream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultEventResult {
    /// Replacement content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Content>>,
    /// Replacement details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Declared upstream, never applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Declared upstream, never applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_warning: Option<bool>,
}
