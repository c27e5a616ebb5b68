//! The Chat Completions and Gemini dialects against a plain HTTP client (no agent needed).

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use super::{Answered, ModelServer, Script, Step};

/// `POST path` with a JSON body; returns the response body.
fn post(server: &ModelServer, path: &str, body: &Value) -> String {
    let addr = server.url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).expect("connect to the model server");
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send the request");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("read the response");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("a response with headers");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

/// The JSON of each `data:` line of an SSE body (`[DONE]` as the string `"[DONE]"`).
fn data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.to_owned())))
        .collect()
}

fn chat_request(stream: bool) -> Value {
    json!({
        "model": "e2e-model", "stream": stream,
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"type": "function", "function": {
            "name": "bash",
            "parameters": {"type": "object", "required": ["command", "description", "async"],
                "properties": {"command": {"type": "string"}, "description": {"type": "string"},
                    "async": {"type": "boolean"}}},
        }}],
    })
}

#[test]
fn chat_completions_stream_a_shell_call_with_the_arguments_its_schema_requires() {
    let server = ModelServer::start(Script::shell_then("ls", "done"));
    let chunks = data(&post(&server, "/v1/chat/completions", &chat_request(true)));
    assert_eq!(chunks.last(), Some(&json!("[DONE]")));
    let calls: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| {
            c["choices"][0]["delta"]["tool_calls"][0]
                .as_object()
                .map(|_| c)
        })
        .map(|c| &c["choices"][0]["delta"]["tool_calls"][0])
        .collect();
    assert_eq!(calls.len(), 2, "{chunks:?}");
    assert_eq!(calls[0]["function"]["name"], "bash");
    assert!(calls[0]["id"].is_string());
    let arguments: Value =
        serde_json::from_str(calls[1]["function"]["arguments"].as_str().unwrap_or("")).unwrap();
    assert_eq!(
        arguments,
        json!({"command": "ls", "description": "e2e", "async": false})
    );
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    assert!(finish["usage"]["prompt_tokens"].is_number());

    let mut second = chat_request(true);
    second["messages"] = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a.txt"}]},
    ]);
    let chunks = data(&post(&server, "/v1/chat/completions", &second));
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "done");
    assert_eq!(
        chunks[chunks.len() - 2]["choices"][0]["finish_reason"],
        "stop"
    );
    assert_eq!(
        server.tool_results(),
        [("c1".to_owned(), "a.txt".to_owned())]
    );
}

#[test]
fn chat_completions_answer_a_request_without_stream_with_one_completion() {
    let server = ModelServer::start(Script::new(vec![Step::Text("hello".into())]));
    let body: Value =
        serde_json::from_str(&post(&server, "/v1/chat/completions", &chat_request(false)))
            .expect("a JSON completion");
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["choices"][0]["message"]["content"], "hello");
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    // Past the script, and without tools: text that ends the turn.
    let mut no_tools = chat_request(false);
    no_tools["tools"] = json!([]);
    let body: Value =
        serde_json::from_str(&post(&server, "/v1/chat/completions", &no_tools)).unwrap();
    assert_eq!(
        body["choices"][0]["message"]["content"],
        super::UNSCRIPTED_TEXT
    );
    let answered: Vec<Answered> = server.requests().into_iter().map(|r| r.answered).collect();
    assert_eq!(answered, [Answered::Step(0), Answered::Unscripted]);
}

fn gemini_request() -> Value {
    json!({
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [{"functionDeclarations": [{
            "name": "run_shell_command",
            "parametersJsonSchema": {"type": "object", "required": ["command"],
                "properties": {"command": {"type": "string"}}},
        }]}],
    })
}

#[test]
fn gemini_streams_a_function_call_and_answers_probes_and_json_utility_calls() {
    let server = ModelServer::start(Script::shell_then("ls", "done"));
    let path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let events = data(&post(&server, path, &gemini_request()));
    assert_eq!(events.len(), 1);
    let part = &events[0]["candidates"][0]["content"]["parts"][0];
    assert_eq!(part["functionCall"]["name"], "run_shell_command");
    assert_eq!(part["functionCall"]["args"], json!({"command": "ls"}));
    assert_eq!(events[0]["modelVersion"], "gemini-2.5-flash");

    let counted: Value = serde_json::from_str(&post(
        &server,
        "/v1beta/models/gemini-2.5-flash:countTokens",
        &json!({}),
    ))
    .unwrap();
    assert!(counted["totalTokens"].is_number());

    let router = json!({
        "contents": [{"role": "user", "parts": [{"text": "route this"}]}],
        "generationConfig": {"responseMimeType": "application/json"},
    });
    let routed: Value = serde_json::from_str(&post(
        &server,
        "/v1beta/models/gemini-2.5-flash-lite:generateContent",
        &router,
    ))
    .unwrap();
    assert_eq!(routed["candidates"][0]["content"]["parts"][0]["text"], "{}");

    let mut second = gemini_request();
    second["contents"] = json!([
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "f1", "name": "run_shell_command", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "f1", "name": "run_shell_command",
            "response": {"output": "a.txt"}}}]},
    ]);
    let events = data(&post(&server, path, &second));
    assert_eq!(
        events[0]["candidates"][0]["content"]["parts"][0]["text"],
        "done"
    );
    assert_eq!(
        server.tool_results(),
        [("f1".to_owned(), "a.txt".to_owned())]
    );
}

#[test]
fn a_shell_step_without_a_shell_tool_answers_text_naming_the_offered_tools() {
    let server = ModelServer::start(Script::shell_then("ls", "done"));
    let mut request = chat_request(false);
    request["tools"][0]["function"]["name"] = json!("read_file");
    let body: Value =
        serde_json::from_str(&post(&server, "/v1/chat/completions", &request)).unwrap();
    let text = body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or("");
    assert!(
        text.starts_with("e2e: no shell tool among the offered tools")
            && text.contains("read_file"),
        "{text}"
    );
}

#[test]
fn an_http_hook_call_is_logged_and_answered_from_the_script() {
    let server = ModelServer::start(Script {
        hook_answers: vec![("PreToolUse".into(), json!({"decision": "block"}))],
        ..Script::default()
    });
    let answer: Value = serde_json::from_str(&post(
        &server,
        "/hook/PreToolUse",
        &json!({"tool_name": "x"}),
    ))
    .unwrap();
    assert_eq!(answer, json!({"decision": "block"}));
    let other: Value =
        serde_json::from_str(&post(&server, "/hook/Stop", &json!({"n": 1}))).unwrap();
    assert_eq!(other, json!({}));
    assert_eq!(server.hook_calls("PreToolUse"), [json!({"tool_name": "x"})]);
    assert!(server.model_turns().is_empty());
}
