//! Factory Droid 0.225.2: its hook protocol, measured with a recorder hook (no hooks adapter).
//!
//! Hooks are Claude-style groups in `settings.json` (`~/.factory/` or the project's
//! `.factory/`): `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", "command",
//! "timeout" (s)}]}]}}`; a command runs as `sh -c` with the input JSON on stdin.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::agent::droid::{Droid, DroidRun};
use crate::fixtures::{self, Answer, REDACTED, Recorder, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

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

/// Droid configured for `server` in a fresh sandbox, with a recorder, or `None` (skipped).
fn setup(name: &str, server: &ModelServer) -> Option<(Droid, Sandbox, Recorder)> {
    let droid = Droid::for_suite()?;
    let sandbox = Sandbox::new(name);
    Droid::configure(&sandbox, server);
    let recorder = Recorder::new(&sandbox.root().join("recorder"));
    Some((droid, sandbox, recorder))
}

fn record(settings: &Path, recorder: &Recorder, events: &[&str]) {
    recorder.install_groups(settings, events, |_| json!({"timeout": 30}));
}

fn hook(sb: &Sandbox, event: &str, handler: Value) {
    fixtures::add_group(
        &Droid::user_settings(sb),
        event,
        json!({ "hooks": [handler] }),
    );
}

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

fn shell_steps(commands: &[&str]) -> Script {
    let mut steps: Vec<Step> = commands.iter().map(|c| Step::Shell((*c).into())).collect();
    steps.push(Step::Text("done".into()));
    Script::new(steps)
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
fn an_exec_run_fires_these_events_and_never_user_prompt_submit() {
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let Some((droid, sb, rec)) = setup("droid-events", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &EVENTS);
    sb.write("listed-file.txt", "hello\n");
    let run = droid.exec(&sb, &server, "list the files");
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(run.result(), Some("listed"), "{}", run.evidence());
    assert_eq!(
        rec.events(),
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
    for call in rec.calls() {
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
    let pre = &rec.inputs("PreToolUse")[0];
    assert_eq!(pre["tool_name"], "Execute");
    assert_eq!(
        pre["tool_input"],
        json!({"command": "ls", "summary": "e2e"})
    );
    let post = &rec.inputs("PostToolUse")[0];
    // A plain string.
    assert!(
        post["tool_response"]
            .as_str()
            .is_some_and(|r| r.contains("listed-file.txt")),
        "{post}"
    );
    let firsts: Vec<(&str, Value)> = EVENTS
        .iter()
        .filter_map(|e| rec.inputs(e).into_iter().next().map(|i| (*e, i)))
        .collect();
    let differences = fixtures::check_agent_fixtures(
        "droid",
        sb.root(),
        &firsts.iter().map(|(e, i)| (*e, i)).collect::<Vec<_>>(),
    );
    assert!(differences.is_empty(), "{differences:#?}");
}

/// A project's `.factory/settings.json` hooks run with no trust step.
#[test]
fn project_hooks_run_without_any_trust_step() {
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let Some((droid, sb, rec)) = setup("droid-project", &server) else {
        return;
    };
    record(&Droid::project_settings(&sb), &rec, &["PreToolUse"]);
    let run = droid.exec(&sb, &server, "list the files");
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(rec.events(), ["PreToolUse"], "{}", run.evidence());
}

#[test]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason_as_an_error() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let Some((droid, sb, rec)) = setup("droid-deny", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PreToolUse"]);
    rec.answer(
        "PreToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "e2e: no rm -rf",
        }})),
    );
    let kept = sb.victims(&["victim"]);
    let run = droid.exec(&sb, &server, "delete the victim");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", evidence(&run, &server));
    assert_eq!(server.tool_texts(), ["Error: e2e: no rm -rf"]);
    assert!(run.finished.success(), "{}", run.evidence());
}

/// Exit 2 blocks with its stderr as the error; exit 1 lets the call run and puts its stderr in
/// front of the result; output that is not JSON is ignored.
#[test]
fn pre_tool_use_blocks_on_exit_2_and_exit_1_stderr_reaches_the_model() {
    let server = ModelServer::start(shell_steps(&["rm -rf v1", "rm -rf v2", "rm -rf v3"]));
    let Some((droid, sb, rec)) = setup("droid-exit-codes", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PreToolUse"]);
    for (i, answer) in [
        Answer::exit(2, "e2e: exit 2"),
        Answer::exit(1, "e2e: exit 1"),
        Answer::text("this is not json {"),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("PreToolUse", i + 1, answer);
    }
    let kept = sb.victims(&["v1", "v2", "v3"]);
    let run = droid.exec(&sb, &server, "delete them");
    let survived: Vec<bool> = kept.iter().map(|k| k.exists()).collect();
    assert_eq!(
        survived,
        [true, false, false],
        "exit 2, exit 1, garbage\n{}",
        evidence(&run, &server)
    );
    assert_eq!(
        server.tool_texts(),
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
fn pre_tool_use_exit_3_aborts_the_run() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let Some((droid, sb, rec)) = setup("droid-exit-3", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PreToolUse"]);
    rec.answer("PreToolUse", &Answer::exit(3, "e2e: abort"));
    let kept = sb.victims(&["victim"]);
    let run = droid.exec(&sb, &server, "delete the victim");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", evidence(&run, &server));
    assert_eq!(server.model_turns().len(), 1, "{}", evidence(&run, &server));
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(run.result(), Some(""));
}

#[test]
fn a_missing_hook_binary_lets_the_call_run() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let Some((droid, sb, _rec)) = setup("droid-missing", &server) else {
        return;
    };
    hook(
        &sb,
        "PreToolUse",
        json!({"type": "command", "command": "/nonexistent/hooks droid PreToolUse"}),
    );
    let kept = sb.victims(&["victim"]);
    let run = droid.exec(&sb, &server, "delete the victim");
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
    assert_eq!(server.tool_texts(), [RAN]);
    assert!(run.hook_exit_codes().contains(&127), "{}", run.evidence());
}

#[test]
fn a_hanging_hook_lets_the_call_run_after_its_timeout() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let Some((droid, sb, _rec)) = setup("droid-hang", &server) else {
        return;
    };
    hook(
        &sb,
        "PreToolUse",
        json!({"type": "command", "command": "/bin/sleep 30", "timeout": 2}),
    );
    let kept = sb.victims(&["victim"]);
    let run = droid.exec(&sb, &server, "delete the victim");
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
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
fn post_tool_use_can_withhold_a_result_only_by_ending_the_run() {
    let cat = "cat private.txt";
    let server = ModelServer::start(shell_steps(&[cat, cat, cat]));
    let Some((droid, sb, rec)) = setup("droid-post", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PostToolUse"]);
    for (i, answer) in [
        json!({"decision": "block", "reason": REDACTED}),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"continue": false, "stopReason": "e2e: withheld"}),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("PostToolUse", i + 1, &Answer::json(answer));
    }
    sb.write("private.txt", format!("{PRIVATE}\n"));
    let run = droid.exec(&sb, &server, "show private.txt");
    let results = server.tool_texts();
    assert_eq!(results.len(), 2, "{}", evidence(&run, &server));
    assert!(results.iter().all(|r| r.contains(PRIVATE)), "{results:?}");
    assert_eq!(rec.inputs("PostToolUse").len(), 3);
    assert_eq!(server.model_turns().len(), 3, "{}", evidence(&run, &server));
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(run.result(), Some(""));
    assert!(!run.finished.stdout.contains("e2e: withheld"));
}

/// Text that no secret scanner takes for a key.
const PRIVATE: &str = "e2e-private-line-3f9a";

/// Droid masks a value that looks like an API key (`sk-...`) in a tool's output itself, before
/// the hooks and the model see it.
#[test]
fn droid_masks_a_key_in_tool_output_before_hooks_and_model() {
    let server = ModelServer::start(Script::shell_then("cat secret.env", "read"));
    let Some((droid, sb, rec)) = setup("droid-mask", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PostToolUse"]);
    sb.write("secret.env", format!("{}\n", secret_line()));
    let run = droid.exec(&sb, &server, "show secret.env");
    assert_eq!(
        server.received(SECRET),
        Vec::<String>::new(),
        "{}",
        run.evidence()
    );
    let masked = format!("API_KEY={}", "*".repeat(SECRET.len()));
    assert!(
        server.tool_texts()[0].starts_with(&masked),
        "{:?}",
        server.tool_texts()
    );
    let seen = &rec.inputs("PostToolUse")[0]["tool_response"];
    assert!(
        seen.as_str().is_some_and(|r| r.starts_with(&masked)),
        "{seen}"
    );
}

/// PostToolUse `additionalContext` and exit 2's stderr (as `[Hook Feedback] ...`) reach the
/// model as user messages after the tool result, which is left as it was.
#[test]
fn post_tool_use_context_and_exit_2_feedback_arrive_as_user_messages() {
    let server = ModelServer::start(shell_steps(&["echo one", "echo two"]));
    let Some((droid, sb, rec)) = setup("droid-post-context", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PostToolUse"]);
    rec.answer_call(
        "PostToolUse",
        1,
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "e2e-guidance",
        }})),
    );
    rec.answer_call("PostToolUse", 2, &Answer::exit(2, "e2e: feedback"));
    let run = droid.exec(&sb, &server, "echo twice");
    assert!(run.finished.success(), "{}", run.evidence());
    let results = server.tool_texts();
    assert!(
        results[0].starts_with("one\n") && results[1].starts_with("two\n"),
        "{results:?}"
    );
    assert_eq!(
        user_messages_after_tools(&server),
        ["e2e-guidance", "[Hook Feedback] e2e: feedback"],
        "{}",
        evidence(&run, &server)
    );
}

/// SessionStart context is the first user message; a `/name` prompt goes to the model as it
/// is, with no prompt event a hook could answer.
#[test]
fn session_start_context_is_the_first_user_message_and_a_slash_prompt_reaches_the_model() {
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let Some((droid, sb, rec)) = setup("droid-context", &server) else {
        return;
    };
    record(
        &Droid::user_settings(&sb),
        &rec,
        &["SessionStart", "UserPromptSubmit"],
    );
    rec.answer(
        "SessionStart",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "SessionStart", "additionalContext": "e2e-session-context",
        }})),
    );
    let run = droid.exec(&sb, &server, "/handoff");
    assert_eq!(rec.events(), ["SessionStart"], "{}", run.evidence());
    let turns = server.model_turns();
    assert_eq!(turns.len(), 1, "{}", run.evidence());
    let users: Vec<String> = turns[0].body["messages"]
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
fn pre_tool_use_allow_with_updated_input_merges_into_the_arguments() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let Some((droid, sb, rec)) = setup("droid-updated-input", &server) else {
        return;
    };
    record(&Droid::user_settings(&sb), &rec, &["PreToolUse"]);
    rec.answer(
        "PreToolUse",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "updatedInput": {"command": "echo e2e-rewritten"},
        }})),
    );
    let kept = sb.victims(&["victim"]);
    let run = droid.exec(&sb, &server, "delete the victim");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", evidence(&run, &server));
    assert_eq!(
        server.tool_texts(),
        ["e2e-rewritten\n\n\n[Process exited with code 0]"]
    );
}
