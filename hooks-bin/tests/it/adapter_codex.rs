//! What only the Codex adapter (`hooks codex EVENT`) does, called in process with hooks built
//! by the `HookApi` builder, and through the built binary; what it does as the Claude Code
//! adapter does is in `adapter_claude_codex`.

use crate::common;

use serde_json::json;

use common::{Broken, Call, call, canonical_options, codex_input, failing_options, workdir};
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::transport::command;

fn run(event: &str, bytes: &[u8], opts: &AdapterOptions) -> Call {
    call(&Codex, event, bytes, opts)
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
    run("PreToolUse", &tool, &failing_options(true)).assert_fail_closed("codex");
    let prompt = codex_input("UserPromptSubmit", dir.path(), json!({"prompt": "hi"}));
    run("UserPromptSubmit", &prompt, &failing_options(true)).assert_fail_closed("codex");
}

/// Where the answer cannot be written, the exit code is all Codex reads: a failure on
/// `PreCompact` whose `continue: false` is lost, and a cancel that is lost, exit 2.
#[test]
fn an_answer_that_cannot_be_written_fails_by_exit_code_even_on_pre_compact() {
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
fn post_tool_use_failure_is_not_a_codex_event() {
    let dir = workdir();
    let (opts, _log) = canonical_options();
    let c = run(
        "PostToolUseFailure",
        &codex_input("PostToolUseFailure", dir.path(), json!({})),
        &opts,
    );
    c.assert_fail_closed("codex");
    assert!(c.stderr.contains("unknown event"), "{}", c.stderr);
}

/// A panicking `tool_result` handler fails closed with no answer, and the output it was
/// given is not passed on (the `tool_call` side is in `adapter_claude_codex`).
#[test]
fn panicking_tool_result_handler_exits_2_without_stdout() {
    let dir = workdir();
    let bytes = codex_input(
        "PostToolUse",
        dir.path(),
        json!({"tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": "API_KEY=sk"}),
    );
    let c = run("PostToolUse", &bytes, &failing_options(true));
    c.assert_fail_closed("codex");
    assert!(!c.stderr.contains("API_KEY=sk"));
}

// End to end: the built `hooks-examples` binary (`hooks` with the example bundle linked) as Codex runs it.

mod binary {
    use serde_json::json;

    use super::common::{codex_input, hooks, workdir};

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
}
