//! Qwen Code 0.24.4: its hook protocol, measured with a recorder hook (no hooks adapter).
//!
//! Hooks are Claude-style groups in `settings.json` (`~/.qwen/` or the project's `.qwen/`):
//! `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command" | "http" | ..., "command",
//! "name"?, "timeout" (s)}]}]}}`; a command runs as `bash -c` with the input JSON on stdin.
//!
//! Under load Qwen Code sometimes sends the model `Output: (empty)` for a shell command that
//! printed and exited at once (seen once in about fifteen runs), so the commands whose output
//! a scenario checks end with a short sleep.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::agent::qwen::{Qwen, QwenRun};
use crate::fixtures::{self, Answer, REDACTED, Recorder, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

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

fn setup(name: &str) -> Option<(Qwen, Sandbox, Recorder)> {
    let qwen = Qwen::for_suite()?;
    let sandbox = Sandbox::new(name);
    Qwen::configure(&sandbox);
    let recorder = Recorder::new(&sandbox.root().join("recorder"));
    Some((qwen, sandbox, recorder))
}

fn record(settings: &Path, recorder: &Recorder, events: &[&str]) {
    recorder.install_groups(
        settings,
        events,
        |event| json!({"name": format!("rec-{event}"), "timeout": 30}),
    );
}

fn hook(sb: &Sandbox, event: &str, handler: Value) {
    fixtures::add_group(
        &Qwen::user_settings(sb),
        event,
        json!({ "hooks": [handler] }),
    );
}

/// What Qwen Code sends the model for a shell call that ran `command` (with no output).
fn ran(command: &str) -> String {
    format!(
        "Command: {command}\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"
    )
}

fn shell_steps(commands: &[String]) -> Script {
    let mut steps: Vec<Step> = commands.iter().map(|c| Step::Shell(c.clone())).collect();
    steps.push(Step::Text("done".into()));
    Script::new(steps)
}

fn no_hook_failures(run: &QwenRun) {
    assert!(run.hook_failures().is_empty(), "{}", run.evidence());
}

#[test]
fn a_headless_run_fires_these_events_with_these_inputs() {
    let Some((qwen, sb, rec)) = setup("qwen-events") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &EVENTS);
    sb.write("listed-file.txt", "hello\n");
    let server = ModelServer::start(Script::shell_then("ls; sleep 0.3", "listed"));
    let run = qwen.run(&sb, &server, "list the files");
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(
        run.result().and_then(|r| r["result"].as_str()),
        Some("listed"),
        "{}",
        run.evidence()
    );
    // No SessionEnd in a `-p` run; UserPromptSubmit again (prompt "") when the tool result is
    // sent.
    assert_eq!(
        rec.events(),
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
    for call in rec.calls() {
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
    let prompts: Vec<Value> = rec
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
    let pre = &rec.inputs("PreToolUse")[0];
    assert_eq!(pre["tool_name"], "run_shell_command");
    assert_eq!(pre["tool_input"], json!({"command": "ls; sleep 0.3"}));
    assert_eq!(pre["permission_mode"], "yolo");
    let post = &rec.inputs("PostToolUse")[0];
    assert!(
        post["tool_response"]["llmContent"]
            .as_str()
            .is_some_and(|c| c.contains("listed-file.txt")),
        "{post}"
    );
    let firsts: Vec<(&str, Value)> = EVENTS
        .iter()
        .filter_map(|e| rec.inputs(e).into_iter().next().map(|i| (*e, i)))
        .collect();
    let differences = fixtures::check_agent_fixtures(
        "qwen",
        sb.root(),
        &firsts.iter().map(|(e, i)| (*e, i)).collect::<Vec<_>>(),
    );
    assert!(differences.is_empty(), "{differences:#?}");
}

/// Folder trust is off by default, so a project's `.qwen/settings.json` hooks run with no
/// question; with `security.folderTrust.enabled` an untrusted folder's hooks are skipped
/// silently (and the approval mode falls back to default, which drops the shell tool).
#[test]
fn project_hooks_run_unless_folder_trust_is_enabled_and_the_folder_untrusted() {
    let Some((qwen, sb, rec)) = setup("qwen-project") else {
        return;
    };
    record(&Qwen::project_settings(&sb), &rec, &["PreToolUse"]);
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("ls".into()),
        Step::Text("done".into()),
        Step::Shell("ls".into()),
        Step::Text("done".into()),
    ]));
    let run = qwen.run(&sb, &server, "list");
    assert_eq!(rec.events(), ["PreToolUse"], "{}", run.evidence());
    fixtures::set_setting(
        &Qwen::user_settings(&sb),
        "/security/folderTrust/enabled",
        json!(true),
    );
    let untrusted = qwen.run(&sb, &server, "list");
    assert_eq!(rec.events(), ["PreToolUse"], "{}", untrusted.evidence());
    assert!(
        untrusted.finished.stderr.contains(
            "Approval mode overridden to \"default\" because the current folder is not trusted."
        ),
        "{}",
        untrusted.evidence()
    );
}

#[test]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason_verbatim() {
    let Some((qwen, sb, rec)) = setup("qwen-deny") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PreToolUse"]);
    rec.answer(
        "PreToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "e2e: no rm -rf",
        }})),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = qwen.run(&sb, &server, "delete the victim");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert_eq!(server.tool_texts(), ["e2e: no rm -rf"]);
    assert!(run.finished.success(), "{}", run.evidence());
    no_hook_failures(&run);
}

/// Only exit 2 blocks (its stderr is the reason the model gets); exit 1, any other non-zero
/// exit, and output that is not JSON let the call run.
#[test]
fn pre_tool_use_blocks_on_exit_2_only() {
    let Some((qwen, sb, rec)) = setup("qwen-exit-codes") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PreToolUse"]);
    for (i, answer) in [
        Answer::exit(2, "e2e: exit 2"),
        Answer::exit(1, "e2e: exit 1"),
        Answer::exit(3, "e2e: exit 3"),
        Answer::text("this is not json {"),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("PreToolUse", i + 1, answer);
    }
    let names = ["v1", "v2", "v3", "v4"];
    let kept = sb.victims(&names);
    let commands: Vec<String> = names.iter().map(|n| format!("rm -rf {n}")).collect();
    let server = ModelServer::start(shell_steps(&commands));
    let run = qwen.run(&sb, &server, "delete them");
    let survived: Vec<bool> = kept.iter().map(|k| k.exists()).collect();
    assert_eq!(
        survived,
        [true, false, false, false],
        "exit 2, exit 1, exit 3, garbage\n{}",
        run.evidence()
    );
    assert_eq!(
        server.tool_texts(),
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
fn a_missing_hook_binary_lets_the_call_run() {
    let Some((qwen, sb, _rec)) = setup("qwen-missing") else {
        return;
    };
    hook(
        &sb,
        "PreToolUse",
        json!({"type": "command", "command": "/nonexistent/hooks qwen PreToolUse", "name": "missing"}),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = qwen.run(&sb, &server, "delete the victim");
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
    assert!(
        run.hook_failures()
            .iter()
            .any(|l| l.contains("Hook(s) [missing] failed for event PreToolUse")),
        "{}",
        run.evidence()
    );
}

#[test]
fn a_hanging_hook_lets_the_call_run_after_its_timeout() {
    let Some((qwen, sb, _rec)) = setup("qwen-hang") else {
        return;
    };
    hook(
        &sb,
        "PreToolUse",
        json!({"type": "command", "command": "/bin/sleep 30", "name": "hang", "timeout": 2}),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = qwen.run(&sb, &server, "delete the victim");
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
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
fn post_tool_use_continue_false_replaces_the_result_and_block_does_not() {
    let Some((qwen, sb, rec)) = setup("qwen-post") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PostToolUse"]);
    for (i, answer) in [
        json!({"decision": "block", "reason": REDACTED}),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"continue": false, "stopReason": REDACTED}),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("PostToolUse", i + 1, &Answer::json(answer));
    }
    sb.write("secret.env", format!("{}\n", secret_line()));
    let cat = "cat secret.env; sleep 0.3".to_owned();
    let server = ModelServer::start(shell_steps(&[cat.clone(), cat.clone(), cat]));
    let run = qwen.run(&sb, &server, "show secret.env");
    let results = server.tool_texts();
    assert_eq!(results.len(), 3, "{}", run.evidence());
    assert!(results[0].contains(SECRET), "{results:?}");
    assert!(results[1].contains(SECRET), "{results:?}");
    assert_eq!(results[2], REDACTED);
    assert!(run.finished.success(), "{}", run.evidence());
}

/// PostToolBatch (after every batch of tool calls) `decision: "block"` replaces the batch's last
/// result with the reason: the one way to withhold a result that keeps the turn.
#[test]
fn post_tool_batch_block_replaces_the_last_result_with_the_reason() {
    let Some((qwen, sb, rec)) = setup("qwen-batch") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PostToolBatch"]);
    rec.answer(
        "PostToolBatch",
        &Answer::json(&json!({"decision": "block", "reason": REDACTED})),
    );
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::shell_then("cat secret.env", "read"));
    let run = qwen.run(&sb, &server, "show secret.env");
    assert_eq!(server.tool_texts(), [REDACTED], "{}", run.evidence());
    assert_eq!(server.received(SECRET), Vec::<String>::new());
    let batch = &rec.inputs("PostToolBatch")[0];
    assert_eq!(
        batch["tool_calls"][0]["tool_name"], "run_shell_command",
        "{batch}"
    );
}

#[test]
fn post_tool_use_additional_context_is_appended_after_a_blank_line() {
    let Some((qwen, sb, rec)) = setup("qwen-post-context") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PostToolUse"]);
    rec.answer(
        "PostToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "e2e-guidance",
        }})),
    );
    let server = ModelServer::start(Script::shell_then("true", "done"));
    let run = qwen.run(&sb, &server, "run true");
    assert_eq!(
        server.tool_texts(),
        [format!("{}\n\ne2e-guidance", ran("true"))],
        "{}",
        run.evidence()
    );
}

/// A blocked prompt never reaches the model, and `qwen -p` shows the reason nowhere: the run
/// succeeds with an empty result.
#[test]
fn user_prompt_submit_block_keeps_the_prompt_from_the_model_and_shows_no_reason() {
    let Some((qwen, sb, rec)) = setup("qwen-prompt-block") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["UserPromptSubmit"]);
    rec.answer(
        "UserPromptSubmit",
        &Answer::json(&json!({"decision": "block", "reason": "e2e: /handoff answered"})),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = qwen.run(&sb, &server, "/handoff");
    assert_eq!(rec.inputs("UserPromptSubmit")[0]["prompt"], "/handoff");
    assert!(server.model_turns().is_empty(), "{}", run.evidence());
    assert!(run.finished.success(), "{}", run.evidence());
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
fn user_prompt_expansion_fires_for_a_prompt_command_and_its_block_is_an_error() {
    let Some((qwen, sb, rec)) = setup("qwen-expansion") else {
        return;
    };
    record(
        &Qwen::user_settings(&sb),
        &rec,
        &["UserPromptExpansion", "UserPromptSubmit"],
    );
    rec.answer(
        "UserPromptExpansion",
        &Answer::json(&json!({"decision": "block", "reason": "e2e: /hi answered"})),
    );
    sb.write(".qwen/commands/hi.md", "Say hi to {{args}}\n");
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = qwen.run(&sb, &server, "/hi bob");
    let expansion = &rec.inputs("UserPromptExpansion")[0];
    assert_eq!(
        (
            &expansion["command_name"],
            &expansion["command_args"],
            &expansion["prompt"]
        ),
        (&json!("hi"), &json!("bob"), &json!("Say hi to bob")),
        "{expansion}"
    );
    assert!(rec.inputs("UserPromptSubmit").is_empty());
    assert!(server.model_turns().is_empty(), "{}", run.evidence());
    assert_eq!(run.finished.code(), Some(1), "{}", run.evidence());
    let result = run.result().cloned().unwrap_or_default();
    assert_eq!(
        result["error"]["message"], "UserPromptExpansion blocked: e2e: /hi answered",
        "{result}"
    );
}

#[test]
fn session_start_context_goes_to_the_system_prompt_and_prompt_context_into_a_tagged_part() {
    let Some((qwen, sb, rec)) = setup("qwen-context") else {
        return;
    };
    record(
        &Qwen::user_settings(&sb),
        &rec,
        &["SessionStart", "UserPromptSubmit"],
    );
    rec.answer(
        "SessionStart",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "SessionStart", "additionalContext": "e2e-session-context",
        }})),
    );
    rec.answer(
        "UserPromptSubmit",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit", "additionalContext": "e2e-prompt-context",
        }})),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = qwen.run(&sb, &server, "hello");
    let turns = server.model_turns();
    assert_eq!(turns.len(), 1, "{}", run.evidence());
    let messages = turns[0].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
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
fn http_hooks_to_loopback_decide_and_an_unreachable_one_fails_open() {
    let Some((qwen, sb, _rec)) = setup("qwen-http") else {
        return;
    };
    let mut script = shell_steps(&["rm -rf v1".to_owned()]);
    script.hook_answers = vec![(
        "PreToolUse".into(),
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "e2e: http deny",
        }}),
    )];
    let server = ModelServer::start(script);
    hook(
        &sb,
        "PreToolUse",
        json!({"type": "http", "url": format!("{}/hook/PreToolUse", server.url()), "timeout": 10}),
    );
    let kept = sb.victims(&["v1", "v2"]);
    let run = qwen.run(&sb, &server, "delete v1");
    assert!(kept[0].exists(), "v1 was deleted:\n{}", run.evidence());
    let calls = server.hook_calls("PreToolUse");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["hook_event_name"], "PreToolUse");
    assert_eq!(calls[0]["tool_input"], json!({"command": "rm -rf v1"}));
    assert_eq!(server.tool_texts(), ["e2e: http deny"]);

    let sb2 = Sandbox::new("qwen-http-down");
    Qwen::configure(&sb2);
    hook(
        &sb2,
        "PreToolUse",
        json!({"type": "http", "url": "http://127.0.0.1:9/hook/PreToolUse", "timeout": 5}),
    );
    let kept2 = sb2.victims(&["v2"]);
    let server2 = ModelServer::start(shell_steps(&["rm -rf v2".to_owned()]));
    let down = qwen.run(&sb2, &server2, "delete v2");
    assert!(!kept2[0].exists(), "v2 survived:\n{}", down.evidence());
}

/// In a yolo `-p` run PreToolUse `updatedInput` (with `allow` or alone) is ignored: the
/// original command runs.
#[test]
fn pre_tool_use_updated_input_is_ignored_in_a_yolo_run() {
    let Some((qwen, sb, rec)) = setup("qwen-updated-input") else {
        return;
    };
    record(&Qwen::user_settings(&sb), &rec, &["PreToolUse"]);
    rec.answer(
        "PreToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "permissionDecisionReason": "e2e", "updatedInput": {"command": "echo e2e-rewritten"},
        }})),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = qwen.run(&sb, &server, "delete the victim");
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
    assert_eq!(server.tool_texts(), [ran("rm -rf victim")]);
}
