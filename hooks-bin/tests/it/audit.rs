//! Audit mode and the decision log: with `HOOKS_MODE=audit` (or `mode = "audit"` in
//! `config.toml`) every decision is computed and logged but the agent gets "no opinion";
//! the decision log has one JSON line per call, rotates at `max_bytes`, never changes an
//! answer, and its lines never interleave.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use hookwright_cli::agents::Agent;
use hookwright_cli::call::audit::{Mode, Settings};
use serde_json::{Value, json};

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// A scratch user: config directory, state directory and home in one temp dir.
struct User {
    dir: tempfile::TempDir,
}

impl User {
    /// A user whose `config.toml` is `config` (none when `None`).
    fn new(config: Option<&str>) -> User {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        if let Some(config) = config {
            std::fs::write(dir.path().join("config/config.toml"), config).unwrap();
        }
        User { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The default log: `$XDG_STATE_HOME/hooks/decisions.jsonl`.
    fn log(&self) -> PathBuf {
        self.path().join("state/hooks/decisions.jsonl")
    }

    fn command(&self, agent: &str, event: &str, env: &[(&str, &str)]) -> Command {
        let mut c = Command::new(BIN);
        c.args([agent, event])
            .env("HOME", self.path())
            .env("HOOKS_CONFIG_DIR", self.path().join("config"))
            .env("XDG_STATE_HOME", self.path().join("state"))
            // No `hooks serve` of another test takes these calls over.
            .env("XDG_RUNTIME_DIR", self.path().join("run"))
            .env_remove("HOOKS_MODE")
            .env_remove("HOOKS_DISABLE")
            .env_remove("CLAUDE_PROJECT_DIR")
            .current_dir(self.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            c.env(name, value);
        }
        c
    }

    fn start(&self, agent: &str, event: &str, stdin: &[u8], env: &[(&str, &str)]) -> Child {
        let mut child = self.command(agent, event, env).spawn().unwrap();
        // A call that fails before it reads its input (a bad configuration) closes the pipe.
        match child.stdin.take().unwrap().write_all(stdin) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            written => written.unwrap(),
        }
        child
    }

    /// `hooks AGENT EVENT` with `stdin` and `env`.
    fn call(&self, agent: &str, event: &str, stdin: &[u8], env: &[(&str, &str)]) -> Output {
        self.start(agent, event, stdin, env)
            .wait_with_output()
            .unwrap()
    }

    /// The lines of the log at `path`, each parsed (a line that is not JSON fails).
    fn lines(path: &Path) -> Vec<Value> {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.ends_with('\n'), "the last line is whole: {text:?}");
        text.lines()
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| {
                    let start: String = l.chars().take(200).collect();
                    panic!("not JSON ({e}), {} bytes: {start}...", l.len())
                })
            })
            .collect()
    }
}

/// A Bash call the examples' guard denies (`rm -rf`), in `session`.
fn rm_rf(session: &str) -> Vec<u8> {
    json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf victim"}, "tool_use_id": "t1",
    })
    .to_string()
    .into_bytes()
}

/// A Read of a `.env` file whose key the examples' redactor rewrites.
fn read_env() -> Vec<u8> {
    json!({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "/p/.env"}, "tool_use_id": "t2",
        "tool_response": {"type": "text", "file": {"filePath": "/p/.env",
            "content": "API_KEY=sk-live-1 DEBUG=1", "numLines": 1, "startLine": 1, "totalLines": 1}},
    })
    .to_string()
    .into_bytes()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The call was answered with no opinion: exit 0, nothing on stdout or stderr.
fn assert_no_opinion(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    assert_eq!(stdout(out), "", "no answer");
    assert_eq!(stderr(out), "", "nothing said");
}

/// The one line of a call whose deny was not enforced.
fn assert_unenforced_deny(line: &Value) {
    assert_eq!(line["mode"], "audit", "{line}");
    assert_eq!(line["enforced"], false, "{line}");
    assert_eq!(line["answer"]["exit"], 0, "{line}");
    assert_eq!(line["answer"]["stdout"], Value::Null, "{line}");
    let deny = &line["would_have"]["stdout"]["hookSpecificOutput"];
    assert_eq!(deny["permissionDecision"], "deny", "{line}");
    assert_eq!(deny["permissionDecisionReason"], "rm -rf blocked (no UI)");
    let blocked = line["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["outcome"] == "result")
        .unwrap_or_else(|| panic!("the guard's result is logged: {line}"));
    assert_eq!(blocked["result"]["block"], true, "{line}");
}

#[test]
fn audit_mode_turns_a_deny_into_no_opinion_and_logs_the_unenforced_deny() {
    let user = User::new(None);
    let enforced = user.call("claude", "PreToolUse", &rm_rf("s"), &[]);
    assert!(stdout(&enforced).contains("\"deny\""), "{enforced:?}");
    assert!(
        !user.log().exists(),
        "no log in enforce mode unless enabled"
    );

    let audited = user.call(
        "claude",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "audit")],
    );
    assert_no_opinion(&audited);
    let lines = User::lines(&user.log());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_unenforced_deny(&lines[0]);
}

#[test]
fn audit_mode_answers_no_opinion_in_each_agents_own_schema() {
    let user = User::new(None);
    // Codex: nothing on stdout, as for Claude Code.
    let codex = user.call(
        "codex",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "audit")],
    );
    assert_no_opinion(&codex);
    // Cursor's "no opinion" is `{}`, which it needs on stdout.
    let cursor_input = json!({
        "conversation_id": "c", "generation_id": "g", "hook_event_name": "beforeShellExecution",
        "command": "rm -rf victim", "cwd": "/", "workspace_roots": ["/"],
    })
    .to_string();
    let on = user.call(
        "cursor",
        "beforeShellExecution",
        cursor_input.as_bytes(),
        &[],
    );
    assert!(stdout(&on).contains("deny"), "{on:?}");
    let off = user.call(
        "cursor",
        "beforeShellExecution",
        cursor_input.as_bytes(),
        &[("HOOKS_MODE", "audit")],
    );
    assert_eq!(off.status.code(), Some(0), "{off:?}");
    assert_eq!(stdout(&off).trim_end(), "{}", "{off:?}");
    let lines = User::lines(&user.log());
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["agent"], "cursor");
    assert_eq!(
        lines[1]["would_have"]["stdout"]["permission"], "deny",
        "{}",
        lines[1]
    );
}

#[test]
fn audit_mode_applies_no_rewrite_of_tool_output() {
    let user = User::new(None);
    let enforced = user.call("claude", "PostToolUse", &read_env(), &[]);
    assert!(
        stdout(&enforced).contains("API_KEY=[REDACTED]"),
        "{enforced:?}"
    );
    let audited = user.call(
        "claude",
        "PostToolUse",
        &read_env(),
        &[("HOOKS_MODE", "audit")],
    );
    assert_no_opinion(&audited);
    let lines = User::lines(&user.log());
    let would = &lines[0]["would_have"]["stdout"]["hookSpecificOutput"]["updatedToolOutput"];
    // The rewrite is logged by its size ("API_KEY=[REDACTED] DEBUG=1"), never its text.
    assert_eq!(
        would["file"]["content"],
        json!({"bytes": 26}),
        "{}",
        lines[0]
    );
    assert!(!lines[0].to_string().contains("API_KEY"), "{}", lines[0]);
    assert_eq!(lines[0]["tool"], "read");
    assert_eq!(lines[0]["enforced"], false);
}

#[test]
fn the_log_has_one_json_line_per_call_with_its_fields() {
    let user = User::new(Some("[log]\nenabled = true\n"));
    let deny = user.call("claude", "PreToolUse", &rm_rf("s-1"), &[]);
    let stop = json!({"session_id": "s-1", "hook_event_name": "Stop", "cwd": "/",
        "transcript_path": "/tmp/t.jsonl", "stop_hook_active": false});
    let stop = user.call("claude", "Stop", stop.to_string().as_bytes(), &[]);
    let bad = user.call("claude", "PreToolUse", b"{not json", &[]);
    assert_eq!(bad.status.code(), Some(2), "bad input still fails closed");
    let lines = User::lines(&user.log());
    assert_eq!(lines.len(), 3, "one line per call: {lines:?}");

    let first = &lines[0];
    let time = first["time"].as_str().unwrap();
    assert!(
        time.len() == "2026-12-01T14:40:02.123456Z".len() && time.ends_with('Z'),
        "RFC 3339 UTC: {time}"
    );
    assert_eq!(first["agent"], "claude");
    assert_eq!(first["session"], "s-1");
    assert_eq!(
        first["event"],
        json!({"agent": "PreToolUse", "ours": "tool_call"})
    );
    assert_eq!(first["tool"], "bash", "the canonical name");
    assert_eq!(first["mode"], "enforce");
    assert_eq!(first["enforced"], true);
    assert!(first.get("would_have").is_none(), "{first}");
    assert!(first["duration_us"].as_u64().unwrap() > 0);
    let got: Value = serde_json::from_str(&stdout(&deny)).unwrap();
    assert_eq!(
        first["answer"]["stdout"], got,
        "the answer is what the agent got"
    );
    let handlers = first["handlers"].as_array().unwrap();
    assert!(!handlers.is_empty());
    for h in handlers {
        assert!(h["hook"].is_string() && h["handler"].is_string(), "{h}");
        assert!(
            h["location"].as_str().unwrap().contains(".rs:"),
            "file:line: {h}"
        );
        assert!(h["micros"].is_u64(), "{h}");
    }

    assert_eq!(
        lines[1]["event"],
        json!({"agent": "Stop", "ours": "agent_end"})
    );
    assert_eq!(lines[1]["tool"], Value::Null);
    assert_eq!(lines[1]["answer"]["exit"], stop.status.code().unwrap());
    assert_eq!(lines[2]["answer"]["exit"], 2);
    assert!(
        lines[2]["answer"]["stderr"]
            .as_str()
            .unwrap()
            .contains("invalid input"),
        "{}",
        lines[2]
    );
}

#[test]
fn rotation_at_max_bytes_keeps_keep_files() {
    let user = User::new(None);
    let log = user.path().join("logs/d.jsonl");
    let config = format!(
        "[log]\nenabled = true\npath = \"{}\"\nmax_bytes = 1200\nkeep = 2\n",
        log.display()
    );
    std::fs::write(user.path().join("config/config.toml"), config).unwrap();
    for i in 0..12 {
        let out = user.call("claude", "PreToolUse", &rm_rf(&format!("s{i}")), &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let mut names: Vec<String> = std::fs::read_dir(user.path().join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    names.sort();
    assert_eq!(names, ["d.jsonl", "d.jsonl.1", "d.jsonl.2"], "keep = 2");
    let mut sessions = Vec::new();
    for name in names.iter().rev() {
        let path = user.path().join("logs").join(name);
        let size = std::fs::metadata(&path).unwrap().len();
        let lines = User::lines(&path);
        let longest = lines.iter().map(|l| l.to_string().len() + 1).max().unwrap() as u64;
        assert!(
            size < 1200 + longest,
            "{name} is rotated at max_bytes: {size}"
        );
        sessions.extend(
            lines
                .iter()
                .map(|l| l["session"].as_str().unwrap().to_owned()),
        );
    }
    // The newest calls are kept, in order; the oldest went with the rotated-out file.
    let last = sessions.last().unwrap();
    assert_eq!(last, "s11");
    let numbers: Vec<usize> = sessions.iter().map(|s| s[1..].parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
    assert!(numbers[0] > 0, "something was rotated out: {numbers:?}");
}

#[test]
fn an_unwritable_log_changes_neither_the_answer_nor_the_exit_code_and_says_so_once() {
    let user = User::new(None);
    // The log's directory is a file: it can be neither made nor written into.
    std::fs::write(user.path().join("blocker"), "a file").unwrap();
    let config = format!(
        "[log]\nenabled = true\npath = \"{}\"\n",
        user.path().join("blocker/d.jsonl").display()
    );
    let plain = user.call("claude", "PreToolUse", &rm_rf("s"), &[]);
    std::fs::write(user.path().join("config/config.toml"), config).unwrap();
    let logged = user.call("claude", "PreToolUse", &rm_rf("s"), &[]);
    assert_eq!(logged.status.code(), plain.status.code());
    assert_eq!(stdout(&logged), stdout(&plain));
    let said = stderr(&logged);
    assert_eq!(said.lines().count(), 1, "once: {said:?}");
    assert!(
        said.starts_with("hooks: decision log: cannot write to ")
            && said.contains("blocker/d.jsonl"),
        "{said}"
    );
    // In audit mode too: still no opinion, still exit 0.
    let audited = user.call(
        "claude",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "audit")],
    );
    assert_eq!(audited.status.code(), Some(0));
    assert_eq!(stdout(&audited), "");
    assert_eq!(stderr(&audited).lines().count(), 1);
}

#[test]
fn concurrent_adapters_never_interleave_lines() {
    let user = User::new(Some("mode = \"audit\"\n"));
    // Lines far longer than PIPE_BUF (4096): a 1 MiB session id each. Every process is
    // started first and all get their input at once, so that their writes overlap.
    let sessions: Vec<String> = (0..16u8)
        .map(|i| {
            format!(
                "{i:02}-{}",
                char::from(b'a' + i).to_string().repeat(1 << 20)
            )
        })
        .collect();
    let mut children: Vec<Child> = sessions
        .iter()
        .map(|_| user.command("claude", "PreToolUse", &[]).spawn().unwrap())
        .collect();
    let gate = std::sync::Arc::new(std::sync::Barrier::new(sessions.len()));
    let writers: Vec<_> = children
        .iter_mut()
        .zip(&sessions)
        .map(|(child, session)| {
            let (mut stdin, input) = (child.stdin.take().unwrap(), rm_rf(session));
            let gate = std::sync::Arc::clone(&gate);
            std::thread::spawn(move || {
                gate.wait();
                stdin.write_all(&input).unwrap();
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    for child in children {
        assert_no_opinion(&child.wait_with_output().unwrap());
    }
    // 16 MiB of lines pass the default max_bytes (10 MiB): the log rotates meanwhile, and
    // keeps 3 files, so every line is in one of them.
    let mut lines = Vec::new();
    for suffix in ["", ".1", ".2", ".3"] {
        let path = PathBuf::from(format!("{}{suffix}", user.log().display()));
        if path.exists() {
            lines.extend(User::lines(&path));
        }
    }
    assert_eq!(lines.len(), 16, "one whole line per call");
    let mut logged: Vec<&str> = lines
        .iter()
        .map(|l| l["session"].as_str().unwrap())
        .collect();
    logged.sort_unstable();
    assert!(logged == sessions, "every call's own line, whole");
}

#[test]
fn config_file_mode_audit_works_like_the_env_var() {
    let user = User::new(Some("mode = \"audit\"\n"));
    let audited = user.call("claude", "PreToolUse", &rm_rf("s"), &[]);
    assert_no_opinion(&audited);
    let lines = User::lines(&user.log());
    assert_eq!(lines.len(), 1);
    assert_unenforced_deny(&lines[0]);
}

#[test]
fn env_mode_overrides_the_config_file() {
    let user = User::new(Some("mode = \"audit\"\n"));
    let enforced = user.call(
        "claude",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "enforce")],
    );
    assert!(stdout(&enforced).contains("\"deny\""), "{enforced:?}");
    assert!(!user.log().exists(), "enforce mode, log not enabled");
    std::fs::write(
        user.path().join("config/config.toml"),
        "mode = \"enforce\"\n",
    )
    .unwrap();
    let audited = user.call(
        "claude",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "audit")],
    );
    assert_no_opinion(&audited);
    let bad = user.call(
        "claude",
        "PreToolUse",
        &rm_rf("s"),
        &[("HOOKS_MODE", "loud")],
    );
    assert_eq!(
        bad.status.code(),
        Some(2),
        "an unknown mode fails closed: {bad:?}"
    );
    assert!(
        stderr(&bad).contains("HOOKS_MODE=loud is not a mode"),
        "{bad:?}"
    );
}

#[test]
fn a_malformed_config_file_is_a_clear_error_that_fails_a_gating_call_closed() {
    let user = User::new(Some("mode = \"audit\"\n[log]\nkeep = \"three\"\n"));
    let file = user.path().join("config/config.toml");
    let gating = user.call("claude", "PreToolUse", &rm_rf("s"), &[]);
    assert_eq!(gating.status.code(), Some(2), "{gating:?}");
    assert_eq!(stdout(&gating), "");
    let said = stderr(&gating);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with(&format!(
            "hooks claude PreToolUse: invalid configuration: {}: line 3, column 8: ",
            file.display()
        )),
        "{said}"
    );
    // Observational: the failure exit of that event.
    let stop = json!({"session_id": "s", "hook_event_name": "Stop", "cwd": "/"}).to_string();
    let observed = user.call("claude", "Stop", stop.as_bytes(), &[]);
    assert_eq!(observed.status.code(), Some(1), "{observed:?}");
    assert!(!user.log().exists(), "nothing logged");
}

#[test]
fn a_prompt_command_still_answers_in_audit_mode() {
    let dir = common::workdir();
    // `/handoff` is a command of the canonical hook; "context please" adds context.
    let (mut opts, _log) = common::canonical_options();
    opts.audit = Settings {
        mode: Mode::Audit,
        ..Settings::default()
    };
    let prompt =
        |text: &str| common::input("UserPromptSubmit", dir.path(), json!({"prompt": text}));
    let claude = Agent::Claude.protocol();
    let c = common::call(claude, "UserPromptSubmit", &prompt("/handoff now"), &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json()["decision"],
        "block",
        "the command's answer is kept: {c:?}"
    );
    assert!(c.stdout.contains("handoff: now"), "{c:?}");
    // Context for the model is not added in audit mode.
    let c = common::call(claude, "UserPromptSubmit", &prompt("context please"), &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{c:?}");
    opts.audit.mode = Mode::Enforce;
    let c = common::call(claude, "UserPromptSubmit", &prompt("context please"), &opts);
    assert!(c.stdout.contains("remember the style guide"), "{c:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_serve_in_audit_mode_answers_no_opinion_and_logs_off_the_call_path() {
    use hookwright_cli::call::audit::LogSettings;
    use hookwright_cli::serve::{Secret, ServeOptions, Server};
    let dir = common::workdir();
    let log = dir.path().join("serve.jsonl");
    let mut options = ServeOptions::new(Secret::generate().unwrap());
    options.adapter = common::blocking_options(Some("no tools today"));
    options.adapter.audit = Settings {
        mode: Mode::Audit,
        log: Some(LogSettings {
            path: log.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        }),
        log_unplaced: None,
        ..Settings::default()
    };
    let server = Server::new(options);
    let call = common::input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}),
    );
    for _ in 0..2 {
        let outcome = server.answer(Agent::Claude, "PreToolUse", &call).await;
        assert_eq!(
            (outcome.code, outcome.stdout.as_str()),
            (0, ""),
            "{outcome:?}"
        );
    }
    // Written by the server's writer task, after the answers.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the log has its two lines within 10 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let lines = User::lines(&log);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["enforced"], false, "{line}");
        assert_eq!(line["session"], "abc123");
        let deny = &line["would_have"]["stdout"]["hookSpecificOutput"];
        assert_eq!(deny["permissionDecisionReason"], "no tools today", "{line}");
        assert_eq!(line["handlers"][0]["outcome"], "result", "{line}");
    }
}

/// A secret in a prompt and in a tool's output: no pattern of a redactor finds it, so only
/// keeping no content keeps it out of the log.
const SECRET: &str = "hunter2-zq81-secret";

/// Options serving hooks that hand content back, as rewriting hooks do (the prompt quoted as
/// context, the tool's output returned with a line added, a deploy blocked), in audit mode
/// with the decision log at `log`.
fn echoing_options(log: &Path) -> hookwright_cli::call::AdapterOptions {
    use hookwright::HookApi;
    use hookwright::prelude::*;
    use hookwright_cli::call::audit::LogSettings;
    let mut opts = hookwright_cli::call::AdapterOptions::with_hooks(|cwd| {
        let mut api = HookApi::new("test-echo", cwd);
        api.on(|e: &BeforeAgentStartEvent, _ctx: &HookContext| {
            Some(BeforeAgentStartEventResult {
                message: Some(InjectedMessage {
                    custom_type: "echo".to_owned(),
                    content: MessageContent::Text(format!("You asked: {}", e.prompt)),
                    display: false,
                    details: None,
                    attribution: None,
                }),
            })
        });
        api.on(|e: &ToolResultEvent, _ctx: &HookContext| {
            let mut content = e.content.clone();
            content.push(Content::text("(checked)"));
            Some(ToolResultEventResult {
                content: Some(content),
                ..ToolResultEventResult::default()
            })
        });
        api.on(|e: &ToolCallEvent, _ctx: &HookContext| {
            e.input_str("command")
                .is_some_and(|c| c.contains("deploy"))
                .then(|| ToolCallEventResult::block("no deploys today"))
        });
        vec![api.finish()]
    });
    opts.audit = Settings {
        mode: Mode::Audit,
        log: Some(LogSettings {
            path: log.to_path_buf(),
            max_bytes: 1 << 30,
            keep: 1,
        }),
        log_unplaced: None,
        ..Settings::default()
    };
    opts.runs = Some(hookwright_cli::call::trace::Runs::default());
    opts
}

/// A Claude `UserPromptSubmit` whose prompt holds [`SECRET`] (and 5 KB more).
fn secret_prompt(cwd: &Path) -> Vec<u8> {
    let prompt = format!("remember {SECRET} and then {}", "go on ".repeat(850));
    common::input("UserPromptSubmit", cwd, json!({"prompt": prompt}))
}

/// A Claude `PostToolUse` of `Bash` whose output holds [`SECRET`] (and 20 KB more).
fn secret_output(cwd: &Path) -> Vec<u8> {
    let stdout = format!("notes: {SECRET}\n{}", "x".repeat(20_000));
    common::input(
        "PostToolUse",
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": "cat notes.txt"},
               "tool_use_id": "t1",
               "tool_response": {"stdout": stdout, "stderr": "", "interrupted": false,
                                 "isImage": false}}),
    )
}

/// What the log at `log` says about `SECRET` and its size; both printed for the record.
fn secrets_and_bytes(log: &Path, what: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(log).unwrap();
    let found = (text.matches(SECRET).count(), text.len());
    eprintln!(
        "{what}: {} lines, {} bytes, the secret {} times",
        text.lines().count(),
        found.1,
        found.0
    );
    found
}

/// The prompt's and the output's lines: the handler's result and what enforce mode would
/// have answered say what was set and how large, not what it said.
fn assert_counted_not_copied(lines: &[Value]) {
    let prompt = lines
        .iter()
        .find(|l| l["event"]["agent"] == "UserPromptSubmit")
        .expect("a UserPromptSubmit line");
    let message = &prompt["handlers"][0]["result"]["message"];
    assert_eq!(message["customType"], "echo", "{prompt}");
    assert!(
        message["content"]["bytes"].as_u64().unwrap() > 5000,
        "{prompt}"
    );
    let output = lines
        .iter()
        .find(|l| l["event"]["agent"] == "PostToolUse")
        .expect("a PostToolUse line");
    assert_eq!(
        output["input"],
        json!({"command": "cat notes.txt"}),
        "{output}"
    );
    let content = &output["handlers"][0]["result"]["content"];
    assert_eq!(content["items"], 2, "{output}");
    let would = &output["would_have"]["stdout"]["hookSpecificOutput"];
    assert_eq!(would["hookEventName"], "PostToolUse", "{output}");
    assert!(
        would["updatedToolOutput"]["stdout"]["bytes"]
            .as_u64()
            .unwrap()
            > 20_000,
        "{output}"
    );
}

#[test]
fn the_log_counts_a_prompt_and_a_tool_output_and_copies_neither_through_the_command_adapter() {
    let dir = common::workdir();
    let log = dir.path().join("decisions.jsonl");
    let opts = echoing_options(&log);
    let claude = Agent::Claude.protocol();
    for _ in 0..5 {
        for (event, input) in [
            ("UserPromptSubmit", secret_prompt(dir.path())),
            ("PostToolUse", secret_output(dir.path())),
        ] {
            let c = common::call(claude, event, &input, &opts);
            assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{c:?}");
        }
    }
    let (secrets, bytes) = secrets_and_bytes(&log, "command adapter");
    assert_eq!(secrets, 0, "the secret is nowhere in the log");
    assert!(bytes < 16_000, "10 lines of decisions: {bytes} bytes");
    assert_counted_not_copied(&User::lines(&log));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_counts_a_prompt_and_a_tool_output_and_copies_neither_through_hooks_serve() {
    let dir = common::workdir();
    let log = dir.path().join("decisions.jsonl");
    let server = crate::serve_http::Running::start(echoing_options(&log)).await;
    let headers = [("host", server.host()), ("authorization", server.bearer())];
    for _ in 0..5 {
        for (event, input) in [
            ("UserPromptSubmit", secret_prompt(dir.path())),
            ("PostToolUse", secret_output(dir.path())),
        ] {
            let got =
                crate::serve_http::post(server.addr, &format!("/claude/{event}"), &headers, input)
                    .await;
            assert_eq!(got.status, 200, "{got:?}");
        }
    }
    // Stopping the server waits for its log's last lines.
    server.stop().await;
    let (secrets, bytes) = secrets_and_bytes(&log, "hooks serve");
    assert_eq!(secrets, 0, "the secret is nowhere in the log");
    assert!(bytes < 16_000, "10 lines of decisions: {bytes} bytes");
    assert_counted_not_copied(&User::lines(&log));
}

#[test]
fn a_tool_calls_command_line_is_logged_short_with_its_credentials_redacted() {
    let dir = common::workdir();
    let log = dir.path().join("decisions.jsonl");
    let opts = echoing_options(&log);
    let token = "ghp_Zq81hunter2Zq81hunter2Zq81hunter2";
    let command = format!(
        "curl -H 'Authorization: Bearer {token}' https://ci:{SECRET}@example.com/x && \
         DEPLOY_TOKEN={SECRET} ./deploy --password {SECRET} {}",
        "--verbose ".repeat(100)
    );
    let input = common::input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": command, "description": SECRET},
               "tool_use_id": "t1"}),
    );
    let c = common::call(Agent::Claude.protocol(), "PreToolUse", &input, &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""), "{c:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(SECRET) && !text.contains(token), "{text}");
    let line = &User::lines(&log)[0];
    let logged = line["input"]["command"]
        .as_str()
        .expect("the command line, short");
    assert!(
        logged.starts_with("curl -H 'Authorization: [redacted]' https://[redacted]@example.com/x"),
        "{logged}"
    );
    assert!(
        logged.contains("DEPLOY_TOKEN=[redacted] ./deploy --password [redacted]"),
        "{logged}"
    );
    assert!(logged.chars().count() <= 201, "bounded: {logged}");
    assert_eq!(
        line["input"]["description"]["bytes"],
        SECRET.len(),
        "{line}"
    );
    assert_eq!(line["handlers"][0]["result"]["reason"], "no deploys today");
}
