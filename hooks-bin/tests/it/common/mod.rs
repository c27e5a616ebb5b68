//! Hooks and helpers shared by the adapter tests. The hooks are built with the `HookApi`
//! builder, so the tests do not depend on the examples crate.

#![allow(dead_code, unreachable_pub, missing_docs)]

pub mod scratch;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookwright::LoadedHook;
use hookwright::prelude::*;
use hookwright_cli::agents::Protocol;
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::transport::command;

/// What the test hooks saw, for assertions.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    pub tool_calls: Vec<ToolCallEvent>,
    pub tool_results: Vec<ToolResultEvent>,
    pub cwds: Vec<PathBuf>,
    /// The agent each tool call's context named (`ctx.agent()`).
    pub agents: Vec<Option<String>>,
    pub events: Vec<String>,
}

pub type Log = Arc<Mutex<Seen>>;

/// Replaces `API_KEY=<non-space run>` with `API_KEY=[REDACTED]` (the canonical example 2).
pub fn redact(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("API_KEY=") {
        out.push_str(&rest[..i + "API_KEY=".len()]);
        rest = &rest[i + "API_KEY=".len()..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end > 0 {
            out.push_str("[REDACTED]");
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A hook with the canonical behaviours: block `rm -rf` (no UI), redact `API_KEY=` in tool
/// output, a `/handoff` command that notifies, a `before_agent_start` message for prompts
/// containing `context please`, a session_start message, and compaction cancelled when the
/// instructions say `no compact`.
pub fn canonical(cwd: &Path, log: &Log) -> LoadedHook {
    let mut api = HookApi::new("test-canonical", cwd);
    let l = Arc::clone(log);
    api.on(move |e: &ToolCallEvent, ctx: &HookContext| {
        let mut seen = l.lock().unwrap();
        seen.tool_calls.push(e.clone());
        seen.cwds.push(ctx.cwd().to_path_buf());
        seen.agents.push(ctx.agent().map(str::to_owned));
        let dangerous =
            e.tool_name == "bash" && e.input_str("command").is_some_and(|c| c.contains("rm -rf"));
        dangerous.then(|| ToolCallEventResult::block("rm -rf blocked (no UI)"))
    });
    let l = Arc::clone(log);
    api.on(move |e: &ToolResultEvent, _ctx: &HookContext| {
        l.lock().unwrap().tool_results.push(e.clone());
        if e.failed() {
            return None;
        }
        let content = e
            .content
            .iter()
            .map(|c| match c.as_text() {
                Some(t) => Content::text(redact(t)),
                None => c.clone(),
            })
            .collect();
        Some(ToolResultEventResult {
            content: Some(content),
            ..Default::default()
        })
    });
    api.register_command("handoff", Some("Hand off"), |args, ctx| {
        Box::pin(async move {
            ctx.ui()
                .notify(&format!("handoff: {args}"), NotifyKind::Info);
            Ok(())
        })
    });
    api.on(|e: &BeforeAgentStartEvent, _ctx: &HookContext| {
        e.prompt
            .contains("context please")
            .then(|| BeforeAgentStartEventResult {
                message: Some(InjectedMessage {
                    custom_type: "note".to_owned(),
                    content: MessageContent::Text("remember the style guide".to_owned()),
                    display: false,
                    details: None,
                    attribution: None,
                }),
            })
    });
    let l = Arc::clone(log);
    api.on(move |_e: &SessionStartEvent, ctx: &HookContext| {
        l.lock().unwrap().events.push("session_start".to_owned());
        ctx.send_message(
            CustomMessage::new("welcome", "session notes: be careful"),
            SendMessageOptions::default(),
        )
    });
    let l = Arc::clone(log);
    api.on(move |_e: &SessionShutdownEvent, _ctx: &HookContext| {
        l.lock().unwrap().events.push("session_shutdown".to_owned());
    });
    let l = Arc::clone(log);
    api.on(move |e: &AgentEndEvent, _ctx: &HookContext| {
        l.lock()
            .unwrap()
            .events
            .push(format!("agent_end:{}", e.messages.len()));
    });
    api.on(|e: &SessionBeforeCompactEvent, _ctx: &HookContext| {
        (e.custom_instructions.as_deref() == Some("no compact")).then(|| {
            SessionBeforeCompactResult {
                cancel: Some(true),
                compaction: None,
            }
        })
    });
    api.finish()
}

/// Options serving [`canonical`], logging into a fresh [`Log`].
pub fn canonical_options() -> (AdapterOptions, Log) {
    let log: Log = Arc::default();
    let l = Arc::clone(&log);
    (
        AdapterOptions::with_hooks(move |cwd| vec![canonical(cwd, &l)]),
        log,
    )
}

/// Options serving one hook that blocks every tool call with `reason` (`None`: no reason).
pub fn blocking_options(reason: Option<&'static str>) -> AdapterOptions {
    AdapterOptions::with_hooks(move |cwd| {
        let mut api = HookApi::new("test-blocker", cwd);
        api.on(
            move |_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult {
                block: Some(true),
                reason: reason.map(str::to_owned),
            },
        );
        vec![api.finish()]
    })
}

/// A hook whose handlers panic (or fail) on every event, after [`canonical`].
pub fn failing(cwd: &Path, panic: bool) -> LoadedHook {
    let mut api = HookApi::new("test-failing", cwd);
    if panic {
        api.on(
            |_e: &ToolCallEvent, _c: &HookContext| -> Option<ToolCallEventResult> {
                panic!("guard exploded")
            },
        );
        api.on(
            |_e: &ToolResultEvent, _c: &HookContext| -> Option<ToolResultEventResult> {
                panic!("redactor exploded")
            },
        );
        api.on(|_e: &AgentEndEvent, _c: &HookContext| -> () { panic!("stop exploded") });
        api.on(
            |_e: &SessionBeforeCompactEvent,
             _c: &HookContext|
             -> Option<SessionBeforeCompactResult> { panic!("compact exploded") },
        );
        api.on(
            |_e: &BeforeAgentStartEvent, _c: &HookContext| -> Option<BeforeAgentStartEventResult> {
                panic!("prompt exploded")
            },
        );
        api.register_command("boom", None, |_args, _ctx| {
            Box::pin(async move { panic!("command exploded") })
        });
    } else {
        api.on(
            |_e: &ToolCallEvent, _c: &HookContext| -> Result<Option<ToolCallEventResult>, String> {
                Err("policy service unreachable".to_owned())
            },
        );
        api.on(
            |_e: &ToolResultEvent, _c: &HookContext| -> Result<(), String> {
                Err("redactor failed".to_owned())
            },
        );
        api.register_command("boom", None, |_args, _ctx| {
            Box::pin(async move { Err(HandlerError::new("command failed")) })
        });
    }
    api.finish()
}

/// Options serving only [`failing`].
pub fn failing_options(panic: bool) -> AdapterOptions {
    AdapterOptions::with_hooks(move |cwd| vec![failing(cwd, panic)])
}

/// The result of one in-process adapter call.
#[derive(Debug)]
pub struct Call {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

impl Call {
    /// stdout as JSON (panics when it is not exactly one JSON value).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {:?}", self.stdout))
    }

    /// Asserts that stderr is exactly one non-empty line.
    pub fn assert_one_line_stderr(&self) {
        let text = self.stderr.strip_suffix('\n').unwrap_or(&self.stderr);
        assert!(!text.trim().is_empty(), "stderr is empty");
        assert!(
            !text.contains('\n'),
            "stderr has several lines: {:?}",
            self.stderr
        );
    }

    /// Asserts that the call of `hooks AGENT EVENT` failed closed: exit 2, no answer, one line
    /// on stderr naming the adapter.
    pub fn assert_fail_closed(&self, agent: &str) {
        assert_eq!(self.code, 2, "{agent}: {self:?}");
        assert_eq!(self.stdout, "", "{agent}: no answer on a failure");
        self.assert_one_line_stderr();
        assert!(
            self.stderr.starts_with(&format!("hooks {agent} ")),
            "{}",
            self.stderr
        );
    }
}

/// Calls an adapter in process.
pub fn call(protocol: &dyn Protocol, event: &str, input: &[u8], opts: &AdapterOptions) -> Call {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = command::run(protocol, event, input, &mut out, &mut err, opts);
    Call {
        code,
        stdout: String::from_utf8(out).expect("stdout is UTF-8"),
        stderr: String::from_utf8(err).expect("stderr is UTF-8"),
    }
}

/// A working directory for a test (the hooks see it as `ctx.cwd()`).
pub fn workdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A Claude-style input with the common fields and `extra` merged in.
pub fn input(event: &str, cwd: &Path, extra: serde_json::Value) -> Vec<u8> {
    let mut value = serde_json::json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Some(obj), serde_json::Value::Object(extra)) = (value.as_object_mut(), extra) {
        obj.extend(extra);
    }
    serde_json::to_vec(&value).unwrap()
}

/// Claude Code's `PreToolUse` of `Bash` running `command`, with the fields Claude Code sends.
pub fn claude_bash(cwd: &Path, command: &str) -> Vec<u8> {
    input(
        "PreToolUse",
        cwd,
        serde_json::json!({
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "x", "timeout": 120000, "run_in_background": false},
            "tool_use_id": "toolu_01ABC123",
        }),
    )
}

/// A Codex input: the common fields of [`input`] plus Codex's extensions (`turn_id`, `model`,
/// no transcript).
pub fn codex_input(event: &str, cwd: &Path, extra: serde_json::Value) -> Vec<u8> {
    let mut value: serde_json::Value = serde_json::from_slice(&input(event, cwd, extra)).unwrap();
    value["turn_id"] = serde_json::json!("turn-1");
    value["model"] = serde_json::json!("gpt-5-codex");
    value["transcript_path"] = serde_json::Value::Null;
    serde_json::to_vec(&value).unwrap()
}

/// A writer that fails every write: an agent that closed its end of the pipe.
pub struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("pipe closed"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The output of one run of the built `hooks` binary.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {:?}", self.stdout))
    }

    pub fn assert_one_line_stderr(&self) {
        let text = self.stderr.strip_suffix('\n').unwrap_or(&self.stderr);
        assert!(!text.trim().is_empty(), "stderr is empty");
        assert!(
            !text.contains('\n'),
            "stderr has several lines: {:?}",
            self.stderr
        );
    }
}

/// Runs the built `hooks` binary with `args`, `stdin`, and `HOME` set to `home` (so that no
/// hook files of the real home are discovered).
pub fn hooks(args: &[&str], stdin: &[u8], home: &Path) -> Run {
    hooks_env(args, stdin, home, &[])
}

/// [`hooks`] with the environment variables `env` set besides `HOME` (the agent's and the
/// trust store's variables are cleared otherwise, so that the caller's do not leak in).
pub fn hooks_env(args: &[&str], stdin: &[u8], home: &Path, env: &[(&str, &Path)]) -> Run {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
    command
        .args(args)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HOOKS_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hooks binary starts");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // The binary may stop reading early (an oversized input): ignore a broken pipe.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("the hooks binary runs");
    writer.join().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Options serving one hook that records `session_start` and `session_switch` (with its
/// reason and previous session file) into [`Seen::events`], and sends a message on each.
pub fn session_recorder_options() -> (AdapterOptions, Log) {
    let log: Log = Arc::default();
    let l = Arc::clone(&log);
    let opts = AdapterOptions::with_hooks(move |cwd| {
        let mut api = HookApi::new("test-sessions", cwd);
        let seen = Arc::clone(&l);
        api.on(move |_e: &SessionStartEvent, ctx: &HookContext| {
            seen.lock().unwrap().events.push("session_start".to_owned());
            ctx.send_message(
                CustomMessage::new("note", "started"),
                SendMessageOptions::default(),
            )
        });
        let seen = Arc::clone(&l);
        api.on(move |e: &SessionSwitchEvent, ctx: &HookContext| {
            let wire = serde_json::to_value(e).unwrap();
            seen.lock().unwrap().events.push(format!(
                "session_switch:{}:{}",
                wire["reason"].as_str().unwrap_or("?"),
                wire.get("previousSessionFile")
                    .map_or("none".to_owned(), ToString::to_string)
            ));
            ctx.send_message(
                CustomMessage::new("note", "switched"),
                SendMessageOptions::default(),
            )
        });
        vec![api.finish()]
    });
    (opts, log)
}

/// Options serving one hook that talks to the user on every event it handles: `tool_call`
/// notifies `careful: TOOL` and sets the status `tools: 1`; `tool_result` sends a displayed
/// `shown note` (type `fancy`, rendered `[fancy] shown note`) and a hidden `hidden note`;
/// `session_start` sends a displayed `welcome` and a hidden `context only`;
/// `session_shutdown` and `session_before_compact` notify (`bye`, `compaction noted`).
pub fn talking_options() -> AdapterOptions {
    AdapterOptions::with_hooks(|cwd| {
        let mut api = HookApi::new("test-talker", cwd);
        api.on(|e: &ToolCallEvent, ctx: &HookContext| {
            ctx.ui()
                .notify(&format!("careful: {}", e.tool_name), NotifyKind::Warning);
            ctx.ui().set_status("tools", Some("tools: 1"));
        });
        api.on(|_e: &ToolResultEvent, ctx: &HookContext| {
            ctx.send_message(
                CustomMessage::new("fancy", "shown note"),
                SendMessageOptions::default(),
            )?;
            let mut hidden = CustomMessage::new("fancy", "hidden note");
            hidden.display = false;
            ctx.send_message(hidden, SendMessageOptions::default())
        });
        api.register_message_renderer("fancy", |m: &CustomMessage, _o, _t: &Theme| {
            Some(vec![format!("[fancy] {}", m.content.to_text())])
        });
        api.on(|_e: &SessionStartEvent, ctx: &HookContext| {
            ctx.send_message(
                CustomMessage::new("note", "welcome"),
                SendMessageOptions::default(),
            )?;
            let mut hidden = CustomMessage::new("note", "context only");
            hidden.display = false;
            ctx.send_message(hidden, SendMessageOptions::default())
        });
        api.on(|_e: &SessionShutdownEvent, ctx: &HookContext| {
            ctx.ui().notify("bye", NotifyKind::Info);
        });
        api.on(|_e: &SessionBeforeCompactEvent, ctx: &HookContext| {
            ctx.ui().notify("compaction noted", NotifyKind::Info);
        });
        vec![api.finish()]
    })
}

/// Writes an executable `dir/name` whose `--version` prints `printed`, then leaves a
/// background `sleep 30` holding its stdout and exits; the sleep's pid goes to the file
/// returned.
pub fn agent_leaving_a_child(dir: &Path, name: &str, printed: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let pid_file = dir.join(format!("{name}.child"));
    let script = dir.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{printed}'\n/bin/sleep 30 &\necho $! > '{}'\n",
            pid_file.display()
        ),
    )
    .expect("write the fake agent");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    pid_file
}

/// Whether the process whose pid is in `pid_file` has ended (no such process, or a zombie
/// nobody reaped yet) within `within`.
pub fn ended_within(pid_file: &Path, within: std::time::Duration) -> bool {
    let pid = std::fs::read_to_string(pid_file).expect("the pid file");
    let stat = format!("/proc/{}/stat", pid.trim());
    let until = std::time::Instant::now() + within;
    loop {
        let ended = std::fs::read_to_string(&stat).map_or(true, |s| {
            // `pid (comm) STATE ...`: the state follows the last `)`.
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
        });
        if ended || std::time::Instant::now() >= until {
            return ended;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
