//! OpenAI Chat Completions (`POST /v1/chat/completions`), as Copilot CLI (BYOK), Qwen Code
//! and Factory Droid (custom models) speak it.
//!
//! A streaming request (`"stream": true`) is answered with SSE `data:` chunks (a role chunk,
//! then the content or one `tool_calls` delta with the call's id and name followed by one with
//! its arguments, then a chunk with `finish_reason` and `usage`) and `data: [DONE]`; any other
//! request with one `chat.completion` object.

use serde_json::{Value, json};

use super::{
    Answered, Shared, Step, Turn, UNSCRIPTED_TEXT, json_response, shell_call, sse_data_response,
    strings,
};

/// What the model answers: text, or one call of a function tool.
enum Reply {
    Text(String),
    Call { name: String, arguments: Value },
}

/// Answers one Chat Completions request from the script.
pub(crate) fn answer(shared: &Shared, body: &Value) -> Turn {
    let (reply, answered) = decide(shared, body);
    let id = shared.id("chatcmpl");
    let model = body["model"].as_str().unwrap_or("e2e-model");
    let tokens = shared.input_tokens(&answered);
    let usage = json!({
        "prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5,
    });
    let (message, finish_reason, call) = match reply {
        Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop", None),
        Reply::Call { name, arguments } => {
            let call = json!({
                "id": shared.id("call"), "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            });
            (
                json!({"role": "assistant", "content": null, "tool_calls": [call]}),
                "tool_calls",
                Some(call),
            )
        }
    };
    if body["stream"] != Value::Bool(true) {
        return Turn {
            response: json_response(&json!({
                "id": id, "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
                "usage": usage,
            })),
            answered,
        };
    }
    let chunk = |delta: Value, finish: Option<&str>, usage: Option<&Value>| {
        let mut chunk = json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        if let Some(usage) = usage {
            chunk["usage"] = usage.clone();
        }
        chunk.to_string()
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        None,
        None,
    )];
    match &call {
        Some(call) => {
            chunks.push(chunk(
                json!({"tool_calls": [{
                    "index": 0, "id": call["id"], "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }]}),
                None,
                None,
            ));
            chunks.push(chunk(
                json!({"tool_calls": [{
                    "index": 0, "function": {"arguments": call["function"]["arguments"]},
                }]}),
                None,
                None,
            ));
        }
        None => chunks.push(chunk(json!({"content": message["content"]}), None, None)),
    }
    chunks.push(chunk(json!({}), Some(finish_reason), Some(&usage)));
    chunks.push("[DONE]".to_owned());
    Turn {
        response: sse_data_response(&chunks),
        answered,
    }
}

fn decide(shared: &Shared, body: &Value) -> (Reply, Answered) {
    let tools = offered_tools(body);
    if tools.is_empty() {
        return (
            Reply::Text(UNSCRIPTED_TEXT.to_owned()),
            Answered::Unscripted,
        );
    }
    let Some((index, step)) = shared.next_step() else {
        return (
            Reply::Text(UNSCRIPTED_TEXT.to_owned()),
            Answered::Unscripted,
        );
    };
    let reply = match step {
        Step::Shell(command) => match shell_call(&tools, command) {
            Some((name, arguments)) => Reply::Call { name, arguments },
            None => Reply::Text(format!(
                "e2e: no shell tool among the offered tools {:?}",
                tools.iter().map(|(n, _)| n).collect::<Vec<_>>()
            )),
        },
        Step::Tool { name, input } => Reply::Call {
            name: name.clone(),
            arguments: input.clone(),
        },
        Step::Text(t) => Reply::Text(t.clone()),
    };
    (reply, Answered::Step(index))
}

/// The function tools a request offers, as `(name, parameters schema)`.
fn offered_tools(body: &Value) -> Vec<(String, Value)> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let function = if t["function"].is_object() {
                &t["function"]
            } else {
                t
            };
            let name = function["name"].as_str()?;
            Some((name.to_owned(), function["parameters"].clone()))
        })
        .collect()
}

/// The tool messages in a request, as `(tool_call_id, text)`: what the model received from
/// each tool.
pub(crate) fn tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or("").to_owned(),
                content_text(&m["content"]),
            )
        })
        .collect()
}

/// A message's content as text: the string itself, or the `text` of each part of an array.
fn content_text(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p["text"].as_str() {
                Some(text) => text.to_owned(),
                None => format!("[{} part]", p["type"].as_str().unwrap_or("?")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => strings(other).join("\n"),
    }
}
