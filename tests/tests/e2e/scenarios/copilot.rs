//! Copilot CLI 1.0.102 (offline, BYOK): its hook protocol, measured with a recorder hook (no
//! hooks adapter).
//!
//! Hook files are `~/.copilot/hooks/*.json` and, in a trusted folder, `.github/hooks/*.json`,
//! in Copilot's own format `{"version": 1, "hooks": {event: [{"type": "command", "bash",
//! "timeoutSec"}]}}` (camelCase events and payloads) or Claude's (`{"hooks": {Event:
//! [{"hooks": [{"type": "command", "command"}]}]}}`, snake_case payloads); each command runs as
//! `bash -c` with the input JSON on stdin.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::agent::copilot::{Copilot, CopilotRun, Folder};
use crate::fixtures::{self, Answer, REDACTED, Recorder, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

/// Every event of Copilot CLI 1.0.102's own format (its settings schema).
const EVENTS: [&str; 15] = [
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "userPromptTransformed",
    "preToolUse",
    "preMcpToolCall",
    "postToolUse",
    "postToolUseFailure",
    "errorOccurred",
    "agentStop",
    "subagentStop",
    "subagentStart",
    "preCompact",
    "permissionRequest",
    "notification",
];

/// The events Copilot CLI 1.0.102 maps from Claude's format.
const CLAUDE_EVENTS: [&str; 11] = [
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "Notification",
    "PermissionRequest",
];

fn setup(name: &str) -> Option<(Copilot, Sandbox, Recorder)> {
    let copilot = Copilot::for_suite()?;
    let sandbox = Sandbox::new(name);
    let recorder = Recorder::new(&sandbox.root().join("recorder"));
    Some((copilot, sandbox, recorder))
}

/// Adds `handler` to `event` in a hook file of Copilot's own format, creating it when missing.
fn add_native(path: &Path, event: &str, handler: Value) {
    let mut file = fixtures::read_settings_or_empty(path);
    file["version"] = json!(1);
    let mut handlers = file["hooks"][event].as_array().cloned().unwrap_or_default();
    handlers.push(handler);
    file["hooks"][event] = Value::Array(handlers);
    std::fs::create_dir_all(path.parent().expect("hook file directory")).expect("mkdir");
    fixtures::write_settings(path, &file);
}

/// Installs the recorder on `events` in the hook file `path` (Copilot's format).
fn record(path: &Path, recorder: &Recorder, events: &[&str]) {
    for event in events {
        add_native(
            path,
            event,
            json!({"type": "command", "bash": recorder.command(event), "timeoutSec": 30}),
        );
    }
}

fn user_file(sb: &Sandbox) -> PathBuf {
    Copilot::user_hooks(sb, "e2e")
}

/// The text of the user messages of the last model request.
fn user_messages(server: &ModelServer) -> Vec<String> {
    server
        .model_turns()
        .last()
        .map(|t| {
            t.body["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "user")
                .map(|m| content_text(&m["content"]))
                .collect()
        })
        .unwrap_or_default()
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        other => crate::model::strings(other).join("\n"),
    }
}

fn no_failed_hooks(run: &CopilotRun) {
    assert!(run.failed_hooks().is_empty(), "{}", run.evidence());
}

#[test]
fn a_prompt_run_fires_these_events_with_camel_case_inputs() {
    let Some((copilot, sb, rec)) = setup("copilot-events") else {
        return;
    };
    record(&user_file(&sb), &rec, &EVENTS);
    sb.write("listed-file.txt", "hello\n");
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "list the files", &[]);
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(run.answer(), Some("listed"), "{}", run.evidence());
    assert_eq!(
        rec.events(),
        [
            "sessionStart",
            "userPromptSubmitted",
            "userPromptTransformed",
            "preToolUse",
            "permissionRequest",
            "postToolUse",
            "agentStop",
            "sessionEnd",
        ],
        "{}",
        run.evidence()
    );
    no_failed_hooks(&run);
    for call in rec.calls() {
        assert!(call.input["sessionId"].is_string(), "{}", call.input);
        assert!(call.input["timestamp"].is_number(), "{}", call.input);
        assert_eq!(call.input["cwd"], json!(sb.project), "{}", call.input);
        assert!(
            call.input.get("hook_event_name").is_none(),
            "{}",
            call.input
        );
    }
    let pre = &rec.inputs("preToolUse")[0];
    assert_eq!(pre["toolName"], "bash");
    // An object, not a JSON string.
    assert_eq!(
        pre["toolArgs"],
        json!({"command": "ls", "description": "e2e"})
    );
    let post = &rec.inputs("postToolUse")[0];
    assert_eq!(post["toolResult"]["resultType"], "success");
    assert!(
        post["toolResult"]["textResultForLlm"]
            .as_str()
            .is_some_and(|t| t.contains("listed-file.txt")),
        "{post}"
    );
    let permission = &rec.inputs("permissionRequest")[0];
    assert_eq!(permission["hookName"], "permissionRequest");
    assert_eq!(permission["toolInput"], json!({"command": "ls"}));
    let firsts: Vec<(&str, Value)> = EVENTS
        .iter()
        .filter_map(|e| rec.inputs(e).into_iter().next().map(|i| (*e, i)))
        .collect();
    let differences = fixtures::check_agent_fixtures(
        "copilot",
        sb.root(),
        &firsts.iter().map(|(e, i)| (*e, i)).collect::<Vec<_>>(),
    );
    assert!(differences.is_empty(), "{differences:#?}");
}

/// In Claude's format the payloads are snake_case with `hook_event_name` and the shell tool is
/// `Bash`; `PermissionRequest` keeps Copilot's own camelCase payload.
#[test]
fn a_claude_format_file_gets_snake_case_inputs_and_the_tool_name_bash_capitalised() {
    let Some((copilot, sb, rec)) = setup("copilot-claude-events") else {
        return;
    };
    let path = user_file(&sb);
    for event in CLAUDE_EVENTS {
        fixtures::add_group(
            &path,
            event,
            json!({"hooks": [{"type": "command", "command": rec.command(event), "timeout": 30}]}),
        );
    }
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "list the files", &[]);
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(
        rec.events(),
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "Stop",
            "SessionEnd",
        ],
        "{}",
        run.evidence()
    );
    let pre = &rec.inputs("PreToolUse")[0];
    assert_eq!(pre["hook_event_name"], "PreToolUse");
    assert_eq!(pre["tool_name"], "Bash");
    assert_eq!(
        pre["tool_input"],
        json!({"command": "ls", "description": "e2e"})
    );
    assert!(pre["timestamp"].is_string(), "{pre}");
    let post = &rec.inputs("PostToolUse")[0];
    assert_eq!(post["tool_result"]["result_type"], "success", "{post}");
    let permission = &rec.inputs("PermissionRequest")[0];
    assert_eq!(permission["toolName"], "bash", "{permission}");
    let firsts: Vec<(&str, Value)> = CLAUDE_EVENTS
        .iter()
        .filter_map(|e| rec.inputs(e).into_iter().next().map(|i| (*e, i)))
        .collect();
    let differences = fixtures::check_agent_fixtures(
        "copilot-claude",
        sb.root(),
        &firsts.iter().map(|(e, i)| (*e, i)).collect::<Vec<_>>(),
    );
    assert!(differences.is_empty(), "{differences:#?}");
}

#[test]
fn project_hooks_load_only_in_a_trusted_folder_and_are_skipped_silently_otherwise() {
    let Some((copilot, sb, rec)) = setup("copilot-project") else {
        return;
    };
    record(&Copilot::project_hooks(&sb, "e2e"), &rec, &["preToolUse"]);
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("ls".into()),
        Step::Text("done".into()),
        Step::Shell("ls".into()),
        Step::Text("done".into()),
    ]));
    let untrusted = copilot.run(&sb, &server, Folder::Untrusted, "list", &[]);
    assert!(untrusted.finished.success(), "{}", untrusted.evidence());
    assert!(rec.calls().is_empty(), "{}", untrusted.evidence());
    assert!(
        !untrusted.log.contains(".github/hooks"),
        "the log mentions the skipped file"
    );
    let trusted = copilot.run(&sb, &server, Folder::Trusted, "list", &[]);
    assert_eq!(rec.events(), ["preToolUse"], "{}", trusted.evidence());
    assert_eq!(
        trusted
            .log_lines("Loading repo hooks in prompt mode (folder is trusted or opt-in set)")
            .len(),
        1,
        "{}",
        trusted.evidence()
    );
}

#[test]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason() {
    let Some((copilot, sb, rec)) = setup("copilot-deny") else {
        return;
    };
    record(&user_file(&sb), &rec, &["preToolUse"]);
    rec.answer(
        "preToolUse",
        &Answer::json(&json!({
            "permissionDecision": "deny", "permissionDecisionReason": "e2e: no rm -rf",
        })),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "delete the victim", &[]);
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert_eq!(
        server.tool_texts(),
        ["Denied by preToolUse hook: e2e: no rm -rf"]
    );
    assert!(run.finished.success(), "{}", run.evidence());
    no_failed_hooks(&run);
}

/// Copilot CLI 1.0.102 fails closed on preToolUse: a hook that exits non-zero denies the call.
/// Exit 2 denies with a fixed text (its stderr is not passed on); any other non-zero exit is a
/// hook error that denies naming the file; output that is not JSON is ignored.
#[test]
fn pre_tool_use_denies_on_every_non_zero_exit_and_ignores_garbage() {
    let Some((copilot, sb, rec)) = setup("copilot-exit-codes") else {
        return;
    };
    let file = user_file(&sb);
    record(&file, &rec, &["preToolUse"]);
    for (i, answer) in [
        Answer::exit(2, "e2e: exit 2"),
        Answer::exit(1, "e2e: exit 1"),
        Answer::exit(3, "e2e: exit 3"),
        Answer::text("this is not json {"),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("preToolUse", i + 1, answer);
    }
    let names = ["v1", "v2", "v3", "v4"];
    let kept = sb.victims(&names);
    let mut steps: Vec<Step> = names
        .iter()
        .map(|n| Step::Shell(format!("rm -rf {n}")))
        .collect();
    steps.push(Step::Text("done".into()));
    let server = ModelServer::start(Script::new(steps));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "delete them", &[]);
    let survived: Vec<bool> = kept.iter().map(|k| k.exists()).collect();
    assert_eq!(
        survived,
        [true, true, true, false],
        "exit 2, exit 1, exit 3, garbage\n{}",
        run.evidence()
    );
    let errored = format!(
        "Denied by preToolUse hook from \"{}\" (hook errored)",
        file.display()
    );
    let results = server.tool_texts();
    assert_eq!(
        results[..3],
        [
            "Denied by preToolUse hook: hook exited with code 2".to_owned(),
            errored.clone(),
            errored,
        ],
        "{results:?}"
    );
    let failed = run.failed_hooks();
    assert_eq!(failed.len(), 2, "{}", run.evidence());
    assert!(failed[0].contains("Hook command failed with code 1\\nStderr: e2e: exit 1"));
    assert_eq!(
        run.log_lines("(fail-closed): Error: Hook command failed with code 3")
            .len(),
        1,
        "{}",
        run.evidence()
    );
}

#[test]
fn a_missing_hook_binary_denies_the_call() {
    let Some((copilot, sb, _rec)) = setup("copilot-missing") else {
        return;
    };
    let file = user_file(&sb);
    add_native(
        &file,
        "preToolUse",
        json!({"type": "command", "bash": "/nonexistent/hooks copilot preToolUse", "timeoutSec": 30}),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "delete the victim", &[]);
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert_eq!(
        server.tool_texts(),
        [format!(
            "Denied by preToolUse hook from \"{}\" (hook errored)",
            file.display()
        )]
    );
    assert!(
        run.failed_hooks()
            .iter()
            .any(|f| f.contains("Hook command failed with code 127")),
        "{}",
        run.evidence()
    );
}

#[test]
fn a_hanging_hook_lets_the_call_proceed_after_its_timeout() {
    let Some((copilot, sb, _rec)) = setup("copilot-hang") else {
        return;
    };
    add_native(
        &user_file(&sb),
        "preToolUse",
        json!({"type": "command", "bash": "/bin/sleep 30", "timeoutSec": 2}),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "delete the victim", &[]);
    assert!(!kept[0].exists(), "rm -rf did not run:\n{}", run.evidence());
    assert_eq!(
        run.log_lines("timed out; allowing the tool call to proceed: HookTimeoutError: Hook command timed out after 2 seconds")
            .len(),
        1,
        "{}",
        run.evidence()
    );
}

#[test]
fn post_tool_use_modified_result_is_what_the_model_gets() {
    let Some((copilot, sb, rec)) = setup("copilot-modified-result") else {
        return;
    };
    record(&user_file(&sb), &rec, &["postToolUse"]);
    rec.answer(
        "postToolUse",
        &Answer::json(
            &json!({"modifiedResult": {"resultType": "success", "textResultForLlm": REDACTED}}),
        ),
    );
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::shell_then("cat secret.env", "read"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "show secret.env", &[]);
    assert_eq!(server.tool_texts(), [REDACTED], "{}", run.evidence());
    assert_eq!(server.received(SECRET), Vec::<String>::new());
    no_failed_hooks(&run);
}

#[test]
fn post_tool_use_additional_context_is_appended_as_guidance() {
    let Some((copilot, sb, rec)) = setup("copilot-post-context") else {
        return;
    };
    record(&user_file(&sb), &rec, &["postToolUse"]);
    rec.answer(
        "postToolUse",
        &Answer::json(&json!({"additionalContext": "e2e-guidance"})),
    );
    let server = ModelServer::start(Script::shell_then("echo hi", "done"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "say hi", &[]);
    let results = server.tool_texts();
    assert!(
        results[0].ends_with(
            "\n\nTool \"bash\" succeeded. Additional guidance from postToolUse hooks:\ne2e-guidance"
        ),
        "{results:?}\n{}",
        run.evidence()
    );
}

/// In Claude's format a PostToolUse `decision: "block"` withholds the result (the model gets
/// `Tool result blocked: REASON`); `updatedToolOutput` is ignored; `modifiedResult` works there
/// too.
#[test]
fn in_claude_format_a_post_tool_use_block_withholds_the_result_and_updated_tool_output_is_ignored()
{
    let Some((copilot, sb, rec)) = setup("copilot-claude-post") else {
        return;
    };
    let path = user_file(&sb);
    fixtures::add_group(
        &path,
        "PostToolUse",
        json!({"hooks": [{"type": "command", "command": rec.command("PostToolUse")}]}),
    );
    for (i, answer) in [
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"decision": "block", "reason": REDACTED}),
        json!({"modifiedResult": {"resultType": "success", "textResultForLlm": REDACTED}}),
    ]
    .iter()
    .enumerate()
    {
        rec.answer_call("PostToolUse", i + 1, &Answer::json(answer));
    }
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("cat secret.env".into()),
        Step::Shell("cat secret.env".into()),
        Step::Shell("cat secret.env".into()),
        Step::Text("read".into()),
    ]));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "show secret.env", &[]);
    let results = server.tool_texts();
    assert_eq!(results.len(), 3, "{}", run.evidence());
    assert!(results[0].contains(SECRET), "{results:?}");
    assert_eq!(results[1], format!("Tool result blocked: {REDACTED}"));
    assert_eq!(results[2], REDACTED);
}

#[test]
fn user_prompt_submitted_block_keeps_the_prompt_from_the_model_and_warns() {
    let Some((copilot, sb, rec)) = setup("copilot-prompt-block") else {
        return;
    };
    record(&user_file(&sb), &rec, &["userPromptSubmitted"]);
    rec.answer(
        "userPromptSubmitted",
        &Answer::json(&json!({"decision": "block", "reason": "e2e: /handoff answered"})),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "/handoff", &[]);
    assert_eq!(rec.inputs("userPromptSubmitted")[0]["prompt"], "/handoff");
    assert!(server.model_turns().is_empty(), "{}", run.evidence());
    assert_eq!(run.finished.code(), Some(1), "{}", run.evidence());
    assert_eq!(run.result_exit_code(), Some(1));
    let warning = run
        .events
        .iter()
        .find(|e| e["type"] == "session.warning")
        .map(|e| e["data"].clone());
    assert_eq!(
        warning.as_ref().map(|w| (&w["warningType"], &w["message"])),
        Some((&json!("policy_blocked"), &json!("e2e: /handoff answered"))),
        "{}",
        run.evidence()
    );
}

#[test]
fn user_prompt_submitted_rewrites_the_prompt_and_adds_a_system_reminder() {
    let Some((copilot, sb, rec)) = setup("copilot-prompt-rewrite") else {
        return;
    };
    record(
        &user_file(&sb),
        &rec,
        &["userPromptSubmitted", "sessionStart"],
    );
    rec.answer(
        "userPromptSubmitted",
        &Answer::json(
            &json!({"modifiedPrompt": "e2e-modified", "additionalContext": "e2e-prompt-context"}),
        ),
    );
    rec.answer(
        "sessionStart",
        &Answer::json(&json!({"additionalContext": "e2e-session-context"})),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "hello", &[]);
    let users = user_messages(&server);
    assert_eq!(users.len(), 2, "{users:?}\n{}", run.evidence());
    assert_eq!(users[0], "e2e-session-context");
    assert!(
        users[1].ends_with(
            "\n\ne2e-modified\n\n<system_reminder>\ne2e-prompt-context\n</system_reminder>"
        ) && users[1].starts_with("<current_datetime>"),
        "{users:?}"
    );
    assert!(!users[1].contains("hello"));
}

/// HTTP hooks: a plain-http URL on an authorization event (preToolUse) is skipped with an error
/// in the log (and the call runs) unless `COPILOT_HOOK_ALLOW_LOCALHOST=1`; then the body is the
/// command hook's input and the answer decides; a URL that refuses the connection denies.
#[test]
fn http_pre_tool_use_hooks_need_allow_localhost_and_fail_closed() {
    let Some((copilot, sb, _rec)) = setup("copilot-http") else {
        return;
    };
    let mut script = Script::new(vec![
        Step::Shell("rm -rf v1".into()),
        Step::Text("done".into()),
        Step::Shell("rm -rf v2".into()),
        Step::Text("done".into()),
    ]);
    script.hook_answers = vec![(
        "preToolUse".into(),
        json!({"permissionDecision": "deny", "permissionDecisionReason": "e2e: http deny"}),
    )];
    let server = ModelServer::start(script);
    let file = user_file(&sb);
    add_native(
        &file,
        "preToolUse",
        json!({"type": "http", "url": format!("{}/hook/preToolUse", server.url()), "timeoutSec": 10}),
    );
    let kept = sb.victims(&["v1", "v2"]);
    let plain = copilot.run(&sb, &server, Folder::Untrusted, "delete v1", &[]);
    assert!(!kept[0].exists(), "v1 survived:\n{}", plain.evidence());
    assert!(server.hook_calls("preToolUse").is_empty());
    assert!(
        plain
            .log_lines("must use https:// to protect response integrity (set COPILOT_HOOK_ALLOW_HTTP_AUTH_HOOKS=1 to override, or use localhost with COPILOT_HOOK_ALLOW_LOCALHOST=1) — hook will be skipped")
            .iter()
            .any(|l| l.contains("[ERROR]")),
        "{}",
        plain.evidence()
    );
    let allowed = copilot.run(
        &sb,
        &server,
        Folder::Untrusted,
        "delete v2",
        &[("COPILOT_HOOK_ALLOW_LOCALHOST", "1")],
    );
    assert!(kept[1].exists(), "v2 was deleted:\n{}", allowed.evidence());
    let calls = server.hook_calls("preToolUse");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["toolName"], "bash");
    assert_eq!(calls[0]["toolArgs"]["command"], "rm -rf v2");
    assert!(
        server
            .tool_texts()
            .iter()
            .any(|r| r == "Denied by preToolUse hook: e2e: http deny")
    );
}

#[test]
fn an_unreachable_http_hook_denies_the_call() {
    let Some((copilot, sb, _rec)) = setup("copilot-http-down") else {
        return;
    };
    let file = user_file(&sb);
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    add_native(
        &file,
        "preToolUse",
        json!({"type": "http", "url": "http://127.0.0.1:9/hook/preToolUse", "timeoutSec": 5}),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(
        &sb,
        &server,
        Folder::Untrusted,
        "delete the victim",
        &[("COPILOT_HOOK_ALLOW_LOCALHOST", "1")],
    );
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert!(
        run.log_lines("(fail-closed): Error: HTTP hook fetch failed: POST http://127.0.0.1:9/hook/preToolUse (code=ECONNREFUSED)")
            .len()
            == 1,
        "{}",
        run.evidence()
    );
}

#[test]
fn pre_tool_use_modified_args_replace_the_arguments() {
    let Some((copilot, sb, rec)) = setup("copilot-modified-args") else {
        return;
    };
    record(&user_file(&sb), &rec, &["preToolUse"]);
    rec.answer(
        "preToolUse",
        &Answer::json(&json!({
            "permissionDecision": "allow",
            "modifiedArgs": {"command": "echo e2e-rewritten", "description": "e2e"},
        })),
    );
    let kept = sb.victims(&["victim"]);
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(&sb, &server, Folder::Untrusted, "delete the victim", &[]);
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert_eq!(
        server.tool_texts(),
        ["e2e-rewritten\n<shellId: 0 completed with exit code 0>"]
    );
}
