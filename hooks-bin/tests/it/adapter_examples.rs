//! The adapters serving the compiled-in example bundle through the default loader
//! (`AdapterOptions::hooks = None`), as `hooks claude` / `hooks codex` do.

use crate::common;

use serde_json::json;

use common::{Call, call, input, workdir};
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::agents::droid::Droid;
use hookwright_cli::agents::gemini::Gemini;
use hookwright_cli::agents::qwen::Qwen;
use hookwright_cli::call::AdapterOptions;

fn defaults(cwd: &std::path::Path) -> AdapterOptions {
    AdapterOptions::default().cwd(cwd)
}

fn claude_call(event: &str, cwd: &std::path::Path, extra: serde_json::Value) -> Call {
    call(&Claude, event, &input(event, cwd, extra), &defaults(cwd))
}

fn codex_call(event: &str, cwd: &std::path::Path, extra: serde_json::Value) -> Call {
    call(&Codex, event, &input(event, cwd, extra), &defaults(cwd))
}

#[test]
fn examples_block_rm_rf_and_allow_the_rest() {
    let dir = workdir();
    let c = claude_call(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf target"}}),
    );
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json()["hookSpecificOutput"]["permissionDecisionReason"],
        "rm -rf blocked (no UI)"
    );
    let c = claude_call(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}}),
    );
    assert_eq!((c.code, c.stdout.as_str(), c.stderr.as_str()), (0, "", ""));

    let c = codex_call(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(c.json()["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn codex_shell_commands_reach_the_guard_in_every_shape() {
    // Codex's `shell`/`local_shell` send an argument vector and `exec_command` sends `cmd`;
    // the guard reads the command line as the string `command` in each case.
    let dir = workdir();
    for (tool, tool_input) in [
        ("shell", json!({"command": ["bash", "-lc", "rm -rf /"]})),
        ("local_shell", json!({"command": ["rm", "-rf", "/"]})),
        ("exec_command", json!({"cmd": "rm -rf /"})),
        // Spelled otherwise: the guard reads words, not the substring `rm -rf`.
        ("shell", json!({"command": ["rm", "-r", "-f", "/"]})),
        (
            "local_shell",
            json!({"command": ["sh", "-c", "cd / && rm -fr x"]}),
        ),
        (
            "exec_command",
            json!({"cmd": "sudo rm --recursive --force /"}),
        ),
    ] {
        let c = codex_call(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": tool, "tool_input": tool_input}),
        );
        assert_eq!(c.code, 0, "{tool}: {c:?}");
        assert_eq!(
            c.json()["hookSpecificOutput"]["permissionDecision"],
            "deny",
            "{tool}: {c:?}"
        );
    }
}

#[test]
fn examples_redact_tool_output() {
    let dir = workdir();
    let c = claude_call(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Read",
            "tool_input": {"file_path": "/p/.env"},
            "tool_response": {"type": "text", "file": {"filePath": "/p/.env", "content": "API_KEY=sk-live-1 DEBUG=1", "numLines": 1, "startLine": 1, "totalLines": 1}},
        }),
    );
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json()["hookSpecificOutput"]["updatedToolOutput"]["file"]["content"],
        "API_KEY=[REDACTED] DEBUG=1"
    );
    let c = claude_call(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Read",
            "tool_input": {"file_path": "/p/a.txt"},
            "tool_response": {"type": "text", "file": {"filePath": "/p/a.txt", "content": "nothing secret"}},
        }),
    );
    assert_eq!(c.code, 0, "{c:?}");
    let keys: Vec<String> = c.json().as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["systemMessage"],
        "unchanged output: no decision, only the examples' status line and debug note for the user"
    );
}

#[test]
fn the_example_redactor_redacts_shell_output_in_both_agents() {
    let dir = workdir();
    let c = claude_call(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": "cat secret.env"},
            "tool_response": {"stdout": "API_KEY=sk-live-2", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
        }),
    );
    assert_eq!(
        c.json()["hookSpecificOutput"]["updatedToolOutput"]["stdout"],
        "API_KEY=[REDACTED]",
        "{c:?}"
    );
    let c = codex_call(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": "cat secret.env"},
            "tool_response": "API_KEY=sk-live-3\n",
            "turn_id": "t",
        }),
    );
    let answer = c.json();
    assert_eq!(
        (&answer["decision"], &answer["reason"]),
        (&json!("block"), &json!("API_KEY=[REDACTED]\n")),
        "{c:?}"
    );
}

#[test]
fn the_example_redactor_withholds_a_pdf_it_cannot_read() {
    let dir = workdir();
    let c = claude_call(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Read",
            "tool_input": {"file_path": "/p/d.pdf"},
            "tool_response": {"type": "pdf", "file": {"filePath": "/p/d.pdf", "base64": "JVBERi0xLjQK", "originalSize": 9}},
        }),
    );
    let out = &c.json()["hookSpecificOutput"]["updatedToolOutput"];
    assert_eq!(out["type"], "text", "{c:?}");
    assert_eq!(
        out["file"]["content"],
        hookwright_examples::redact::WITHHELD_DOCUMENT
    );
}

/// The example redactor answers Claude Code's `Read` of a file holding a secret itself, with
/// the redacted text as the deny reason, and blocks its `Edit` (Claude Code would show the raw
/// file to the model again after a compaction); a file with no secret, and the read tools of
/// the other agents, run.
#[test]
fn the_example_redactor_answers_claude_s_read_of_a_file_with_a_secret_and_blocks_its_edit() {
    let dir = workdir();
    let secret = dir.path().join("config.txt");
    std::fs::write(&secret, "name=demo\nAPI_KEY=sk-live-9\n").unwrap();
    let clean = dir.path().join("notes.txt");
    std::fs::write(&clean, "nothing secret\n").unwrap();
    let read = |file: &std::path::Path| {
        claude_call(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Read", "tool_input": {"file_path": file}}),
        )
    };
    let c = read(&secret);
    assert_eq!(c.code, 0, "{c:?}");
    let answer = &c.json()["hookSpecificOutput"];
    assert_eq!(answer["permissionDecision"], "deny", "{c:?}");
    let reason = answer["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("1\tname=demo\n2\tAPI_KEY=[REDACTED]\n3\t\n")
            && !reason.contains("sk-live"),
        "{reason}"
    );
    let c = read(&clean);
    assert_eq!((c.code, c.stdout.as_str(), c.stderr.as_str()), (0, "", ""));
    let c = claude_call(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Edit", "tool_input": {"file_path": secret, "old_string": "name=demo", "new_string": "name=x"}}),
    );
    let answer = &c.json()["hookSpecificOutput"];
    assert_eq!(answer["permissionDecision"], "deny", "{c:?}");
    assert!(
        answer["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| r.contains("holds a secret") && !r.contains("sk-live")),
        "{c:?}"
    );

    let others: [(&dyn hookwright_cli::agents::Protocol, &str, &str, &str); 3] = [
        (&Droid, "PreToolUse", "Read", "file_path"),
        (&Qwen, "PreToolUse", "read_file", "absolute_path"),
        (&Gemini, "BeforeTool", "read_file", "file_path"),
    ];
    for (protocol, event, tool, field) in others {
        let bytes = input(
            event,
            dir.path(),
            json!({"tool_name": tool, "tool_input": {field: secret}}),
        );
        let c = call(protocol, event, &bytes, &defaults(dir.path()));
        assert_eq!(c.code, 0, "{}: {c:?}", protocol.name());
        assert!(
            !c.stdout.contains("deny") && !c.stdout.contains("REDACTED"),
            "{}: {c:?}",
            protocol.name()
        );
    }
}

#[test]
fn a_session_action_no_hook_can_do_is_refused_with_a_message_never_a_silent_block() {
    let dir = workdir();
    for (agent, c) in [
        (
            "claude",
            claude_call(
                "UserPromptSubmit",
                dir.path(),
                json!({"prompt": "/handoff"}),
            ),
        ),
        (
            "codex",
            codex_call(
                "UserPromptSubmit",
                dir.path(),
                json!({"prompt": "/handoff"}),
            ),
        ),
    ] {
        assert_eq!(c.code, 0, "{c:?}");
        let json = c.json();
        assert_eq!(json["decision"], "block", "{json}");
        assert_eq!(
            json["reason"],
            format!(
                "/handoff: starting a new session is not available through the {agent} hook \
                 adapter (the agent owns its sessions); nothing was done."
            ),
            "{json}"
        );
        // Claude Code then shows the reason without echoing the prompt; Codex has no such key.
        let suppressed = json["hookSpecificOutput"]["suppressOriginalPrompt"].clone();
        let expected = if agent == "claude" {
            json!(true)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(suppressed, expected, "{json}");
    }
}

#[test]
fn examples_compaction_guard_blocks_while_the_marker_exists() {
    let dir = workdir();
    let c = claude_call("PreCompact", dir.path(), json!({"trigger": "auto"}));
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
    std::fs::create_dir_all(dir.path().join(".hooks")).unwrap();
    std::fs::write(dir.path().join(".hooks/hold-compaction"), "").unwrap();
    let c = claude_call("PreCompact", dir.path(), json!({"trigger": "auto"}));
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(c.json()["decision"], "block");
}

/// The test kit's agent view answers exactly as the binary does: the same bytes on stdout and
/// stderr and the same exit code, for a block, an allow, a redaction and a malformed input.
#[test]
fn the_test_kits_agent_call_answers_exactly_as_the_binary_does() {
    let dir = workdir();
    let home = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_str().unwrap();
    let cases = [
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf target"}}),
        ),
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cat .env"},
                   "tool_response": {"stdout": "API_KEY=sk-1\n", "stderr": "", "interrupted": false}}),
        ),
        ("PreToolUse", json!({"tool_name": 3})),
    ];
    let mut answers = Vec::new();
    for (event, extra) in cases {
        let bytes = input(event, dir.path(), extra);
        let given: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let kit = hookwright_cli::testing::agent_call_in(dir.path(), "claude", event, &given);
        let run = common::hooks(&["claude", event, "--cwd", cwd], &bytes, home.path());
        assert_eq!(
            (
                Some(i32::from(kit.exit_code)),
                kit.stdout.as_str(),
                kit.stderr.as_str()
            ),
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            "{event} {given}"
        );
        answers.push(kit);
    }
    let deny = answers[0].json().expect("a deny");
    assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!((answers[1].exit_code, answers[1].json()), (0, None));
    assert!(answers[2].stdout.contains("[REDACTED]"), "{:?}", answers[2]);
    assert_eq!(answers[3].exit_code, 2, "a malformed input blocks");
}
