//! OpenAI Responses (`POST /v1/responses`), as Codex speaks it.

use serde_json::{Value, json};

use super::{Answered, Shared, Step, Turn, UNSCRIPTED_TEXT, sse_response, strings};

/// What Codex's compaction request asks for (its summary prompt).
const COMPACTION_MARKER: &str = "CONTEXT CHECKPOINT COMPACTION";

/// Answers one Responses request from the script.
pub(crate) fn answer(shared: &Shared, body: &Value) -> Turn {
    let (item, answered) = decide(shared, body);
    let id = shared.id("resp");
    let tokens = shared.input_tokens(&answered);
    let events = vec![
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": id}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {
                "id": id,
                "usage": {
                    "input_tokens": tokens, "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": tokens + 5,
                },
            }}),
        ),
    ];
    Turn {
        response: sse_response(&events),
        answered,
    }
}

fn decide(shared: &Shared, body: &Value) -> (Value, Answered) {
    let input = body["input"].as_array().map_or(&[][..], Vec::as_slice);
    if is_compaction(body, input) {
        return (message(shared, &shared.script.summary), Answered::Summary);
    }
    let tools = offered_tools(body);
    if tools.is_empty() {
        return (message(shared, UNSCRIPTED_TEXT), Answered::Unscripted);
    }
    let Some((index, step)) = shared.next_step() else {
        return (message(shared, UNSCRIPTED_TEXT), Answered::Unscripted);
    };
    let item = match step {
        Step::Shell(command) => match shell_call(&tools, command) {
            Some((name, arguments)) => function_call(shared, name, &arguments),
            None => message(
                shared,
                &format!("e2e: no shell tool among the offered tools {tools:?}"),
            ),
        },
        Step::Tool { name, input } => {
            function_call(shared, name, &with_session_id(input, &tool_results(body)))
        }
        Step::Text(t) => message(shared, t),
    };
    (item, Answered::Step(index))
}

/// Where a scripted call's arguments name [`SESSION_ID`]: the number of the last `session ID N`
/// in the tool results so far (Codex's `exec_command` names the session of a command still
/// running that way, and `write_stdin` takes it), else the arguments as they are.
fn with_session_id(input: &Value, results: &[(String, String)]) -> Value {
    let last = results.iter().rev().find_map(|(_, text)| {
        let at = text.rfind("session ID ")? + "session ID ".len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok()
    });
    let mut input = input.clone();
    if let (Some(id), Some(args)) = (last, input.as_object_mut()) {
        for value in args.values_mut() {
            if value == SESSION_ID {
                *value = json!(id);
            }
        }
    }
    input
}

/// A scripted argument that stands for the session of the last command still running (see
/// [`with_session_id`]).
pub(crate) const SESSION_ID: &str = "{{session_id}}";

/// The names of the function tools a request offers.
fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// The shell tool among `tools`, with arguments running `command`.
fn shell_call<'a>(tools: &'a [String], command: &str) -> Option<(&'a str, Value)> {
    let find = |name: &str| tools.iter().find(|t| t.as_str() == name);
    if let Some(name) = find("exec_command") {
        return Some((name, json!({ "cmd": command })));
    }
    if let Some(name) = find("shell_command") {
        return Some((name, json!({ "command": command })));
    }
    find("shell").map(|name| {
        (
            name.as_str(),
            json!({ "command": ["bash", "-lc", command] }),
        )
    })
}

fn function_call(shared: &Shared, name: &str, arguments: &Value) -> Value {
    json!({
        "type": "function_call", "id": shared.id("fc"), "call_id": shared.id("call"),
        "name": name, "arguments": arguments.to_string(), "status": "completed",
    })
}

fn message(shared: &Shared, text: &str) -> Value {
    json!({
        "type": "message", "id": shared.id("msg"), "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    })
}

/// Whether the request asks for a summary of the conversation (Codex's compaction prompt is
/// the last user input or the instructions).
fn is_compaction(body: &Value, input: &[Value]) -> bool {
    let last_user = input
        .iter()
        .rev()
        .find(|i| i["role"] == "user")
        .is_some_and(|m| {
            strings(&m["content"])
                .iter()
                .any(|s| s.contains(COMPACTION_MARKER))
        });
    last_user
        || body["instructions"]
            .as_str()
            .is_some_and(|s| s.contains(COMPACTION_MARKER))
}

/// The tool outputs in a request, as `(call_id, text)`: what the model received from each tool.
pub(crate) fn tool_results(body: &Value) -> Vec<(String, String)> {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output")
        .map(|i| {
            (
                i["call_id"].as_str().unwrap_or("").to_owned(),
                strings(&i["output"]).join("\n"),
            )
        })
        .collect()
}
