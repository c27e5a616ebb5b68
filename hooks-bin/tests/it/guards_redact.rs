//! The secret redactor as Claude Code calls it: `hooks claude PostToolUse` with a
//! recorded hook input on standard input, the answer read from standard output.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wait_timeout::ChildExt;

/// A fake key of GitHub's format, assembled here so no scanner finds one in this file.
fn github_pat() -> String {
    ["ghp_", "Zq4Lm8Rt2Vx6Bn0Kc3Hj7Wp1Ys5Dg9Fa2Ue4T"].concat()
}

fn aws_key() -> String {
    ["AKIA", "Q7ZK2M4WXN5RJ3VB"].concat()
}

/// `hooks claude PostToolUse`'s answer (its standard output as JSON, `Null` when
/// empty) to the hook input of Claude Code's call of `tool` with `input` and `response`.
fn post_tool_use(tool: &str, input: Value, response: Value) -> Value {
    let scratch =
        std::env::temp_dir().join(format!("hooks-guards-redact-{}-{tool}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let call = json!({
        "session_id": "redact",
        "transcript_path": scratch.join("transcript.jsonl"),
        "cwd": scratch,
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_response": response,
        "tool_use_id": "toolu_redact",
    });
    let answer = run(&scratch, &serde_json::to_vec(&call).expect("json"));
    let _ = std::fs::remove_dir_all(&scratch);
    answer
}

fn run(scratch: &Path, input: &[u8]) -> Value {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_hooks"));
    let mut child = Command::new(binary)
        .args(["claude", "PostToolUse"])
        .current_dir(scratch)
        .env("HOME", scratch)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hooks starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("stdin written");
    let status = child
        .wait_timeout(Duration::from_secs(20))
        .expect("wait")
        .expect("hooks answers within 20 s");
    let output = child.wait_with_output().expect("output");
    assert!(
        status.success(),
        "exit {status}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    if stdout.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(stdout.trim()).expect("the answer is JSON")
    }
}

#[test]
fn claude_s_bash_output_with_secrets_is_redacted_by_the_binary() {
    let stdout = format!(
        "GITHUB_TOKEN={}\naws_access_key_id = {}\nname=demo\n",
        github_pat(),
        aws_key()
    );
    let answer = post_tool_use(
        "Bash",
        json!({"command": "cat .env"}),
        json!({"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false,
               "noOutputExpected": false}),
    );
    assert_eq!(
        answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"],
        "GITHUB_TOKEN=[redacted:github-pat]\naws_access_key_id = [redacted:aws-access-token]\nname=demo\n",
        "{answer}"
    );
}

#[test]
fn claude_s_read_of_a_file_with_a_private_key_is_redacted_by_the_binary() {
    let body = "MIIEowIBAAKCAQEAq7BFUx9mPq2Lz4Rk8Tj3Wv6Yn1Hc5Gd0Sa7Ue2Fi4Ko9Mb3Xr6Nt8Pl1Qw5Ej2";
    let content = format!(
        "# deploy key\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n{body}\n-----END RSA PRIVATE KEY-----\n"
    );
    let answer = post_tool_use(
        "Read",
        json!({"file_path": "/repo/deploy.pem"}),
        json!({"type": "text", "file": {"filePath": "/repo/deploy.pem", "content": content,
               "numLines": 5, "startLine": 1, "totalLines": 5}}),
    );
    assert_eq!(
        answer["hookSpecificOutput"]["updatedToolOutput"]["file"]["content"],
        "# deploy key\n[redacted:private-key]\n",
        "{answer}"
    );
}

#[test]
fn claude_s_clean_output_is_left_as_it_is_by_the_binary() {
    let answer = post_tool_use(
        "Bash",
        json!({"command": "git log -1 --format=%H"}),
        json!({"stdout": "1a52415130fffec249e3c8adde72f58e3c4d6de0\n", "stderr": "",
               "interrupted": false, "isImage": false, "noOutputExpected": false}),
    );
    assert!(
        answer
            .pointer("/hookSpecificOutput/updatedToolOutput")
            .is_none(),
        "{answer}"
    );
}
