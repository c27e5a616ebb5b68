//! `hooks serve`'s routes of the agents with HTTP hooks besides Claude Code (Qwen Code's and
//! Copilot CLI's `"type": "http"`): each answers what `hooks AGENT EVENT` answers for the same
//! input, through that agent's protocol; a failure that blocks the command hook by its exit
//! code answers 200 with the JSON that blocks there (Qwen Code never blocks on a non-2xx
//! status), an unknown event included, which was a 404 that let the call run.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{self, workdir};
use crate::serve_http::{Running, post};
use hookwright_cli::agents::Protocol;
use hookwright_cli::agents::copilot::Copilot;
use hookwright_cli::agents::qwen::Qwen;
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::serve::HttpAnswer;

/// The recorded input of `event` from `agent` (tests/fixtures/agents), its `cwd` set to `cwd`
/// and the shell command to `command`.
fn fixture(agent: &str, event: &str, cwd: &Path, command: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents")
        .join(agent)
        .join(format!("{event}.json"));
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    value["cwd"] = json!(cwd);
    let args = if agent == "copilot" {
        "toolArgs"
    } else {
        "tool_input"
    };
    value[args]["command"] = json!(command);
    serde_json::to_vec(&value).unwrap()
}

/// `POST /AGENT/EVENT` with the right Host and secret.
async fn call(server: &Running, agent: &str, event: &str, body: &[u8]) -> HttpAnswer {
    let headers = [("host", server.host()), ("authorization", server.bearer())];
    post(
        server.addr,
        &format!("/{agent}/{event}"),
        &headers,
        body.to_vec(),
    )
    .await
}

/// What `hooks AGENT EVENT` answers for `body` (in process, off the server's runtime), with
/// the server's options.
async fn command(
    protocol: &'static dyn Protocol,
    event: &str,
    body: &[u8],
    opts: &AdapterOptions,
) -> common::Call {
    let (event, body, opts) = (event.to_owned(), body.to_vec(), opts.clone());
    tokio::task::spawn_blocking(move || common::call(protocol, &event, &body, &opts))
        .await
        .unwrap()
}

/// The examples bundle (the guard blocks `rm -rf`) in `dir`.
fn examples(dir: &Path) -> AdapterOptions {
    AdapterOptions::default().cwd(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_http_hooks_answer_what_its_command_hook_answers_and_block_failures_with_a_200() {
    let dir = workdir();
    let opts = examples(dir.path());
    let server = Running::start(opts.clone()).await;
    // A deny and an allow (no opinion): the stdout, byte for byte.
    for shell in ["rm -rf victim", "ls"] {
        let body = fixture("qwen", "PreToolUse", dir.path(), shell);
        let want = command(&Qwen, "PreToolUse", &body, &opts).await;
        assert_eq!(want.code, 0, "{want:?}");
        let got = call(&server, "qwen", "PreToolUse", &body).await;
        assert_eq!((got.status, got.body.as_str()), (200, want.stdout.as_str()));
    }
    let denied = call(
        &server,
        "qwen",
        "PreToolUse",
        &fixture("qwen", "PreToolUse", dir.path(), "rm -rf victim"),
    )
    .await;
    assert!(
        denied.body.contains("\"permissionDecision\":\"deny\""),
        "{denied:?}"
    );
    // A malformed body and an unknown event exit 2 with a line on stderr; over HTTP they are
    // a 200 whose `decision: "block"` Qwen Code reads as a block (any other status would let
    // the call run), with that line as the reason.
    for (event, body) in [
        ("PreToolUse", b"{\"tool_name\": ".to_vec()),
        (
            "NoSuchEvent",
            fixture("qwen", "PreToolUse", dir.path(), "ls"),
        ),
    ] {
        let want = command(&Qwen, event, &body, &opts).await;
        assert_eq!((want.code, want.stdout.as_str()), (2, ""), "{want:?}");
        let got = call(&server, "qwen", event, &body).await;
        assert_eq!(got.status, 200, "{event}: {got:?}");
        let got: Value = serde_json::from_str(&got.body).unwrap();
        assert_eq!(
            got,
            json!({"decision": "block", "reason": want.stderr.trim_end()}),
            "{event}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_http_hooks_answer_what_its_command_hook_answers_and_block_failures_with_a_200() {
    let dir = workdir();
    let opts = examples(dir.path());
    let server = Running::start(opts.clone()).await;
    for shell in ["rm -rf victim", "ls"] {
        let body = fixture("copilot", "preToolUse", dir.path(), shell);
        let want = command(&Copilot, "preToolUse", &body, &opts).await;
        assert_eq!(want.code, 0, "{want:?}");
        let got = call(&server, "copilot", "preToolUse", &body).await;
        assert_eq!((got.status, got.body.as_str()), (200, want.stdout.as_str()));
    }
    // A malformed body: exit 0 with a deny holding the failure line (Copilot CLI drops
    // stderr); over HTTP the same deny, byte for byte.
    let body = b"{\"toolName\": ".to_vec();
    let want = command(&Copilot, "preToolUse", &body, &opts).await;
    assert_eq!(want.code, 0, "{want:?}");
    let deny: Value = serde_json::from_str(&want.stdout).unwrap();
    assert_eq!(deny["permissionDecision"], "deny", "{want:?}");
    let got = call(&server, "copilot", "preToolUse", &body).await;
    assert_eq!((got.status, got.body.as_str()), (200, want.stdout.as_str()));
    // An unknown event: exit 2 and no stdout; over HTTP a block with the stderr line.
    let body = fixture("copilot", "preToolUse", dir.path(), "ls");
    let want = command(&Copilot, "noSuchEvent", &body, &opts).await;
    assert_eq!((want.code, want.stdout.as_str()), (2, ""), "{want:?}");
    let got = call(&server, "copilot", "noSuchEvent", &body).await;
    assert_eq!(got.status, 200, "{got:?}");
    let got: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(
        got,
        json!({"decision": "block", "reason": want.stderr.trim_end()})
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observational_failure_over_http_is_a_500_with_the_command_hooks_stderr_line() {
    let dir = workdir();
    let opts = examples(dir.path());
    let server = Running::start(opts.clone()).await;
    for (protocol, agent, event) in [
        (&Qwen as &'static dyn Protocol, "qwen", "Stop"),
        (&Copilot, "copilot", "agentStop"),
    ] {
        let body = b"[1, 2]".to_vec();
        let want = command(protocol, event, &body, &opts).await;
        assert_eq!(want.code, 1, "{want:?}");
        let got = call(&server, agent, event, &body).await;
        assert_eq!((got.status, got.body.as_str()), (500, want.stderr.as_str()));
    }
    server.stop().await;
}
