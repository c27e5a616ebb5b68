//! The default `hooks` binary (src/main.rs) links the guards and nothing else: installed as it
//! is, it blocks what destroys work; the examples have `hooks-examples`.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const HOOKS: &str = env!("CARGO_BIN_EXE_hooks");

fn hooks(args: &[&str], stdin: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(HOOKS)
        .args(args)
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("HOOKS_CONFIG_DIR", home.path().join("config"))
        .env_remove("HOOKS_MODE")
        .env_remove("HOOKS_DISABLE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hooks runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Claude Code's answer to a `Bash` call of `command`.
fn claude_bash(command: &str) -> (Option<i32>, String) {
    let input = json!({
        "session_id": "default-binary",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command },
        "cwd": "/tmp",
    });
    let out = hooks(&["claude", "PreToolUse"], &input.to_string());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_default_binary_links_the_guards_and_no_example() {
    let out = hooks(&["list", "--json"], "");
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = list["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["hookwright_guards", "hookwright_guards::secrets"],
        "{list:#}"
    );
}

#[test]
fn the_default_binary_blocks_what_destroys_work_with_the_rule_and_lets_the_rest_run() {
    let (code, out) = claude_bash("git reset --hard HEAD~1");
    assert_eq!(code, Some(0), "{out}");
    let answer: Value = serde_json::from_str(&out).unwrap();
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "deny", "{answer}");
    let reason = output["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("[core.git:reset-hard]"), "{reason}");
    assert!(reason.contains("Safer:"), "{reason}");
    for harmless in ["rm -rf /tmp/build-cache", "git status", "echo 'rm -rf /'"] {
        let (code, out) = claude_bash(harmless);
        assert_eq!((code, out.as_str()), (Some(0), ""), "{harmless}");
    }
}
