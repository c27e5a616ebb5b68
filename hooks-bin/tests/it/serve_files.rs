//! `hooks serve`'s session files: what a session's hooks append outlives the server (a
//! `kill -9`, even mid-call), a session that comes back after the restart sees it, a cut
//! last line is skipped, and no two sessions (nor a session id with `/` or `..`) share a file
//! or leave the directory.
//!
//! The server is this test binary run again as a child (`session_files_server`, with
//! `HOOKS_IT_SESSION_SERVER` naming its directory): a real process to kill, serving test
//! hooks that append an entry per tool call and answer with what they found in the session.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hookwright::prelude::*;
use hookwright::{HookApi, LoadedHook};
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::serve::{Secret, ServeOptions, Server, SessionFiles};
use serde_json::{Value, json};

/// Set in the child's environment: the directory it serves from.
const SERVER: &str = "HOOKS_IT_SESSION_SERVER";

/// The commands the session's hooks have seen, and how many times the session started, from
/// its entries.
fn seen(ctx: &HookContext) -> (Vec<String>, usize) {
    let entries = ctx.session_manager().entries();
    let of = |kind: &str| -> Vec<Value> {
        entries
            .iter()
            .filter(|e| e.extra.get("customType").and_then(Value::as_str) == Some(kind))
            .map(|e| e.extra.get("data").cloned().unwrap_or_default())
            .collect()
    };
    let commands = of("seen")
        .iter()
        .filter_map(|d| d["command"].as_str().map(str::to_owned))
        .collect();
    (commands, of("started").len())
}

/// The test hooks: each session start appends a `started` entry; each tool call answers
/// `seen [A, B] after N starts` (the commands of the earlier calls, from the session's
/// entries), blocking, then appends a `seen` entry with its own command. The command `hang`
/// appends its entry and then hangs.
fn test_hooks(cwd: &Path) -> Vec<LoadedHook> {
    let mut api = HookApi::new("session-files", cwd);
    api.on(|_e: &SessionStartEvent, ctx: &HookContext| {
        ctx.append_entry("started", None).expect("appended");
    });
    api.on_async(|e: &ToolCallEvent, ctx: &HookContext| {
        let command = e.input_str("command").unwrap_or_default().to_owned();
        let (before, starts) = seen(ctx);
        ctx.append_entry("seen", Some(json!({ "command": command })))
            .expect("appended");
        Box::pin(async move {
            if command == "hang" {
                tokio::time::sleep(Duration::from_secs(600)).await;
            }
            Some(ToolCallEventResult::block(format!(
                "seen [{}] after {starts} starts",
                before.join(", ")
            )))
        })
    });
    vec![api.finish()]
}

/// The child: serves the test hooks from `$HOOKS_IT_SESSION_SERVER` (session files in its
/// `sessions`, the port written to its `port`) until it is killed.
#[test]
#[ignore = "the child process of the serve_files tests, which run it"]
fn session_files_server() {
    let dir = std::env::var_os(SERVER)
        .map(PathBuf::from)
        .expect("HOOKS_IT_SESSION_SERVER, set by the test that runs this child");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let mut options = ServeOptions::new(Secret::load_or_create(&dir).unwrap());
        options.adapter = AdapterOptions::with_hooks(test_hooks);
        options.session_files = Some(SessionFiles::new(dir.join("sessions")));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        std::fs::write(dir.join("port.new"), port.to_string()).unwrap();
        std::fs::rename(dir.join("port.new"), dir.join("port")).unwrap();
        Server::new(options)
            .serve(listener, std::future::pending())
            .await
            .unwrap();
    });
}

/// A child server, killed (`SIGKILL`) when dropped.
struct Running {
    child: Child,
    port: u16,
    secret: String,
}

impl Running {
    /// Starts the child server on `dir`, its stderr appended to `dir/serve.log`.
    fn start(dir: &Path) -> Running {
        let _ = std::fs::remove_file(dir.join("port"));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("serve.log"))
            .unwrap();
        let child = Command::new(std::env::current_exe().unwrap())
            .args([
                "serve_files::session_files_server",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SERVER, dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let port = loop {
            if let Ok(port) = std::fs::read_to_string(dir.join("port")) {
                break port.parse().unwrap();
            }
            assert!(Instant::now() < deadline, "the child server did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        let secret = Secret::load(&Secret::path_in(dir)).unwrap();
        Running {
            child,
            port,
            secret: secret.as_str().to_owned(),
        }
    }

    /// `kill -9`, and waits for the process to be gone.
    fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// `POST /claude/PreToolUse` of the Bash command `command` in the session `session`: the
    /// block reason (empty when there is none), or the I/O error of a server that went away.
    fn call(&self, session: &str, command: &str) -> std::io::Result<String> {
        call(self.port, &self.secret, session, command)
    }
}

/// [`Running::call`] to the server on `port` with `secret`.
fn call(port: u16, secret: &str, session: &str, command: &str) -> std::io::Result<String> {
    {
        let body = json!({
            "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1",
        })
        .to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", port))?;
        write!(
            stream,
            "POST /claude/PreToolUse HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer \
             {secret}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        )?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let value: Value = serde_json::from_str(body).unwrap_or_default();
        let reason = value["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .or(value["reason"].as_str())
            .unwrap_or_default();
        Ok(reason.to_owned())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (10 s at most) until `cond` holds.
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn session_file(dir: &Path, id: &str) -> PathBuf {
    SessionFiles::new(dir.join("sessions"))
        .path(&hookwright_cli::serve::SessionKey::new("claude", id))
}

#[test]
fn entries_a_hook_appends_survive_a_kill_9_mid_call_and_the_session_sees_them_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Running::start(dir.path());
    assert_eq!(server.call("s1", "one").unwrap(), "seen [] after 1 starts");
    assert_eq!(
        server.call("s1", "two").unwrap(),
        "seen [one] after 1 starts"
    );
    // A call in progress when the server is killed: the agent gets no answer (Claude Code
    // blocks the call: onFailure), and what the hook appended before is kept.
    let (port, secret) = (server.port, server.secret.clone());
    let hung = std::thread::spawn(move || call(port, &secret, "s1", "hang"));
    let file = session_file(dir.path(), "s1");
    eventually("the hanging call appended its entry", || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("\"hang\""))
    });
    server.kill_9();
    let answer = hung.join().unwrap();
    assert!(
        !answer.as_ref().is_ok_and(|reason| !reason.is_empty()),
        "the killed server gave no answer: {answer:?}"
    );
    let server = Running::start(dir.path());
    // The same session, after the restart: a new runner (session_start again), its entries.
    assert_eq!(
        server.call("s1", "three").unwrap(),
        "seen [one, two, hang] after 2 starts"
    );
    assert_eq!(
        server.call("s2", "other").unwrap(),
        "seen [] after 1 starts",
        "another session starts from nothing"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600, "{}", file.display());
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }
}

#[test]
fn a_cut_last_line_of_a_session_file_is_skipped_with_a_warning_and_removed_by_the_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let server = Running::start(dir.path());
    assert_eq!(server.call("s1", "one").unwrap(), "seen [] after 1 starts");
    server.kill_9();
    // What a write cut short leaves: the start of a line, without its newline.
    let file = session_file(dir.path(), "s1");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(br#"{"type":"custom","id":"cut","customType":"seen","data":{"comm"#)
        .unwrap();
    drop(f);
    let server = Running::start(dir.path());
    assert_eq!(
        server.call("s1", "two").unwrap(),
        "seen [one] after 2 starts"
    );
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert!(
        log.contains("session claude/s1: ") && log.contains("ignored the cut last line"),
        "{log}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("\"cut\""), "the cut bytes are gone: {text}");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
}

#[test]
fn no_two_sessions_share_a_file_and_no_session_id_leaves_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let server = Running::start(dir.path());
    let ids = [
        "a/b",
        "a%2Fb",
        "a_b",
        "..",
        "../../escape",
        "/etc/passwd",
        ".",
    ];
    for id in ids {
        assert_eq!(
            server.call(id, id).unwrap(),
            "seen [] after 1 starts",
            "{id}"
        );
    }
    for id in ids {
        assert_eq!(
            server.call(id, "again").unwrap(),
            format!("seen [{id}] after 1 starts"),
            "{id} sees its own entries only"
        );
    }
    server.kill_9();
    let sessions = dir.path().join("sessions");
    let claude: Vec<PathBuf> = std::fs::read_dir(sessions.join("claude"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(claude.len(), ids.len(), "one file per session: {claude:?}");
    let top: Vec<PathBuf> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        top,
        [sessions.join("claude")],
        "nothing beside the agent's directory"
    );
    assert!(!dir.path().join("escape").exists() && !dir.path().join("escape.jsonl").exists());
}
