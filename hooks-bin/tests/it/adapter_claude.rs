//! The Claude Code adapter (`hooks claude EVENT`), called in process with hooks built by the
//! `HookApi` builder.

use crate::common;

use serde_json::json;

use common::{
    Call, blocking_options, call, canonical_options, failing_options, input,
    session_recorder_options, talking_options, workdir,
};
use hooks_bin::agents::Protocol;
use hooks_bin::agents::claude::Claude;
use hooks_bin::agents::codex::Codex;
use hooks_bin::call::{AdapterOptions, answer};
use hooks_bin::json::MAX_INPUT_BYTES;
use hooks_bin::transport::command;

fn run(event: &str, bytes: &[u8], opts: &AdapterOptions) -> Call {
    call(&Claude, event, bytes, opts)
}

fn bash(cwd: &std::path::Path, command: &str) -> Vec<u8> {
    input(
        "PreToolUse",
        cwd,
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "x", "timeout": 120000, "run_in_background": false},
            "tool_use_id": "toolu_01ABC123",
        }),
    )
}

fn assert_fail_closed(c: &Call) {
    assert_eq!(c.code, 2, "{c:?}");
    assert_eq!(c.stdout, "", "no answer on a failure");
    c.assert_one_line_stderr();
    assert!(c.stderr.starts_with("hooks claude "), "{}", c.stderr);
}

/// The deny reason of a block, as `PreToolUse` prints it.
fn deny_reason(c: &Call) -> serde_json::Value {
    assert_eq!(c.code, 0, "{c:?}");
    c.json()["hookSpecificOutput"]["permissionDecisionReason"].clone()
}

#[test]
fn deny_reason_is_the_default_only_when_missing_or_empty_as_upstream() {
    let dir = workdir();
    let call = |reason| {
        run(
            "PreToolUse",
            &bash(dir.path(), "ls"),
            &blocking_options(reason),
        )
    };
    let default = "Tool execution was blocked by a hook";
    assert_eq!(deny_reason(&call(None)), default);
    assert_eq!(deny_reason(&call(Some(""))), default);
    // `result.reason || DEFAULT`: a reason of only whitespace is a reason.
    assert_eq!(deny_reason(&call(Some("  "))), "  ");
}

#[test]
fn the_command_transport_writes_exactly_the_outcome_of_answer() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let cases: [(&str, Vec<u8>); 4] = [
        ("PreToolUse", bash(dir.path(), "rm -rf /")),
        ("PreToolUse", bash(dir.path(), "ls")),
        ("PreToolUse", b"{".to_vec()),
        ("NoSuchEvent", bash(dir.path(), "ls")),
    ];
    for protocol in [&Claude as &dyn Protocol, &Codex] {
        for (event, bytes) in &cases {
            let outcome = answer(protocol, event, bytes, &opts);
            let c = call(protocol, event, bytes, &opts);
            let case = format!("{} {event}", protocol.name());
            assert_eq!(c.code, outcome.code, "{case}");
            assert_eq!(c.stdout, outcome.stdout, "{case}");
            assert_eq!(c.stderr, outcome.stderr, "{case}");
        }
    }
}

#[test]
fn pre_tool_use_allow_prints_nothing() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let c = run("PreToolUse", &bash(dir.path(), "ls -la"), &opts);
    assert_eq!((c.code, c.stdout.as_str(), c.stderr.as_str()), (0, "", ""));
    let seen = log.lock().unwrap();
    assert_eq!(seen.tool_calls.len(), 1, "the handler ran");
    assert_eq!(seen.tool_calls[0].tool_name, "bash");
    assert_eq!(seen.tool_calls[0].tool_call_id, "toolu_01ABC123");
    assert_eq!(seen.cwds[0], dir.path(), "cwd comes from the input");
}

#[test]
fn pre_tool_use_deny_prints_deny_json() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run("PreToolUse", &bash(dir.path(), "rm -rf /"), &opts);
    assert_eq!(c.code, 0);
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "rm -rf blocked (no UI)",
        }})
    );
    assert!(c.stdout.ends_with('\n') && c.stdout.matches('\n').count() == 1);
}

#[test]
fn pre_tool_use_with_unknown_fields_still_decides() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "PreToolUse",
        dir.path(),
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build", "brand_new_flag": {"x": [1, 2, {"y": null}]}},
            "permission_mode": "someFutureMode",
            "effort": {"level": "xhigh"},
            "prompt_id": "550e8400-e29b-41d4-a716-446655440000",
            "agent_id": "a1", "agent_type": "Explore",
            "scratchpad_dir": "/tmp/s",
            "session_id": 12345,
        }),
    );
    let c = run("PreToolUse", &bytes, &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(c.json()["hookSpecificOutput"]["permissionDecision"], "deny");
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
fn cwd_option_overrides_the_input() {
    let dir = workdir();
    let other = workdir();
    let (opts, log) = canonical_options();
    let opts = opts.cwd(other.path());
    assert_eq!(run("PreToolUse", &bash(dir.path(), "ls"), &opts).code, 0);
    assert_eq!(log.lock().unwrap().cwds[0], other.path());
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
    assert_eq!(run("PreToolUse", &bash(&sub, "ls"), &opts).code, 0);
    assert_eq!(log.lock().unwrap().cwds[0], project.path());
    // `--cwd` still wins over both.
    let other = workdir();
    let opts = opts.cwd(other.path());
    assert_eq!(run("PreToolUse", &bash(&sub, "ls"), &opts).code, 0);
    assert_eq!(log.lock().unwrap().cwds[1], other.path());
}

#[test]
fn missing_working_directory_fails_closed() {
    // Hooks loaded for a directory that does not exist would lack its hook files: a gating
    // event fails closed (exit 2), an observational one reports it (exit 1).
    let gone = workdir().path().join("gone");
    let (opts, log) = canonical_options();
    let c = run("PreToolUse", &bash(&gone, "ls"), &opts);
    assert_fail_closed(&c);
    assert!(c.stderr.contains("is not a directory"), "{}", c.stderr);
    assert!(c.stderr.contains("gone"), "{}", c.stderr);
    let c = run(
        "SessionEnd",
        &input("SessionEnd", &gone, json!({"reason": "other"})),
        &opts,
    );
    assert_eq!(c.code, 1, "{c:?}");
    assert!(log.lock().unwrap().cwds.is_empty(), "no hooks were loaded");
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
fn post_tool_use_unchanged_output_prints_nothing() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a b", "stderr": ""}}),
    );
    let c = run("PostToolUse", &bytes, &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
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
fn user_prompt_submit_runs_a_registered_command() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "UserPromptSubmit",
        dir.path(),
        json!({"prompt": "/handoff finish the parser"}),
    );
    let c = run("UserPromptSubmit", &bytes, &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "handoff: finish the parser",
               "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": true}})
    );
}

#[test]
fn what_hooks_say_to_the_user_is_a_system_message_and_never_context() {
    let dir = workdir();
    let opts = talking_options();
    let c = run("PreToolUse", &bash(dir.path(), "ls"), &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"systemMessage": "careful: bash\nstatus: tools: 1"}),
        "a notification and the status line, and no decision"
    );
    let post = input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
               "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": false, "isImage": false}}),
    );
    let c = run("PostToolUse", &post, &opts);
    assert_eq!(
        c.json(),
        json!({"systemMessage": "[fancy] shown note"}),
        "a displayed message with its renderer; a hidden one is not shown"
    );
    let start = input("SessionStart", dir.path(), json!({"source": "startup"}));
    let c = run("SessionStart", &start, &opts);
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "welcome\n\ncontext only"},
               "systemMessage": "welcome"}),
        "every message is context; the displayed one is also shown"
    );
    let end = input("SessionEnd", dir.path(), json!({"reason": "other"}));
    let c = run("SessionEnd", &end, &opts);
    assert_eq!(
        (c.code, c.stdout.as_str()),
        (0, ""),
        "Claude shows nothing on SessionEnd"
    );
}

#[test]
fn a_cancelled_compaction_says_what_the_hooks_notified() {
    let dir = workdir();
    let opts = AdapterOptions::with_hooks(|cwd| {
        let mut api = hooks_core::HookApi::new("test-hold", cwd);
        api.on(
            |_e: &hooks_core::events::SessionBeforeCompactEvent, ctx: &hooks_core::HookContext| {
                ctx.ui().notify(
                    "held: remove the marker",
                    hooks_core::ui::NotifyKind::Warning,
                );
                Some(hooks_core::events::SessionBeforeCompactResult {
                    cancel: Some(true),
                    compaction: None,
                })
            },
        );
        vec![api.finish()]
    });
    let c = run(
        "PreCompact",
        &input("PreCompact", dir.path(), json!({"trigger": "manual"})),
        &opts,
    );
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "Compaction cancelled by a hook: held: remove the marker"})
    );
    let c = call(
        &Codex,
        "PreCompact",
        &input("PreCompact", dir.path(), json!({"trigger": "manual"})),
        &opts,
    );
    assert_eq!(
        c.json()["stopReason"],
        "Compaction cancelled by a hook: held: remove the marker"
    );
}

#[test]
fn user_prompt_submit_unknown_command_is_a_prompt() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "UserPromptSubmit",
        dir.path(),
        json!({"prompt": "/compact now"}),
    );
    let c = run("UserPromptSubmit", &bytes, &opts);
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
}

#[test]
fn user_prompt_submit_injects_before_agent_start_message() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "UserPromptSubmit",
        dir.path(),
        json!({"prompt": "context please, then fix it"}),
    );
    let c = run("UserPromptSubmit", &bytes, &opts);
    assert_eq!(c.code, 0);
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "remember the style guide"}})
    );
}

#[test]
fn session_start_source_picks_the_upstream_event() {
    let dir = workdir();
    for (source, event) in [
        (Some("startup"), Some("session_start")),
        (Some("resume"), Some("session_switch:resume:none")),
        (Some("clear"), Some("session_switch:new:none")),
        (Some("compact"), None),
        (None, Some("session_start")),
    ] {
        let (opts, log) = session_recorder_options();
        let extra = source.map_or(json!({}), |s| json!({"source": s}));
        let c = run(
            "SessionStart",
            &input("SessionStart", dir.path(), extra),
            &opts,
        );
        assert_eq!(c.code, 0, "{source:?}: {c:?}");
        let events = log.lock().unwrap().events.clone();
        assert_eq!(events, event.into_iter().collect::<Vec<_>>(), "{source:?}");
        assert_eq!(c.stdout.is_empty(), event.is_none(), "{source:?}: {c:?}");
    }
}

#[test]
fn session_start_sends_messages_as_context_and_session_end_and_stop_run() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let c = run(
        "SessionStart",
        &input(
            "SessionStart",
            dir.path(),
            json!({"source": "startup", "model": "claude-x"}),
        ),
        &opts,
    );
    assert_eq!(c.code, 0);
    assert_eq!(
        c.json()["hookSpecificOutput"],
        json!({"hookEventName": "SessionStart", "additionalContext": "session notes: be careful"})
    );
    let c = run(
        "SessionEnd",
        &input("SessionEnd", dir.path(), json!({"reason": "other"})),
        &opts,
    );
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
    let c = run(
        "Stop",
        &input(
            "Stop",
            dir.path(),
            json!({"stop_hook_active": false, "last_assistant_message": "done"}),
        ),
        &opts,
    );
    assert_eq!((c.code, c.stdout.as_str()), (0, ""));
    assert_eq!(
        log.lock().unwrap().events,
        ["session_start", "session_shutdown", "agent_end:1"]
    );
}

#[test]
fn pre_compact_cancel_blocks() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "PreCompact",
        dir.path(),
        json!({"trigger": "manual", "custom_instructions": "no compact"}),
    );
    let c = run("PreCompact", &bytes, &opts);
    assert_eq!(c.code, 0);
    assert_eq!(c.json()["decision"], "block");
    let bytes = input(
        "PreCompact",
        dir.path(),
        json!({"trigger": "auto", "custom_instructions": ""}),
    );
    assert_eq!(run("PreCompact", &bytes, &opts).stdout, "");
}

#[test]
fn malformed_stdin_exits_2_with_one_line() {
    let (opts, _log) = canonical_options();
    let c = run(
        "PreToolUse",
        br#"{"tool_name": "Bash", "tool_input": {"command": "rm -rf /""#,
        &opts,
    );
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("stdin:1:"),
        "names input and position: {}",
        c.stderr
    );
    let c = run(
        "PreToolUse",
        b"{\"tool_name\": \"Bash\",\n  \"tool_input\": {,}}",
        &opts,
    );
    assert_fail_closed(&c);
    assert!(c.stderr.contains("stdin:2:"), "{}", c.stderr);
}

#[test]
fn empty_stdin_exits_2() {
    let (opts, _log) = canonical_options();
    for bytes in [&b""[..], b"   \n"] {
        let c = run("PreToolUse", bytes, &opts);
        assert_fail_closed(&c);
        assert!(c.stderr.contains("empty"), "{}", c.stderr);
    }
}

#[test]
fn non_utf8_stdin_exits_2() {
    let (opts, _log) = canonical_options();
    let c = run("PreToolUse", b"{\"tool_name\": \"B\xffash\"}", &opts);
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("UTF-8") && c.stderr.contains("stdin:1:17"),
        "{}",
        c.stderr
    );
}

#[test]
fn oversized_stdin_exits_2() {
    let (opts, _log) = canonical_options();
    let mut bytes = br#"{"tool_name":"Bash","tool_input":{"command":""#.to_vec();
    bytes.resize(MAX_INPUT_BYTES + 1, b'a');
    let c = run("PreToolUse", &bytes, &opts);
    assert_fail_closed(&c);
    assert!(c.stderr.contains("too large"), "{}", c.stderr);
}

#[test]
fn deeply_nested_stdin_exits_2() {
    let (opts, _log) = canonical_options();
    let depth = 100_000;
    let mut text = String::from(r#"{"tool_name":"Bash","tool_input":{"x":"#);
    text.push_str(&"[".repeat(depth));
    text.push_str(&"]".repeat(depth));
    text.push_str("}}");
    let c = run("PreToolUse", text.as_bytes(), &opts);
    assert_fail_closed(&c);
    assert!(c.stderr.contains("nested deeper"), "{}", c.stderr);
}

#[test]
fn wrong_types_and_missing_fields_exit_2() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "PreToolUse",
        &input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": 7, "tool_input": {}}),
        ),
        &opts,
    );
    assert_fail_closed(&c);
    assert!(c.stderr.contains("tool_name"), "{}", c.stderr);
    let c = run(
        "PreToolUse",
        &input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": "rm -rf /"}),
        ),
        &opts,
    );
    assert_fail_closed(&c);
    assert!(c.stderr.contains("tool_input"), "{}", c.stderr);
    let c = run(
        "PreToolUse",
        &input("PreToolUse", dir.path(), json!({"tool_name": "Bash"})),
        &opts,
    );
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("missing field `tool_input`"),
        "{}",
        c.stderr
    );
    let c = run("PreToolUse", b"[1, 2]", &opts);
    assert_fail_closed(&c);
}

#[test]
fn event_name_mismatch_exits_2() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {}}),
    );
    let c = run("PreToolUse", &bytes, &opts);
    assert_fail_closed(&c);
    assert!(c.stderr.contains("hook_event_name"), "{}", c.stderr);
}

#[test]
fn unknown_event_exits_2() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "PermissionRequest",
        &input("PermissionRequest", dir.path(), json!({})),
        &opts,
    );
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("unknown event `PermissionRequest`"),
        "{}",
        c.stderr
    );
    assert!(
        c.stderr.contains("PreToolUse"),
        "lists the known events: {}",
        c.stderr
    );
    let c = run("pre\ntool\x1b[31m", b"{}", &opts);
    assert_fail_closed(&c);
    assert!(
        !c.stderr.contains('\x1b'),
        "no control sequences: {:?}",
        c.stderr
    );
}

#[test]
fn panicking_tool_call_handler_exits_2() {
    let dir = workdir();
    let c = run(
        "PreToolUse",
        &bash(dir.path(), "ls"),
        &failing_options(true),
    );
    assert_fail_closed(&c);
    assert!(
        c.stderr
            .contains("blocked: hook test-failing panicked: guard exploded"),
        "{}",
        c.stderr
    );
}

#[test]
fn failing_tool_call_handler_exits_2() {
    let dir = workdir();
    let c = run(
        "PreToolUse",
        &bash(dir.path(), "ls"),
        &failing_options(false),
    );
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("policy service unreachable"),
        "{}",
        c.stderr
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

#[test]
fn failing_command_and_prompt_handlers_exit_2() {
    let dir = workdir();
    for panic in [true, false] {
        let bytes = input(
            "UserPromptSubmit",
            dir.path(),
            json!({"prompt": "/boom now"}),
        );
        let c = run("UserPromptSubmit", &bytes, &failing_options(panic));
        assert_fail_closed(&c);
        assert!(c.stderr.contains("command /boom"), "{}", c.stderr);
    }
    let bytes = input("UserPromptSubmit", dir.path(), json!({"prompt": "hello"}));
    let c = run("UserPromptSubmit", &bytes, &failing_options(true));
    assert_fail_closed(&c);
    assert!(c.stderr.contains("prompt exploded"), "{}", c.stderr);
    let bytes = input("PreCompact", dir.path(), json!({"trigger": "auto"}));
    assert_fail_closed(&run("PreCompact", &bytes, &failing_options(true)));
}

#[test]
fn failures_on_observational_events_exit_1() {
    let dir = workdir();
    let c = run(
        "Stop",
        &input("Stop", dir.path(), json!({})),
        &failing_options(true),
    );
    assert_eq!(c.code, 1, "exit 2 on Stop would make Claude continue");
    assert_eq!(c.stdout, "");
    c.assert_one_line_stderr();
    assert!(c.stderr.contains("stop exploded"), "{}", c.stderr);
    let (opts, _log) = canonical_options();
    let c = run("SessionStart", b"not json", &opts);
    assert_eq!(c.code, 1);
    c.assert_one_line_stderr();
}

#[test]
fn hook_load_failure_exits_2_on_gating_events() {
    let dir = workdir();
    let opts = AdapterOptions {
        hooks: Some(std::sync::Arc::new(|_cwd: &std::path::Path| {
            Err("hook.sh is not trusted; run `hooks trust hook.sh`".to_owned())
        })),
        ..AdapterOptions::default()
    };
    let c = run("PreToolUse", &bash(dir.path(), "ls"), &opts);
    assert_fail_closed(&c);
    assert!(
        c.stderr
            .contains("cannot load hooks: hook.sh is not trusted"),
        "{}",
        c.stderr
    );
}

#[test]
fn unwritable_stdout_fails_closed() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("pipe closed"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let mut err = Vec::new();
    let code = command::run(
        &Claude,
        "PreToolUse",
        &bash(dir.path(), "rm -rf /"),
        &mut Broken,
        &mut err,
        &opts,
    );
    assert_eq!(code, 2);
    assert!(
        String::from_utf8(err)
            .unwrap()
            .contains("cannot write the answer")
    );
}

// End to end: the built `hooks` binary (with the example bundle linked) as Claude Code runs it.

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
    fn pre_tool_use_deny_and_allow() {
        let (dir, home) = (workdir(), workdir());
        let deny = input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"}),
        );
        let r = hooks(&["claude", "PreToolUse"], &deny, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(
            r.json(),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf blocked (no UI)"}})
        );
        let allow = input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t2"}),
        );
        let r = hooks(&["claude", "PreToolUse"], &allow, home.path());
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (Some(0), "", "")
        );
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

    #[test]
    fn user_prompt_submit_command() {
        let (dir, home) = (workdir(), workdir());
        let bytes = input(
            "UserPromptSubmit",
            dir.path(),
            json!({"prompt": "/handoff"}),
        );
        let r = hooks(&["claude", "UserPromptSubmit"], &bytes, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(r.json()["decision"], "block");
    }

    #[test]
    fn malformed_empty_and_oversized_stdin_exit_2_with_one_line() {
        let home = workdir();
        let mut big = br#"{"tool_name":"Bash","tool_input":{"command":""#.to_vec();
        big.resize(17 * 1024 * 1024, b'a');
        for bytes in [&b"{\"tool_name\": "[..], b"", b"\xff\xfe", &big[..]] {
            let r = hooks(&["claude", "PreToolUse"], bytes, home.path());
            assert_eq!(r.code, Some(2), "{r:?}");
            assert_eq!(r.stdout, "");
            r.assert_one_line_stderr();
            assert!(
                r.stderr.starts_with("hooks claude PreToolUse: "),
                "{}",
                r.stderr
            );
        }
    }

    #[test]
    fn unknown_event_exits_2() {
        let home = workdir();
        let r = hooks(&["claude", "Notification"], b"{}", home.path());
        assert_eq!(r.code, Some(2), "{r:?}");
        r.assert_one_line_stderr();
        assert!(
            r.stderr.contains("unknown event `Notification`"),
            "{}",
            r.stderr
        );
    }
}
