//! `hooks codex EVENT` handing its call to a running `hooks serve` over the unix socket: the
//! same answer as in its own process, the session's state kept across calls, and the
//! failure rules of a server that is absent, stale or killed mid-call.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// A scratch user (config, runtime, home and project directories) and, once started, its
/// server.
struct User {
    dir: tempfile::TempDir,
    port: u16,
    server: Option<Child>,
}

impl User {
    fn new() -> User {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        User {
            dir,
            port,
            server: None,
        }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("HOME", self.path("home"))
            .env_remove("HOOKS_NO_SERVER")
            .env_remove("HOOKS_DISABLE")
            .current_dir(self.path("project"));
        c
    }

    /// The server's socket and lock file.
    fn runtime_file(&self, ext: &str) -> PathBuf {
        let dir = self.path("run").join("hooks");
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == ext))
            .unwrap_or_else(|| panic!("no .{ext} file in {}", dir.display()))
    }

    /// `hooks serve --port P` in the foreground, in a process group of its own (so that a
    /// hook it runs is killed with it), its stderr appended to `serve.log`.
    fn start_server(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path("serve.log"))
            .unwrap();
        let listening = self.log().matches("listening").count();
        let child = self
            .command()
            .arg("serve")
            .arg(format!("--port={}", self.port))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        self.server = Some(child);
        self.eventually("the server listens", || {
            self.log().matches("listening").count() > listening
        });
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

    /// Sends `signal` to the server's process group and waits for it to exit.
    fn stop_server(&mut self, signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
        let mut child = self.server.take().expect("a server runs");
        let group = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        nix::sys::signal::killpg(group, signal).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `hooks codex EVENT` (with `env` added) with `body` on stdin.
    fn codex(&self, event: &str, body: &[u8], env: &[(&str, &str)]) -> Child {
        let mut command = self.command();
        command.args(["codex", event]).envs(env.iter().copied());
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A call that answers without its input (HOOKS_DISABLE=1) may exit before it is
        // written: its pipe is then closed, which is not this helper's failure.
        match child.stdin.take().unwrap().write_all(body) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            written => written.unwrap(),
        }
        child
    }

    /// [`User::codex`], waited for: exit code, stdout, stderr.
    fn call(
        &self,
        event: &str,
        body: &[u8],
        env: &[(&str, &str)],
    ) -> (Option<i32>, String, String) {
        answer(&self.codex(event, body, env).wait_with_output().unwrap())
    }

    /// A Codex input of `event` for the session `session`, with `extra` fields.
    fn input(&self, event: &str, session: &str, extra: serde_json::Value) -> Vec<u8> {
        let mut body = json!({
            "session_id": session, "transcript_path": null, "cwd": self.path("project"),
            "hook_event_name": event, "model": "gpt-5-codex", "turn_id": "turn-1",
            "permission_mode": "default",
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::to_vec(&body).unwrap()
    }
}

impl Drop for User {
    fn drop(&mut self) {
        if self.server.is_some() {
            let _ = self.stop_server(nix::sys::signal::Signal::SIGKILL);
        }
    }
}

fn answer(out: &Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

/// In its own process, whether a server runs or not.
const IN_PROCESS: &[(&str, &str)] = &[("HOOKS_NO_SERVER", "1")];

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "c1"})
}

fn ran(command: &str, output: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "c1",
           "tool_response": output})
}

/// Recorded Codex inputs for the examples bundle, each the first call of its session
/// (`rec-N`), and input the decoder refuses.
fn recorded(user: &User) -> Vec<(&'static str, Vec<u8>)> {
    let calls: Vec<(&'static str, serde_json::Value)> = vec![
        ("SessionStart", json!({"source": "startup"})),
        ("PreToolUse", bash("rm -rf target")),
        ("PreToolUse", bash("ls -la")),
        (
            "PostToolUse",
            ran("cat .env", "API_KEY=sk-live-1234567890abcdef\nMODE=dev\n"),
        ),
        ("PostToolUse", ran("ls", "a\nb\n")),
        ("UserPromptSubmit", json!({"prompt": "/handoff the tests"})),
        ("UserPromptSubmit", json!({"prompt": "list the files"})),
        (
            "Stop",
            json!({"last_assistant_message": "done", "stop_hook_active": false}),
        ),
    ];
    let mut inputs: Vec<(&'static str, Vec<u8>)> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (event, extra))| (event, user.input(event, &format!("rec-{i}"), extra)))
        .collect();
    inputs.push((
        "PreToolUse",
        b"{\"session_id\": \"rec-cut\", \"tool_name\": ".to_vec(),
    ));
    inputs.push(("Stop", b"[1]".to_vec()));
    inputs
}

#[test]
fn a_codex_call_answers_byte_for_byte_the_same_through_the_server_as_in_its_own_process() {
    let mut user = User::new();
    user.start_server();
    let mut answered = Vec::new();
    for (event, body) in recorded(&user) {
        let here = user.call(event, &body, IN_PROCESS);
        let there = user.call(event, &body, &[]);
        assert_eq!(there, here, "{event} {}", String::from_utf8_lossy(&body));
        answered.push(here);
    }
    // The inputs answer what they should: a deny, a rewrite, a command, two refusals.
    let joined = format!("{answered:?}");
    for needle in [
        "\\\"permissionDecision\\\":\\\"deny\\\"",
        "API_KEY=[REDACTED]",
        "/handoff: starting a new session",
        "invalid input",
    ] {
        assert!(joined.contains(needle), "{needle}: {joined}");
    }
    // Every session but those of the refused input was served by the server.
    assert_eq!(
        user.stop_server(nix::sys::signal::Signal::SIGTERM).code(),
        Some(0)
    );
    let log = user.log();
    for i in 0..8 {
        assert!(
            log.contains(&format!("session codex/rec-{i} ended (")),
            "rec-{i}: {log}"
        );
    }
    assert!(!log.contains("rec-cut"), "{log}");
}

#[test]
fn a_codex_session_keeps_its_hooks_state_across_calls_through_the_server() {
    let mut user = User::new();
    user.start_server();
    let start = user.input("SessionStart", "counted", json!({"source": "startup"}));
    assert_eq!(user.call("SessionStart", &start, &[]).0, Some(0));
    let body = user.input("PostToolUse", "counted", ran("ls", "a\n"));
    for n in 1..=3 {
        let (code, stdout, _) = user.call("PostToolUse", &body, &[]);
        assert_eq!(code, Some(0));
        assert!(
            stdout.contains(&format!("tools run: {n} ")),
            "call {n}: {stdout}"
        );
        let (_, alone, _) = user.call("PostToolUse", &body, IN_PROCESS);
        assert!(
            alone.contains("tools run: 1 "),
            "in its own process: {alone}"
        );
    }
    // The gate still blocks, in the same session.
    let rm = user.input("PreToolUse", "counted", bash("rm -rf target"));
    let (code, stdout, _) = user.call("PreToolUse", &rm, &[]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("\"deny\""), "{stdout}");
}

#[test]
fn the_servers_socket_is_mode_0600_in_a_0700_directory_and_removed_on_a_clean_exit() {
    let mut user = User::new();
    user.start_server();
    let socket = user.runtime_file("sock");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600, "{}", socket.display());
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    assert_eq!(
        socket
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".sock", ""),
        user.runtime_file("lock")
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".lock", ""),
        "named after the same binary tag as the lock file"
    );
    assert_eq!(
        user.stop_server(nix::sys::signal::Signal::SIGTERM).code(),
        Some(0)
    );
    assert!(!socket.exists(), "the socket outlived the server");
}

#[test]
fn without_a_reachable_server_the_codex_call_runs_in_its_own_process() {
    let user = User::new();
    let rm = user.input("PreToolUse", "alone", bash("rm -rf target"));
    // No server ever ran.
    let (code, stdout, stderr) = user.call("PreToolUse", &rm, &[]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert!(stdout.contains("\"deny\""), "{stdout}");
    // The lock held (by this test) but nothing listens on the socket: connecting fails, so
    // nothing was handed over, and the call runs here.
    let dir = user.path("run").join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let binary = std::fs::canonicalize(BIN).unwrap();
    let lock = hookwright_cli::serve::lock::lock_path(&dir, &binary);
    let _held = hookwright_cli::serve::lock::Lock::acquire(&lock, user.port).unwrap();
    let socket = hookwright_cli::serve::lock::socket_path(&dir, &binary);
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists(), "a socket nobody listens on");
    let again = user.call("PreToolUse", &rm, &[]);
    assert_eq!(again, (code, stdout, stderr));
}

#[test]
fn hooks_disable_switches_a_codex_call_off_before_it_reaches_the_server() {
    let mut user = User::new();
    user.start_server();
    let rm = user.input("PreToolUse", "off", bash("rm -rf target"));
    let (code, stdout, stderr) = user.call("PreToolUse", &rm, &[("HOOKS_DISABLE", "1")]);
    assert_eq!((code, stdout.as_str()), (Some(0), ""));
    assert!(
        stderr.contains("hooks are disabled (HOOKS_DISABLE=1)"),
        "{stderr}"
    );
    assert_eq!(
        user.stop_server(nix::sys::signal::Signal::SIGTERM).code(),
        Some(0)
    );
    assert!(!user.log().contains("session codex/off"), "{}", user.log());
}

#[test]
fn a_server_killed_mid_call_blocks_the_codex_call_and_the_hooks_never_run_twice() {
    // A project hook that records each run, then takes its time.
    let mut user = User::new();
    let runs = user.path("runs.txt");
    let hook = user.path("project").join(".xcsh/hooks/pre/bash.sh");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(
        &hook,
        format!("#!/bin/sh\necho ran >> '{}'\nsleep 5\n", runs.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    user.start_server();
    let ls = user.input("PreToolUse", "killed", bash("ls"));
    let mut command = user.command();
    let mut call = command
        .args(["codex", "PreToolUse", "--trust-all"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    call.stdin.take().unwrap().write_all(&ls).unwrap();
    user.eventually("the server runs the hook", || runs.exists());
    user.stop_server(nix::sys::signal::Signal::SIGKILL);
    let (code, stdout, stderr) = answer(&call.wait_with_output().unwrap());
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
    assert!(
        stderr.starts_with("hooks codex PreToolUse: blocked: hooks serve (")
            && stderr.contains("failed during the call"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "ran\n", "run once");
}

#[test]
fn a_stale_socket_from_a_killed_server_is_replaced_when_a_server_starts() {
    let mut user = User::new();
    user.start_server();
    let socket = user.runtime_file("sock");
    user.stop_server(nix::sys::signal::Signal::SIGKILL);
    assert!(socket.exists(), "kill -9 leaves the socket behind");
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_err());
    // In its own process meanwhile.
    let body = user.input("PostToolUse", "after", ran("ls", "a\n"));
    let (code, _, _) = user.call("PostToolUse", &body, &[]);
    assert_eq!(code, Some(0));
    user.start_server();
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());
    for n in 1..=2 {
        let (_, stdout, _) = user.call("PostToolUse", &body, &[]);
        assert!(
            stdout.contains(&format!("tools run: {n} ")),
            "call {n}: {stdout}"
        );
    }
}
