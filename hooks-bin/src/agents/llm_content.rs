//! The tool results of Gemini CLI and its fork Qwen Code, which their hook JSON shares:
//! `tool_response` is `{"llmContent": ..., "returnDisplay": ...}`, and `llmContent`, what the
//! model gets, is a string, one Gemini API part (`{"text": T}`, `{"inlineData": {"mimeType",
//! "data"}}`, ...) or a list of parts. A `tool_result` handler sees `llmContent` as content:
//! a string as one text chunk, a text part as a text chunk, inline data as an image, any other
//! part as it is. `returnDisplay` (what the user is shown) is not content; the whole
//! `tool_response` is the event's `details`.

use serde_json::{Value, json};

use super::terms::Call;
use super::tool_io::ToolOutputView;

/// `call` with a tool result's content read from `llmContent` (see the [module docs](self));
/// other calls, and a `tool_response` without `llmContent`, as they are.
pub(super) fn read(call: Call) -> Call {
    match call {
        Call::ToolResult { mut event, output } => {
            let Some(llm_content) = output.original().get("llmContent") else {
                return Call::ToolResult { event, output };
            };
            let view = ToolOutputView::new(&event.tool_name, as_blocks(llm_content));
            event.content = view.content().to_vec();
            Call::ToolResult {
                event,
                output: view,
            }
        }
        other => other,
    }
}

/// `llm_content` as our content: a string as it is, parts as content blocks.
fn as_blocks(llm_content: &Value) -> Value {
    match llm_content {
        Value::String(text) => Value::String(text.clone()),
        Value::Array(parts) => Value::Array(parts.iter().map(block).collect()),
        part => Value::Array(vec![block(part)]),
    }
}

/// One Gemini API part as a content block.
fn block(part: &Value) -> Value {
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        return json!({ "type": "text", "text": text });
    }
    let inline = &part["inlineData"];
    if let (Some(data), Some(mime)) = (inline["data"].as_str(), inline["mimeType"].as_str()) {
        return json!({ "type": "image", "data": data, "mimeType": mime });
    }
    match part {
        Value::String(text) => json!({ "type": "text", "text": text }),
        other => json!({ "type": "part", "part": other }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookwright::events::Content;

    fn content(llm_content: Value) -> Vec<Content> {
        ToolOutputView::new("read_file", as_blocks(&llm_content))
            .content()
            .to_vec()
    }

    #[test]
    fn a_tool_result_is_its_llm_content_whatever_its_shape() {
        assert_eq!(content(json!("k=1")), [Content::text("k=1")]);
        assert_eq!(content(json!({"text": "k=1"})), [Content::text("k=1")]);
        let parts = content(json!([
            {"text": "a"},
            {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
            {"functionResponse": {"name": "x"}},
        ]));
        assert_eq!(parts[0], Content::text("a"));
        assert!(matches!(&parts[1], Content::Image(i) if i.mime_type == "image/png"));
        assert!(
            matches!(&parts[2], Content::Other(v) if v["part"]["functionResponse"]["name"] == "x")
        );
    }
}
