//! What only the Claude Code adapter (`hooks claude EVENT`) does, called in process with hooks
//! built by the `HookApi` builder, and through the built binary; what it does as the Codex
//! adapter does is in `adapter_claude_codex`.

use crate::common;

use serde_json::json;

use common::{Call, call, canonical_options, claude_bash, failing_options, input, workdir};
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::call::AdapterOptions;

fn run(event: &str, bytes: &[u8], opts: &AdapterOptions) -> Call {
    call(&Claude, event, bytes, opts)
}

#[test]
fn tool_names_and_inputs_are_mapped() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    for (theirs, ours) in [
        ("Read", "read"),
        ("Glob", "find"),
        ("Grep", "grep"),
        ("WebFetch", "webfetch"),
    ] {
        let bytes = input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": theirs, "tool_input": {"file_path": "/etc/hosts"}}),
        );
        assert_eq!(run("PreToolUse", &bytes, &opts).code, 0);
        let seen = log.lock().unwrap();
        let last = seen.tool_calls.last().unwrap();
        assert_eq!(last.tool_name, ours);
        assert_eq!(
            last.input_str("path"),
            Some("/etc/hosts"),
            "our spelling added"
        );
        assert_eq!(
            last.input_str("file_path"),
            Some("/etc/hosts"),
            "theirs kept"
        );
    }
}

#[test]
fn project_dir_overrides_the_input_cwd_that_follows_cd() {
    // Claude Code's `cwd` follows the session's `cd`; its `CLAUDE_PROJECT_DIR` does not. The
    // hooks are loaded for the project, so a `cd sub` does not lose the project's hook files.
    let project = workdir();
    let sub = project.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let (mut opts, log) = canonical_options();
    opts.project_dir = Some(project.path().to_path_buf());
    assert_eq!(run("PreToolUse", &claude_bash(&sub, "ls"), &opts).code, 0);
    assert_eq!(log.lock().unwrap().cwds[0], project.path());
    // `--cwd` still wins over both.
    let other = workdir();
    let opts = opts.cwd(other.path());
    assert_eq!(run("PreToolUse", &claude_bash(&sub, "ls"), &opts).code, 0);
    assert_eq!(log.lock().unwrap().cwds[1], other.path());
}

#[test]
fn post_tool_use_redacts_bash_output_in_its_shape() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": "env"},
            "tool_response": {"stdout": "HOME=/h\nAPI_KEY=sk-123 other\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
            "tool_use_id": "toolu_2",
            "duration_ms": 12,
        }),
    );
    let c = run("PostToolUse", &bytes, &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {"stdout": "HOME=/h\nAPI_KEY=[REDACTED] other\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
        }})
    );
    let seen = log.lock().unwrap();
    let event = &seen.tool_results[0];
    assert_eq!(event.tool_name, "bash");
    assert_eq!(event.is_error, Some(false));
    assert_eq!(
        event.details.as_ref().unwrap()["interrupted"],
        false,
        "details = tool_response"
    );
}

#[test]
fn post_tool_use_redacts_read_output_in_its_shape() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({
            "tool_name": "Read",
            "tool_input": {"file_path": "/p/.env"},
            "tool_response": {"type": "text", "file": {"filePath": "/p/.env", "content": "API_KEY=abc", "numLines": 1, "startLine": 1, "totalLines": 1}},
        }),
    );
    let c = run("PostToolUse", &bytes, &opts);
    assert_eq!(c.code, 0);
    let out = &c.json()["hookSpecificOutput"]["updatedToolOutput"];
    assert_eq!(out["file"]["content"], "API_KEY=[REDACTED]");
    assert_eq!(out["file"]["numLines"], 1, "other keys kept");
}

#[test]
fn post_tool_use_failure_emits_tool_result_with_is_error() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let bytes = input(
        "PostToolUseFailure",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "t3",
               "error": "Exit code 1\nError: Cannot find module", "is_interrupt": false}),
    );
    let c = run("PostToolUseFailure", &bytes, &opts);
    assert_eq!((c.code, c.stdout.as_str(), c.stderr.as_str()), (0, "", ""));
    let seen = log.lock().unwrap();
    let event = &seen.tool_results[0];
    assert!(event.failed());
    assert_eq!(
        event.content[0].as_text(),
        Some("Exit code 1\nError: Cannot find module")
    );
}

#[test]
fn panicking_tool_result_handler_exits_2_and_withholds_output() {
    let dir = workdir();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": {"stdout": "API_KEY=sk", "stderr": "", "interrupted": false, "isImage": false}}),
    );
    let c = run("PostToolUse", &bytes, &failing_options(true));
    assert_eq!(c.code, 2);
    c.assert_one_line_stderr();
    assert!(c.stderr.contains("redactor exploded"), "{}", c.stderr);
    let out = &c.json()["hookSpecificOutput"]["updatedToolOutput"];
    let stdout = out["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("[tool output withheld:"), "{stdout}");
    assert!(!stdout.contains("sk"), "the secret is not passed on");
    assert_eq!(out["isImage"], false);
}

/// Claude Code holds a compaction on exit 2: a failing `PreCompact` hook fails closed there
/// (Codex's answer is in `adapter_codex`).
#[test]
fn failing_pre_compact_handler_exits_2() {
    let dir = workdir();
    let bytes = input("PreCompact", dir.path(), json!({"trigger": "auto"}));
    run("PreCompact", &bytes, &failing_options(true)).assert_fail_closed("claude");
}

// End to end: the built `hooks-examples` binary (`hooks` with the example bundle linked) as Claude Code runs it.

mod binary {
    use serde_json::json;

    use super::common::{hooks, hooks_env, input, workdir};

    /// Writes an executable file at `path` (and its directories).
    fn executable(path: &std::path::Path, body: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn hooks_see_the_agent_session_id() {
        // A hook file that records its stdin: its `session_id` is the agent's, so that what
        // a hook keeps per session stays together across calls.
        let (project, home) = (workdir(), workdir());
        let root = project.path().canonicalize().unwrap();
        let seen = root.join("seen.json");
        executable(
            &root.join(".claude/hooks/pre/bash.sh"),
            &format!("#!/bin/sh\ncat > '{}'\n", seen.display()),
        );
        let call = input(
            "PreToolUse",
            &root,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
        );
        let r = hooks(&["--trust-all", "claude", "PreToolUse"], &call, home.path());
        assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""), "{r:?}");
        let stdin: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
        assert_eq!(stdin["session_id"], "abc123");
    }

    #[test]
    fn project_hook_files_run_when_the_session_is_in_a_subdirectory() {
        // A trusted project guard that blocks every bash call, and a session that `cd`ed
        // into a subdirectory: Claude Code sends the subdirectory as `cwd` and the project
        // root as `CLAUDE_PROJECT_DIR`.
        let (project, home, config) = (workdir(), workdir(), workdir());
        let root = project.path().canonicalize().unwrap();
        executable(
            &root.join(".claude/hooks/pre/bash.sh"),
            "#!/bin/sh\necho 'project guard' >&2\nexit 2\n",
        );
        let store = [("HOOKS_CONFIG_DIR", config.path())];
        let root_arg = root.display().to_string();
        let trusted = hooks_env(&["trust", "--cwd", &root_arg], b"", home.path(), &store);
        assert_eq!(trusted.code, Some(0), "{trusted:?}");
        let sub = root.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let call = input(
            "PreToolUse",
            &sub,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
        );
        let env = [store[0], ("CLAUDE_PROJECT_DIR", root.as_path())];
        let r = hooks_env(&["claude", "PreToolUse"], &call, home.path(), &env);
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(
            r.json()["hookSpecificOutput"]["permissionDecision"],
            "deny",
            "{r:?}"
        );
        assert!(r.stdout.contains("project guard"), "{r:?}");
    }

    #[test]
    fn post_tool_use_redaction() {
        let (dir, home) = (workdir(), workdir());
        let bytes = input(
            "PostToolUse",
            dir.path(),
            json!({"tool_name": "Read", "tool_input": {"file_path": "/p/.env"},
                   "tool_response": {"type": "text", "file": {"filePath": "/p/.env", "content": "API_KEY=abc"}}}),
        );
        let r = hooks(&["claude", "PostToolUse"], &bytes, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(
            r.json()["hookSpecificOutput"]["updatedToolOutput"]["file"]["content"],
            "API_KEY=[REDACTED]"
        );
    }
}
