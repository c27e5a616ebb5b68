//! Anthropic Messages (`POST /v1/messages`), as Claude Code speaks it.

use serde_json::{Value, json};

use super::{Answered, Shared, Step, Turn, UNSCRIPTED_TEXT, json_response, sse_response, strings};

/// What a compaction request asks for (the summary prompt), in the last user message:
/// Claude Code's, and oh-my-pi's (which offers its tools with it). pi's offers no tools, so it
/// is answered as unscripted text in any case.
const COMPACTION_MARKERS: [&str; 2] = [
    "summary of the conversation",
    "Write a handoff document for another instance of yourself",
];

/// Answers one Messages request from the script.
pub(crate) fn answer(shared: &Shared, body: &Value) -> Turn {
    let (content, answered) = decide(shared, body);
    let stop_reason = if content.iter().any(|c| c["type"] == "tool_use") {
        "tool_use"
    } else {
        "end_turn"
    };
    let model = body["model"].as_str().unwrap_or("e2e-model");
    let id = shared.id("msg");
    let usage = json!({ "input_tokens": shared.input_tokens(&answered), "output_tokens": 5 });
    if body["stream"] != Value::Bool(true) {
        return Turn {
            response: json_response(&json!({
                "id": id, "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": null,
                "usage": usage,
            })),
            answered,
        };
    }
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage,
        }}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = match block["type"].as_str() {
            Some("tool_use") => (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            ),
            _ => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            ),
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    Turn {
        response: sse_response(&events),
        answered,
    }
}

fn decide(shared: &Shared, body: &Value) -> (Vec<Value>, Answered) {
    let text = |t: &str| vec![json!({"type": "text", "text": t})];
    let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
    if is_compaction(messages) {
        return (text(&shared.script.summary), Answered::Summary);
    }
    let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if !offers_tools {
        return (text(UNSCRIPTED_TEXT), Answered::Unscripted);
    }
    let Some((index, step)) = shared.next_step() else {
        return (text(UNSCRIPTED_TEXT), Answered::Unscripted);
    };
    let offered = |name: &str| {
        body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["name"] == name))
    };
    let block = match step {
        Step::Shell(_) if !offered("Bash") => {
            return (
                text("e2e: no Bash tool among the offered tools"),
                Answered::Step(index),
            );
        }
        Step::Shell(command) => tool_use(shared, "Bash", json!({ "command": command })),
        Step::Tool { name, input } => tool_use(shared, name, input.clone()),
        Step::Text(t) => return (text(t), Answered::Step(index)),
    };
    (vec![block], Answered::Step(index))
}

fn tool_use(shared: &Shared, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": shared.id("toolu"), "name": name, "input": input})
}

/// Whether the last user message asks for a summary of the conversation.
fn is_compaction(messages: &[Value]) -> bool {
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .is_some_and(|m| {
            strings(&m["content"])
                .iter()
                .any(|s| COMPACTION_MARKERS.iter().any(|m| s.contains(m)))
        })
}

/// The tool results in a request, as `(tool_use_id, text)`: what the model received from each
/// tool.
pub(crate) fn tool_results(body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = match &block["content"] {
                    Value::Array(parts) => parts
                        .iter()
                        .map(|p| match p["text"].as_str() {
                            Some(text) => text.to_owned(),
                            None => format!("[{} block]", p["type"].as_str().unwrap_or("?")),
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                    other => strings(other).join("\n"),
                };
                out.push((block["tool_use_id"].as_str().unwrap_or("").to_owned(), text));
            }
        }
    }
    out
}
