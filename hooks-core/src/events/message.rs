//! Shared message and content types: what `context`, `turn_end` and `agent_end` carry.
//!
//! Unknown fields are kept in each type's `extra` map, and unknown content types and message
//! roles are kept whole as JSON (`Content::Other`, `Message::Other`), so a message read from the
//! wire is written back unchanged.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Unknown JSON fields, kept in order so they round-trip.
pub type Extra = Map<String, Value>;

/// One piece of message content: text, an image, or any other content type kept as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Content {
    /// `{ "type": "text", "text": ... }`
    #[serde(rename = "text")]
    Text(TextContent),
    /// `{ "type": "image", "data": ..., "mimeType": ... }`
    #[serde(rename = "image")]
    Image(ImageContent),
    /// Any other content (e.g. an assistant's `thinking` or `toolCall`), kept as JSON.
    #[serde(untagged)]
    Other(Value),
}

impl Content {
    /// A text chunk.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            extra: Extra::new(),
        })
    }

    /// The text of a text chunk, `None` for other content.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// `TextContent`: `{ type: "text", text }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `ImageContent`: `{ type: "image", data, mimeType }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 image data.
    pub data: String,
    /// The image's MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Message content that is either a plain string or a list of chunks
/// (`string | (TextContent | ImageContent)[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// A plain string.
    Text(String),
    /// A list of content chunks.
    Parts(Vec<Content>),
}

impl MessageContent {
    /// All text of this content, chunks joined with newlines.
    #[must_use]
    pub fn to_text(&self) -> String {
        match self {
            MessageContent::Text(s) => s.clone(),
            MessageContent::Parts(parts) => parts
                .iter()
                .filter_map(Content::as_text)
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl From<&str> for MessageContent {
    fn from(s: &str) -> Self {
        MessageContent::Text(s.to_owned())
    }
}

impl From<String> for MessageContent {
    fn from(s: String) -> Self {
        MessageContent::Text(s)
    }
}

/// Who a custom message is attributed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Attribution {
    /// The user.
    User,
    /// The agent.
    Agent,
}

/// A message of the agent's conversation (`AgentMessage`), discriminated by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role")]
pub enum Message {
    /// `role: "user"`.
    #[serde(rename = "user")]
    User(UserMessage),
    /// `role: "assistant"`.
    #[serde(rename = "assistant")]
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    #[serde(rename = "toolResult")]
    ToolResult(ToolResultMessage),
    /// `role: "custom"`: a message sent by a hook (`sendMessage`).
    #[serde(rename = "custom")]
    Custom(CustomMessage),
    /// Any other role, kept as JSON.
    #[serde(untagged)]
    Other(Value),
}

impl Message {
    /// A user message with plain text content.
    #[must_use]
    pub fn user(text: impl Into<String>) -> Self {
        Message::User(UserMessage {
            content: MessageContent::Text(text.into()),
            timestamp: None,
            extra: Extra::new(),
        })
    }

    /// The role string of this message.
    #[must_use]
    pub fn role(&self) -> &str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
            Message::Custom(_) => "custom",
            Message::Other(v) => v.get("role").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The custom type of a custom message, `None` for other roles.
    #[must_use]
    pub fn custom_type(&self) -> Option<&str> {
        match self {
            Message::Custom(m) => Some(&m.custom_type),
            _ => None,
        }
    }
}

/// A user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// The prompt text or chunks.
    pub content: MessageContent,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An assistant message. Its content may hold thinking and tool-call chunks
/// ([`Content::Other`]); model metadata (`api`, `provider`, `usage`, ...) stays in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The content chunks.
    pub content: Vec<Content>,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of one tool call as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the tool call this answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The output chunks.
    pub content: Vec<Content>,
    /// Tool-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Whether the tool failed.
    #[serde(default)]
    pub is_error: bool,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A custom message (`HookMessage`): what `sendMessage` sends and renderers render.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The custom type, used to pick a renderer.
    pub custom_type: String,
    /// The content.
    pub content: MessageContent,
    /// Whether the message is shown in the transcript.
    pub display: bool,
    /// Hook-specific details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Who the message is attributed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CustomMessage {
    /// A displayed custom message with text content and no details.
    #[must_use]
    pub fn new(custom_type: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        CustomMessage {
            custom_type: custom_type.into(),
            content: content.into(),
            display: true,
            details: None,
            attribution: None,
            timestamp: None,
            extra: Extra::new(),
        }
    }
}
