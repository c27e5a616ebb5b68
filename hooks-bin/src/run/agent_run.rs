//! [`AgentRun`]: the state of the open agent run (its turns and messages), and the clock its
//! messages are stamped with ([`now_ms`]).

use hookwright::events::{Message, ToolResultMessage};

/// The state of the open agent run.
#[derive(Default)]
pub(super) struct AgentRun {
    pub(super) turn: u64,
    /// Whether the current turn already made its tool call.
    pub(super) turn_has_tool: bool,
    pub(super) turn_message: Option<Message>,
    pub(super) turn_results: Vec<ToolResultMessage>,
    pub(super) messages: Vec<Message>,
    pub(super) reply: Option<String>,
}

impl AgentRun {
    /// Whether the current turn already made its tool call.
    pub(super) fn turn_has_tool(&self) -> bool {
        self.turn_has_tool
    }

    /// Records the current turn's tool call and its result.
    pub(super) fn add_tool_call(&mut self, call: Message, result: ToolResultMessage) {
        self.turn_has_tool = true;
        self.turn_message = Some(call.clone());
        self.messages.push(call);
        self.messages.push(Message::ToolResult(result.clone()));
        self.turn_results.push(result);
    }
}

/// Milliseconds since the epoch.
pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
