//! Tool events (SPEC-DETAILS section 1.3): `tool_call` before a tool runs, `tool_result` after.

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::message::{Content, TextContent};

/// A tool's input: a JSON object (`Record<string, unknown>`), shared.
///
/// Upstream hands the `tool_call` handlers, the tool and the `tool_result` handlers the same
/// input object; so does this type: a clone shares the object (it copies a pointer), so the
/// tool wrapper puts the input in both events without copying it. Read it as the map it
/// derefs to (`input.get("command")`, `input["command"]`); build it from a map or a JSON
/// object.
///
/// ```
/// use hookwright::events::ToolInput;
/// use serde_json::json;
///
/// let input = ToolInput::try_from(json!({ "command": "ls -la" })).unwrap();
/// assert_eq!(input["command"], "ls -la");
/// let shared = input.clone();
/// assert!(ToolInput::ptr_eq(&input, &shared));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolInput(Arc<Map<String, Value>>);

impl ToolInput {
    /// An empty input.
    #[must_use]
    pub fn new() -> Self {
        ToolInput::default()
    }

    /// Whether `a` and `b` share one object.
    #[must_use]
    pub fn ptr_eq(a: &ToolInput, b: &ToolInput) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The map, copied only when another clone still shares it.
    #[must_use]
    pub fn into_map(self) -> Map<String, Value> {
        Arc::unwrap_or_clone(self.0)
    }
}

impl Deref for ToolInput {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl From<Map<String, Value>> for ToolInput {
    fn from(map: Map<String, Value>) -> Self {
        ToolInput(Arc::new(map))
    }
}

impl FromIterator<(String, Value)> for ToolInput {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        ToolInput::from(Map::from_iter(iter))
    }
}

impl TryFrom<Value> for ToolInput {
    /// The value, when it is not an object.
    type Error = Value;

    /// The input of a JSON object; any other value is given back.
    fn try_from(value: Value) -> Result<Self, Value> {
        match value {
            Value::Object(map) => Ok(ToolInput::from(map)),
            other => Err(other),
        }
    }
}

impl From<ToolInput> for Value {
    fn from(input: ToolInput) -> Value {
        Value::Object(input.into_map())
    }
}

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

impl ToolCallEvent {
    /// The input field `key` as a string, if it is one.
    #[must_use]
    pub fn input_str(&self, key: &str) -> Option<&str> {
        self.input.get(key).and_then(Value::as_str)
    }
}

/// The reason of a block whose handler gave none (or an empty one).
pub const DEFAULT_BLOCK_REASON: &str = "Tool execution was blocked by a hook";

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

    /// The reason this result blocks with, when it blocks: its `reason`, or
    /// [`DEFAULT_BLOCK_REASON`] when it has none or an empty one. As upstream
    /// (`result.reason || "Tool execution was blocked by a hook"`), a reason of only
    /// whitespace is a reason, and is kept.
    ///
    /// ```
    /// use hookwright::events::{DEFAULT_BLOCK_REASON, ToolCallEventResult};
    ///
    /// let reason = |r: &str| ToolCallEventResult::block(r).into_block_reason();
    /// assert_eq!(reason("no"), Some("no".to_owned()));
    /// assert_eq!(reason(""), Some(DEFAULT_BLOCK_REASON.to_owned()));
    /// assert_eq!(reason(" "), Some(" ".to_owned()));
    /// assert_eq!(ToolCallEventResult::default().into_block_reason(), None);
    /// ```
    #[must_use]
    pub fn into_block_reason(self) -> Option<String> {
        self.is_block().then(|| {
            self.reason
                .filter(|reason| !reason.is_empty())
                .unwrap_or_else(|| DEFAULT_BLOCK_REASON.to_owned())
        })
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

/// The tools whose output shows the model a file's contents, where a hook that keeps
/// secrets from the model looks ([`ToolResultEvent::shows_file_contents`]): `read` (Claude
/// Code's `Read`, in each of its output shapes as the adapters hand them on: text, a
/// notebook's cells, a PDF's pages), `grep` (Claude Code's `Grep`: its matching lines) and
/// `bash`, the shell (Claude Code's `Bash`, every Codex shell tool): `cat secret.env` shows
/// the file as much as a read does, and Codex has no read tool at all. `edit` and `write`
/// show the model no file contents.
pub const FILE_CONTENT_TOOLS: &[&str] = &["read", "grep", "bash"];

/// What [`ToolResultEvent::redact_text`] puts in place of a chunk that is neither text nor an
/// image (a PDF sent whole as a document): a hook cannot look inside it, and the secret could
/// be in its bytes.
pub const WITHHELD_DOCUMENT: &str =
    "[document withheld: the redaction hook cannot look inside it for secrets]";

impl ToolResultEvent {
    /// Whether this is the result of a failed tool (`isError: true`).
    #[must_use]
    pub fn failed(&self) -> bool {
        self.is_error == Some(true)
    }

    /// Whether this result shows the model a file's contents: its tool is one of
    /// [`FILE_CONTENT_TOOLS`] and it did not fail. A failed result is left out, as upstream:
    /// in Claude Code only `PostToolUseFailure` fires for it, and a rewrite of it is never
    /// applied.
    #[must_use]
    pub fn shows_file_contents(&self) -> bool {
        FILE_CONTENT_TOOLS.contains(&self.tool_name.as_str()) && !self.failed()
    }

    /// This result's output with every text chunk's text replaced by `redact(text)` (its other
    /// fields kept), images kept as they are (a text pattern finds nothing in a picture), and
    /// any other chunk (a document) replaced by the text [`WITHHELD_DOCUMENT`]. What a
    /// redaction cannot be applied to is withheld, never passed.
    ///
    /// ```
    /// use hookwright::events::{Content, ToolResultEvent, WITHHELD_DOCUMENT};
    /// use serde_json::json;
    ///
    /// let event = ToolResultEvent {
    ///     tool_name: "read".into(),
    ///     tool_call_id: "t1".into(),
    ///     input: Default::default(),
    ///     content: vec![
    ///         Content::text("TOKEN=abc"),
    ///         Content::Other(json!({ "type": "document", "source": { "data": "JVBERi0=" } })),
    ///     ],
    ///     details: None,
    ///     is_error: None,
    ///     is_warning: None,
    /// };
    /// assert!(event.shows_file_contents());
    /// let redacted = event.redact_text(|text| text.replace("abc", "[REDACTED]"));
    /// assert_eq!(
    ///     redacted,
    ///     [Content::text("TOKEN=[REDACTED]"), Content::text(WITHHELD_DOCUMENT)]
    /// );
    /// ```
    #[must_use]
    pub fn redact_text(&self, mut redact: impl FnMut(&str) -> String) -> Vec<Content> {
        self.content
            .iter()
            .map(|chunk| match chunk {
                Content::Text(text) => Content::Text(TextContent {
                    text: redact(&text.text),
                    extra: text.extra.clone(),
                }),
                Content::Image(_) => chunk.clone(),
                Content::Other(_) => Content::text(WITHHELD_DOCUMENT),
            })
            .collect()
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
