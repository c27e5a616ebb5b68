//! Context and agent events (SPEC-DETAILS section 1.2) and their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::message::{
    Attribution, Extra, ImageContent, Message, MessageContent, ToolResultMessage,
};
use super::session::CompactionResult;

/// `context`: the messages about to be sent to the model; handlers chain replacements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct ContextEvent {
    /// The messages (as output by the previous handler).
    pub messages: Vec<Message>,
}

/// Result of `context`: `Some(messages)` replaces the messages (an empty list empties them),
/// `None` keeps the previous ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextEventResult {
    /// The replacement messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
}

/// `before_agent_start`: a user prompt is about to start the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct BeforeAgentStartEvent {
    /// The prompt.
    pub prompt: String,
    /// Images attached to the prompt (each written with its `"type": "image"` tag, as upstream).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "tagged_images"
    )]
    pub images: Option<Vec<ImageContent>>,
}

/// `images` in the upstream shape: a list of `ImageContent` objects, each carrying its
/// `"type": "image"` tag (which [`ImageContent`] alone does not write).
mod tagged_images {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use super::super::message::{Content, ImageContent};

    pub(super) fn serialize<S: Serializer>(
        images: &Option<Vec<ImageContent>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        images
            .as_ref()
            .map(|list| list.iter().cloned().map(Content::Image).collect::<Vec<_>>())
            .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<ImageContent>>, D::Error> {
        let Some(list) = Option::<Vec<Value>>::deserialize(d)? else {
            return Ok(None);
        };
        list.into_iter()
            .map(|mut item| {
                if let Value::Object(map) = &mut item {
                    match map.shift_remove("type") {
                        None => {}
                        Some(Value::String(t)) if t == "image" => {}
                        Some(other) => {
                            return Err(D::Error::custom(format!(
                                "expected image content, found type {other}"
                            )));
                        }
                    }
                }
                ImageContent::deserialize(item).map_err(D::Error::custom)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// Result of `before_agent_start`: a message to inject; the first handler to give one wins.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BeforeAgentStartEventResult {
    /// The message to inject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<InjectedMessage>,
}

/// The message a `before_agent_start` handler injects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectedMessage {
    /// The custom type.
    pub custom_type: String,
    /// The content.
    pub content: MessageContent,
    /// Whether the message is shown.
    pub display: bool,
    /// Hook-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Who the message is attributed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
}

/// `agent_start`: the agent loop started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct AgentStartEvent {}

/// `agent_end`: the agent loop ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct AgentEndEvent {
    /// The messages of the run.
    pub messages: Vec<Message>,
}

/// `turn_start`: a turn started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TurnStartEvent {
    /// The turn's index (0 for the first turn of an agent run).
    pub turn_index: u64,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
}

/// `turn_end`: a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TurnEndEvent {
    /// The turn's index.
    pub turn_index: u64,
    /// The assistant message of the turn.
    pub message: Message,
    /// The tool results of the turn.
    #[serde(default)]
    pub tool_results: Vec<ToolResultMessage>,
}

/// Why an automatic compaction started (xcsh's three, and oh-my-pi 18's `incomplete`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoCompactionReason {
    /// The context passed a threshold.
    Threshold,
    /// The context overflowed.
    Overflow,
    /// The session was idle.
    Idle,
    /// The last turn ended incomplete (oh-my-pi 18).
    Incomplete,
}

/// What an automatic compaction does (xcsh's two, and oh-my-pi 18's `remote`, `shake` and
/// `snapcompact`, which it tries in turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AutoCompactionAction {
    /// Compact because the context is full.
    ContextFull,
    /// Hand off to a new session.
    Handoff,
    /// Compact on the provider's side (oh-my-pi 18).
    Remote,
    /// Drop old tool output that is no longer needed (oh-my-pi 18).
    Shake,
    /// A snapshot compaction (oh-my-pi 18).
    Snapcompact,
}

/// `auto_compaction_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct AutoCompactionStartEvent {
    /// Why it started.
    pub reason: AutoCompactionReason,
    /// What it does.
    pub action: AutoCompactionAction,
}

/// `auto_compaction_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AutoCompactionEndEvent {
    /// What it did.
    pub action: AutoCompactionAction,
    /// The compaction, if one was made (`None`, upstream `undefined`, is left out of the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CompactionResult>,
    /// Whether it was aborted.
    pub aborted: bool,
    /// Whether the failed request will be retried.
    pub will_retry: bool,
    /// The error, if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// A benign skip (no model, no candidates, nothing to compact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<bool>,
}

/// `auto_retry_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AutoRetryStartEvent {
    /// The attempt number.
    pub attempt: u32,
    /// The maximum number of attempts.
    pub max_attempts: u32,
    /// The delay before this attempt, in milliseconds.
    pub delay_ms: u64,
    /// The error that caused the retry.
    pub error_message: String,
}

/// `auto_retry_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AutoRetryEndEvent {
    /// Whether the retry succeeded.
    pub success: bool,
    /// The attempt number.
    pub attempt: u32,
    /// The final error, if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_error: Option<String>,
}

/// A rule (`Rule`) of the rules capability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The rule's name.
    pub name: String,
    /// The rule file's path.
    pub path: String,
    /// The rule's text.
    pub content: String,
    /// Globs the rule applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globs: Option<Vec<String>>,
    /// Whether the rule always applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_apply: Option<bool>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Vec<String>>,
    /// Scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Vec<String>>,
    /// `never`, `prose-only`, `tool-only` or `always`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt_mode: Option<String>,
    /// Where the rule came from.
    #[serde(rename = "_source", default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Value>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `ttsr_triggered`: rules were triggered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct TtsrTriggeredEvent {
    /// The triggered rules.
    pub rules: Vec<Rule>,
}

/// The status of a todo item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Given up.
    Abandoned,
}

/// A todo item (`TodoItem`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TodoItem {
    /// The item id.
    pub id: String,
    /// The item text.
    pub content: String,
    /// The item status.
    pub status: TodoStatus,
    /// Notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `todo_reminder`: the agent is reminded of open todos.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TodoReminderEvent {
    /// The open todos.
    pub todos: Vec<TodoItem>,
    /// The reminder attempt.
    pub attempt: u32,
    /// The maximum number of reminders.
    pub max_attempts: u32,
}
