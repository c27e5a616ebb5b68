//! `hooks log`: the decision log that real adapter calls wrote (`hooks claude EVENT`, in
//! enforce mode with `[log] enabled = true` and in audit mode), summarized per agent, event,
//! tool and handler, filtered, as a table and as JSON, and followed (`-f`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// A scratch user whose `config.toml` writes the decision log in enforce mode too.
struct User {
    dir: tempfile::TempDir,
}

impl User {
    fn new() -> User {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::write(
            dir.path().join("config/config.toml"),
            "[log]\nenabled = true\n",
        )
        .unwrap();
        User { dir }
    }

    /// The default log: `$XDG_STATE_HOME/hooks/decisions.jsonl`.
    fn log(&self) -> PathBuf {
        self.dir.path().join("state/hooks/decisions.jsonl")
    }

    fn command(&self, args: &[&str]) -> Command {
        let home = self.dir.path();
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", home)
            .env("HOOKS_CONFIG_DIR", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_RUNTIME_DIR", home.join("run"))
            .env_remove("HOOKS_MODE")
            .env_remove("HOOKS_DISABLE")
            .env_remove("CLAUDE_PROJECT_DIR")
            .current_dir(home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// `hooks claude EVENT` with `input`, in audit mode when `audit`.
    fn claude(&self, event: &str, input: &Value, audit: bool) {
        let mut c = self.command(&["claude", event]);
        if audit {
            c.env("HOOKS_MODE", "audit");
        }
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.code() == Some(0),
            "hooks claude {event}: {out:?}"
        );
    }

    /// `hooks log ARGS`.
    fn hooks_log(&self, args: &[&str]) -> Output {
        let mut c = self.command(&[&["log"], args].concat());
        c.stdin(Stdio::null());
        c.output().unwrap()
    }

    /// `hooks log --json ARGS`, which must succeed, parsed.
    fn summary(&self, args: &[&str]) -> Value {
        let out = self.hooks_log(&[&["--json"], args].concat());
        assert!(out.status.success(), "hooks log --json {args:?}: {out:?}");
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
    }
}

/// A Bash call the examples' guard blocks (`rm -rf`), in `session`.
fn rm_rf(session: &str) -> Value {
    json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf victim"}, "tool_use_id": "t1",
    })
}

/// A Bash call nothing blocks, in `session`.
fn ls(session: &str) -> Value {
    json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "t3",
    })
}

/// A Read of a `.env` file whose key the examples' redactor rewrites, in `session`.
fn read_env(session: &str) -> Value {
    json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "/p/.env"}, "tool_use_id": "t2",
        "tool_response": {"type": "text", "file": {"filePath": "/p/.env",
            "content": "API_KEY=sk-live-1 DEBUG=1", "numLines": 1, "startLine": 1, "totalLines": 1}},
    })
}

/// The user after four real calls: a blocked `rm -rf` (session `s-1`), an `ls` (`s-1`), a
/// rewritten read of `.env` (`s-1`), and an `rm -rf` in audit mode (`s-2`).
fn four_calls() -> User {
    let user = User::new();
    user.claude("PreToolUse", &rm_rf("s-1"), false);
    user.claude("PreToolUse", &ls("s-1"), false);
    user.claude("PostToolUse", &read_env("s-1"), false);
    user.claude("PreToolUse", &rm_rf("s-2"), true);
    user
}

/// The row of `rows` whose fields are `want`'s.
fn row<'a>(rows: &'a Value, want: &Value) -> &'a Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| {
            want.as_object()
                .unwrap()
                .iter()
                .all(|(k, v)| r.get(k) == Some(v))
        })
        .unwrap_or_else(|| panic!("no row {want} in {rows:#}"))
}

fn calls_of(summary: &Value) -> u64 {
    summary["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["calls"].as_u64().unwrap())
        .sum()
}

#[test]
fn the_summary_counts_calls_blocks_rewrites_and_would_have_blocks_per_agent_event_tool_and_handler()
{
    let user = four_calls();
    let summary = user.summary(&[]);
    assert_eq!(summary["lines"], 4, "{summary:#}");
    assert_eq!(summary["unreadable"], json!([]));
    assert_eq!(summary["log"], json!(user.log()));
    let bash = row(
        &summary["calls"],
        &json!({"agent": "claude", "event": "PreToolUse", "tool": "bash"}),
    );
    assert_eq!(
        (
            &bash["calls"],
            &bash["blocks"],
            &bash["would_block"],
            &bash["rewrites"]
        ),
        (&json!(3), &json!(1), &json!(1), &json!(0)),
        "{bash}"
    );
    assert!(bash["total_us"].as_u64().unwrap() >= bash["max_us"].as_u64().unwrap());
    assert!(bash["max_us"].as_u64().unwrap() > 0, "{bash}");
    let read = row(
        &summary["calls"],
        &json!({"agent": "claude", "event": "PostToolUse", "tool": "read"}),
    );
    assert_eq!((&read["calls"], &read["rewrites"]), (&json!(1), &json!(1)));
    assert_eq!(
        (&read["blocks"], &read["would_block"]),
        (&json!(0), &json!(0))
    );
    // Per handler: the guard ran on each Bash call, blocked once and would have once.
    let guard = row(
        &summary["handlers"],
        &json!({"event": "PreToolUse", "hook": "hookwright_examples::block_rm", "handler": "block_rm_rf"}),
    );
    assert_eq!(
        (&guard["runs"], &guard["blocks"], &guard["would_block"]),
        (&json!(3), &json!(1), &json!(1)),
        "{guard}"
    );
    let redactor = row(
        &summary["handlers"],
        &json!({"event": "PostToolUse", "hook": "hookwright_examples::redact"}),
    );
    assert_eq!(
        (&redactor["runs"], &redactor["rewrites"]),
        (&json!(1), &json!(1))
    );

    // The table says the same.
    let out = user.hooks_log(&[]);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    let header = table
        .lines()
        .find(|l| l.starts_with("AGENT"))
        .unwrap_or_else(|| panic!("no header: {table}"));
    for column in [
        "EVENT",
        "TOOL",
        "CALLS",
        "BLOCKS",
        "REWRITES",
        "WOULD-BLOCK",
        "TOTAL-MS",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let bash_row: Vec<&str> = table
        .lines()
        .find(|l| l.starts_with("claude  PreToolUse   bash"))
        .unwrap_or_else(|| panic!("no bash row: {table}"))
        .split_whitespace()
        .collect();
    assert_eq!(bash_row[3..7], ["3", "1", "0", "1"], "{table}");
    assert!(
        table.contains("hookwright_examples::block_rm block_rm_rf"),
        "the handlers' table: {table}"
    );
}

#[test]
fn filters_keep_only_the_calls_asked_for() {
    let user = four_calls();
    assert_eq!(calls_of(&user.summary(&["--session", "s-2"])), 1);
    assert_eq!(calls_of(&user.summary(&["--session", "s-1"])), 3);
    assert_eq!(calls_of(&user.summary(&["--agent", "claude"])), 4);
    assert_eq!(calls_of(&user.summary(&["--agent", "codex"])), 0);
    // Blocked, or would have been in audit mode.
    let denied = user.summary(&["--denied"]);
    assert_eq!(calls_of(&denied), 2, "{denied:#}");
    let bash = row(&denied["calls"], &json!({"tool": "bash"}));
    assert_eq!(
        (&bash["blocks"], &bash["would_block"]),
        (&json!(1), &json!(1))
    );
    assert_eq!(calls_of(&user.summary(&["--since", "1h"])), 4);
    assert_eq!(
        calls_of(&user.summary(&["--since", "2d", "--denied", "--session", "s-2"])),
        1
    );
    assert_eq!(
        calls_of(&user.summary(&["--since", "2999-01-01T00:00:00Z"])),
        0
    );
    assert_eq!(
        calls_of(&user.summary(&["--since", "2000-01-01T00:00:00Z"])),
        4
    );
    let bad = user.hooks_log(&["--since", "yesterday-ish"]);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("RFC 3339"),
        "{bad:?}"
    );
}

#[test]
fn an_unreadable_line_is_reported_with_its_line_number_and_the_summary_goes_on() {
    let user = User::new();
    user.claude("PreToolUse", &rm_rf("s-1"), false);
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(user.log())
        .unwrap();
    log.write_all(b"this is not JSON\n{\"time\": 1}\n").unwrap();
    user.claude("PreToolUse", &rm_rf("s-1"), true);
    let out = user.hooks_log(&["--json"]);
    assert!(out.status.success(), "{out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(calls_of(&summary), 2, "{summary:#}");
    let lines: Vec<&Value> = summary["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| &u["line"])
        .collect();
    assert_eq!(lines, [&json!(2), &json!(3)], "{summary:#}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = format!("{}:2: not a decision log line", user.log().display());
    assert!(stderr.contains(&at), "{stderr}");
    assert!(stderr.contains(":3: "), "{stderr}");
}

#[test]
fn a_missing_log_says_where_it_looked_and_fails() {
    let user = User::new();
    let out = user.hooks_log(&[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("no decision log at {}", user.log().display())),
        "{stderr}"
    );
    let elsewhere = user.dir.path().join("nowhere.jsonl");
    let out = user.hooks_log(&["--file", elsewhere.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&elsewhere.display().to_string()),
        "{out:?}"
    );
}

/// Lines of `hooks log -f ARGS`'s stdout, as they come, until it is killed.
struct Follower {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Follower {
    fn start(user: &User, args: &[&str]) -> Follower {
        let mut c = user.command(&[&["log", "-f"], args].concat());
        c.stdin(Stdio::null()).stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Follower { child, lines }
    }

    /// The next line it prints (failing after 20 s: a follower that does not pick up a new
    /// line).
    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .expect("hooks log -f printed the next line")
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn follow_prints_each_new_call_as_the_log_gets_it() {
    let user = User::new();
    user.claude("PreToolUse", &ls("s-1"), false);
    let follower = Follower::start(&user, &["--json"]);
    let summary: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(calls_of(&summary), 1, "{summary:#}");
    user.claude("PreToolUse", &rm_rf("s-1"), false);
    let entry: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(entry["entry"]["verdict"], "blocked", "{entry}");
    assert_eq!(entry["entry"]["tool"], "bash", "{entry}");
    assert_eq!(entry["entry"]["session"], "s-1", "{entry}");
    user.claude("PreToolUse", &rm_rf("s-2"), true);
    let entry: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(entry["entry"]["verdict"], "would block", "{entry}");
    assert_eq!(entry["entry"]["mode"], "audit", "{entry}");
    drop(follower);

    // Filtered, as a table: only the denied call of session s-3 comes, after the summary.
    let follower = Follower::start(&user, &["--denied", "--session", "s-3"]);
    while !follower.next().starts_with("following ") {}
    user.claude("PreToolUse", &ls("s-3"), false);
    user.claude("PreToolUse", &rm_rf("s-4"), false);
    user.claude("PreToolUse", &rm_rf("s-3"), false);
    let row = follower.next();
    assert!(
        row.contains(
            "claude  PreToolUse  bash  blocked  hookwright_examples::block_rm block_rm_rf"
        ),
        "{row}"
    );
}

#[test]
fn follow_waits_for_a_log_that_is_not_there_yet() {
    let user = User::new();
    let log = user.log();
    assert!(!Path::new(&log).exists());
    let follower = Follower::start(&user, &["--json"]);
    let summary: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(calls_of(&summary), 0, "{summary:#}");
    user.claude("PreToolUse", &rm_rf("s-1"), true);
    let entry: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(entry["entry"]["verdict"], "would block", "{entry}");
}

#[test]
fn follow_goes_on_in_the_new_file_after_a_rotation_and_the_summary_reads_the_rotated_ones() {
    let user = User::new();
    // Rotated before every line but the first: each call's line lands in a new file.
    std::fs::write(
        user.dir.path().join("config/config.toml"),
        "[log]\nenabled = true\nmax_bytes = 1\nkeep = 5\n",
    )
    .unwrap();
    user.claude("PreToolUse", &ls("s-1"), false);
    let follower = Follower::start(&user, &["--json"]);
    let summary: Value = serde_json::from_str(&follower.next()).unwrap();
    assert_eq!(calls_of(&summary), 1, "{summary:#}");
    for session in ["s-2", "s-3"] {
        user.claude("PreToolUse", &rm_rf(session), false);
        let entry: Value = serde_json::from_str(&follower.next()).unwrap();
        assert_eq!(entry["entry"]["session"], session, "{entry}");
    }
    drop(follower);
    let summary = user.summary(&[]);
    assert_eq!(calls_of(&summary), 3, "{summary:#}");
    assert_eq!(summary["files"].as_array().unwrap().len(), 3, "{summary:#}");
}
