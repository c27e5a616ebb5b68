//! A scripted model server on 127.0.0.1: what an agent CLI talks to instead of a real model.
//!
//! It speaks Anthropic Messages ([`anthropic`], `POST /v1/messages`), OpenAI Responses
//! ([`responses`], `POST /v1/responses`), OpenAI Chat Completions ([`chat`],
//! `POST /v1/chat/completions`) and the Gemini API ([`gemini`], `POST
//! .../models/MODEL:streamGenerateContent` and `:generateContent`), streaming (SSE) where the
//! agent asks for it. Each answer comes from the
//! scenario's [`Script`]: the N-th request of the agent's main loop is answered with the
//! script's N-th [`Step`], across runs of the same server (a resumed session goes on where the
//! last run stopped; a compaction, which rewrites the history, does not restart the script).
//! A compaction request (the agent's summary prompt) gets the script's summary. Requests past
//! the script, and requests that are not the main loop (no tools offered, e.g. a title), get a
//! plain text answer that ends the turn: the script's length bounds the turns, so an agent can
//! never loop on the server. A [`Step::Shell`] calls whichever shell tool the request offers
//! ([`shell_call`]), with the arguments its schema requires.
//!
//! Every request is logged ([`Request`]): what the model received is the observable of every
//! scenario. The server listens on a random free port, stops when the [`ModelServer`] is dropped,
//! and stops by itself after [`LIFETIME`] in any case.

pub(crate) mod anthropic;
pub(crate) mod chat;
pub(crate) mod gemini;
pub(crate) mod responses;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The longest a server lives, whatever the test does.
pub(crate) const LIFETIME: Duration = Duration::from_secs(300);

/// The text of every answer the script does not provide.
pub(crate) const UNSCRIPTED_TEXT: &str = "e2e: nothing more to do.";

/// One model turn.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Call the agent's shell tool with this command line (the tool and its argument shape are
    /// read from the tools the request offers).
    Shell(String),
    /// Call a tool by name with these arguments.
    Tool {
        /// The tool's name as the agent offers it.
        name: String,
        /// Its arguments.
        input: Value,
    },
    /// Answer with text, ending the turn.
    Text(String),
}

impl Step {
    /// A call of the tool `name` with `input`.
    pub(crate) fn tool(name: &str, input: Value) -> Step {
        Step::Tool {
            name: name.to_owned(),
            input,
        }
    }
}

/// The model turns of a scenario, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Script {
    /// The turns.
    pub(crate) steps: Vec<Step>,
    /// The text answering a compaction (summary) request.
    pub(crate) summary: String,
    /// The input token count each answer reports.
    pub(crate) input_tokens: u64,
    /// The step whose answer reports [`LARGE_USAGE`] input tokens instead, which makes an agent
    /// with a low auto-compaction limit compact before its next request.
    pub(crate) large_usage_at: Option<usize>,
    /// What `POST /hook/EVENT` answers (an HTTP hook of the agent pointed at this server), by
    /// `EVENT`; `{}` for the others.
    pub(crate) hook_answers: Vec<(String, Value)>,
}

/// The input token count of [`Script::large_usage_at`].
pub(crate) const LARGE_USAGE: u64 = 900_000;

impl Script {
    /// A script of these turns.
    pub(crate) fn new(steps: Vec<Step>) -> Self {
        Script {
            steps,
            summary: "<analysis>e2e</analysis>\n<summary>e2e summary of the conversation so far.</summary>"
                .to_owned(),
            input_tokens: 100,
            large_usage_at: None,
            hook_answers: Vec::new(),
        }
    }

    /// A shell call, then `text` once its result arrives.
    pub(crate) fn shell_then(command: &str, text: &str) -> Self {
        Script::shells_then(&[command], text)
    }

    /// A shell call for each of `commands`, one after the other, then `text`.
    pub(crate) fn shells_then(commands: &[&str], text: &str) -> Self {
        let mut steps: Vec<Step> = commands.iter().map(|c| Step::Shell((*c).into())).collect();
        steps.push(Step::Text(text.to_owned()));
        Script::new(steps)
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// `POST`, `GET`, ...
    pub(crate) method: String,
    /// Path and query.
    pub(crate) path: String,
    /// The body as JSON (`Value::String` holding the raw text when it is not JSON).
    pub(crate) body: Value,
    /// How it was answered.
    pub(crate) answered: Answered,
}

/// How a request was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answered {
    /// With the script's step at this index.
    Step(usize),
    /// As a compaction request, with the summary.
    Summary,
    /// With [`UNSCRIPTED_TEXT`] (past the script, or not the main loop).
    Unscripted,
    /// A probe (token count, model list, ...).
    Probe,
    /// An HTTP hook call (`POST /hook/EVENT`).
    Hook,
    /// `404`.
    NotFound,
}

impl Request {
    /// Whether this was a model turn of the agent's main loop or a compaction.
    pub(crate) fn is_model_turn(&self) -> bool {
        matches!(
            self.answered,
            Answered::Step(_) | Answered::Summary | Answered::Unscripted
        )
    }
}

/// What a dialect module decides for one request.
pub(crate) struct Turn {
    /// The body to send.
    pub(crate) response: Response,
    /// How it was answered.
    pub(crate) answered: Answered,
}

/// State shared by the request handlers.
pub(crate) struct Shared {
    pub(crate) script: Script,
    log: Mutex<Vec<Request>>,
    ids: AtomicU64,
    /// The next step to answer with.
    cursor: Mutex<usize>,
}

impl Shared {
    /// A fresh id with this prefix (`toolu_e2e_7`).
    pub(crate) fn id(&self, prefix: &str) -> String {
        format!("{prefix}_e2e_{}", self.ids.fetch_add(1, Ordering::Relaxed))
    }

    /// The next step of the script for a main-loop request, with its index; `None` past the
    /// end.
    pub(crate) fn next_step(&self) -> Option<(usize, &Step)> {
        let mut cursor = self.cursor.lock().expect("cursor lock");
        let step = self.script.steps.get(*cursor)?;
        *cursor += 1;
        Some((*cursor - 1, step))
    }

    /// The input tokens to report for an answer.
    pub(crate) fn input_tokens(&self, answered: &Answered) -> u64 {
        match answered {
            Answered::Step(i) if self.script.large_usage_at == Some(*i) => LARGE_USAGE,
            _ => self.script.input_tokens,
        }
    }
}

/// A running scripted model server.
pub(crate) struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ModelServer {
    /// Starts a server for `script` on 127.0.0.1, on a free port.
    pub(crate) fn start(script: Script) -> Self {
        let shared = Arc::new(Shared {
            script,
            log: Mutex::new(Vec::new()),
            ids: AtomicU64::new(1),
            cursor: Mutex::new(0),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let state = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("server runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let app = Router::new().fallback(move |method, uri, body| {
                    let state = Arc::clone(&state);
                    async move { handle(&state, method, uri, body) }
                });
                let shutdown = async move {
                    tokio::select! {
                        _ = stopped => {}
                        () = tokio::time::sleep(LIFETIME) => {}
                    }
                };
                // A connection the agent keeps open must not hold the test: stop within 2 s
                // of the signal even if graceful shutdown has not finished.
                let serve = axum::serve(listener, app).with_graceful_shutdown(shutdown);
                let _ = tokio::time::timeout(LIFETIME + Duration::from_secs(2), serve).await;
            });
            runtime.shutdown_timeout(Duration::from_secs(2));
        });
        ModelServer {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in order.
    pub(crate) fn requests(&self) -> Vec<Request> {
        self.shared.log.lock().expect("log lock").clone()
    }

    /// The model turns received so far (main loop and compaction), in order.
    pub(crate) fn model_turns(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::is_model_turn)
            .collect()
    }

    /// Where `needle` reached the model: for each request body holding it, as text or inside a
    /// base64 string (an image, a document), `request N (path): how`. Empty when it never did.
    pub(crate) fn received(&self, needle: &str) -> Vec<String> {
        let mut found = Vec::new();
        for (i, request) in self.requests().iter().enumerate() {
            let strings = strings(&request.body);
            if strings.iter().any(|s| s.contains(needle)) {
                found.push(format!("request {i} ({}): as text", request.path));
            } else if strings.iter().any(|s| decodes_to(s, needle)) {
                found.push(format!(
                    "request {i} ({}): inside base64 data",
                    request.path
                ));
            }
        }
        found
    }

    /// Whether some request holds `text` as a whole string (base64 data as it was sent).
    pub(crate) fn received_verbatim(&self, text: &str) -> bool {
        self.requests()
            .iter()
            .any(|r| strings(&r.body).contains(&text))
    }

    /// The texts of [`ModelServer::tool_results`], in order.
    pub(crate) fn tool_texts(&self) -> Vec<String> {
        self.tool_results().into_iter().map(|(_, t)| t).collect()
    }

    /// What the model received from each tool call, as `(call id, text)`, in order, across
    /// all model turns (each request repeats the history; every result is listed once).
    pub(crate) fn tool_results(&self) -> Vec<(String, String)> {
        let mut seen = Vec::<(String, String)>::new();
        for request in self.model_turns() {
            let results = if request.path.contains("/v1/responses") {
                responses::tool_results(&request.body)
            } else if request.path.contains("/chat/completions") {
                chat::tool_results(&request.body)
            } else if request.path.contains("GenerateContent")
                || request.path.contains(":generateContent")
            {
                gemini::tool_results(&request.body)
            } else {
                anthropic::tool_results(&request.body)
            };
            for result in results {
                if !seen.iter().any(|(id, _)| *id == result.0) {
                    seen.push(result);
                }
            }
        }
        seen
    }

    /// The bodies of the HTTP hook calls for `event` (`POST /hook/EVENT`), in order.
    pub(crate) fn hook_calls(&self, event: &str) -> Vec<Value> {
        let path = format!("/hook/{event}");
        self.requests()
            .into_iter()
            .filter(|r| r.answered == Answered::Hook && r.path == path)
            .map(|r| r.body)
            .collect()
    }

    /// Writes the request log to `dir/server.jsonl` (kept with the sandbox for inspection).
    pub(crate) fn save_log(&self, dir: &std::path::Path) {
        let _ = std::fs::write(dir.join("server.jsonl"), self.log_jsonl());
    }

    /// The request log as JSON lines (`{"method","path","answered","body"}`), for evidence.
    pub(crate) fn log_jsonl(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                json!({
                    "method": r.method,
                    "path": r.path,
                    "answered": format!("{:?}", r.answered),
                    "body": r.body,
                })
                .to_string()
                    + "\n"
            })
            .collect()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Whether `s` is base64 (of some length) whose bytes contain `needle`.
fn decodes_to(s: &str, needle: &str) -> bool {
    use base64::Engine as _;
    s.len() >= 16
        && base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

fn handle(shared: &Shared, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |p| p.as_str().to_owned());
    let body = serde_json::from_slice::<Value>(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let route = uri.path().trim_end_matches('/');
    let turn = match (&method, route) {
        (&Method::POST, p) if p.ends_with("/messages/count_tokens") => probe(json!({
            "input_tokens": shared.script.input_tokens
        })),
        (&Method::POST, p) if p.ends_with("/v1/messages") => anthropic::answer(shared, &body),
        (&Method::POST, p) if p.ends_with("/v1/responses") => responses::answer(shared, &body),
        (&Method::POST, p) if p.ends_with("/chat/completions") => chat::answer(shared, &body),
        (&Method::POST, p) if p.ends_with(":streamGenerateContent") => {
            gemini::answer(shared, &body, p, true)
        }
        (&Method::POST, p) if p.ends_with(":generateContent") => {
            gemini::answer(shared, &body, p, false)
        }
        (&Method::POST, p) if p.ends_with(":countTokens") => probe(json!({
            "totalTokens": shared.script.input_tokens
        })),
        (&Method::GET, p) if p.ends_with("/models") => probe(json!({
            "object": "list", "data": [], "models": []
        })),
        (&Method::HEAD | &Method::GET, "" | "/" | "/v1") => probe(json!({})),
        (&Method::POST, p) if p.starts_with("/hook/") => {
            let event = &p["/hook/".len()..];
            let answer = shared
                .script
                .hook_answers
                .iter()
                .find(|(e, _)| e == event)
                .map_or_else(|| json!({}), |(_, a)| a.clone());
            Turn {
                response: json_response(&answer),
                answered: Answered::Hook,
            }
        }
        _ => Turn {
            response: (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "application/json")],
                json!({"error": {"type": "not_found", "message": format!("e2e server: no route {method} {path}")}})
                    .to_string(),
            )
                .into_response(),
            answered: Answered::NotFound,
        },
    };
    shared.log.lock().expect("log lock").push(Request {
        method: method.to_string(),
        path,
        body,
        answered: turn.answered,
    });
    turn.response
}

fn probe(body: Value) -> Turn {
    Turn {
        response: json_response(&body),
        answered: Answered::Probe,
    }
}

/// A `200 application/json` response.
pub(crate) fn json_response(body: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A `200 text/event-stream` response of these `(event, data)` pairs.
pub(crate) fn sse_response(events: &[(&str, Value)]) -> Response {
    let mut body = String::new();
    for (event, data) in events {
        body.push_str("event: ");
        body.push_str(event);
        body.push_str("\ndata: ");
        body.push_str(&data.to_string());
        body.push_str("\n\n");
    }
    event_stream(body)
}

/// A `200 text/event-stream` response of `data:` lines only (Chat Completions and Gemini put
/// no `event:` line before their chunks).
pub(crate) fn sse_data_response(chunks: &[String]) -> Response {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str("data: ");
        body.push_str(chunk);
        body.push_str("\n\n");
    }
    event_stream(body)
}

/// A `200 text/event-stream` response of `body`, not cached.
fn event_stream(body: String) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The shell tools of the agents that take their tool list from the request, by name:
/// `run_shell_command` (Gemini CLI, Qwen Code), `bash` (Copilot CLI), `Execute` (Factory Droid).
pub(crate) const SHELL_TOOLS: [&str; 3] = ["run_shell_command", "bash", "Execute"];

/// The first of [`SHELL_TOOLS`] among `tools` (`(name, parameters schema)`), with arguments
/// running `command`: `command` holds it, and every other parameter the schema requires gets a
/// placeholder of its type (`"e2e"`, `false`, `0`, `[]`, `{}`), so the call validates.
pub(crate) fn shell_call(tools: &[(String, Value)], command: &str) -> Option<(String, Value)> {
    let (name, schema) = SHELL_TOOLS
        .iter()
        .find_map(|shell| tools.iter().find(|(name, _)| name == shell))?;
    let mut arguments = serde_json::Map::new();
    for required in schema["required"].as_array().into_iter().flatten() {
        let Some(key) = required.as_str() else {
            continue;
        };
        let kind = &schema["properties"][key]["type"];
        let kind = kind
            .as_str()
            .or_else(|| kind.as_array().and_then(|k| k.first()?.as_str()))
            .unwrap_or("string")
            .to_ascii_lowercase();
        let placeholder = match kind.as_str() {
            "boolean" => json!(false),
            "integer" | "number" => json!(0),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("e2e"),
        };
        arguments.insert(key.to_owned(), placeholder);
    }
    arguments.insert("command".to_owned(), json!(command));
    Some((name.clone(), Value::Object(arguments)))
}

/// Every string inside `value`, depth first (the text an agent put into a request).
pub(crate) fn strings(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.as_str()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
