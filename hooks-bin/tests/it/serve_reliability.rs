//! `hooks serve` under load and failure: 1,000 concurrent calls across 64 sessions keep each
//! session's order and state; a handler that panics or hangs fails its call closed while the
//! server keeps serving.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

use hookwright::prelude::*;
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::serve::{HttpAnswer, Secret, ServeOptions, Server};

/// A hook whose runner remembers every command it saw and blocks each call with them all,
/// comma-separated (so an answer shows the session's whole history); `panic` panics, `hang`
/// never returns. Counts the runners built in `built`.
fn options(built: &Arc<AtomicUsize>) -> AdapterOptions {
    let built = Arc::clone(built);
    AdapterOptions::with_hooks(move |cwd| {
        built.fetch_add(1, Ordering::SeqCst);
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut api = HookApi::new("test-history", cwd);
        api.on_async(move |e: &ToolCallEvent, _ctx: &HookContext| {
            let seen = Arc::clone(&seen);
            let command = e.input_str("command").unwrap_or_default().to_owned();
            Box::pin(async move {
                match command.as_str() {
                    "panic" => panic!("boom"),
                    "hang" => std::future::pending::<()>().await,
                    _ => {}
                }
                let mut seen = seen.lock().unwrap();
                seen.push(command);
                Some(ToolCallEventResult::block(seen.join(",")))
            })
        });
        vec![api.finish()]
    })
}

struct Running {
    addr: SocketAddr,
    secret: Secret,
    server: Server,
}

async fn start(adapter: AdapterOptions, call_timeout: Duration) -> Running {
    let secret = Secret::generate().unwrap();
    let mut options = ServeOptions::new(secret.clone());
    options.adapter = adapter.cwd(std::env::temp_dir());
    options.call_timeout = call_timeout;
    options.sessions.shutdown_timeout = Duration::from_millis(200);
    let server = Server::new(options);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(listener, std::future::pending()).await });
    Running {
        addr,
        secret,
        server,
    }
}

impl Running {
    /// `PreToolUse` of session `session` running `command`.
    async fn pre_tool_use(&self, session: &str, command: &str) -> HttpAnswer {
        let body = json!({
            "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command},
        })
        .to_string();
        let stream = TcpStream::connect(self.addr).await.unwrap();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        let request = hyper::Request::post("/claude/PreToolUse")
            .header("host", self.addr.to_string())
            .header("authorization", format!("Bearer {}", self.secret.as_str()))
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        HttpAnswer {
            status,
            body: String::from_utf8(body.to_vec()).unwrap(),
        }
    }
}

/// The reason of a deny answer (the hook's history), or the block reason of a failure.
fn reason(answer: &HttpAnswer) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&answer.body).unwrap_or_else(|e| panic!("not JSON ({e}): {answer:?}"));
    json["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .or_else(|| json["reason"].as_str())
        .unwrap_or_else(|| panic!("no reason: {answer:?}"))
        .to_owned()
}

const SESSIONS: usize = 64;
const CALLS: usize = 16;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_across_64_sessions_keep_each_sessions_order_and_state() {
    let built = Arc::new(AtomicUsize::new(0));
    let server = Arc::new(start(options(&built), Duration::from_secs(60)).await);
    // Each session calls in sequence, as an agent does; the 64 sessions at once.
    let mut tasks = tokio::task::JoinSet::new();
    for s in 0..SESSIONS {
        let server = Arc::clone(&server);
        tasks.spawn(async move {
            let mut history = Vec::new();
            for k in 0..CALLS {
                let command = format!("s{s}-{k}");
                let answer = server.pre_tool_use(&format!("sess-{s}"), &command).await;
                history.push(command);
                assert_eq!(reason(&answer), history.join(","), "session {s}, call {k}");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    assert_eq!(
        built.load(Ordering::SeqCst),
        SESSIONS,
        "one runner per session"
    );
    // Then 1,024 calls sent at once (16 per session, each session's concurrently): every
    // call is answered, and each session's runner saw exactly its own 16 more commands.
    let mut tasks = tokio::task::JoinSet::new();
    for s in 0..SESSIONS {
        for k in 0..CALLS {
            let server = Arc::clone(&server);
            tasks.spawn(async move {
                let answer = server
                    .pre_tool_use(&format!("sess-{s}"), &format!("s{s}-burst{k}"))
                    .await;
                (s, reason(&answer))
            });
        }
    }
    let mut longest = vec![String::new(); SESSIONS];
    let mut answered = 0;
    while let Some(done) = tasks.join_next().await {
        let (s, history) = done.unwrap();
        answered += 1;
        let own = format!("s{s}-");
        assert!(
            history.split(',').all(|c| c.starts_with(&own)),
            "session {s} saw another session's call: {history}"
        );
        if history.len() > longest[s].len() {
            longest[s] = history;
        }
    }
    assert_eq!(answered, SESSIONS * CALLS);
    for (s, history) in longest.iter().enumerate() {
        let calls: Vec<&str> = history.split(',').collect();
        assert_eq!(calls.len(), 2 * CALLS, "session {s} lost a call: {history}");
        let mut burst: Vec<&str> = calls[CALLS..].to_vec();
        burst.sort_unstable();
        burst.dedup();
        assert_eq!(burst.len(), CALLS, "session {s}: {history}");
    }
    assert_eq!(built.load(Ordering::SeqCst), SESSIONS);
    assert_eq!(server.server.sessions().len(), SESSIONS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_blocks_its_call_and_the_session_goes_on() {
    let built = Arc::new(AtomicUsize::new(0));
    let server = start(options(&built), Duration::from_secs(60)).await;
    assert_eq!(reason(&server.pre_tool_use("p", "one").await), "one");
    let failed = server.pre_tool_use("p", "panic").await;
    assert_eq!(failed.status, 200);
    let json: serde_json::Value = serde_json::from_str(&failed.body).unwrap();
    assert_eq!(json["decision"], "block", "{failed:?}");
    assert!(reason(&failed).contains("panicked: boom"), "{failed:?}");
    assert_eq!(reason(&server.pre_tool_use("p", "two").await), "one,two");
    assert_eq!(built.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_handler_blocks_its_call_after_the_call_timeout_while_others_are_served() {
    let built = Arc::new(AtomicUsize::new(0));
    let server = Arc::new(start(options(&built), Duration::from_secs(1)).await);
    assert_eq!(reason(&server.pre_tool_use("h", "one").await), "one");
    let hung = {
        let server = Arc::clone(&server);
        tokio::spawn(async move { server.pre_tool_use("h", "hang").await })
    };
    // Other sessions are served meanwhile.
    for k in 0..5 {
        let answer = server.pre_tool_use("other", &format!("o{k}")).await;
        assert!(reason(&answer).ends_with(&format!("o{k}")), "{answer:?}");
    }
    let began = Instant::now();
    let failed = hung.await.unwrap();
    assert!(began.elapsed() < Duration::from_secs(10));
    let json: serde_json::Value = serde_json::from_str(&failed.body).unwrap();
    assert_eq!(json["decision"], "block", "{failed:?}");
    assert!(
        reason(&failed).contains("did not answer within 1 s"),
        "{failed:?}"
    );
    // The hung session was ended: its next call gets a new runner.
    assert_eq!(reason(&server.pre_tool_use("h", "after").await), "after");
    assert_eq!(built.load(Ordering::SeqCst), 3);
}
