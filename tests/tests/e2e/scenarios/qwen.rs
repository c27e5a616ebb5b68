//! Qwen Code 0.24.4: its hook protocol, measured with a recorder hook (no hooks adapter).
//!
//! Hooks are Claude-style groups in `settings.json` (`~/.qwen/` or the project's `.qwen/`):
//! `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command" | "http" | ..., "command",
//! "name"?, "timeout" (s)}]}]}}`; a command runs as `bash -c` with the input JSON on stdin.
//!
//! Under load Qwen Code sometimes sends the model `Output: (empty)` for a shell command that
//! printed and exited at once (seen once in about fifteen runs), so the commands whose output
//! a scenario checks end with a short sleep.

use serde_json::{Value, json};

use super::protocol::{self, Case, Gate, assert_success};
use crate::agent::qwen::Qwen;
use crate::agent::{AgentRun, HookFailures, assert_no_hook_failure};
use crate::fixtures::{self, Answer, REDACTED, SECRET, secret_line};
use crate::model::{Script, Step};

/// The events of Qwen Code 0.24.4's hook documentation that can fire in a `-p` run.
const EVENTS: [&str; 20] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "PermissionDenied",
    "InstructionsLoaded",
    "TodoCreated",
    "TodoCompleted",
];

/// What Qwen Code sends the model for a shell call that ran `command` (with no output).
fn ran(command: &str) -> String {
    format!(
        "Command: {command}\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"
    )
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_headless_run_fires_these_events_with_these_inputs() {
    let (case, run) =
        protocol::a_listing_run::<Qwen>("qwen-events", "ls; sleep 0.3", &EVENTS, "qwen");
    // No SessionEnd in a `-p` run; UserPromptSubmit again (prompt "") when the tool result is
    // sent.
    assert_eq!(
        case.rec.events(),
        [
            "InstructionsLoaded",
            "SessionStart",
            "Notification",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolBatch",
            "UserPromptSubmit",
            "Stop",
        ],
        "{}",
        run.evidence()
    );
    for call in case.rec.calls() {
        for field in [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "timestamp",
            "permission_mode",
        ] {
            assert!(
                call.input[field].is_string(),
                "{}: {field}: {}",
                call.event(),
                call.input
            );
        }
        assert_eq!(call.input["hook_event_name"], call.event());
    }
    let prompts: Vec<Value> = case
        .rec
        .inputs("UserPromptSubmit")
        .iter()
        .map(|i| json!([i["prompt"], i["submitted_prompt"]]))
        .collect();
    assert_eq!(
        prompts,
        [
            json!(["list the files", "list the files"]),
            json!(["", null])
        ]
    );
    let pre = &case.rec.inputs("PreToolUse")[0];
    assert_eq!(pre["tool_name"], "run_shell_command");
    assert_eq!(pre["tool_input"], json!({"command": "ls; sleep 0.3"}));
    assert_eq!(pre["permission_mode"], "yolo");
    let post = &case.rec.inputs("PostToolUse")[0];
    assert!(
        post["tool_response"]["llmContent"]
            .as_str()
            .is_some_and(|c| c.contains("listed-file.txt")),
        "{post}"
    );
}

/// Folder trust is off by default, so a project's `.qwen/settings.json` hooks run with no
/// question; with `security.folderTrust.enabled` an untrusted folder's hooks are skipped
/// silently (and the approval mode falls back to default, which drops the shell tool).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn project_hooks_run_unless_folder_trust_is_enabled_and_the_folder_untrusted() {
    let case = Case::<Qwen>::new("qwen-project", protocol::two_listings());
    case.record_in_the_project(&["PreToolUse"]);
    let run = case.run("list");
    assert_eq!(case.rec.events(), ["PreToolUse"], "{}", run.evidence());
    fixtures::set_setting(
        &Qwen::user_settings(&case.sb),
        "/security/folderTrust/enabled",
        json!(true),
    );
    let untrusted = case.run("list");
    assert_eq!(
        case.rec.events(),
        ["PreToolUse"],
        "{}",
        untrusted.evidence()
    );
    assert!(
        untrusted.finished.stderr.contains(
            "Approval mode overridden to \"default\" because the current folder is not trusted."
        ),
        "{}",
        untrusted.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason_verbatim() {
    let deny = Answer::json(&json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "e2e: no rm -rf",
    }}));
    let (case, run) =
        protocol::rm_rf::<Qwen>("qwen-deny", &["victim"], Gate::Answer(deny), &[true]);
    assert_eq!(case.server.tool_texts(), ["e2e: no rm -rf"]);
    assert_success(&run);
    assert_no_hook_failure(&run);
}

/// Only exit 2 blocks (its stderr is the reason the model gets); exit 1, any other non-zero
/// exit, and output that is not JSON let the call run.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_blocks_on_exit_2_only() {
    let (case, run) =
        protocol::exits_2_1_3_and_garbage::<Qwen>("qwen-exit-codes", [true, false, false, false]);
    assert_eq!(
        case.server.tool_texts(),
        [
            "e2e: exit 2".to_owned(),
            ran("rm -rf v2"),
            ran("rm -rf v3"),
            ran("rm -rf v4"),
        ]
    );
    let failures = run.hook_failures();
    assert_eq!(
        failures
            .iter()
            .filter(|l| l.contains("Hook(s) [rec-PreToolUse] failed for event PreToolUse"))
            .count(),
        3,
        "exit 2, exit 1 and exit 3 are logged as failures: {failures:#?}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_lets_the_call_run() {
    let missing = json!({"type": "command", "command": "/nonexistent/hooks qwen PreToolUse", "name": "missing"});
    let (_case, run) = protocol::rm_rf::<Qwen>(
        "qwen-missing",
        &["victim"],
        Gate::Handler(missing),
        &[false],
    );
    assert!(
        run.hook_failures()
            .iter()
            .any(|l| l.contains("Hook(s) [missing] failed for event PreToolUse")),
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_hanging_hook_lets_the_call_run_after_its_timeout() {
    let hang = json!({"type": "command", "command": "/bin/sleep 30", "name": "hang", "timeout": 2});
    let (_case, run) =
        protocol::rm_rf::<Qwen>("qwen-hang", &["victim"], Gate::Handler(hang), &[false]);
    assert!(
        run.hook_failures()
            .iter()
            .any(|l| l.ends_with("Hook execution error: Hook timed out after 2s")),
        "{}",
        run.evidence()
    );
}

/// Qwen Code has no PostToolUse output rewrite (`decision: "block"` and `updatedToolOutput` are
/// ignored), but `continue: false` replaces the result with its `stopReason` (and the turn goes
/// on).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_continue_false_replaces_the_result_and_block_does_not() {
    let cat = "cat secret.env; sleep 0.3";
    let case = Case::<Qwen>::new("qwen-post", Script::shells_then(&[cat, cat, cat], "done"));
    case.record(&["PostToolUse"]);
    for (i, answer) in [
        json!({"decision": "block", "reason": REDACTED}),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"continue": false, "stopReason": REDACTED}),
    ]
    .iter()
    .enumerate()
    {
        case.rec
            .answer_call("PostToolUse", i + 1, &Answer::json(answer));
    }
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    let results = case.server.tool_texts();
    assert_eq!(results.len(), 3, "{}", run.evidence());
    assert!(results[0].contains(SECRET), "{results:?}");
    assert!(results[1].contains(SECRET), "{results:?}");
    assert_eq!(results[2], REDACTED);
    assert_success(&run);
}

/// PostToolBatch (after every batch of tool calls) `decision: "block"` replaces the batch's last
/// result with the reason: the one way to withhold a result that keeps the turn.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_batch_block_replaces_the_last_result_with_the_reason() {
    let case = Case::<Qwen>::new("qwen-batch", Script::shell_then("cat secret.env", "read"));
    case.record(&["PostToolBatch"]);
    case.rec.answer(
        "PostToolBatch",
        &Answer::json(&json!({"decision": "block", "reason": REDACTED})),
    );
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    assert_eq!(case.server.tool_texts(), [REDACTED], "{}", run.evidence());
    assert_eq!(case.server.received(SECRET), Vec::<String>::new());
    let batch = &case.rec.inputs("PostToolBatch")[0];
    assert_eq!(
        batch["tool_calls"][0]["tool_name"], "run_shell_command",
        "{batch}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_additional_context_is_appended_after_a_blank_line() {
    let case = Case::<Qwen>::new("qwen-post-context", Script::shell_then("true", "done"));
    case.record(&["PostToolUse"]);
    case.rec.answer(
        "PostToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "e2e-guidance",
        }})),
    );
    let run = case.run("run true");
    assert_eq!(
        case.server.tool_texts(),
        [format!("{}\n\ne2e-guidance", ran("true"))],
        "{}",
        run.evidence()
    );
}

/// A blocked prompt never reaches the model, and `qwen -p` shows the reason nowhere: the run
/// succeeds with an empty result.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn user_prompt_submit_block_keeps_the_prompt_from_the_model_and_shows_no_reason() {
    let block = Answer::json(&json!({"decision": "block", "reason": "e2e: /handoff answered"}));
    let (_case, run) =
        protocol::a_blocked_prompt::<Qwen>("qwen-prompt-block", "UserPromptSubmit", &block);
    assert_success(&run);
    let result = run.result().cloned().unwrap_or_default();
    assert_eq!(
        (&result["is_error"], &result["result"]),
        (&json!(false), &json!(""))
    );
    assert!(!run.finished.stdout.contains("e2e: /handoff answered"));
    assert!(!run.finished.stderr.contains("e2e: /handoff answered"));
}

/// A `/name` that is a command expanding into a prompt (here a custom command in
/// `.qwen/commands/`) fires UserPromptExpansion first; blocking it ends the run with an error
/// that carries the reason.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn user_prompt_expansion_fires_for_a_prompt_command_and_its_block_is_an_error() {
    let case = Case::<Qwen>::new(
        "qwen-expansion",
        Script::new(vec![Step::Text("unexpected".into())]),
    );
    case.record(&["UserPromptExpansion", "UserPromptSubmit"]);
    case.rec.answer(
        "UserPromptExpansion",
        &Answer::json(&json!({"decision": "block", "reason": "e2e: /hi answered"})),
    );
    case.sb
        .write(".qwen/commands/hi.md", "Say hi to {{args}}\n");
    let run = case.run("/hi bob");
    let expansion = &case.rec.inputs("UserPromptExpansion")[0];
    assert_eq!(
        (
            &expansion["command_name"],
            &expansion["command_args"],
            &expansion["prompt"]
        ),
        (&json!("hi"), &json!("bob"), &json!("Say hi to bob")),
        "{expansion}"
    );
    assert!(case.rec.inputs("UserPromptSubmit").is_empty());
    assert!(case.server.model_turns().is_empty(), "{}", run.evidence());
    assert_eq!(run.finished.code(), Some(1), "{}", run.evidence());
    let result = run.result().cloned().unwrap_or_default();
    assert_eq!(
        result["error"]["message"], "UserPromptExpansion blocked: e2e: /hi answered",
        "{result}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_context_goes_to_the_system_prompt_and_prompt_context_into_a_tagged_part() {
    let events = ["SessionStart", "UserPromptSubmit"];
    let contexts = [
        ("SessionStart", "e2e-session-context"),
        ("UserPromptSubmit", "e2e-prompt-context"),
    ];
    let (_case, _run, body) =
        protocol::a_run_with_context::<Qwen>("qwen-context", &events, &contexts, "hello");
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let system = messages[0]["content"].as_str().unwrap_or_default();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        system.ends_with(
            "<qwen:session-start-context hidden=\"true\">\nSessionStart additional context:\ne2e-session-context\n</qwen:session-start-context>"
        ),
        "{}",
        &system[system.len().saturating_sub(300)..]
    );
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap_or_default();
    let parts: Vec<&str> = last_user["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(
        parts[parts.len() - 2..],
        [
            "hello",
            "<qwen:user-prompt-submit-context>\ne2e-prompt-context\n</qwen:user-prompt-submit-context>",
        ]
    );
}

/// HTTP hooks to 127.0.0.1 need no switch: the body is the command hook's input and the answer
/// decides; an endpoint that refuses the connection lets the call run.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn http_hooks_to_loopback_decide_and_an_unreachable_one_fails_open() {
    let mut script = Script::shell_then("rm -rf v1", "done");
    script.hook_answers = vec![(
        "PreToolUse".into(),
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "e2e: http deny",
        }}),
    )];
    let case = Case::<Qwen>::new("qwen-http", script);
    case.hook(
        "PreToolUse",
        json!({"type": "http", "url": format!("{}/hook/PreToolUse", case.server.url()), "timeout": 10}),
    );
    let kept = case.sb.victims(&["v1", "v2"]);
    let run = case.run("delete v1");
    assert!(kept[0].exists(), "v1 was deleted:\n{}", run.evidence());
    let calls = case.server.hook_calls("PreToolUse");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["hook_event_name"], "PreToolUse");
    assert_eq!(calls[0]["tool_input"], json!({"command": "rm -rf v1"}));
    assert_eq!(case.server.tool_texts(), ["e2e: http deny"]);

    let unreachable =
        json!({"type": "http", "url": "http://127.0.0.1:9/hook/PreToolUse", "timeout": 5});
    protocol::rm_rf::<Qwen>(
        "qwen-http-down",
        &["v2"],
        Gate::Handler(unreachable),
        &[false],
    );
}

/// In a yolo `-p` run PreToolUse `updatedInput` (with `allow` or alone) is ignored: the
/// original command runs.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_updated_input_is_ignored_in_a_yolo_run() {
    let rewrite = Answer::json(&json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "permissionDecisionReason": "e2e", "updatedInput": {"command": "echo e2e-rewritten"},
    }}));
    let (case, _run) = protocol::rm_rf::<Qwen>(
        "qwen-updated-input",
        &["victim"],
        Gate::Answer(rewrite),
        &[false],
    );
    assert_eq!(case.server.tool_texts(), [ran("rm -rf victim")]);
}
