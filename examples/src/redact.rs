//! Redact tool output (SPEC.md section 8, example 2).
//!
//! Upstream:
//!
//! ```text
//! pi.on("tool_result", async event => {
//!   if (event.toolName !== "read" || event.isError) return;
//!   const redacted = event.content.map(chunk => {
//!     if (chunk.type !== "text") return chunk;
//!     return { ...chunk, text: chunk.text.replaceAll(/API_KEY=\S+/g, "API_KEY=[REDACTED]") };
//!   });
//!   return { content: redacted };
//! });
//! ```

use std::sync::LazyLock;

use hooks_core::prelude::*;
use regex::Regex;

static API_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"API_KEY=\S+").expect("the pattern is valid"));

/// Replaces every `API_KEY=<non-space run>` with `API_KEY=[REDACTED]`.
#[must_use]
pub fn redact_api_keys(text: &str) -> String {
    API_KEY.replace_all(text, "API_KEY=[REDACTED]").into_owned()
}

/// Redacts API keys in what the `read` tool returns.
///
/// For a `read` result that is not an error, every text chunk has each `API_KEY=<non-space
/// run>` replaced with `API_KEY=[REDACTED]`; other chunks (images) are kept as they are. The
/// model, the transcript and the session only ever see the redacted text.
#[hook(event = "tool_result")]
pub fn redact_read_output(event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    if event.tool_name != "read" || event.failed() {
        return None;
    }
    let redacted = event
        .content
        .iter()
        .map(|chunk| match chunk {
            Content::Text(text) => Content::Text(TextContent {
                text: redact_api_keys(&text.text),
                extra: text.extra.clone(),
            }),
            other => other.clone(),
        })
        .collect();
    Some(ToolResultEventResult {
        content: Some(redacted),
        ..ToolResultEventResult::default()
    })
}
