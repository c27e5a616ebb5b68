//! `hooks serve`'s HTTP transport: the same answers as the command adapter, one runner per
//! agent session, and the refusals (Host, secret, body size) that run nothing.

use crate::common;

use std::net::SocketAddr;

use hookwright_examples as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

use common::{canonical_options, input, workdir};
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::serve::{HttpAnswer, Secret, ServeOptions, Server};

/// A running server on a loopback port, and what a request to it needs.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    secret: Secret,
    server: Server,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    pub(crate) async fn start(adapter: AdapterOptions) -> Running {
        let secret = Secret::generate().unwrap();
        let mut options = ServeOptions::new(secret.clone());
        options.adapter = adapter;
        Running::with(options).await
    }

    async fn with(options: ServeOptions) -> Running {
        let secret = options.secret.clone();
        let server = Server::new(options);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = server.clone();
        let task = tokio::spawn(async move {
            serving
                .serve(listener, async move {
                    let _ = stopped.await;
                })
                .await
        });
        Running {
            addr,
            secret,
            server,
            stop: Some(stop),
            task,
        }
    }

    pub(crate) fn host(&self) -> String {
        self.addr.to_string()
    }

    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.secret.as_str())
    }

    /// `POST /claude/EVENT` with the right Host and secret.
    async fn call(&self, event: &str, body: &[u8]) -> HttpAnswer {
        let headers = [("host", self.host()), ("authorization", self.bearer())];
        post(
            self.addr,
            &format!("/claude/{event}"),
            &headers,
            body.to_vec(),
        )
        .await
    }

    pub(crate) async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

/// One request on a new connection.
pub(crate) async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> HttpAnswer {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut request = hyper::Request::post(path).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = sender
        .send_request(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    HttpAnswer {
        status,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}

/// An input object nested `levels` deep.
fn deep(levels: usize) -> Vec<u8> {
    let mut s = String::from("{\"session_id\": \"abc123\", \"x\": ");
    s.push_str(&"[".repeat(levels));
    s.push_str(&"]".repeat(levels));
    s.push('}');
    s.into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_keeps_one_runner_across_its_calls_and_ends_on_session_end() {
    let dir = workdir();
    let (options, log) = canonical_options();
    let options = options.cwd(dir.path());
    let server = Running::start(options).await;
    let bash = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    for _ in 0..3 {
        let got = server
            .call("PreToolUse", &input("PreToolUse", dir.path(), bash.clone()))
            .await;
        assert_eq!((got.status, got.body.as_str()), (200, ""));
    }
    let events = log.lock().unwrap().events.clone();
    assert_eq!(
        events.iter().filter(|e| *e == "session_start").count(),
        1,
        "one runner, started once: {events:?}"
    );
    assert_eq!(log.lock().unwrap().tool_calls.len(), 3);
    assert_eq!(server.server.sessions().len(), 1);
    let got = server
        .call(
            "SessionEnd",
            &input("SessionEnd", dir.path(), json!({"reason": "other"})),
        )
        .await;
    assert_eq!(got.status, 200);
    assert!(server.server.sessions().is_empty());
    let events = log.lock().unwrap().events.clone();
    assert_eq!(
        events.last().map(String::as_str),
        Some("session_shutdown"),
        "{events:?}"
    );
    server.stop().await;
}

/// What a refused request leaves: nothing run, no session.
async fn assert_refused(server: &Running, log: &common::Log, got: HttpAnswer, status: u16) {
    assert_eq!(got.status, status, "{got:?}");
    assert!(got.body.starts_with("hooks serve: "), "{got:?}");
    assert!(server.server.sessions().is_empty(), "no session was built");
    let seen = log.lock().unwrap().clone();
    assert!(
        seen.events.is_empty() && seen.tool_calls.is_empty(),
        "nothing ran: {seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_the_secret_is_refused_with_401_and_runs_nothing() {
    let dir = workdir();
    let (options, log) = canonical_options();
    let server = Running::start(options.cwd(dir.path())).await;
    let body = input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let path = "/claude/PreToolUse";
    let host = ("host", server.host());
    let got = post(server.addr, path, std::slice::from_ref(&host), body.clone()).await;
    assert_refused(&server, &log, got, 401).await;
    let wrong = Secret::generate().unwrap();
    for value in [
        format!("Bearer {}", wrong.as_str()),
        server.secret.as_str().to_owned(),
        format!("Bearer {}x", server.secret.as_str()),
        "Bearer ".to_owned(),
    ] {
        let got = post(
            server.addr,
            path,
            &[host.clone(), ("authorization", value)],
            body.clone(),
        )
        .await;
        assert_refused(&server, &log, got, 401).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_another_host_is_refused_and_runs_nothing() {
    let dir = workdir();
    let (options, log) = canonical_options();
    let server = Running::start(options.cwd(dir.path())).await;
    let body = input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let port = server.addr.port();
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        "127.0.0.1".to_owned(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
    ] {
        let headers = [("host", host), ("authorization", server.bearer())];
        let got = post(server.addr, "/claude/PreToolUse", &headers, body.clone()).await;
        assert_refused(&server, &log, got, 421).await;
    }
    let headers = [("authorization", server.bearer())];
    let got = post(server.addr, "/claude/PreToolUse", &headers, body.clone()).await;
    assert_refused(&server, &log, got, 421).await;
    // The names of the loopback pass.
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let headers = [("host", host), ("authorization", server.bearer())];
        let got = post(server.addr, "/claude/PreToolUse", &headers, body.clone()).await;
        assert_eq!(got.status, 200, "{got:?}");
    }
    server.stop().await;
}

/// One raw HTTP/1.1 request (`Connection: close`) whose body is written by another task
/// (the server may answer and close before it has read it all): the status and body.
async fn post_raw(addr: SocketAddr, head: String, body: Vec<u8>) -> HttpAnswer {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let writer = tokio::spawn(async move {
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(&body).await;
        write
    });
    let mut answer = Vec::new();
    let _ = read.read_to_end(&mut answer).await;
    drop(writer.await);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    HttpAnswer { status, body }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_stdin_limit_is_refused_with_413_and_runs_nothing() {
    let dir = workdir();
    let (options, log) = canonical_options();
    let server = Running::start(options.cwd(dir.path())).await;
    let mut body = input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    body.pop();
    body.extend(b",\"pad\": \"");
    body.resize(hookwright_cli::json::MAX_INPUT_BYTES + 1, b'a');
    body.extend(b"\"}");
    let head = |framing: String| {
        format!(
            "POST /claude/PreToolUse HTTP/1.1\r\nhost: {}\r\nauthorization: {}\r\n\
             connection: close\r\n{framing}\r\n",
            server.host(),
            server.bearer()
        )
    };
    // Declared too large.
    let declared = head(format!("content-length: {}\r\n", body.len()));
    let got = post_raw(server.addr, declared, body.clone()).await;
    assert_refused(&server, &log, got, 413).await;
    // Chunked, found too large while read.
    let mut chunked = Vec::new();
    for chunk in body.chunks(1 << 20) {
        chunked.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend(chunk);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    let got = post_raw(
        server.addr,
        head("transfer-encoding: chunked\r\n".into()),
        chunked,
    )
    .await;
    assert_refused(&server, &log, got, 413).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_in_many_chunks_is_answered_as_the_same_body_whole() {
    let dir = workdir();
    let (options, _log) = canonical_options();
    let server = Running::start(options.cwd(dir.path())).await;
    let body = input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
    );
    let whole = server.call("PreToolUse", &body).await;
    assert_eq!(whole.status, 200);
    assert!(whole.body.contains("deny"), "{whole:?}");
    let mut chunked = Vec::new();
    for chunk in body.chunks(7) {
        chunked.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend(chunk);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    let head = format!(
        "POST /claude/PreToolUse HTTP/1.1\r\nhost: {}\r\nauthorization: {}\r\n\
         connection: close\r\ntransfer-encoding: chunked\r\n\r\n",
        server.host(),
        server.bearer()
    );
    let got = post_raw(server.addr, head, chunked).await;
    assert_eq!(got, whole);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_nested_past_the_stdin_depth_limit_blocks_and_runs_nothing() {
    let dir = workdir();
    let (options, log) = canonical_options();
    let server = Running::start(options.cwd(dir.path())).await;
    let got = server
        .call("PreToolUse", &deep(hookwright_cli::json::MAX_DEPTH + 1))
        .await;
    assert_eq!(got.status, 200);
    let json: serde_json::Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(json["decision"], "block", "{got:?}");
    assert!(json["reason"].as_str().unwrap().contains("nest"), "{got:?}");
    assert!(server.server.sessions().is_empty());
    assert!(log.lock().unwrap().tool_calls.is_empty());
    // One level less is decoded (and, with no tool name, fails on the missing field).
    let got = server
        .call("PreToolUse", &deep(hookwright_cli::json::MAX_DEPTH - 2))
        .await;
    let json: serde_json::Value = serde_json::from_str(&got.body).unwrap();
    assert!(
        !json["reason"].as_str().unwrap().contains("nest"),
        "{got:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_answers_with_nothing_an_earlier_call_of_its_session_sent() {
    // The examples send a debug note after every tool result; a fresh process per call drops
    // it with the process, and so must a kept session, or the next prompt's answer would
    // carry the notes to the model as context.
    let dir = workdir();
    let server = Running::start(AdapterOptions::default().cwd(dir.path())).await;
    let result = json!({
        "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": false, "isImage": false}
    });
    for _ in 0..2 {
        let got = server
            .call(
                "PostToolUse",
                &input("PostToolUse", dir.path(), result.clone()),
            )
            .await;
        assert_eq!(got.status, 200, "{got:?}");
    }
    let prompt = input("UserPromptSubmit", dir.path(), json!({"prompt": "next"}));
    let got = server.call("UserPromptSubmit", &prompt).await;
    assert_eq!(
        (got.status, got.body.as_str()),
        (200, ""),
        "no notes of earlier calls"
    );
    server.stop().await;
}
