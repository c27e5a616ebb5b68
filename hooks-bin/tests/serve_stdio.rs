//! `hooks serve --stdio` as a child process, driven by a test client over its stdin and
//! stdout: the built `hooks` binary (the examples bundle), and this test binary itself run as
//! a server of test hooks (`HOOKS_STDIO_TEST_SERVER=1`: hooks that panic, hang, ask, count).
//!
//! No libtest harness (`harness = false`): the binary is also the server, whose stdout must
//! carry protocol lines only; `main` runs the tests one after another and exits 1 if one
//! failed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use hookwright::prelude::*;
use hookwright::{HookApi, LoadedHook};
use hookwright_cli::transport::stdio::{StdioOptions, serve};
use serde_json::{Value, json};

const HOOKS: &str = env!("CARGO_BIN_EXE_hooks-examples");
/// Set in the server's environment.
const SERVER: &str = "HOOKS_STDIO_TEST_SERVER";
/// A file the test hooks append a line to at `session_shutdown`.
const MARKS: &str = "HOOKS_STDIO_TEST_MARKS";
/// The server's handler timeout.
const HANDLER_TIMEOUT: Duration = Duration::from_millis(300);
/// How long a test waits for one message; generous (a shared machine).
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------
// The server of test hooks

fn mark(line: &str) {
    if let Some(path) = std::env::var_os(MARKS) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("marks file");
        writeln!(file, "{line}").expect("write a mark");
    }
}

/// The test hooks, one set per session (the counter is the session's).
fn test_hooks(cwd: &Path) -> LoadedHook {
    let mut api = HookApi::new("test-hooks", cwd);
    api.on_async(|e: &ToolCallEvent, ctx: &HookContext| {
        Box::pin(async move {
            match e.input_str("command").unwrap_or_default() {
                "panic" => panic!("the guard fell over"),
                "hang" => {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                    None
                }
                "ask" => {
                    let yes = ctx.ui().confirm("Run it?", "ask").await;
                    (!yes).then(|| ToolCallEventResult::block("the user said no"))
                }
                cmd if cmd.contains("rm -rf") => Some(ToolCallEventResult::block("rm -rf blocked")),
                _ => None,
            }
        })
    });
    let count = Arc::new(AtomicUsize::new(0));
    api.on(move |e: &ToolResultEvent, ctx: &HookContext| {
        assert!(e.tool_name != "boom", "the redactor fell over");
        let n = count.fetch_add(1, Ordering::Relaxed) + 1;
        ctx.ui().notify(&format!("tools: {n}"), NotifyKind::Info);
        Some(ToolResultEventResult {
            content: Some(vec![Content::text(format!("count {n}"))]),
            ..ToolResultEventResult::default()
        })
    });
    api.on_async(|_e: &TurnEndEvent, _ctx: &HookContext| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(600)).await;
        })
    });
    api.on(|_e: &TurnStartEvent, _ctx: &HookContext| -> () { panic!("turn_start fell over") });
    api.on(|_e: &SessionShutdownEvent, ctx: &HookContext| {
        mark(&format!("shutdown {}", ctx.session_manager().session_id()));
    });
    api.finish()
}

fn run_server() -> ExitCode {
    serve(StdioOptions {
        hooks: Some(Arc::new(|cwd: &Path| Ok(vec![test_hooks(cwd)]))),
        handler_timeout: Some(HANDLER_TIMEOUT),
        ..StdioOptions::default()
    })
}

// ---------------------------------------------------------------------------------------
// The test client

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    /// `hooks serve --stdio` (the examples bundle).
    fn hooks(dir: &Path) -> Client {
        let mut cmd = Command::new(HOOKS);
        cmd.args(["serve", "--stdio"]);
        Client::start(cmd, dir)
    }

    /// This binary as the server of the test hooks.
    fn test_server(dir: &Path) -> Client {
        let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
        // The test hooks panic on purpose: one line each on stderr, no backtrace.
        cmd.env(SERVER, "1").env("RUST_BACKTRACE", "0");
        Client::start(cmd, dir)
    }

    fn start(mut cmd: Command, dir: &Path) -> Client {
        cmd.current_dir(dir)
            .env("HOME", dir)
            .env(MARKS, dir.join("marks"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("start the server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        }
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// Sends a request; returns its id.
    fn send(&mut self, method: &str, params: &Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        id
    }

    /// The next message the server writes.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|e| panic!("no message from the server within {WAIT:?}: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
    }

    /// The next request of the server, past its notifications.
    fn next_request(&self) -> Value {
        loop {
            let message = self.next();
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    /// Messages until the answer to `id` (returned last).
    fn until_answer(&self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next();
            let done = message["id"] == json!(id) && message.get("method").is_none();
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    /// A request's answer (its `result`, or its `error` object as `Err`), with the
    /// notifications before it dropped.
    fn call(&mut self, method: &str, params: &Value) -> Result<Value, Value> {
        let id = self.send(method, params);
        let answer = self.until_answer(id).pop().expect("an answer");
        match answer.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(answer["result"].clone()),
        }
    }

    fn answer(&mut self, id: &Value, result: &Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.send_line(&line.to_string());
    }

    /// Ends the input and waits for the server to exit; its status.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        wait_exit(&mut self.child)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit within {WAIT:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tool_call(session: &str, command: &str) -> Value {
    json!({"session": session, "event": "tool_call", "payload": {
        "toolName": "bash", "toolCallId": "t1", "input": {"command": command}}})
}

fn tool_result(session: &str) -> Value {
    json!({"session": session, "event": "tool_result", "payload": {
        "toolName": "bash", "toolCallId": "t1", "input": {"command": "ls"},
        "content": [{"type": "text", "text": "out"}], "isError": false}})
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

fn marks(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("marks"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------------------
// The tests

fn describe_names_the_bundles_events_commands_and_renderers() {
    let dir = scratch();
    let mut c = Client::hooks(dir.path());
    let d = c.call("describe", &json!({})).expect("describe");
    assert_eq!(d["protocol"], 1);
    let events = d["events"].as_array().expect("events");
    assert_eq!(events.len(), 25, "{d}");
    let handlers = |name: &str| {
        events.iter().find(|e| e["name"] == name).expect(name)["handlers"]
            .as_u64()
            .expect("a count")
    };
    // The counts are those `hooks list --json` shows for the same directory.
    let list = Command::new(HOOKS)
        .args(["list", "--json"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .output()
        .expect("hooks list");
    let list: Value = serde_json::from_slice(&list.stdout).expect("hooks list --json");
    for event in events {
        let name = event["name"].as_str().expect("a name");
        let listed = list["events"]
            .as_array()
            .expect("listed events")
            .iter()
            .find(|e| e["event"] == name)
            .map_or(0, |e| e["handlers"].as_array().expect("handlers").len());
        assert_eq!(handlers(name), listed as u64, "{name}");
    }
    assert!(handlers("tool_call") >= 1);
    assert_eq!(handlers("turn_end"), 0);
    assert_eq!(
        d["commands"][0],
        json!({"name": "handoff", "description": "Create a new session with setup message",
               "hook": "hookwright_examples::handoff"})
    );
    assert_eq!(d["renderers"], json!(["debug-only"]));
    assert_eq!(d["loadErrors"], json!([]));
    assert!(c.finish().success());
}

fn garbage_is_answered_with_an_error_naming_it_and_the_server_goes_on() {
    let dir = scratch();
    let mut c = Client::hooks(dir.path());
    let expect_error = |c: &mut Client, line: &str, code: i64, says: &str| {
        c.send_line(line);
        let m = c.next();
        assert_eq!(m["jsonrpc"], "2.0", "{m}");
        assert_eq!(m["error"]["code"], code, "{line} -> {m}");
        let message = m["error"]["message"].as_str().expect("a message");
        assert!(message.contains(says), "{line} -> {message}");
    };
    expect_error(&mut c, "garbage", -32700, "stdin line 1");
    expect_error(
        &mut c,
        "{\"id\":1,\"method\":\"describe\"}",
        -32600,
        "\"jsonrpc\": \"2.0\"",
    );
    expect_error(
        &mut c,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}",
        -32601,
        "no method \"nope\"",
    );
    let bad_event = json!({"jsonrpc": "2.0", "id": 3, "method": "emit",
        "params": {"session": "s", "event": "tool_cal", "payload": {}}});
    expect_error(
        &mut c,
        &bad_event.to_string(),
        -32602,
        "no event \"tool_cal\"",
    );
    let bad_payload = json!({"jsonrpc": "2.0", "id": 4, "method": "emit",
        "params": {"session": "s", "event": "tool_call", "payload": {"toolName": 3}}});
    expect_error(
        &mut c,
        &bad_payload.to_string(),
        -32602,
        "invalid tool_call payload: invalid type: integer `3`, expected a string",
    );
    let unknown_param = json!({"jsonrpc": "2.0", "id": 5, "method": "emit",
        "params": {"sesion": "s", "event": "tool_call"}});
    expect_error(&mut c, &unknown_param.to_string(), -32602, "sesion");
    // Still serving: the guard answers.
    let answer = c.call("emit", &tool_call("s", "rm -rf /")).expect("emit");
    assert_eq!(
        answer["result"],
        json!({"block": true, "reason": "rm -rf blocked (no UI)"})
    );
    assert!(c.finish().success());
}

fn hooks_disable_in_the_stdio_servers_environment_answers_no_result_and_builds_no_session() {
    let dir = scratch();
    let mut cmd = Command::new(HOOKS);
    cmd.args(["serve", "--stdio"]).env("HOOKS_DISABLE", "1");
    let mut c = Client::start(cmd, dir.path());
    let answer = c.call("emit", &tool_call("s", "rm -rf /")).expect("emit");
    assert_eq!(answer, json!({"result": null, "errors": []}));
    // A command does not run either.
    let answer = c
        .call(
            "command",
            &json!({"session": "s", "name": "handoff", "args": "x"}),
        )
        .expect("command");
    assert_eq!(
        answer,
        json!({"errors": [], "error": "/handoff did not run: hooks are disabled (HOOKS_DISABLE=1)"})
    );
    // No session was built: ending it finds none.
    let ended = c.call("end", &json!({"session": "s"})).expect("end");
    assert_eq!(ended["ended"], false, "{ended}");
    assert!(c.finish().success());
}

fn hooks_mode_audit_in_the_stdio_servers_environment_runs_the_hooks_answers_no_result_and_logs_the_block()
 {
    let dir = scratch();
    let mut cmd = Command::new(HOOKS);
    cmd.args(["serve", "--stdio"]).env("HOOKS_MODE", "audit");
    let mut c = Client::start(cmd, dir.path());
    // The examples' guard blocks this; in audit mode the client gets no result.
    let answer = c.call("emit", &tool_call("s", "rm -rf /")).expect("emit");
    assert_eq!(answer, json!({"result": null, "errors": []}));
    // The hooks ran: the session was built, and ending it finds it.
    let ended = c.call("end", &json!({"session": "s"})).expect("end");
    assert_eq!(ended["ended"], true, "{ended}");
    assert!(c.finish().success());
    // The decision log (audit mode writes it; the state directory is under HOME) says what
    // enforce mode would have answered, and which handler decided.
    let log = dir.path().join(".local/state/hooks/decisions.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "one line per emit: {lines:?}");
    let line = &lines[0];
    assert_eq!(line["agent"], "stdio", "{line}");
    assert_eq!(line["session"], "s", "{line}");
    assert_eq!(line["event"]["ours"], "tool_call", "{line}");
    assert_eq!(line["tool"], "bash", "{line}");
    assert_eq!(line["mode"], "audit", "{line}");
    assert_eq!(line["enforced"], false, "{line}");
    assert_eq!(line["answer"]["stdout"], answer, "{line}");
    assert_eq!(
        line["would_have"]["stdout"]["result"]["block"], true,
        "{line}"
    );
    let handlers = line["handlers"].as_array().expect("handlers");
    assert!(
        handlers
            .iter()
            .any(|h| h["event"] == "tool_call" && h["outcome"] == "result"),
        "the guard's run is recorded: {line}"
    );
    // Enforced, the same call is blocked, and no log is written (off by default there).
    let mut cmd = Command::new(HOOKS);
    cmd.args(["serve", "--stdio"]).env("HOOKS_MODE", "enforce");
    let mut c = Client::start(cmd, dir.path());
    let answer = c.call("emit", &tool_call("s", "rm -rf /")).expect("emit");
    assert_eq!(answer["result"]["block"], true, "{answer}");
    assert!(c.finish().success());
    let after = std::fs::read_to_string(&log).expect("the log");
    assert_eq!(after.lines().count(), 1, "{after}");
}

/// A secret in a message of the context and in a tool's output: no pattern of a redactor finds
/// it, so only keeping no content keeps it out of the log.
const SECRET: &str = "hunter2-zq81-secret";

fn hooks_mode_audit_logs_what_the_hooks_decided_never_the_context_or_a_tool_output() {
    let dir = scratch();
    let mut cmd = Command::new(HOOKS);
    cmd.args(["serve", "--stdio"]).env("HOOKS_MODE", "audit");
    let mut c = Client::start(cmd, dir.path());
    // The context of a session 20 model calls long: 20 messages of 1 KB, the first holding
    // the secret; the examples' context filter hands all of them back.
    let mut messages = vec![
        json!({"role": "user", "content": format!("remember {SECRET}"),
                                   "timestamp": 1}),
    ];
    for i in 1..20 {
        messages.push(json!({"role": "user", "content": "words ".repeat(170), "timestamp": i}));
    }
    for _ in 0..20 {
        let context = json!({"session": "s", "event": "context",
                             "payload": {"messages": messages}});
        let answer = c.call("emit", &context).expect("emit");
        assert_eq!(answer, json!({"result": null, "errors": []}));
    }
    // A tool's output holding the secret, which the examples' redactor hands back unchanged.
    let output = json!({"session": "s", "event": "tool_result", "payload": {
        "toolName": "bash", "toolCallId": "t1", "input": {"command": "cat notes.txt"},
        "content": [{"type": "text", "text": format!("notes: {SECRET}")}], "isError": false}});
    c.call("emit", &output).expect("emit");
    c.call("end", &json!({"session": "s"})).expect("end");
    assert!(c.finish().success());
    let log = dir.path().join(".local/state/hooks/decisions.jsonl");
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    eprintln!(
        "stdio: {} lines, {} bytes, the secret {} times",
        text.lines().count(),
        text.len(),
        text.matches(SECRET).count()
    );
    assert_eq!(
        text.matches(SECRET).count(),
        0,
        "the secret is nowhere in the log"
    );
    assert!(
        text.len() < 32_000,
        "21 lines of decisions: {} bytes",
        text.len()
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let context = &lines[0];
    assert_eq!(context["event"]["ours"], "context", "{context}");
    let kept = &context["would_have"]["stdout"]["result"]["messages"];
    assert_eq!(kept["items"], 20, "counted: {context}");
    assert!(kept["bytes"].as_u64().unwrap() > 19_000, "{context}");
    let output = lines
        .iter()
        .find(|l| l["event"]["ours"] == "tool_result")
        .expect("the tool_result line");
    assert_eq!(
        output["input"],
        json!({"command": "cat notes.txt"}),
        "{output}"
    );
}

fn a_panicking_tool_call_handler_blocks_the_call_and_the_server_goes_on() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    let answer = c.call("emit", &tool_call("s", "panic")).expect("emit");
    assert_eq!(answer["result"]["block"], true, "{answer}");
    let reason = answer["result"]["reason"].as_str().expect("a reason");
    assert!(reason.contains("the guard fell over"), "{reason}");
    assert_eq!(answer["failure"]["hookPath"], "test-hooks", "{answer}");
    // An observational event's panic is reported; its call answers no result.
    let answer = c
        .call(
            "emit",
            &json!({"session": "s", "event": "turn_start",
                         "payload": {"turnIndex": 0, "timestamp": 1}}),
        )
        .expect("emit");
    assert_eq!(answer["result"], Value::Null);
    assert!(
        answer["errors"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("turn_start fell over")),
        "{answer}"
    );
    let answer = c.call("emit", &tool_call("s", "ls")).expect("emit");
    assert_eq!(answer["result"], Value::Null, "{answer}");
    assert!(c.finish().success());
}

fn a_failing_tool_result_handler_withholds_the_output_and_names_the_failure() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    let mut boom = tool_result("s");
    boom["payload"]["toolName"] = json!("boom");
    boom["payload"]["content"] = json!([{"type": "text", "text": "API_KEY=sk-live-1234"}]);
    let answer = c.call("emit", &boom).expect("emit");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("[tool output withheld: test-hooks failed on tool_result: ")
            && text.contains("the redactor fell over"),
        "{answer}"
    );
    assert!(!answer.to_string().contains("sk-live-1234"), "{answer}");
    assert_eq!(answer["failure"]["event"], "tool_result", "{answer}");
    // An observational event's failure is reported only.
    let answer = c
        .call(
            "emit",
            &json!({"session": "s", "event": "turn_start",
                         "payload": {"turnIndex": 0, "timestamp": 1}}),
        )
        .expect("emit");
    assert_eq!(
        (answer["result"].clone(), answer.get("failure")),
        (Value::Null, None),
        "{answer}"
    );
    assert!(c.finish().success());
}

fn a_hanging_handler_fails_its_call_by_its_events_rule_within_the_timeout() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    let started = Instant::now();
    let answer = c.call("emit", &tool_call("s", "hang")).expect("emit");
    assert_eq!(answer["result"]["block"], true, "{answer}");
    assert!(
        answer["result"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("timed out")),
        "{answer}"
    );
    let answer = c
        .call(
            "emit",
            &json!({"session": "s", "event": "turn_end",
                         "payload": {"turnIndex": 0, "message": {"role": "assistant", "content": []}, "toolResults": []}}),
        )
        .expect("emit");
    assert_eq!(answer["result"], Value::Null);
    assert!(
        answer["errors"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("timed out")),
        "{answer}"
    );
    assert!(started.elapsed() < WAIT, "took {:?}", started.elapsed());
    // Another session was never held up.
    let answer = c.call("emit", &tool_call("other", "ls")).expect("emit");
    assert_eq!(answer["result"], Value::Null);
    assert!(c.finish().success());
}

fn a_ui_request_reaches_the_client_and_its_answer_decides() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    for (yes, blocked) in [(true, false), (false, true)] {
        let id = c.send("emit", &tool_call("s", "ask"));
        let request = c.next();
        assert_eq!(request["method"], "ui/confirm", "{request}");
        assert_eq!(
            request["params"],
            json!({"title": "Run it?", "message": "ask", "session": "s"})
        );
        c.answer(&request["id"], &json!(yes));
        let answer = c.until_answer(id).pop().expect("an answer");
        assert_eq!(
            answer["result"]["result"]["block"]
                .as_bool()
                .unwrap_or(false),
            blocked,
            "{answer}"
        );
    }
    assert!(c.finish().success());
}

fn each_session_keeps_its_own_state_across_calls_and_notifies_before_it_answers() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    for (session, expected) in [("a", 1), ("a", 2), ("b", 1), ("a", 3)] {
        let id = c.send("emit", &tool_result(session));
        let messages = c.until_answer(id);
        let [note, answer] = messages.as_slice() else {
            panic!("a notification, then the answer: {messages:?}");
        };
        assert_eq!(note["method"], "ui/notify");
        assert!(note.get("id").is_none(), "a notification has no id: {note}");
        assert_eq!(
            note["params"],
            json!({"message": format!("tools: {expected}"), "kind": "info", "session": session})
        );
        assert_eq!(
            answer["result"]["result"]["content"][0]["text"],
            format!("count {expected}")
        );
    }
    assert!(c.finish().success());
}

fn a_command_runs_while_the_agent_emits_the_events_of_its_session_action() {
    let dir = scratch();
    let mut c = Client::hooks(dir.path());
    let ctx = json!({"cwd": dir.path(), "sessionFile": dir.path().join("old.jsonl"), "idle": true});
    let id = c.send(
        "command",
        &json!({"session": "s", "name": "handoff", "args": "", "ctx": ctx}),
    );
    let wait = c.next_request();
    assert_eq!(wait["method"], "host/waitForIdle", "{wait}");
    c.answer(&wait["id"], &Value::Null);
    let new = c.next_request();
    assert_eq!(new["method"], "host/newSession", "{new}");
    assert_eq!(
        new["params"]["parentSession"],
        json!(dir.path().join("old.jsonl"))
    );
    let setup = &new["params"]["setup"];
    assert_eq!(setup[0]["type"], "message", "{setup}");
    assert_eq!(
        setup[0]["message"]["content"][0]["text"],
        "Continue from prior session summary."
    );
    // The agent switches sessions before it answers: the events of the switch are served.
    let nested = c
        .call(
            "emit",
            &json!({"session": "s", "event": "session_before_switch",
                              "payload": {"reason": "new"}}),
        )
        .expect("a nested emit");
    assert_eq!(nested["result"], Value::Null);
    c.answer(&new["id"], &json!({"cancelled": false}));
    let answer = c.until_answer(id).pop().expect("an answer");
    assert_eq!(answer["result"], json!({"errors": []}), "{answer}");
    let unknown = c.call("command", &json!({"session": "s", "name": "nope"}));
    assert!(
        unknown.as_ref().is_err_and(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("no command /nope"))),
        "{unknown:?}"
    );
    assert!(c.finish().success());
}

fn end_of_input_ends_every_session_and_the_server_exits() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    for s in ["a", "b"] {
        c.call("emit", &tool_call(s, "ls")).expect("emit");
    }
    let ended = c.call("end", &json!({"session": "a"})).expect("end");
    assert_eq!(ended, json!({"ended": true, "errors": []}));
    let again = c.call("end", &json!({"session": "a"})).expect("end");
    assert_eq!(again["ended"], false);
    assert_eq!(marks(dir.path()), ["shutdown a"]);
    let status = c.finish();
    assert!(status.success(), "{status}");
    assert_eq!(marks(dir.path()), ["shutdown a", "shutdown b"]);
}

fn requests_in_flight_at_the_end_of_input_are_answered() {
    let dir = scratch();
    let mut c = Client::hooks(dir.path());
    let id = c.send("emit", &tool_call("s", "rm -rf /"));
    drop(c.stdin.take());
    let answer = c.until_answer(id).pop().expect("an answer");
    assert_eq!(answer["result"]["result"]["block"], true, "{answer}");
    assert!(wait_exit(&mut c.child).success());
}

fn sigterm_ends_every_session_and_the_server_exits() {
    let dir = scratch();
    let mut c = Client::test_server(dir.path());
    c.call("emit", &tool_call("a", "ls")).expect("emit");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(c.child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let status = wait_exit(&mut c.child);
    assert!(status.success(), "{status}");
    assert_eq!(marks(dir.path()), ["shutdown a"]);
}

/// The answers `hooks serve --stdio` writes for the two requests of [`two_requests`] when its
/// stdin is `stdin`, until it exits at the end of that input.
fn answers_with_stdin(dir: &Path, stdin: Stdio, write: impl FnOnce()) -> Vec<Value> {
    let mut child = Command::new(HOOKS)
        .args(["serve", "--stdio"])
        .current_dir(dir)
        .env("HOME", dir)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start hooks serve --stdio");
    write();
    let out = child.stdout.take().expect("stdout");
    let answers = BufReader::new(out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.expect("a line")).expect("JSON"))
        .filter(|m| m.get("id").is_some())
        .collect();
    assert!(wait_exit(&mut child).success());
    answers
}

fn two_requests() -> String {
    let emit =
        json!({"jsonrpc": "2.0", "id": 1, "method": "emit", "params": tool_call("s", "rm -rf /")});
    let end = json!({"jsonrpc": "2.0", "id": 2, "method": "end", "params": {"session": "s"}});
    format!("{emit}\n{end}\n")
}

fn a_socket_as_stdin_is_served_as_a_pipe_is() {
    // Node and Bun spawn a child's stdio as a unix socket pair.
    let dir = scratch();
    let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
    let stdin = Stdio::from(std::os::fd::OwnedFd::from(theirs));
    let answers = answers_with_stdin(dir.path(), stdin, move || {
        ours.write_all(two_requests().as_bytes()).expect("write");
        ours.shutdown(std::net::Shutdown::Write)
            .expect("end the input");
    });
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["result"]["result"]["block"], true, "{answers:?}");
    assert_eq!(answers[1]["result"]["ended"], true, "{answers:?}");
}

fn a_file_as_stdin_is_read_to_its_end() {
    let dir = scratch();
    let input = dir.path().join("requests.jsonl");
    std::fs::write(&input, two_requests()).expect("write the requests");
    let stdin = Stdio::from(std::fs::File::open(&input).expect("open"));
    let answers = answers_with_stdin(dir.path(), stdin, || {});
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["result"]["result"]["block"], true, "{answers:?}");
}

fn main() -> ExitCode {
    if std::env::var_os(SERVER).is_some() {
        return run_server();
    }
    let tests: &[(&str, fn())] = &[
        (
            "describe_names_the_bundles_events_commands_and_renderers",
            describe_names_the_bundles_events_commands_and_renderers,
        ),
        (
            "garbage_is_answered_with_an_error_naming_it_and_the_server_goes_on",
            garbage_is_answered_with_an_error_naming_it_and_the_server_goes_on,
        ),
        (
            "hooks_disable_in_the_stdio_servers_environment_answers_no_result_and_builds_no_session",
            hooks_disable_in_the_stdio_servers_environment_answers_no_result_and_builds_no_session,
        ),
        (
            "hooks_mode_audit_in_the_stdio_servers_environment_runs_the_hooks_answers_no_result_and_logs_the_block",
            hooks_mode_audit_in_the_stdio_servers_environment_runs_the_hooks_answers_no_result_and_logs_the_block,
        ),
        (
            "hooks_mode_audit_logs_what_the_hooks_decided_never_the_context_or_a_tool_output",
            hooks_mode_audit_logs_what_the_hooks_decided_never_the_context_or_a_tool_output,
        ),
        (
            "a_panicking_tool_call_handler_blocks_the_call_and_the_server_goes_on",
            a_panicking_tool_call_handler_blocks_the_call_and_the_server_goes_on,
        ),
        (
            "a_failing_tool_result_handler_withholds_the_output_and_names_the_failure",
            a_failing_tool_result_handler_withholds_the_output_and_names_the_failure,
        ),
        (
            "a_hanging_handler_fails_its_call_by_its_events_rule_within_the_timeout",
            a_hanging_handler_fails_its_call_by_its_events_rule_within_the_timeout,
        ),
        (
            "a_ui_request_reaches_the_client_and_its_answer_decides",
            a_ui_request_reaches_the_client_and_its_answer_decides,
        ),
        (
            "each_session_keeps_its_own_state_across_calls_and_notifies_before_it_answers",
            each_session_keeps_its_own_state_across_calls_and_notifies_before_it_answers,
        ),
        (
            "a_command_runs_while_the_agent_emits_the_events_of_its_session_action",
            a_command_runs_while_the_agent_emits_the_events_of_its_session_action,
        ),
        (
            "end_of_input_ends_every_session_and_the_server_exits",
            end_of_input_ends_every_session_and_the_server_exits,
        ),
        (
            "requests_in_flight_at_the_end_of_input_are_answered",
            requests_in_flight_at_the_end_of_input_are_answered,
        ),
        (
            "a_socket_as_stdin_is_served_as_a_pipe_is",
            a_socket_as_stdin_is_served_as_a_pipe_is,
        ),
        (
            "a_file_as_stdin_is_read_to_its_end",
            a_file_as_stdin_is_read_to_its_end,
        ),
        (
            "sigterm_ends_every_session_and_the_server_exits",
            sigterm_ends_every_session_and_the_server_exits,
        ),
    ];
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        match std::panic::catch_unwind(test) {
            Ok(()) => eprintln!("test {name} ... ok"),
            Err(_) => {
                eprintln!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    eprintln!(
        "test result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
