//! The kill switch: `HOOKS_DISABLE=1` makes every adapter call answer "no opinion" at once,
//! without reading its input or loading a hook, and say so in one stderr line.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// `hooks AGENT EVENT` in a scratch user's project with `stdin`, `HOOKS_DISABLE` set to
/// `disable` (or unset).
fn adapter(agent: &str, event: &str, stdin: &[u8], disable: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Command::new(BIN);
    c.args([agent, event])
        .env("HOOKS_CONFIG_DIR", dir.path())
        .env("HOME", dir.path())
        .env_remove("HOOKS_DISABLE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(value) = disable {
        c.env("HOOKS_DISABLE", value);
    }
    let mut child = c.spawn().unwrap();
    // Switched off, the adapter exits without reading its input: a write that finds the pipe
    // closed is what the rule expects, not a failure.
    match child.stdin.take().unwrap().write_all(stdin) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe && disable.is_some() => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}

fn rm_rf(event: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/",
        "hook_event_name": event, "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1",
    })
    .to_string()
    .into_bytes()
}

fn assert_no_opinion_said_once(out: &Output, agent: &str, event: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "no answer");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "hooks {agent} {event}: hooks are disabled (HOOKS_DISABLE=1): no opinion, nothing ran"
        )
    );
}

#[test]
fn hooks_disable_answers_no_opinion_on_a_gating_event_and_says_so() {
    for agent in ["claude", "codex"] {
        // The examples' guard denies this call when the hooks are on.
        let on = adapter(agent, "PreToolUse", &rm_rf("PreToolUse"), None);
        assert!(
            String::from_utf8_lossy(&on.stdout).contains("deny"),
            "{on:?}"
        );
        let off = adapter(agent, "PreToolUse", &rm_rf("PreToolUse"), Some("1"));
        assert_no_opinion_said_once(&off, agent, "PreToolUse");
    }
}

#[test]
fn hooks_disable_neither_reads_the_input_nor_loads_a_hook() {
    // Malformed input fails a gating call (exit 2) when the hooks are on; switched off,
    // nothing decodes it.
    let on = adapter("claude", "PreToolUse", b"{not json", None);
    assert_eq!(on.status.code(), Some(2), "{on:?}");
    let off = adapter("claude", "PreToolUse", b"{not json", Some("1"));
    assert_no_opinion_said_once(&off, "claude", "PreToolUse");
    let off = adapter("codex", "Stop", b"", Some("1"));
    assert_no_opinion_said_once(&off, "codex", "Stop");
}

#[test]
fn hooks_disable_is_only_the_value_1() {
    let out = adapter("claude", "PreToolUse", &rm_rf("PreToolUse"), Some("0"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("deny"),
        "{out:?}"
    );
}
