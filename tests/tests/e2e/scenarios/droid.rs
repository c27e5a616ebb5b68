//! Factory Droid 0.225.2: its hook protocol, measured with a recorder hook (no hooks adapter).
//!
//! Hooks are Claude-style groups in `settings.json` (`~/.factory/` or the project's
//! `.factory/`): `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", "command",
//! "timeout" (s)}]}]}}`; a command runs as `sh -c` with the input JSON on stdin.

use serde_json::json;

use super::protocol::{self, Case, Gate, assert_success};
use crate::agent::AgentRun;
use crate::agent::droid::{Droid, DroidRun};
use crate::fixtures::{Answer, REDACTED, SECRET, secret_line};
use crate::model::{ModelServer, Script};

/// The events of Factory Droid 0.225.2's settings schema.
const EVENTS: [&str; 9] = [
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
];

/// The user messages of the last model request that come after its first tool result.
fn user_messages_after_tools(server: &ModelServer) -> Vec<String> {
    let Some(last) = server.model_turns().pop() else {
        return Vec::new();
    };
    let messages = last.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    messages
        .iter()
        .skip_while(|m| m["role"] != "tool")
        .filter(|m| m["role"] == "user")
        .map(|m| crate::model::strings(&m["content"]).join("\n"))
        .collect()
}

/// What Droid sends the model for a shell call that printed nothing.
const RAN: &str = "Command completed successfully\n\n[Process exited with code 0]";

fn evidence(run: &DroidRun, server: &ModelServer) -> String {
    format!(
        "tool results: {:?}\n{}",
        server.tool_texts(),
        run.evidence()
    )
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_exec_run_fires_these_events_and_never_user_prompt_submit() {
    let (case, run) = protocol::a_listing_run::<Droid>("droid-events", "ls", &EVENTS, "droid");
    assert_eq!(
        case.rec.events(),
        [
            "SessionStart",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionEnd"
        ],
        "{}",
        run.evidence()
    );
    for call in case.rec.calls() {
        for field in [
            "session_id",
            "transcript_path",
            "cwd",
            "permission_mode",
            "hook_event_name",
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
    let pre = &case.rec.inputs("PreToolUse")[0];
    assert_eq!(pre["tool_name"], "Execute");
    assert_eq!(
        pre["tool_input"],
        json!({"command": "ls", "summary": "e2e"})
    );
    let post = &case.rec.inputs("PostToolUse")[0];
    // A plain string.
    assert!(
        post["tool_response"]
            .as_str()
            .is_some_and(|r| r.contains("listed-file.txt")),
        "{post}"
    );
}

/// A project's `.factory/settings.json` hooks run with no trust step.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn project_hooks_run_without_any_trust_step() {
    let case = Case::<Droid>::new("droid-project", Script::shell_then("ls", "listed"));
    case.record_in_the_project(&["PreToolUse"]);
    let run = case.run("list the files");
    assert_success(&run);
    assert_eq!(case.rec.events(), ["PreToolUse"], "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason_as_an_error() {
    let deny = Answer::json(&json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "e2e: no rm -rf",
    }}));
    let (case, run) =
        protocol::rm_rf::<Droid>("droid-deny", &["victim"], Gate::Answer(deny), &[true]);
    assert_eq!(case.server.tool_texts(), ["Error: e2e: no rm -rf"]);
    assert_success(&run);
}

/// Exit 2 blocks with its stderr as the error; exit 1 lets the call run and puts its stderr in
/// front of the result; output that is not JSON is ignored.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_blocks_on_exit_2_and_exit_1_stderr_reaches_the_model() {
    // Exit 2, exit 1, garbage.
    let answers = [protocol::exit(2), protocol::exit(1), protocol::garbage()];
    let (case, _run) = protocol::rm_rf::<Droid>(
        "droid-exit-codes",
        &["v1", "v2", "v3"],
        Gate::Calls(&answers),
        &[true, false, false],
    );
    assert_eq!(
        case.server.tool_texts(),
        [
            "Error: e2e: exit 2".to_owned(),
            format!("e2e: exit 1\n\n{RAN}"),
            RAN.to_owned(),
        ]
    );
}

/// Exit 3 from PreToolUse aborts the agent: the call does not run and the run ends at once,
/// with an empty result and exit 0.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_exit_3_aborts_the_run() {
    let abort = Answer::exit(3, "e2e: abort");
    let (case, run) =
        protocol::rm_rf::<Droid>("droid-exit-3", &["victim"], Gate::Answer(abort), &[true]);
    assert_eq!(
        case.server.model_turns().len(),
        1,
        "{}",
        evidence(&run, &case.server)
    );
    assert_success(&run);
    assert_eq!(run.result(), Some(""));
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_lets_the_call_run() {
    let missing = json!({"type": "command", "command": "/nonexistent/hooks droid PreToolUse"});
    let (case, run) = protocol::rm_rf::<Droid>(
        "droid-missing",
        &["victim"],
        Gate::Handler(missing),
        &[false],
    );
    assert_eq!(case.server.tool_texts(), [RAN]);
    assert!(run.hook_exit_codes().contains(&127), "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_hanging_hook_lets_the_call_run_after_its_timeout() {
    let hang = json!({"type": "command", "command": "/bin/sleep 30", "timeout": 2});
    let (_case, run) =
        protocol::rm_rf::<Droid>("droid-hang", &["victim"], Gate::Handler(hang), &[false]);
    assert!(
        run.finished.elapsed >= std::time::Duration::from_secs(2),
        "{}",
        run.evidence()
    );
    assert!(
        run.log
            .lines()
            .any(|l| l.contains("[Hooks] Command completed") && l.contains("\"timeout\":2")),
        "{}",
        run.evidence()
    );
}

/// Droid has no PostToolUse output rewrite (`decision: "block"`, `updatedToolOutput` are
/// ignored); `continue: false` ends the run before the result reaches the model, which is the
/// only way to withhold one.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_can_withhold_a_result_only_by_ending_the_run() {
    let cat = "cat private.txt";
    let case = Case::<Droid>::new("droid-post", Script::shells_then(&[cat, cat, cat], "done"));
    case.record(&["PostToolUse"]);
    for (i, answer) in [
        json!({"decision": "block", "reason": REDACTED}),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"continue": false, "stopReason": "e2e: withheld"}),
    ]
    .iter()
    .enumerate()
    {
        case.rec
            .answer_call("PostToolUse", i + 1, &Answer::json(answer));
    }
    case.sb.write("private.txt", format!("{PRIVATE}\n"));
    let run = case.run("show private.txt");
    let results = case.server.tool_texts();
    assert_eq!(results.len(), 2, "{}", evidence(&run, &case.server));
    assert!(results.iter().all(|r| r.contains(PRIVATE)), "{results:?}");
    assert_eq!(case.rec.inputs("PostToolUse").len(), 3);
    assert_eq!(
        case.server.model_turns().len(),
        3,
        "{}",
        evidence(&run, &case.server)
    );
    assert_success(&run);
    assert_eq!(run.result(), Some(""));
    assert!(!run.finished.stdout.contains("e2e: withheld"));
}

/// Text that no secret scanner takes for a key.
const PRIVATE: &str = "e2e-private-line-3f9a";

/// Droid masks a value that looks like an API key (`sk-...`) in a tool's output itself, before
/// the hooks and the model see it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn droid_masks_a_key_in_tool_output_before_hooks_and_model() {
    let case = Case::<Droid>::new("droid-mask", Script::shell_then("cat secret.env", "read"));
    case.record(&["PostToolUse"]);
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    assert_eq!(
        case.server.received(SECRET),
        Vec::<String>::new(),
        "{}",
        run.evidence()
    );
    let masked = format!("API_KEY={}", "*".repeat(SECRET.len()));
    assert!(
        case.server.tool_texts()[0].starts_with(&masked),
        "{:?}",
        case.server.tool_texts()
    );
    let seen = &case.rec.inputs("PostToolUse")[0]["tool_response"];
    assert!(
        seen.as_str().is_some_and(|r| r.starts_with(&masked)),
        "{seen}"
    );
}

/// PostToolUse `additionalContext` and exit 2's stderr (as `[Hook Feedback] ...`) reach the
/// model as user messages after the tool result, which is left as it was.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_context_and_exit_2_feedback_arrive_as_user_messages() {
    let case = Case::<Droid>::new(
        "droid-post-context",
        Script::shells_then(&["echo one", "echo two"], "done"),
    );
    case.record(&["PostToolUse"]);
    case.rec.answer_call(
        "PostToolUse",
        1,
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "e2e-guidance",
        }})),
    );
    case.rec
        .answer_call("PostToolUse", 2, &Answer::exit(2, "e2e: feedback"));
    let run = case.run("echo twice");
    assert_success(&run);
    let results = case.server.tool_texts();
    assert!(
        results[0].starts_with("one\n") && results[1].starts_with("two\n"),
        "{results:?}"
    );
    assert_eq!(
        user_messages_after_tools(&case.server),
        ["e2e-guidance", "[Hook Feedback] e2e: feedback"],
        "{}",
        evidence(&run, &case.server)
    );
}

/// SessionStart context is the first user message; a `/name` prompt goes to the model as it
/// is, with no prompt event a hook could answer.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_context_is_the_first_user_message_and_a_slash_prompt_reaches_the_model() {
    let (case, run, body) = protocol::a_run_with_context::<Droid>(
        "droid-context",
        &["SessionStart", "UserPromptSubmit"],
        &[("SessionStart", "e2e-session-context")],
        "/handoff",
    );
    assert_eq!(case.rec.events(), ["SessionStart"], "{}", run.evidence());
    let users: Vec<String> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| crate::model::strings(&m["content"]).join("\n"))
        .collect();
    assert_eq!(
        users.first().map(String::as_str),
        Some("e2e-session-context")
    );
    assert_eq!(users.last().map(String::as_str), Some("/handoff"));
    assert_eq!(run.result(), Some("hi"));
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_allow_with_updated_input_merges_into_the_arguments() {
    let rewrite = Answer::json(&json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": {"command": "echo e2e-rewritten"},
    }}));
    let (case, _run) = protocol::rm_rf::<Droid>(
        "droid-updated-input",
        &["victim"],
        Gate::Answer(rewrite),
        &[true],
    );
    assert_eq!(
        case.server.tool_texts(),
        ["e2e-rewritten\n\n\n[Process exited with code 0]"]
    );
}
