//! The Codex adapter (`hooks codex EVENT`), called in process with hooks built by the
//! `HookApi` builder.

use crate::common;

use serde_json::json;

use common::{
    Call, blocking_options, call, canonical_options, failing_options, input,
    session_recorder_options, talking_options, workdir,
};
use hooks_bin::agents::claude::Claude;
use hooks_bin::agents::codex::Codex;
use hooks_bin::call::AdapterOptions;
use hooks_bin::transport::command;

fn run(event: &str, bytes: &[u8], opts: &AdapterOptions) -> Call {
    call(&Codex, event, bytes, opts)
}

/// A Codex input: the common fields plus Codex's extensions.
fn codex_input(event: &str, cwd: &std::path::Path, extra: serde_json::Value) -> Vec<u8> {
    let mut value: serde_json::Value = serde_json::from_slice(&input(event, cwd, extra)).unwrap();
    value["turn_id"] = json!("turn-1");
    value["model"] = json!("gpt-5-codex");
    value["transcript_path"] = serde_json::Value::Null;
    serde_json::to_vec(&value).unwrap()
}

fn assert_fail_closed(c: &Call) {
    assert_eq!(c.code, 2, "{c:?}");
    assert_eq!(c.stdout, "");
    c.assert_one_line_stderr();
    assert!(c.stderr.starts_with("hooks codex "), "{}", c.stderr);
}

#[test]
fn codex_deny_reason_is_never_blank() {
    // Codex ignores a deny without a non-blank reason and runs the tool.
    let dir = workdir();
    let bytes = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}}),
    );
    for reason in [None, Some(""), Some("  "), Some("\n\t")] {
        let c = run("PreToolUse", &bytes, &blocking_options(reason));
        assert_eq!(c.code, 0, "{reason:?}: {c:?}");
        assert_eq!(
            c.json()["hookSpecificOutput"]["permissionDecisionReason"],
            "Tool execution was blocked by a hook",
            "{reason:?}"
        );
    }
}

#[test]
fn pre_tool_use_allow_prints_nothing_never_allow() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let bytes = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_use_id": "c1"}),
    );
    let c = run("PreToolUse", &bytes, &opts);
    assert_eq!((c.code, c.stdout.as_str(), c.stderr.as_str()), (0, "", ""));
    assert_eq!(log.lock().unwrap().tool_calls[0].tool_name, "bash");
}

#[test]
fn pre_tool_use_deny_prints_deny_json() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}}),
    );
    let c = run("PreToolUse", &bytes, &opts);
    assert_eq!(c.code, 0);
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf blocked (no UI)"}})
    );
}

#[test]
fn apply_patch_keeps_its_name() {
    let dir = workdir();
    let (opts, log) = canonical_options();
    let bytes = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch\n*** End Patch\n"}}),
    );
    assert_eq!(run("PreToolUse", &bytes, &opts).code, 0);
    let seen = log.lock().unwrap();
    assert_eq!(seen.tool_calls[0].tool_name, "apply_patch");
    assert!(
        seen.tool_calls[0]
            .input_str("command")
            .unwrap()
            .starts_with("*** Begin Patch")
    );
}

#[test]
fn bash_command_is_the_string_command_whatever_shape_the_agent_sent() {
    // Every shell tool of both agents, with the command line in every shape an agent sends:
    // the hooks see tool `bash` with the line as the string `command` (a vector kept as
    // `argv`), so the guard blocks each.
    let script = "rm -rf build";
    let argv = json!(["bash", "-lc", script]);
    let shapes = [
        ("command string", json!({"command": script}), None),
        ("command argv", json!({"command": argv}), Some(&argv)),
        ("cmd string", json!({"cmd": script, "workdir": "/p"}), None),
        (
            "cmd argv",
            json!({"cmd": argv, "workdir": "/p"}),
            Some(&argv),
        ),
    ];
    let tools = [
        ("codex", "exec_command"),
        ("codex", "shell"),
        ("codex", "local_shell"),
        ("claude", "Bash"),
    ];
    let dir = workdir();
    for (agent, tool) in tools {
        for (shape, tool_input, kept_argv) in &shapes {
            let (opts, log) = canonical_options();
            let extra = json!({"tool_name": tool, "tool_input": tool_input});
            let c = match agent {
                "codex" => run(
                    "PreToolUse",
                    &codex_input("PreToolUse", dir.path(), extra),
                    &opts,
                ),
                _ => call(
                    &Claude,
                    "PreToolUse",
                    &input("PreToolUse", dir.path(), extra),
                    &opts,
                ),
            };
            let case = format!("{agent} {tool}, {shape}");
            let seen = log.lock().unwrap();
            let event = &seen.tool_calls[0];
            assert_eq!(event.tool_name, "bash", "{case}");
            assert_eq!(event.input_str("command"), Some(script), "{case}");
            assert_eq!(event.input.get("argv"), *kept_argv, "{case}");
            assert_eq!(c.code, 0, "{case}: {c:?}");
            assert_eq!(
                c.json()["hookSpecificOutput"]["permissionDecision"],
                "deny",
                "{case}: {c:?}"
            );
        }
    }
}

#[test]
fn post_tool_use_redaction_replaces_the_result_with_the_reason() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = codex_input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "cat .env"}, "tool_response": "API_KEY=sk-1\nMODE=dev"}),
    );
    let c = run("PostToolUse", &bytes, &opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "API_KEY=[REDACTED]\nMODE=dev"})
    );
}

#[test]
fn post_tool_use_unchanged_prints_nothing() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = codex_input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "a\nb"}),
    );
    assert_eq!(run("PostToolUse", &bytes, &opts).stdout, "");
}

#[test]
fn user_prompt_submit_runs_a_registered_command() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = codex_input(
        "UserPromptSubmit",
        dir.path(),
        json!({"prompt": "/handoff"}),
    );
    let c = run("UserPromptSubmit", &bytes, &opts);
    assert_eq!(c.code, 0);
    assert_eq!(c.json(), json!({"decision": "block", "reason": "handoff:"}));
}

#[test]
fn what_hooks_say_to_the_user_is_a_system_message_and_never_context() {
    // Codex's TUI and app show `systemMessage` as a hook warning (`codex exec` shows none).
    let dir = workdir();
    let opts = talking_options();
    let pre = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"}),
    );
    let c = run("PreToolUse", &pre, &opts);
    assert_eq!(
        c.json(),
        json!({"systemMessage": "careful: bash\nstatus: tools: 1"})
    );
    let start = codex_input("SessionStart", dir.path(), json!({"source": "startup"}));
    assert_eq!(
        run("SessionStart", &start, &opts).json(),
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "welcome\n\ncontext only"},
               "systemMessage": "welcome"})
    );
    let end = codex_input("SessionEnd", dir.path(), json!({"reason": "other"}));
    assert_eq!(
        run("SessionEnd", &end, &opts).stdout,
        "",
        "SessionEnd has no output schema"
    );
}

#[test]
fn pre_compact_cancel_is_continue_false() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let bytes = codex_input(
        "PreCompact",
        dir.path(),
        json!({"trigger": "manual", "custom_instructions": "no compact"}),
    );
    let c = run("PreCompact", &bytes, &opts);
    assert_eq!(c.code, 0);
    assert_eq!(
        c.json(),
        json!({"continue": false, "stopReason": "Compaction cancelled by a hook"})
    );
}

/// Codex compacts after a failing `PreCompact` hook whatever its exit code (exit 2 included),
/// so every failure there answers the `continue: false` that holds the compaction, with the
/// failure line as its reason; the other gating events still fail by exit 2 with no answer.
#[test]
fn a_failure_on_pre_compact_holds_the_compaction_and_says_why() {
    let dir = workdir();
    let compact = codex_input("PreCompact", dir.path(), json!({"trigger": "auto"}));
    let (opts, _log) = canonical_options();
    for (bytes, opts, reason) in [
        (&compact[..], &failing_options(true), "compact exploded"),
        (&b"{\"trigger\":"[..], &opts, "invalid input"),
        (&b""[..], &opts, "invalid input"),
    ] {
        let c = run("PreCompact", bytes, opts);
        assert_eq!(c.code, 0, "{reason}: {c:?}");
        c.assert_one_line_stderr();
        let line = c.stderr.trim_end();
        assert!(
            line.starts_with("hooks codex PreCompact: ") && line.contains(reason),
            "{line}"
        );
        assert_eq!(c.json(), json!({"continue": false, "stopReason": line}));
    }
    let tool = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert_fail_closed(&run("PreToolUse", &tool, &failing_options(true)));
    let prompt = codex_input("UserPromptSubmit", dir.path(), json!({"prompt": "hi"}));
    assert_fail_closed(&run("UserPromptSubmit", &prompt, &failing_options(true)));
}

/// Where the answer cannot be written, the exit code is all Codex reads: a failure on
/// `PreCompact` whose `continue: false` is lost, and a cancel that is lost, exit 2.
#[test]
fn an_answer_that_cannot_be_written_fails_by_exit_code_even_on_pre_compact() {
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
    let bytes = codex_input(
        "PreCompact",
        dir.path(),
        json!({"trigger": "manual", "custom_instructions": "no compact"}),
    );
    let (canonical, _log) = canonical_options();
    for (opts, reason) in [
        (failing_options(true), "compact exploded"),
        (canonical, "cannot write the answer"),
    ] {
        let mut err = Vec::new();
        let code = command::run(&Codex, "PreCompact", &bytes, &mut Broken, &mut err, &opts);
        let err = String::from_utf8(err).unwrap();
        assert_eq!(code, 2, "{reason}: {err}");
        assert!(err.contains(reason), "{err}");
    }
}

#[test]
fn session_start_context() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "SessionStart",
        &codex_input("SessionStart", dir.path(), json!({"source": "startup"})),
        &opts,
    );
    assert_eq!(
        c.json()["hookSpecificOutput"]["additionalContext"],
        "session notes: be careful"
    );
}

#[test]
fn session_start_source_picks_the_upstream_event() {
    let dir = workdir();
    for (source, event, context) in [
        (json!("startup"), Some("session_start"), Some("started")),
        (
            json!("resume"),
            Some("session_switch:resume:none"),
            Some("switched"),
        ),
        (
            json!("clear"),
            Some("session_switch:new:none"),
            Some("switched"),
        ),
        (
            json!("fork"),
            Some("session_switch:fork:none"),
            Some("switched"),
        ),
        (json!("compact"), None, None),
        (
            json!("a-future-source"),
            Some("session_start"),
            Some("started"),
        ),
        (json!(7), Some("session_start"), Some("started")),
    ] {
        let (opts, log) = session_recorder_options();
        let bytes = codex_input("SessionStart", dir.path(), json!({"source": source}));
        let c = run("SessionStart", &bytes, &opts);
        assert_eq!(c.code, 0, "{source}: {c:?}");
        let events = log.lock().unwrap().events.clone();
        assert_eq!(events, event.into_iter().collect::<Vec<_>>(), "{source}");
        let answer = (!c.stdout.is_empty()).then(|| c.json());
        assert_eq!(
            answer
                .as_ref()
                .and_then(|a| a["hookSpecificOutput"]["additionalContext"].as_str()),
            context,
            "{source}: {c:?}"
        );
    }
}

#[test]
fn malformed_stdin_exits_2_with_non_empty_stderr() {
    let (opts, _log) = canonical_options();
    for bytes in [&b"{\"tool_name\":"[..], b"", b"\xfe\xff", b"null"] {
        let c = run("PreToolUse", bytes, &opts);
        assert_fail_closed(&c);
    }
}

#[test]
fn post_tool_use_failure_is_not_a_codex_event() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "PostToolUseFailure",
        &codex_input("PostToolUseFailure", dir.path(), json!({})),
        &opts,
    );
    assert_fail_closed(&c);
    assert!(c.stderr.contains("unknown event"), "{}", c.stderr);
}

#[test]
fn unknown_event_exits_2() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "SubagentStart",
        &codex_input("SubagentStart", dir.path(), json!({})),
        &opts,
    );
    assert_fail_closed(&c);
}

#[test]
fn panicking_handlers_exit_2_without_stdout() {
    let dir = workdir();
    let bytes = codex_input(
        "PreToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let c = run("PreToolUse", &bytes, &failing_options(true));
    assert_fail_closed(&c);
    assert!(
        c.stderr.contains("panicked: guard exploded"),
        "{}",
        c.stderr
    );
    let bytes = codex_input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": "API_KEY=sk"}),
    );
    let c = run("PostToolUse", &bytes, &failing_options(true));
    assert_fail_closed(&c);
    assert!(!c.stderr.contains("API_KEY=sk"));
}

#[test]
fn stop_failure_exits_1() {
    let dir = workdir();
    let c = run(
        "Stop",
        &codex_input(
            "Stop",
            dir.path(),
            json!({"stop_hook_active": false, "last_assistant_message": null}),
        ),
        &failing_options(true),
    );
    assert_eq!(c.code, 1);
    c.assert_one_line_stderr();
}

// End to end: the built `hooks` binary (with the example bundle linked) as Codex runs it.

mod binary {
    use serde_json::json;

    use super::codex_input;
    use super::common::{hooks, workdir};

    #[test]
    fn pre_tool_use_deny_and_allow() {
        let (dir, home) = (workdir(), workdir());
        let deny = codex_input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf ."}, "tool_use_id": "c1"}),
        );
        let r = hooks(&["codex", "PreToolUse"], &deny, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
        let allow = codex_input(
            "PreToolUse",
            dir.path(),
            json!({"tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch"}}),
        );
        let r = hooks(&["codex", "PreToolUse"], &allow, home.path());
        assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""), "never `allow`");
    }

    #[test]
    fn post_tool_use_redaction() {
        let (dir, home) = (workdir(), workdir());
        let bytes = codex_input(
            "PostToolUse",
            dir.path(),
            json!({"tool_name": "Read", "tool_input": {"path": "/p/.env"}, "tool_response": "API_KEY=abc"}),
        );
        let r = hooks(&["codex", "PostToolUse"], &bytes, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        let answer = r.json();
        assert_eq!(
            (&answer["decision"], &answer["reason"]),
            (&json!("block"), &json!("API_KEY=[REDACTED]"))
        );
        // The examples' status line and debug note, for the user only.
        assert!(
            answer["systemMessage"]
                .as_str()
                .is_some_and(|m| m.contains("status: tools run: 1") && m.contains("[debug] read")),
            "{answer}"
        );
    }

    #[test]
    fn user_prompt_submit_command() {
        let (dir, home) = (workdir(), workdir());
        let bytes = codex_input(
            "UserPromptSubmit",
            dir.path(),
            json!({"prompt": "/handoff x"}),
        );
        let r = hooks(&["codex", "UserPromptSubmit"], &bytes, home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(r.json()["decision"], "block");
    }

    #[test]
    fn malformed_stdin_and_unknown_event_exit_2_with_stderr() {
        let home = workdir();
        let r = hooks(&["codex", "PreToolUse"], b"{\"tool_name\"", home.path());
        assert_eq!(r.code, Some(2), "{r:?}");
        r.assert_one_line_stderr();
        let r = hooks(&["codex", "PostToolUseFailure"], b"{}", home.path());
        assert_eq!(r.code, Some(2), "{r:?}");
        r.assert_one_line_stderr();
    }
}
