//! `hooks serve` as a process: one server per user and binary (the lock file), `--status`,
//! `--stop`, `--detach`, SIGTERM ending every live session cleanly, the idle timeout.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// A scratch user: config, runtime and home directories, and a project.
struct User {
    dir: tempfile::TempDir,
    port: u16,
}

impl User {
    fn new() -> User {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project", "state"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        User { dir, port }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env("HOME", self.path("home"))
            .current_dir(self.path("project"));
        c
    }

    fn hooks(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// `hooks serve --port P ARGS...` in the foreground, its stderr to `serve.log`.
    fn serve(&self, args: &[&str]) -> Child {
        self.serve_with(args, self.command())
    }

    /// [`User::serve`] with the command `command` (its environment).
    fn serve_with(&self, args: &[&str], mut command: Command) -> Child {
        let log = std::fs::File::create(self.path("serve.log")).unwrap();
        let child = command
            .arg("serve")
            .arg(format!("--port={}", self.port))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.eventually("the server listens", || self.log().contains("listening"));
        child
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.path("serve.log")).unwrap_or_default()
    }

    fn eventually(&self, what: &str, mut cond: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(
                Instant::now() < deadline,
                "timed out: {what}; log: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn secret(&self) -> String {
        std::fs::read_to_string(self.path("config").join("serve-secret")).unwrap()
    }

    /// `POST /claude/EVENT` for the session `session`: the status and body.
    fn call(&self, event: &str, session: &str, extra: serde_json::Value) -> (u16, String) {
        let mut body = json!({
            "session_id": session, "transcript_path": "/tmp/t.jsonl",
            "cwd": self.path("project"), "permission_mode": "default", "hook_event_name": event,
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let body = body.to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "POST /claude/{event} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nauthorization: Bearer {}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            self.port,
            self.secret(),
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer.split(' ').nth(1).unwrap().parse().unwrap();
        let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
        (status, body)
    }
}

fn terminate(child: &Child) {
    let pid = nix_pid(child);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
}

fn nix_pid(child: &Child) -> nix::unistd::Pid {
    nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap())
}

fn wait(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}})
}

#[test]
fn hooks_disable_in_the_servers_environment_answers_no_opinion_and_says_so_per_call() {
    let user = User::new();
    let mut command = user.command();
    command.env("HOOKS_DISABLE", "1");
    let mut server = user.serve_with(&[], command);
    for session in ["s1", "s2"] {
        let (status, body) = user.call("PreToolUse", session, bash("rm -rf /"));
        assert_eq!((status, body.as_str()), (200, ""), "no opinion");
    }
    let said = "hooks claude PreToolUse: hooks are disabled (HOOKS_DISABLE=1): no opinion, \
                nothing ran";
    user.eventually("each call says so", || {
        user.log().matches(said).count() == 2
    });
    terminate(&server);
    assert!(wait(&mut server).success());
    // No session was opened: no hook ran.
    assert!(!user.log().contains("session claude/s1"), "{}", user.log());
}

#[test]
fn a_server_in_audit_mode_decides_and_logs_its_http_calls_and_the_calls_handed_to_it() {
    let user = User::new();
    let log = user.path("decisions.jsonl");
    let config = format!("mode = \"audit\"\n[log]\npath = \"{}\"\n", log.display());
    std::fs::write(user.path("config").join("config.toml"), config).unwrap();
    let mut server = user.serve(&[]);
    let (status, body) = user.call("PreToolUse", "s1", bash("rm -rf /"));
    assert_eq!((status, body.as_str()), (200, ""), "no opinion over HTTP");
    // The adapters hand their calls to the server, which decides each in the adapter's own
    // mode: the config file's (audit), or its environment's (HOOKS_MODE=enforce).
    let adapter = |session: &str, env: &[(&str, &str)]| {
        let mut adapter = user
            .command()
            .args(["claude", "PreToolUse"])
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = user.input("PreToolUse", session, bash("rm -rf /"));
        adapter.stdin.take().unwrap().write_all(&input).unwrap();
        adapter.wait_with_output().unwrap()
    };
    let out = adapter("s2", &[]);
    assert_eq!(
        (out.status.code(), text(&out).as_str()),
        (Some(0), ""),
        "{out:?}"
    );
    let out = adapter("s3", &[("HOOKS_MODE", "enforce")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(text(&out).contains("\"deny\""), "{out:?}");
    user.eventually("the three calls are logged", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.lines().count() == 3)
    });
    let text = std::fs::read_to_string(&log).unwrap();
    for (line, (session, enforced)) in
        text.lines()
            .zip([("s1", false), ("s2", false), ("s3", true)])
    {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(line["session"], session, "{line}");
        assert_eq!(line["enforced"], enforced, "{line}");
        let deny = if enforced {
            &line["answer"]["stdout"]["hookSpecificOutput"]
        } else {
            &line["would_have"]["stdout"]["hookSpecificOutput"]
        };
        assert_eq!(deny["permissionDecision"], "deny", "{line}");
    }
    terminate(&server);
    assert!(wait(&mut server).success());
}

#[test]
fn with_the_log_on_each_server_session_logs_its_own_handlers() {
    let user = User::new();
    let log = user.path("decisions.jsonl");
    let config = format!("[log]\nenabled = true\npath = \"{}\"\n", log.display());
    std::fs::write(user.path("config").join("config.toml"), config).unwrap();
    let mut server = user.serve(&[]);
    let sessions = ["s1", "s2", "s1", "s2"];
    for session in sessions {
        let (status, body) = user.call("PreToolUse", session, bash("rm -rf /"));
        assert_eq!(status, 200);
        assert!(body.contains("\"deny\""), "{body}");
    }
    user.eventually("the four calls are logged", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.lines().count() == 4)
    });
    let text = std::fs::read_to_string(&log).unwrap();
    let counts: Vec<(String, usize)> = text
        .lines()
        .map(|line| {
            let line: serde_json::Value = serde_json::from_str(line).unwrap();
            let handlers = line["handlers"].as_array().map_or(0, Vec::len);
            (
                line["session"].as_str().unwrap_or_default().to_owned(),
                handlers,
            )
        })
        .collect();
    // The first call of a session also logs its session_start handlers.
    let of = |session: &str| -> Vec<usize> {
        counts
            .iter()
            .filter(|(s, _)| s == session)
            .map(|(_, n)| *n)
            .collect()
    };
    assert!(of("s1").iter().all(|n| *n > 0), "{counts:?}");
    assert_eq!(of("s1"), of("s2"), "{counts:?}");
    terminate(&server);
    assert!(wait(&mut server).success());
}

#[test]
fn sigterm_ends_every_live_session_cleanly_and_the_server_exits_0() {
    let user = User::new();
    let mut server = user.serve(&[]);
    for session in ["s1", "s2", "s3"] {
        let (status, body) = user.call("PreToolUse", session, bash("rm -rf /"));
        assert_eq!(status, 200);
        assert!(body.contains("\"deny\""), "{body}");
    }
    terminate(&server);
    assert!(wait(&mut server).success());
    let log = user.log();
    for session in ["s1", "s2", "s3"] {
        assert!(
            log.contains(&format!("session claude/{session} ended (shutdown)\n")),
            "{log}"
        );
    }
    assert!(!log.contains("not cleanly"), "{log}");
}

#[test]
fn one_server_per_user_and_binary_holds_the_lock_and_status_and_stop_see_it() {
    let user = User::new();
    let out = user.hooks(&["serve", "--status"]);
    assert_eq!(
        (out.status.code(), text(&out).as_str()),
        (Some(1), "not running\n")
    );
    let mut server = user.serve(&[]);
    let out = user.hooks(&["serve", "--status"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!("pid {}", server.id()))
            && said.contains(&format!("127.0.0.1:{}", user.port)),
        "{said}"
    );
    // A second server (another port even) is refused by the lock.
    let other = user.hooks(&["serve", "--port=1"]);
    assert_eq!(other.status.code(), Some(1));
    assert!(text(&other).contains("already running"), "{}", text(&other));
    // --detach with a server running starts nothing.
    let out = user.hooks(&["serve", "--detach"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (status, _) = user.call("PreToolUse", "s1", bash("ls"));
    assert_eq!(status, 200);
    let out = user.hooks(&["serve", "--stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).starts_with("stopped"), "{}", text(&out));
    assert!(wait(&mut server).success());
    assert!(
        user.log().contains("session claude/s1 ended (shutdown)\n"),
        "{}",
        user.log()
    );
    let out = user.hooks(&["serve", "--status"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn detach_starts_the_server_in_the_background_once() {
    let user = User::new();
    let port = format!("--port={}", user.port);
    let out = user.hooks(&["serve", "--detach", &port]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (status, body) = user.call("PreToolUse", "s1", bash("rm -rf /"));
    assert_eq!(status, 200);
    assert!(body.contains("\"deny\""), "{body}");
    let out = user.hooks(&["serve", "--detach", &port]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = user.hooks(&["serve", "--stop"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let log_file = std::fs::read_dir(user.path("run").join("hooks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "log"))
        .unwrap();
    let log = std::fs::read_to_string(&log_file).unwrap();
    assert_eq!(log.matches("listening on").count(), 1, "{log}");
    assert!(log.contains("session claude/s1 ended (shutdown)"), "{log}");
    assert!(Path::new(&log_file).exists());
}

#[test]
fn a_session_idle_past_the_idle_timeout_is_ended() {
    let user = User::new();
    let mut server = user.serve(&["--idle-timeout=1"]);
    let (status, _) = user.call("PreToolUse", "idle", bash("ls"));
    assert_eq!(status, 200);
    user.eventually("the idle session ends", || {
        user.log().contains("session claude/idle ended (idle)\n")
    });
    terminate(&server);
    assert!(wait(&mut server).success());
}

impl User {
    /// `POST /claude/EVENT` with `body` as is.
    fn post(&self, event: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "POST /claude/{event} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nauthorization: Bearer {}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            self.port,
            self.secret(),
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer.split(' ').nth(1).unwrap().parse().unwrap();
        let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
        (status, body)
    }

    /// `hooks claude EVENT` (the command adapter, a process per call: not handed to the
    /// running server) with `body` on stdin.
    fn adapter(&self, event: &str, body: &[u8]) -> Output {
        let mut child = self
            .command()
            .args(["claude", event])
            .env("HOOKS_NO_SERVER", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(body).unwrap();
        child.wait_with_output().unwrap()
    }

    /// A Claude Code input of `event` for the session `session`, with `extra` fields.
    fn input(&self, event: &str, session: &str, extra: serde_json::Value) -> Vec<u8> {
        let mut body = json!({
            "session_id": session, "transcript_path": "/tmp/t.jsonl",
            "cwd": self.path("project"), "permission_mode": "default", "hook_event_name": event,
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::to_vec(&body).unwrap()
    }
}

/// What the server answers for an [`Output`] of the command adapter: the body of a 200 is
/// the stdout; a gating failure (exit 2) is the stdout's object with `decision: block` and the
/// stderr line as `reason`; an observational failure (exit 1) a 500 with the stderr line.
fn http_of(out: &Output) -> (u16, String) {
    let outcome = hookwright_cli::call::Outcome {
        code: u8::try_from(out.status.code().unwrap()).unwrap(),
        stdout: String::from_utf8(out.stdout.clone()).unwrap(),
        stderr: String::from_utf8(out.stderr.clone()).unwrap(),
    };
    let answer = hookwright_cli::serve::HttpAnswer::from_outcome(
        &hookwright_cli::agents::claude::Claude,
        &outcome,
    );
    (answer.status, answer.body)
}

/// Recorded Claude Code inputs for the examples bundle, each the first call of its session.
fn recorded(user: &User) -> Vec<(&'static str, Vec<u8>)> {
    let project = user.path("project");
    let env_file = project.join(".env");
    let calls: Vec<(&'static str, serde_json::Value)> = vec![
        ("SessionStart", json!({"source": "startup"})),
        ("UserPromptSubmit", json!({"prompt": "list the files"})),
        ("PreToolUse", bash("ls -la")),
        ("PreToolUse", bash("rm -rf target")),
        (
            "PostToolUse",
            json!({
                "tool_name": "Read", "tool_input": {"file_path": env_file},
                "tool_response": {"type": "text", "file": {
                    "filePath": env_file, "content": "API_KEY=sk-live-1234567890abcdef\n",
                    "numLines": 1, "startLine": 1, "totalLines": 1}}
            }),
        ),
        (
            "PostToolUse",
            json!({
                "tool_name": "Bash", "tool_input": {"command": "ls"},
                "tool_response": {"stdout": "a\nb\n", "stderr": "", "interrupted": false,
                                  "isImage": false}
            }),
        ),
        ("PreToolUse", json!({"tool_name": 7})),
        (
            "Stop",
            json!({"last_assistant_message": "done", "stop_hook_active": false}),
        ),
        ("SessionEnd", json!({"reason": "other"})),
    ];
    let mut inputs: Vec<(&'static str, Vec<u8>)> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (event, extra))| (event, user.input(event, &format!("rec-{i}"), extra)))
        .collect();
    // Input the decoder refuses: malformed, too deep, not an object.
    let deep = format!(
        "{{\"session_id\": \"rec-deep\", \"x\": {}{}}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    inputs.push((
        "PreToolUse",
        b"{\"session_id\": \"rec-cut\", \"tool_name\": ".to_vec(),
    ));
    inputs.push(("PreToolUse", deep.into_bytes()));
    inputs.push(("Stop", b"[1]".to_vec()));
    inputs
}

#[test]
fn the_server_answers_each_recorded_input_as_the_command_adapter_does() {
    let user = User::new();
    let mut server = user.serve(&[]);
    let mut blocked = 0;
    for (event, body) in recorded(&user) {
        let out = user.adapter(event, &body);
        let got = user.post(event, &body);
        assert_eq!(
            got,
            http_of(&out),
            "{event} {}",
            String::from_utf8_lossy(&body)
        );
        match out.status.code() {
            Some(0) => assert_eq!(got.1.as_bytes(), out.stdout, "byte for byte"),
            Some(2) => blocked += 1,
            _ => {}
        }
    }
    assert_eq!(blocked, 3, "the three broken gating inputs block");
    terminate(&server);
    assert!(wait(&mut server).success());
}

#[test]
fn a_session_keeps_what_its_hooks_count_where_a_process_per_call_starts_again() {
    // The examples' status line counts the tools run in the session.
    let user = User::new();
    let mut server = user.serve(&[]);
    let ran = json!({
        "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": false, "isImage": false}
    });
    let start = user.input("SessionStart", "counted", json!({"source": "startup"}));
    assert_eq!(user.post("SessionStart", &start).0, 200);
    let body = user.input("PostToolUse", "counted", ran.clone());
    for n in 1..=3 {
        let (status, answer) = user.post("PostToolUse", &body);
        assert_eq!(status, 200);
        assert!(
            answer.contains(&format!("tools run: {n} ")),
            "call {n}: {answer}"
        );
        let fresh = String::from_utf8(user.adapter("PostToolUse", &body).stdout).unwrap();
        assert!(
            fresh.contains("tools run: 1 "),
            "a process per call: {fresh}"
        );
    }
    // Another session of the same server counts its own tools, from the start.
    let other = user.input("PostToolUse", "other", ran);
    let (_, answer) = user.post("PostToolUse", &other);
    assert!(
        answer.contains("tools run: 1 "),
        "another session: {answer}"
    );
    let (_, answer) = user.post("PostToolUse", &body);
    assert!(
        answer.contains("tools run: 4 "),
        "the first session: {answer}"
    );
    terminate(&server);
    assert!(wait(&mut server).success());
}

#[test]
fn a_port_held_by_another_program_fails_the_start_naming_it_and_leaves_no_server() {
    let user = User::new();
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    let out = user.hooks(&["serve", &format!("--port={port}")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("cannot listen on 127.0.0.1:{port}"))
            && text(&out).contains("another program (uid ")
            && text(&out).contains(") holds it"),
        "{}",
        text(&out)
    );
    let out = user.hooks(&["serve", "--status"]);
    assert_eq!(
        (out.status.code(), text(&out).as_str()),
        (Some(1), "not running\n")
    );
}

#[test]
fn the_server_keeps_each_sessions_file_under_the_state_directory_and_a_kill_9_leaves_it() {
    let user = User::new();
    let mut server = user.serve(&[]);
    let (status, _) = user.call("PreToolUse", "0b1c-2d3e", bash("ls"));
    assert_eq!(status, 200);
    let file = user
        .path("state")
        .join("hooks/sessions/claude/0b1c-2d3e.jsonl");
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["id"], "0b1c-2d3e", "{header}");
    nix::sys::signal::kill(nix_pid(&server), nix::sys::signal::Signal::SIGKILL).unwrap();
    wait(&mut server);
    assert!(file.exists(), "the session file outlives the server");
    // Without an absolute XDG_STATE_HOME: under the home directory.
    let mut command = user.command();
    command.env_remove("XDG_STATE_HOME");
    let mut server = user.serve_with(&[], command);
    let (status, _) = user.call("PreToolUse", "s2", bash("ls"));
    assert_eq!(status, 200);
    assert!(
        user.path("home")
            .join(".local/state/hooks/sessions/claude/s2.jsonl")
            .exists()
    );
    terminate(&server);
    assert!(wait(&mut server).success());
}

/// The soft and hard limits of open files of the process `pid`, from `/proc/PID/limits`.
#[cfg(target_os = "linux")]
fn open_file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let mut words = line["Max open files".len()..].split_whitespace();
    (
        words.next().unwrap().to_owned(),
        words.next().unwrap().to_owned(),
    )
}

#[cfg(target_os = "linux")]
#[test]
fn the_server_raises_its_soft_open_file_limit_to_the_hard_one_for_the_session_files() {
    let user = User::new();
    let (_, hard) = open_file_limits(std::process::id());
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--nofile=64:{hard}"))
        .arg(BIN)
        .env("HOOKS_CONFIG_DIR", user.path("config"))
        .env("XDG_RUNTIME_DIR", user.path("run"))
        .env("XDG_STATE_HOME", user.path("state"))
        .env("HOME", user.path("home"))
        .current_dir(user.path("project"));
    let mut server = user.serve_with(&[], command);
    assert_eq!(open_file_limits(server.id()), (hard.clone(), hard));
    terminate(&server);
    assert!(wait(&mut server).success());
}

#[test]
fn a_sigterm_sent_as_soon_as_the_server_says_it_listens_ends_it_cleanly() {
    let user = User::new();
    for round in 0..60u64 {
        let log = std::fs::File::create(user.path("serve.log")).unwrap();
        let mut server = user
            .command()
            .arg("serve")
            .arg(format!("--port={}", user.port))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        // The signal follows the line by 0 to 3 ms: as closely as a script's would.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !user.log().contains("listening") {
            assert!(Instant::now() < deadline, "round {round}: {}", user.log());
        }
        std::thread::sleep(Duration::from_micros(round * 50));
        terminate(&server);
        let status = wait(&mut server);
        assert_eq!(
            status.code(),
            Some(0),
            "round {round}: {status}; log: {}",
            user.log()
        );
    }
}
