//! A scratch user for the tests that run `hooks` as processes against a server: its own
//! config, runtime, state and home directories and a project, none shared with another test.

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `hooks` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// The binary's path as the processes see it (`current_exe`).
#[must_use]
pub fn binary() -> PathBuf {
    std::fs::canonicalize(BIN).unwrap()
}

/// A scratch user.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project", "state"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        Scratch { dir }
    }

    pub fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// The usual runtime directory of this user (`$XDG_RUNTIME_DIR/hooks`).
    pub fn runtime_dir(&self) -> PathBuf {
        self.path("run").join("hooks")
    }

    /// The fallback runtime directory (`$XDG_STATE_HOME/hooks/run`).
    pub fn fallback_dir(&self) -> PathBuf {
        self.path("state").join("hooks").join("run")
    }

    /// The lock file of this binary's server in `dir`.
    pub fn lock_in(&self, dir: &Path) -> PathBuf {
        hookwright_cli::serve::lock::lock_path(dir, &binary())
    }

    /// The socket of this binary's server in `dir`.
    pub fn socket_in(&self, dir: &Path) -> PathBuf {
        hookwright_cli::serve::lock::socket_path(dir, &binary())
    }

    /// The port the server derives (and `install --http` writes).
    pub fn default_port(&self) -> u16 {
        hookwright_cli::serve::lock::default_port(&self.lock_in(&self.runtime_dir()))
    }

    /// `hooks` in the project, with this user's directories and none of the switches of the
    /// environment the tests run in.
    pub fn command(&self) -> Command {
        self.command_of(BIN)
    }

    /// [`Scratch::command`] for another program (a shell that starts `hooks`).
    pub fn command_of(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env("HOME", self.path("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("HOOKS_NO_SERVER")
            .env_remove("HOOKS_DISABLE")
            .env_remove("HOOKS_MODE")
            .current_dir(self.path("project"));
        c
    }

    pub fn hooks(&self, args: &[&str]) -> Output {
        self.command()
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// `hooks ARGS`, killed if it has not exited after `bound` (a command that must exit).
    pub fn hooks_within(&self, args: &[&str], bound: Duration) -> Output {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + bound;
        while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        child.wait_with_output().unwrap()
    }

    /// `hooks ARGS` with `input` on stdin and `env` set.
    pub fn hooks_with(&self, args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Output {
        let mut command = self.command();
        command
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// A Claude Code hook input of `event` for session `session` in the project.
    pub fn input(&self, event: &str, session: &str, extra: serde_json::Value) -> Vec<u8> {
        let mut body = serde_json::json!({
            "session_id": session, "transcript_path": "/tmp/t.jsonl",
            "cwd": self.path("project"), "permission_mode": "default", "hook_event_name": event,
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body.to_string().into_bytes()
    }

    /// The secret the server made.
    pub fn secret(&self) -> String {
        std::fs::read_to_string(self.path("config").join("serve-secret")).unwrap()
    }

    /// `POST /claude/EVENT` with `body` to the server on `port`, with the secret and the
    /// `headers`: the status and body.
    pub fn post(
        &self,
        port: u16,
        event: &str,
        body: &[u8],
        headers: &[(&str, &str)],
    ) -> (u16, String) {
        use std::io::Read as _;
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mut head = format!(
            "POST /claude/{event} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer {}\r\n\
             content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
            self.secret(),
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer.split(' ').nth(1).unwrap().parse().unwrap();
        let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
        (status, body)
    }

    /// The pid of this user's running server, from its lock file.
    pub fn server_pid(&self) -> u32 {
        let out = self.hooks(&["serve", "--status"]);
        let status = String::from_utf8_lossy(&out.stdout).into_owned();
        status
            .split("pid ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .and_then(|pid| pid.parse().ok())
            .unwrap_or_else(|| panic!("no server: {status}"))
    }

    /// Stops this user's server, if one runs.
    pub fn stop(&self) {
        let _ = self.hooks(&["serve", "--stop"]);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Waits up to 10 s for `cond`.
pub fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// stdout and stderr of `out`, for messages.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
