//! The Gemini API (`POST .../models/MODEL:streamGenerateContent?alt=sse` and
//! `:generateContent`), as Gemini CLI speaks it.
//!
//! The answer is one `GenerateContentResponse` whose candidate holds a `text` part or a
//! `functionCall` part: streamed, it is one SSE `data:` event. A request that offers no tools
//! and asks for JSON (`generationConfig.responseMimeType`, Gemini CLI's utility calls such as
//! its model router) is answered `{}`, which parses, so the agent does not retry it.

use serde_json::{Value, json};

use super::{
    Answered, Shared, Step, Turn, UNSCRIPTED_TEXT, json_response, shell_call, sse_data_response,
    strings,
};

/// Answers one `generateContent` request from the script, as SSE when `stream`.
pub(crate) fn answer(shared: &Shared, body: &Value, path: &str, stream: bool) -> Turn {
    let (part, answered) = decide(shared, body);
    let model = path
        .rsplit('/')
        .next()
        .and_then(|m| m.split(':').next())
        .unwrap_or("e2e-model");
    let tokens = shared.input_tokens(&answered);
    let response = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [part]},
            "finishReason": "STOP", "index": 0,
        }],
        "usageMetadata": {
            "promptTokenCount": tokens, "candidatesTokenCount": 5, "totalTokenCount": tokens + 5,
        },
        "modelVersion": model,
        "responseId": shared.id("resp"),
    });
    Turn {
        response: if stream {
            sse_data_response(&[response.to_string()])
        } else {
            json_response(&response)
        },
        answered,
    }
}

fn decide(shared: &Shared, body: &Value) -> (Value, Answered) {
    let text = |t: &str| json!({ "text": t });
    let tools = offered_tools(body);
    if tools.is_empty() {
        let wants_json = body["generationConfig"]["responseMimeType"]
            .as_str()
            .is_some_and(|m| m.contains("json"));
        let reply = if wants_json { "{}" } else { UNSCRIPTED_TEXT };
        return (text(reply), Answered::Unscripted);
    }
    let Some((index, step)) = shared.next_step() else {
        return (text(UNSCRIPTED_TEXT), Answered::Unscripted);
    };
    let part = match step {
        Step::Shell(command) => match shell_call(&tools, command) {
            Some((name, args)) => function_call(shared, &name, args),
            None => text(&format!(
                "e2e: no shell tool among the offered tools {:?}",
                tools.iter().map(|(n, _)| n).collect::<Vec<_>>()
            )),
        },
        Step::Tool { name, input } => function_call(shared, name, input.clone()),
        Step::Text(t) => text(t),
    };
    (part, Answered::Step(index))
}

fn function_call(shared: &Shared, name: &str, args: Value) -> Value {
    json!({"functionCall": {"id": shared.id("call"), "name": name, "args": args}})
}

/// The function declarations a request offers, as `(name, parameters schema)`.
fn offered_tools(body: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        for declaration in tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let Some(name) = declaration["name"].as_str() else {
                continue;
            };
            let schema = if declaration["parametersJsonSchema"].is_object() {
                declaration["parametersJsonSchema"].clone()
            } else {
                declaration["parameters"].clone()
            };
            out.push((name.to_owned(), schema));
        }
    }
    out
}

/// The `functionResponse` parts of a request, in order.
pub(crate) fn function_responses(body: &Value) -> Vec<&Value> {
    body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p.get("functionResponse"))
        .collect()
}

/// The function responses in a request, as `(id, text)`: what the model received from each
/// tool (the strings of its `response`, an `output` or an `error`).
pub(crate) fn tool_results(body: &Value) -> Vec<(String, String)> {
    function_responses(body)
        .into_iter()
        .map(|r| {
            let id = r["id"].as_str().or(r["name"].as_str()).unwrap_or("");
            (id.to_owned(), strings(&r["response"]).join("\n"))
        })
        .collect()
}
