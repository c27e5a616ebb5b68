//! Gemini CLI 0.61.0: its hook protocol, measured with a recorder hook (no hooks adapter).
//!
//! Hooks are command hooks in `settings.json` (`~/.gemini/` or the project's `.gemini/`),
//! `{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command", "command", "name"?,
//! "timeout" (ms)}]}]}}`, each run as `bash -c COMMAND` with the input JSON on stdin.

use std::time::Duration;

use serde_json::{Value, json};

use super::protocol::{self, Case, Gate, assert_success};
use crate::agent::gemini::Gemini;
use crate::agent::{AgentRun, Folder, HookFailures, assert_no_hook_failure};
use crate::fixtures::{self, Answer, SECRET, secret_line};
use crate::model::{ModelServer, Script, gemini::function_responses};

/// Every event of Gemini CLI 0.61.0.
const EVENTS: [&str; 11] = [
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
];

/// A recorder scenario of Gemini CLI whose model runs `ls`, then says `listed`.
fn listing(name: &str) -> Case<Gemini> {
    Case::new(name, Script::shell_then("ls", "listed"))
}

/// What the model received from each tool call: the `functionResponse.response` objects, in
/// order (each request repeats the history; every call is listed once).
fn responses(server: &ModelServer) -> Vec<Value> {
    let mut seen: Vec<Value> = Vec::new();
    for request in server.model_turns() {
        for response in function_responses(&request.body) {
            if !seen.iter().any(|r| r["id"] == response["id"]) {
                seen.push(response.clone());
            }
        }
    }
    seen.into_iter().map(|r| r["response"].clone()).collect()
}

fn blocked(reason: &str) -> Value {
    json!({ "error": format!("Tool execution blocked: {reason}") })
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_headless_run_fires_these_events_with_these_inputs() {
    let (case, run) = protocol::a_listing_run::<Gemini>("gemini-events", "ls", &EVENTS, "gemini");
    let mut fired = case.rec.events();
    fired.dedup();
    // PreCompress (trigger "auto") fires before every model turn, compression or not.
    assert_eq!(
        fired,
        [
            "SessionStart",
            "BeforeAgent",
            "PreCompress",
            "BeforeModel",
            "BeforeToolSelection",
            "AfterModel",
            "BeforeTool",
            "AfterTool",
            "PreCompress",
            "BeforeModel",
            "BeforeToolSelection",
            "AfterModel",
            "AfterAgent",
            "SessionEnd",
        ],
        "{}",
        run.evidence()
    );
    let calls = case.rec.calls();
    assert!(
        calls.iter().all(|c| c.argv.len() == 1),
        "the recorder got more than its event: {:?}",
        calls.iter().map(|c| &c.argv).collect::<Vec<_>>()
    );
    for call in &calls {
        let input = &call.input;
        for field in [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "timestamp",
        ] {
            assert!(
                input[field].is_string(),
                "{}: no {field}: {input}",
                call.event()
            );
        }
        assert_eq!(input["hook_event_name"], call.event());
        assert_eq!(input["cwd"], json!(case.sb.project), "{input}");
    }
    let before_tool = &case.rec.inputs("BeforeTool")[0];
    assert_eq!(before_tool["tool_name"], "run_shell_command");
    assert_eq!(before_tool["tool_input"], json!({"command": "ls"}));
    let after_tool = &case.rec.inputs("AfterTool")[0];
    assert!(
        after_tool["tool_response"]["llmContent"]
            .as_str()
            .is_some_and(|c| c.contains("listed-file.txt")),
        "{after_tool}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn project_hooks_run_in_a_trusted_folder_after_a_warning() {
    let case = listing("gemini-project");
    case.record_in_the_project(&["BeforeTool"]);
    let run = case.run("list the files");
    assert_success(&run);
    assert_eq!(case.rec.events(), ["BeforeTool"], "{}", run.evidence());
    assert!(
        run.finished.stderr.contains(
            "WARNING: The following project-level hooks have been detected in this workspace:\n  - rec-BeforeTool"
        ),
        "{}",
        run.finished.stderr
    );
    let trusted = fixtures::read_settings(&case.sb.home.join(".gemini/trusted_hooks.json"));
    assert_eq!(
        trusted[case.sb.project.display().to_string()],
        json!([format!("rec-BeforeTool:{}", case.rec.command("BeforeTool"))]),
        "{trusted}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_untrusted_folder_refuses_a_headless_run() {
    let case = listing("gemini-untrusted");
    case.record_in_the_project(&["BeforeTool"]);
    let run = case.agent.run_in(
        &case.sb,
        &case.server,
        Folder::Untrusted,
        "list the files",
        crate::agent::RUN_LIMIT,
    );
    assert_eq!(run.finished.code(), Some(55), "{}", run.evidence());
    assert!(
        run.finished
            .stderr
            .contains("Gemini CLI is not running in a trusted directory"),
        "{}",
        run.finished.stderr
    );
    assert!(case.server.model_turns().is_empty());
    assert!(case.rec.calls().is_empty());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn before_tool_deny_blocks_and_the_model_gets_the_reason_as_an_error() {
    let deny = Answer::json(&json!({"decision": "deny", "reason": "e2e: no rm -rf"}));
    let (case, run) =
        protocol::rm_rf::<Gemini>("gemini-deny", &["victim"], Gate::Answer(deny), &[true]);
    assert_eq!(responses(&case.server), [blocked("e2e: no rm -rf")]);
    assert_success(&run);
    assert_no_hook_failure(&run);
}

/// A command hook's exit code and output, as Gemini CLI 0.61.0 reads them: stdout (else stderr)
/// that is JSON decides; plain text with exit 0 is a system message, with exit 1 a warning,
/// with any other code a deny whose reason is that text; exit 2 with no output at all decides
/// nothing.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn before_tool_blocks_on_an_exit_code_above_1_with_a_message_and_nowhere_else() {
    // Exit 2 + stderr, exit 2 silent, exit 1, exit 3, garbage, exit 2 + JSON allow.
    let answers = [
        protocol::exit(2),
        Answer::exit(2, ""),
        protocol::exit(1),
        protocol::exit(3),
        protocol::garbage(),
        Answer {
            stdout: json!({"decision": "allow"}).to_string(),
            stderr: "e2e: exit 2 with JSON".into(),
            code: 2,
            sleep: None,
        },
    ];
    let (case, run) = protocol::rm_rf::<Gemini>(
        "gemini-exit-codes",
        &["v1", "v2", "v3", "v4", "v5", "v6"],
        Gate::Calls(&answers),
        &[true, false, false, true, false, false],
    );
    assert_success(&run);
    let responses = responses(&case.server);
    assert_eq!(responses[0], blocked("e2e: exit 2"));
    assert_eq!(responses[3], blocked("e2e: exit 3"));
    assert!(
        run.log_lines("Hook system message: Warning: e2e: exit 1")
            .len()
            == 1
    );
    assert!(
        run.log_lines("Hook system message: this is not json {")
            .len()
            == 1,
        "{}",
        run.evidence()
    );
    // Every exit other than 0 counts as a failed hook in the log.
    assert_eq!(
        run.log_lines("Hook(s) [rec-BeforeTool] failed for event BeforeTool")
            .len(),
        2 * 5,
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_blocks_the_tool_with_the_shells_message() {
    let missing = json!({"type": "command", "command": "/nonexistent/hooks gemini BeforeTool", "name": "missing"});
    let (case, run) = protocol::rm_rf::<Gemini>(
        "gemini-missing",
        &["victim"],
        Gate::Handler(missing),
        &[true],
    );
    assert_eq!(
        responses(&case.server),
        [blocked(
            "bash: line 1: /nonexistent/hooks: No such file or directory"
        )]
    );
    assert!(
        run.hook_failures()
            .iter()
            .any(|l| l.contains("Hook(s) [missing] failed for event BeforeTool")),
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_hanging_hook_lets_the_tool_run_after_its_timeout() {
    let hang =
        json!({"type": "command", "command": "/bin/sleep 30", "name": "hang", "timeout": 2000});
    let (_case, run) =
        protocol::rm_rf::<Gemini>("gemini-hang", &["victim"], Gate::Handler(hang), &[false]);
    assert!(
        run.hook_failures()
            .iter()
            .any(|l| l == "Hook execution error: Hook timed out after 2000ms"),
        "{}",
        run.evidence()
    );
    assert_success(&run);
}

/// An `ask` cannot be answered in a headless run: Gemini CLI waits for a confirmation that never
/// comes (killed here after 20 s), so an adapter must never answer `ask` to `gemini -p`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_ask_decision_waits_forever_in_a_headless_run() {
    let case = Case::<Gemini>::new("gemini-ask", Script::shell_then("rm -rf victim", "done"));
    case.record(&["BeforeTool"]);
    case.rec.answer(
        "BeforeTool",
        &Answer::json(&json!({"decision": "ask", "reason": "e2e: sure?"})),
    );
    let kept = case.sb.victims(&["victim"]);
    let run = case.agent.run_in(
        &case.sb,
        &case.server,
        Folder::Trusted,
        "delete the victim",
        Duration::from_secs(20),
    );
    assert_eq!(run.finished.status, None, "it ended:\n{}", run.evidence());
    assert!(kept[0].exists());
    assert_eq!(case.server.model_turns().len(), 1);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn before_tool_tool_input_merges_into_the_arguments_and_the_model_is_told() {
    let rewrite = Answer::json(&json!({"hookSpecificOutput": {
        "hookEventName": "BeforeTool", "tool_input": {"command": "echo e2e-rewritten"},
    }}));
    let (case, _run) = protocol::rm_rf::<Gemini>(
        "gemini-rewrite",
        &["victim"],
        Gate::Answer(rewrite),
        &[true],
    );
    let output = responses(&case.server)[0]["output"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        output.contains("Output: e2e-rewritten")
            && output.ends_with(
                "\n\n[System] Tool input parameters were modified by a hook before execution."
            ),
        "{output:?}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn after_tool_deny_replaces_the_result_with_the_reason_as_an_error() {
    let case = Case::<Gemini>::new(
        "gemini-after-deny",
        Script::shell_then("cat secret.env", "read"),
    );
    case.record(&["AfterTool"]);
    case.rec.answer(
        "AfterTool",
        &Answer::json(&json!({"decision": "deny", "reason": fixtures::REDACTED})),
    );
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    assert_success(&run);
    assert_eq!(
        responses(&case.server),
        [json!({ "error": fixtures::REDACTED })]
    );
    assert_eq!(case.server.received(SECRET), Vec::<String>::new());
    // The hook itself sees the result as the tool made it.
    let seen = &case.rec.inputs("AfterTool")[0]["tool_response"];
    assert!(
        seen["llmContent"]
            .as_str()
            .is_some_and(|c| c.contains(SECRET)),
        "{seen}"
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn after_tool_additional_context_is_appended_escaped() {
    let case = Case::<Gemini>::new(
        "gemini-after-context",
        Script::shell_then("echo hi", "done"),
    );
    case.record(&["AfterTool"]);
    case.rec.answer(
        "AfterTool",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "AfterTool", "additionalContext": "e2e <context>",
        }})),
    );
    let run = case.run("say hi");
    let output = responses(&case.server)[0]["output"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        output.ends_with("\n\n<hook_context>e2e &lt;context&gt;</hook_context>"),
        "{output:?}\n{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn before_agent_deny_answers_a_slash_prompt_without_the_model() {
    let deny = Answer::json(&json!({"decision": "deny", "reason": "e2e: /handoff answered"}));
    let (_case, run) = protocol::a_blocked_prompt::<Gemini>("gemini-slash", "BeforeAgent", &deny);
    assert_success(&run);
    assert_eq!(run.response(), Some(""));
    assert_eq!(
        run.warnings(),
        ["Agent execution blocked: e2e: /handoff answered"],
        "{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_context_is_prepended_to_the_prompt_and_before_agent_context_follows_it() {
    let events = ["SessionStart", "BeforeAgent"];
    let contexts = [
        ("SessionStart", "e2e-session-context"),
        ("BeforeAgent", "e2e-prompt-context"),
    ];
    let (_case, _run, body) =
        protocol::a_run_with_context::<Gemini>("gemini-context", &events, &contexts, "hello");
    let parts: Vec<&str> = body["contents"][0]["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .skip(1) // the session context Gemini CLI sends first
        .collect();
    assert_eq!(
        parts,
        [
            "<hook_context>e2e-session-context</hook_context>\n\nhello",
            "<hook_context>e2e-prompt-context</hook_context>",
        ]
    );
}

/// BeforeModel sees and rewrites only the text of the request (`llm_request.messages`, one per
/// content with text): a tool's result (a `functionResponse` part) is neither shown to the hook
/// nor replaced, so BeforeModel cannot keep a secret from the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn before_model_rewrites_text_only_and_a_tool_result_still_reaches_the_model() {
    let case = Case::<Gemini>::new(
        "gemini-before-model",
        Script::shell_then("cat secret.env", "read"),
    );
    case.record(&["BeforeModel"]);
    case.rec.answer(
        "BeforeModel",
        &Answer::json(&json!({"hookSpecificOutput": {
            "hookEventName": "BeforeModel",
            "llm_request": {"messages": [{"role": "user", "content": "e2e-rewritten prompt"}]},
        }})),
    );
    case.sb.write("secret.env", format!("{}\n", secret_line()));
    let run = case.run("show secret.env");
    assert_success(&run);
    let seen = case.rec.inputs("BeforeModel");
    assert_eq!(seen.len(), 2);
    for input in &seen {
        let messages = input["llm_request"]["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(messages.len(), 1, "the hook saw {messages:?}");
        assert!(!input.to_string().contains(SECRET));
    }
    let turns = case.server.model_turns();
    for turn in &turns {
        assert_eq!(
            turn.body["contents"][0]["parts"],
            json!([{"text": "e2e-rewritten prompt"}]),
            "{}",
            turn.body
        );
    }
    assert!(
        case.server
            .received(SECRET)
            .iter()
            .any(|r| r.starts_with("request 1 ")),
        "{:?}",
        case.server.received(SECRET)
    );
}
