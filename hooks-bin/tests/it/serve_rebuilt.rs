//! A binary rebuilt or reinstalled at the same path while a `hooks serve` of the older build
//! runs: no call is answered by the older code without saying so. The command adapter runs
//! its call in its own process, `--via-server` replaces the server, `--status` says the
//! server is of an older build, and the server says once that its file was replaced.
//!
//! Each test runs a copy of the built binary at a path of its own (a hard link where the
//! file system allows), and "rebuilds" it as `cargo install` does: a new file, here the same
//! binary with one byte appended, renamed over the old path.

use crate::common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use hookwright_cli::serve::build::Build;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// A scratch user with a binary of its own, and, once started, its foreground server.
struct User {
    dir: tempfile::TempDir,
    port: u16,
    server: Option<Child>,
}

impl User {
    fn new() -> User {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project", "bin"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let user = User {
            port: std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port(),
            dir,
            server: None,
        };
        if std::fs::hard_link(BIN, user.bin()).is_err() {
            std::fs::copy(BIN, user.bin()).unwrap();
        }
        user
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// This user's binary.
    fn bin(&self) -> PathBuf {
        self.path("bin").join("hooks")
    }

    /// A new build at [`User::bin`]: the binary with one byte appended, renamed over it.
    fn rebuild(&self) {
        let before = Build::of(&self.bin()).unwrap();
        let new = self.path("bin").join("hooks.new");
        std::fs::copy(BIN, &new).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&new)
            .unwrap()
            .write_all(b"\n")
            .unwrap();
        std::fs::rename(&new, self.bin()).unwrap();
        assert_ne!(Build::of(&self.bin()).unwrap(), before, "another build");
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(self.bin());
        c.args(args)
            .env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("HOME", self.path("home"))
            .env_remove("HOOKS_NO_SERVER")
            .env_remove("HOOKS_DISABLE")
            .current_dir(self.path("project"));
        c
    }

    fn hooks(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn hooks_with(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    /// `hooks serve --port P` in the foreground, in a process group of its own, its stderr
    /// to `serve.log`.
    fn start_server(&mut self) -> u32 {
        let log = std::fs::File::create(self.path("serve.log")).unwrap();
        let child = self
            .command(&["serve", &format!("--port={}", self.port)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        self.server = Some(child);
        self.eventually("the server listens", || self.log().contains("listening"));
        pid
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

    /// Waits for the foreground server to exit (after `signal`, if any).
    fn server_exit(&mut self, signal: Option<nix::sys::signal::Signal>) -> ExitStatus {
        let mut child = self.server.take().expect("a server runs");
        if let Some(signal) = signal {
            let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
            nix::sys::signal::kill(pid, signal).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn status(&self) -> String {
        text(&self.hooks(&["serve", "--status"]))
    }

    /// `POST /claude/EVENT` to the foreground server: the status and body.
    fn post(&self, event: &str, body: &[u8]) -> (u16, String) {
        let secret = std::fs::read_to_string(self.path("config").join("serve-secret")).unwrap();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "POST /claude/{event} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\nauthorization: Bearer \
             {secret}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n",
            self.port,
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer.split(' ').nth(1).unwrap().parse().unwrap();
        (status, answer.split_once("\r\n\r\n").unwrap().1.to_owned())
    }

    /// A Claude input of `event` for the session `session`.
    fn claude(&self, event: &str, session: &str, extra: Value) -> Vec<u8> {
        let mut extra = extra;
        extra["session_id"] = json!(session);
        common::input(event, &self.path("project"), extra)
    }

    /// A Codex input of `event` for the session `session`.
    fn codex(&self, event: &str, session: &str, extra: Value) -> Vec<u8> {
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
            let _ = self.server_exit(Some(nix::sys::signal::Signal::SIGKILL));
        }
        // A server started in the background by `--via-server`.
        let _ = self.hooks(&["serve", "--stop"]);
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn rm_rf() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf target"}, "tool_use_id": "c1"})
}

#[test]
fn a_codex_call_never_hands_over_to_a_server_of_an_older_build() {
    let mut user = User::new();
    user.start_server();
    let before = user.codex("PreToolUse", "before", rm_rf());
    let out = user.hooks_with(&["codex", "PreToolUse"], &before);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    user.rebuild();
    let after = user.codex("PreToolUse", "after", rm_rf());
    let out = user.hooks_with(&["codex", "PreToolUse"], &after);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"deny\""), "answered in process: {stdout}");
    assert_eq!(
        user.server_exit(Some(nix::sys::signal::Signal::SIGTERM))
            .code(),
        Some(0)
    );
    let log = user.log();
    assert!(
        log.contains("session codex/before ended ("),
        "handed over before the rebuild: {log}"
    );
    assert!(
        !log.contains("codex/after"),
        "the older server answered a call of the new build: {log}"
    );
}

#[test]
fn session_start_via_server_replaces_a_server_of_an_older_build() {
    let mut user = User::new();
    let old = user.start_server();
    let start = user.claude("SessionStart", "s-old", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        user.status().starts_with(&format!(
            "running: pid {old}, http://127.0.0.1:{}\n",
            user.port
        )),
        "{}",
        user.status()
    );
    user.rebuild();
    let start = user.claude("SessionStart", "s-new", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "hooks serve: replaced the server of an older build of {} (pid {old})\n",
            user.bin().display()
        )
    );
    // The old server ended its sessions cleanly and exited 0.
    assert_eq!(user.server_exit(None).code(), Some(0));
    let log = user.log();
    assert!(
        log.contains("session claude/s-old ended (shutdown)\n"),
        "{log}"
    );
    assert!(
        !log.contains("not cleanly") && !log.contains("s-new"),
        "{log}"
    );
    // The new one runs this build, with the new session.
    let status = user.status();
    let new: u32 = status
        .strip_prefix("running: pid ")
        .and_then(|s| s.split(',').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("{status}"));
    assert_ne!(new, old);
    assert!(!status.contains("older build"), "{status}");
}

#[test]
fn status_says_the_running_server_is_of_an_older_build() {
    let mut user = User::new();
    let pid = user.start_server();
    let url = format!("running: pid {pid}, http://127.0.0.1:{}", user.port);
    assert_eq!(user.status(), format!("{url}\n"));
    user.rebuild();
    let status = user.status();
    assert!(
        status.starts_with(&format!("{url}, an older build of this binary: "))
            && status.contains("`hooks serve --stop`"),
        "{status}"
    );
    assert_eq!(status.lines().count(), 1, "{status}");
}

#[test]
fn a_server_whose_binary_was_replaced_says_so_once_and_goes_on_answering() {
    let mut user = User::new();
    user.start_server();
    let rm = user.claude("PreToolUse", "s1", rm_rf());
    assert_eq!(user.post("PreToolUse", &rm).0, 200);
    let said = format!(
        "hooks serve: {} was replaced by another build",
        user.bin().display()
    );
    assert!(!user.log().contains(&said), "{}", user.log());
    user.rebuild();
    // The file is looked at once a second at most: calls go on (each answered) until the
    // server has looked and said so, then through two more of its looks, which say nothing.
    let answered = || {
        let (status, body) = user.post("PreToolUse", &rm);
        assert_eq!(status, 200);
        assert!(body.contains("\"deny\""), "{body}");
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !user.log().contains(&said) {
        assert!(Instant::now() < deadline, "never said so:\n{}", user.log());
        answered();
        std::thread::sleep(Duration::from_millis(100));
    }
    let looked_again = Instant::now() + Duration::from_millis(2200);
    while Instant::now() < looked_again {
        answered();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(user.log().matches(&said).count(), 1, "{}", user.log());
}
