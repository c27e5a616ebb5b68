//! Copilot CLI 1.0.102 (offline, BYOK): its hook protocol, measured with a recorder hook (no
//! hooks adapter).
//!
//! Hook files are `~/.copilot/hooks/*.json` and, in a trusted folder, `.github/hooks/*.json`,
//! in Copilot's own format `{"version": 1, "hooks": {event: [{"type": "command", "bash",
//! "timeoutSec"}]}}` (camelCase events and payloads) or Claude's (`{"hooks": {Event:
//! [{"hooks": [{"type": "command", "command"}]}]}}`, snake_case payloads); each command runs as
//! `bash -c` with the input JSON on stdin.

use serde_json::{Value, json};

use super::protocol::{self, Case, Gate, assert_success};
use crate::agent::copilot::{Copilot, CopilotRun};
use crate::agent::{AgentRun, Folder};
use crate::fixtures::{self, Answer, REDACTED, SECRET, secret_line};
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

/// What the model gets for a call that a preToolUse hook of the user's hook file denied by
/// failing.
fn hook_errored(case: &Case<Copilot>) -> String {
    format!(
        "Denied by preToolUse hook from \"{}\" (hook errored)",
        case.user_hooks().display()
    )
}

/// An untrusted run with `COPILOT_HOOK_ALLOW_LOCALHOST=1`.
fn allowing_localhost(case: &Case<Copilot>, prompt: &str) -> CopilotRun {
    case.agent.run_in(
        &case.sb,
        &case.server,
        Folder::Untrusted,
        prompt,
        &[("COPILOT_HOOK_ALLOW_LOCALHOST", "1")],
    )
}

fn no_failed_hooks(run: &CopilotRun) {
    assert!(run.failed_hooks().is_empty(), "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_prompt_run_fires_these_events_with_camel_case_inputs() {
    let (case, run) =
        protocol::a_listing_run::<Copilot>("copilot-events", "ls", &EVENTS, "copilot");
    assert_eq!(
        case.rec.events(),
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
    for call in case.rec.calls() {
        assert!(call.input["sessionId"].is_string(), "{}", call.input);
        assert!(call.input["timestamp"].is_number(), "{}", call.input);
        assert_eq!(call.input["cwd"], json!(case.sb.project), "{}", call.input);
        assert!(
            call.input.get("hook_event_name").is_none(),
            "{}",
            call.input
        );
    }
    let pre = &case.rec.inputs("preToolUse")[0];
    assert_eq!(pre["toolName"], "bash");
    // An object, not a JSON string.
    assert_eq!(
        pre["toolArgs"],
        json!({"command": "ls", "description": "e2e"})
    );
    let post = &case.rec.inputs("postToolUse")[0];
    assert_eq!(post["toolResult"]["resultType"], "success");
    assert!(
        post["toolResult"]["textResultForLlm"]
            .as_str()
            .is_some_and(|t| t.contains("listed-file.txt")),
        "{post}"
    );
    let permission = &case.rec.inputs("permissionRequest")[0];
    assert_eq!(permission["hookName"], "permissionRequest");
    assert_eq!(permission["toolInput"], json!({"command": "ls"}));
}

/// In Claude's format the payloads are snake_case with `hook_event_name` and the shell tool is
/// `Bash`; `PermissionRequest` keeps Copilot's own camelCase payload.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_claude_format_file_gets_snake_case_inputs_and_the_tool_name_bash_capitalised() {
    let case = Case::<Copilot>::new("copilot-claude-events", Script::shell_then("ls", "listed"));
    for event in CLAUDE_EVENTS {
        fixtures::add_group(
            &case.user_hooks(),
            event,
            json!({"hooks": [{"type": "command", "command": case.rec.command(event), "timeout": 30}]}),
        );
    }
    let run = case.run("list the files");
    assert_success(&run);
    assert_eq!(
        case.rec.events(),
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
    let pre = &case.rec.inputs("PreToolUse")[0];
    assert_eq!(pre["hook_event_name"], "PreToolUse");
    assert_eq!(pre["tool_name"], "Bash");
    assert_eq!(
        pre["tool_input"],
        json!({"command": "ls", "description": "e2e"})
    );
    assert!(pre["timestamp"].is_string(), "{pre}");
    let post = &case.rec.inputs("PostToolUse")[0];
    assert_eq!(post["tool_result"]["result_type"], "success", "{post}");
    let permission = &case.rec.inputs("PermissionRequest")[0];
    assert_eq!(permission["toolName"], "bash", "{permission}");
    case.assert_inputs_match_fixtures("copilot-claude", &CLAUDE_EVENTS);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn project_hooks_load_only_in_a_trusted_folder_and_are_skipped_silently_otherwise() {
    let case = Case::<Copilot>::new("copilot-project", protocol::two_listings());
    case.record_in_the_project(&["preToolUse"]);
    let untrusted = case.run("list");
    assert_success(&untrusted);
    assert!(case.rec.calls().is_empty(), "{}", untrusted.evidence());
    assert!(
        !untrusted.log.contains(".github/hooks"),
        "the log mentions the skipped file"
    );
    let trusted = case
        .agent
        .run_in(&case.sb, &case.server, Folder::Trusted, "list", &[]);
    assert_eq!(case.rec.events(), ["preToolUse"], "{}", trusted.evidence());
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_deny_blocks_and_the_model_gets_the_reason() {
    let deny = Answer::json(&json!({
        "permissionDecision": "deny", "permissionDecisionReason": "e2e: no rm -rf",
    }));
    let (case, run) =
        protocol::rm_rf::<Copilot>("copilot-deny", &["victim"], Gate::Answer(deny), &[true]);
    assert_eq!(
        case.server.tool_texts(),
        ["Denied by preToolUse hook: e2e: no rm -rf"]
    );
    assert_success(&run);
    no_failed_hooks(&run);
}

/// Copilot CLI 1.0.102 fails closed on preToolUse: a hook that exits non-zero denies the call.
/// Exit 2 denies with a fixed text (its stderr is not passed on); any other non-zero exit is a
/// hook error that denies naming the file; output that is not JSON is ignored.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_denies_on_every_non_zero_exit_and_ignores_garbage() {
    let (case, run) = protocol::exits_2_1_3_and_garbage::<Copilot>(
        "copilot-exit-codes",
        [true, true, true, false],
    );
    let errored = hook_errored(&case);
    let results = case.server.tool_texts();
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_denies_the_call() {
    let missing = json!({"type": "command", "bash": "/nonexistent/hooks copilot preToolUse", "timeoutSec": 30});
    let (case, run) = protocol::rm_rf::<Copilot>(
        "copilot-missing",
        &["victim"],
        Gate::Handler(missing),
        &[true],
    );
    assert_eq!(case.server.tool_texts(), [hook_errored(&case)]);
    assert!(
        run.failed_hooks()
            .iter()
            .any(|f| f.contains("Hook command failed with code 127")),
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_hanging_hook_lets_the_call_proceed_after_its_timeout() {
    let hang = json!({"type": "command", "bash": "/bin/sleep 30", "timeoutSec": 2});
    let (_case, run) =
        protocol::rm_rf::<Copilot>("copilot-hang", &["victim"], Gate::Handler(hang), &[false]);
    assert_eq!(
        run.log_lines("timed out; allowing the tool call to proceed: HookTimeoutError: Hook command timed out after 2 seconds")
            .len(),
        1,
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_modified_result_is_what_the_model_gets() {
    let case = Case::<Copilot>::new(
        "copilot-modified-result",
        Script::shell_then("cat secret.env", "read"),
    );
    case.record(&["postToolUse"]);
    case.rec.answer(
        "postToolUse",
        &Answer::json(
            &json!({"modifiedResult": {"resultType": "success", "textResultForLlm": REDACTED}}),
        ),
    );
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    assert_eq!(case.server.tool_texts(), [REDACTED], "{}", run.evidence());
    assert_eq!(case.server.received(SECRET), Vec::<String>::new());
    no_failed_hooks(&run);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_additional_context_is_appended_as_guidance() {
    let case = Case::<Copilot>::new(
        "copilot-post-context",
        Script::shell_then("echo hi", "done"),
    );
    case.record(&["postToolUse"]);
    case.rec.answer(
        "postToolUse",
        &Answer::json(&json!({"additionalContext": "e2e-guidance"})),
    );
    let run = case.run("say hi");
    let results = case.server.tool_texts();
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn in_claude_format_a_post_tool_use_block_withholds_the_result_and_updated_tool_output_is_ignored()
{
    let cat = "cat secret.env";
    let case = Case::<Copilot>::new(
        "copilot-claude-post",
        Script::shells_then(&[cat, cat, cat], "read"),
    );
    fixtures::add_group(
        &case.user_hooks(),
        "PostToolUse",
        json!({"hooks": [{"type": "command", "command": case.rec.command("PostToolUse")}]}),
    );
    for (i, answer) in [
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": REDACTED}}),
        json!({"decision": "block", "reason": REDACTED}),
        json!({"modifiedResult": {"resultType": "success", "textResultForLlm": REDACTED}}),
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
    assert_eq!(results[1], format!("Tool result blocked: {REDACTED}"));
    assert_eq!(results[2], REDACTED);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn user_prompt_submitted_block_keeps_the_prompt_from_the_model_and_warns() {
    let block = Answer::json(&json!({"decision": "block", "reason": "e2e: /handoff answered"}));
    let (_case, run) = protocol::a_blocked_prompt::<Copilot>(
        "copilot-prompt-block",
        "userPromptSubmitted",
        &block,
    );
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn user_prompt_submitted_rewrites_the_prompt_and_adds_a_system_reminder() {
    let case = Case::<Copilot>::new(
        "copilot-prompt-rewrite",
        Script::new(vec![Step::Text("hi".into())]),
    );
    case.record(&["userPromptSubmitted", "sessionStart"]);
    case.rec.answer(
        "userPromptSubmitted",
        &Answer::json(
            &json!({"modifiedPrompt": "e2e-modified", "additionalContext": "e2e-prompt-context"}),
        ),
    );
    case.rec.answer(
        "sessionStart",
        &Answer::json(&json!({"additionalContext": "e2e-session-context"})),
    );
    let run = case.run("hello");
    let users = user_messages(&case.server);
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn http_pre_tool_use_hooks_need_allow_localhost_and_fail_closed() {
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
    let case = Case::<Copilot>::new("copilot-http", script);
    case.hook(
        "preToolUse",
        json!({"type": "http", "url": format!("{}/hook/preToolUse", case.server.url()), "timeoutSec": 10}),
    );
    let kept = case.sb.victims(&["v1", "v2"]);
    let plain = case.run("delete v1");
    assert!(!kept[0].exists(), "v1 survived:\n{}", plain.evidence());
    assert!(case.server.hook_calls("preToolUse").is_empty());
    assert!(
        plain
            .log_lines("must use https:// to protect response integrity (set COPILOT_HOOK_ALLOW_HTTP_AUTH_HOOKS=1 to override, or use localhost with COPILOT_HOOK_ALLOW_LOCALHOST=1) — hook will be skipped")
            .iter()
            .any(|l| l.contains("[ERROR]")),
        "{}",
        plain.evidence()
    );
    let allowed = allowing_localhost(&case, "delete v2");
    assert!(kept[1].exists(), "v2 was deleted:\n{}", allowed.evidence());
    let calls = case.server.hook_calls("preToolUse");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["toolName"], "bash");
    assert_eq!(calls[0]["toolArgs"]["command"], "rm -rf v2");
    assert!(
        case.server
            .tool_texts()
            .iter()
            .any(|r| r == "Denied by preToolUse hook: e2e: http deny")
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_unreachable_http_hook_denies_the_call() {
    let case = Case::<Copilot>::new(
        "copilot-http-down",
        Script::shell_then("rm -rf victim", "done"),
    );
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    case.hook(
        "preToolUse",
        json!({"type": "http", "url": "http://127.0.0.1:9/hook/preToolUse", "timeoutSec": 5}),
    );
    let kept = case.sb.victims(&["victim"]);
    let run = allowing_localhost(&case, "delete the victim");
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
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_tool_use_modified_args_replace_the_arguments() {
    let rewrite = Answer::json(&json!({
        "permissionDecision": "allow",
        "modifiedArgs": {"command": "echo e2e-rewritten", "description": "e2e"},
    }));
    let (case, _run) = protocol::rm_rf::<Copilot>(
        "copilot-modified-args",
        &["victim"],
        Gate::Answer(rewrite),
        &[true],
    );
    assert_eq!(
        case.server.tool_texts(),
        ["e2e-rewritten\n<shellId: 0 completed with exit code 0>"]
    );
}
