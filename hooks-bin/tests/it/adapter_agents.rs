//! The adapters of Gemini CLI, Copilot CLI, Qwen Code, Factory Droid and Cursor, called in
//! process with the inputs the real agents sent (`tests/fixtures/agents/<agent>/<Event>.json`,
//! recorded by the e2e suite; Cursor's from its documentation), and through the built binary;
//! and what every adapter, Claude Code's and Codex's too, tells the hooks.

use crate::common;

use std::path::Path;

use serde_json::{Value, json};

use common::{Call, call, canonical_options, failing_options, workdir};
use hookwright::prelude::*;
use hookwright_cli::agents::Protocol;
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::agents::copilot::Copilot;
use hookwright_cli::agents::cursor::Cursor;
use hookwright_cli::agents::droid::{self, Droid};
use hookwright_cli::agents::gemini::{self, Gemini};
use hookwright_cli::agents::qwen::Qwen;
use hookwright_cli::call::AdapterOptions;

const SECRET_LINE: &str = "API_KEY=sk-e2e-51f0c0ffee7e57ab1e";

/// The recorded input of `event` from `agent`, with `edit` applied.
fn fixture(agent: &str, event: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents")
        .join(agent)
        .join(format!("{event}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut value: Value = serde_json::from_str(&text).unwrap();
    edit(&mut value);
    serde_json::to_vec(&value).unwrap()
}

/// One call of `protocol` in `dir` (the fixtures' own `cwd` does not exist here).
fn run(protocol: &dyn Protocol, event: &str, bytes: &[u8], opts: AdapterOptions) -> Call {
    let dir = workdir();
    let c = call(protocol, event, bytes, &opts.cwd(dir.path()));
    drop(dir);
    c
}

fn canonical() -> AdapterOptions {
    canonical_options().0
}

fn assert_quiet(c: &Call) {
    assert_eq!(
        (c.code, c.stdout.as_str(), c.stderr.as_str()),
        (0, "", ""),
        "{c:?}"
    );
}

fn assert_no_secret(c: &Call) {
    assert!(
        !c.stdout.contains("sk-e2e"),
        "the secret leaked: {}",
        c.stdout
    );
    assert!(
        !c.stderr.contains("sk-e2e"),
        "the secret leaked: {}",
        c.stderr
    );
}

// Gemini CLI

#[test]
fn gemini_shell_tool_is_bash_and_a_block_is_a_deny_with_its_reason() {
    let (opts, log) = canonical_options();
    let bytes = fixture("gemini", "BeforeTool", |v| {
        v["tool_input"]["command"] = json!("rm -rf victim");
    });
    let c = run(&Gemini, "BeforeTool", &bytes, opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"decision": "deny", "reason": "rm -rf blocked (no UI)"})
    );
    let seen = log.lock().unwrap();
    assert_eq!(seen.tool_calls[0].tool_name, "bash");
    assert_eq!(
        seen.tool_calls[0].input_str("command"),
        Some("rm -rf victim")
    );
}

#[test]
fn gemini_allowed_tool_call_answers_nothing_never_allow() {
    let bytes = fixture("gemini", "BeforeTool", |_| {});
    assert_quiet(&run(&Gemini, "BeforeTool", &bytes, canonical()));
}

#[test]
fn gemini_rewritten_tool_output_replaces_the_result_as_a_deny_reason() {
    let bytes = fixture("gemini", "AfterTool", |v| {
        v["tool_response"]["llmContent"] = json!(format!("Output: {SECRET_LINE}\n"));
    });
    let c = run(&Gemini, "AfterTool", &bytes, canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"decision": "deny", "reason": "Output: API_KEY=[REDACTED]\n"})
    );
}

#[test]
fn gemini_unchanged_tool_output_answers_nothing() {
    let bytes = fixture("gemini", "AfterTool", |_| {});
    assert_quiet(&run(&Gemini, "AfterTool", &bytes, canonical()));
}

#[test]
fn gemini_failing_redactor_withholds_the_output_and_exits_2() {
    let bytes = fixture("gemini", "AfterTool", |v| {
        v["tool_response"]["llmContent"] = json!(SECRET_LINE);
    });
    let c = run(&Gemini, "AfterTool", &bytes, failing_options(false));
    assert_eq!(c.code, 2, "{c:?}");
    let answer = c.json();
    assert_eq!(answer["decision"], "deny");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .starts_with("[tool output withheld: "),
        "{answer}"
    );
    assert_no_secret(&c);
    c.assert_one_line_stderr();
}

#[test]
fn gemini_prompt_command_answers_without_the_model() {
    let bytes = fixture("gemini", "BeforeAgent", |v| {
        v["prompt"] = json!("/handoff now");
    });
    let c = run(&Gemini, "BeforeAgent", &bytes, canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"decision": "deny", "reason": "handoff: now"})
    );
}

#[test]
fn gemini_prompt_and_session_start_messages_are_additional_context() {
    let bytes = fixture("gemini", "BeforeAgent", |v| {
        v["prompt"] = json!("context please");
    });
    let c = run(&Gemini, "BeforeAgent", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "remember the style guide"}})
    );
    let bytes = fixture("gemini", "SessionStart", |_| {});
    let c = run(&Gemini, "SessionStart", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "session notes: be careful"}})
    );
}

/// Options serving one `context` handler that drops every user message containing `drop-me`.
fn context_filter() -> AdapterOptions {
    AdapterOptions::with_hooks(|cwd| {
        let mut api = HookApi::new("test-context", cwd);
        api.on(|e: &ContextEvent, _c: &HookContext| ContextEventResult {
            messages: Some(
                e.messages
                    .iter()
                    .filter(|m| !matches!(m, Message::User(u) if u.content.to_text().contains("drop-me")))
                    .cloned()
                    .collect(),
            ),
        });
        vec![api.finish()]
    })
}

#[test]
fn gemini_before_model_is_our_context_event_and_a_dropped_message_is_sent_removed() {
    let bytes = fixture("gemini", "BeforeModel", |v| {
        v["llm_request"]["messages"] = json!([
            {"role": "user", "content": "first"},
            {"role": "model", "content": "answer"},
            {"role": "user", "content": "drop-me please"},
            {"role": "user", "content": "last"},
        ]);
    });
    let c = run(&Gemini, "BeforeModel", &bytes, context_filter());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_request": {"messages": [
            {"role": "user", "content": "first"},
            {"role": "model", "content": "answer"},
            {"role": "user", "content": "last"},
            {"role": "user", "content": gemini::REMOVED_TEXT},
        ]}}})
    );
    // The recorded request has nothing to drop: no answer.
    let bytes = fixture("gemini", "BeforeModel", |_| {});
    assert_quiet(&run(&Gemini, "BeforeModel", &bytes, context_filter()));
}

#[test]
fn gemini_malformed_input_fails_closed() {
    for event in ["BeforeTool", "AfterTool", "BeforeAgent", "BeforeModel"] {
        let c = run(&Gemini, event, b"{\"tool_name\": ", canonical());
        c.assert_fail_closed("gemini");
        assert!(
            c.stderr.starts_with(&format!("hooks gemini {event}: ")),
            "{}",
            c.stderr
        );
    }
    let bytes = fixture("gemini", "BeforeModel", |v| {
        v.as_object_mut().unwrap().remove("llm_request");
    });
    let c = run(&Gemini, "BeforeModel", &bytes, canonical());
    assert_eq!(c.code, 2, "{c:?}");
    assert!(c.stderr.contains("llm_request"), "{}", c.stderr);
    // An observational event fails with a warning, not a block.
    let c = run(&Gemini, "AfterAgent", b"[]", canonical());
    assert_eq!(c.code, 1, "{c:?}");
}

// Copilot CLI

#[test]
fn copilot_block_is_a_deny_with_its_reason() {
    let (opts, log) = canonical_options();
    let bytes = fixture("copilot", "preToolUse", |v| {
        v["toolArgs"]["command"] = json!("rm -rf victim");
    });
    let c = run(&Copilot, "preToolUse", &bytes, opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"permissionDecision": "deny", "permissionDecisionReason": "rm -rf blocked (no UI)"})
    );
    assert_eq!(log.lock().unwrap().tool_calls[0].tool_name, "bash");
}

#[test]
fn copilot_tool_args_as_a_json_string_are_decoded() {
    let (opts, log) = canonical_options();
    let bytes = fixture("copilot", "preToolUse", |v| {
        v["toolArgs"] = json!(json!({"command": "rm -rf victim"}).to_string());
    });
    let c = run(&Copilot, "preToolUse", &bytes, opts);
    assert_eq!(c.json()["permissionDecision"], "deny", "{c:?}");
    assert_eq!(
        log.lock().unwrap().tool_calls[0].input_str("command"),
        Some("rm -rf victim")
    );
    // A string that holds no object is bad input: the call is denied, saying why.
    let bytes = fixture("copilot", "preToolUse", |v| {
        v["toolArgs"] = json!("rm -rf victim");
    });
    let c = run(&Copilot, "preToolUse", &bytes, canonical());
    assert_eq!(c.json()["permissionDecision"], "deny", "{c:?}");
    assert!(c.stderr.contains("toolArgs"), "{}", c.stderr);
}

#[test]
fn copilot_allowed_tool_call_answers_nothing() {
    let bytes = fixture("copilot", "preToolUse", |_| {});
    assert_quiet(&run(&Copilot, "preToolUse", &bytes, canonical()));
}

#[test]
fn copilot_rewritten_output_is_the_modified_result() {
    let bytes = fixture("copilot", "postToolUse", |v| {
        v["toolResult"]["textResultForLlm"] = json!(format!("{SECRET_LINE}\n"));
    });
    let c = run(&Copilot, "postToolUse", &bytes, canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"modifiedResult": {"resultType": "success", "textResultForLlm": "API_KEY=[REDACTED]\n"}})
    );
}

#[test]
fn copilot_failing_redactor_withholds_the_output_in_the_modified_result() {
    // Copilot CLI lets a failed postToolUse's output through: the answer withholds it.
    let bytes = fixture("copilot", "postToolUse", |v| {
        v["toolResult"]["textResultForLlm"] = json!(SECRET_LINE);
    });
    let c = run(&Copilot, "postToolUse", &bytes, failing_options(false));
    assert_eq!(c.code, 0, "{c:?}");
    c.assert_one_line_stderr();
    let text = c.json()["modifiedResult"]["textResultForLlm"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with("[tool output withheld: "), "{text}");
    assert_no_secret(&c);
}

#[test]
fn copilot_prompt_command_blocks_the_prompt_with_its_output() {
    let bytes = fixture("copilot", "userPromptSubmitted", |v| {
        v["prompt"] = json!("/handoff x");
    });
    let c = run(&Copilot, "userPromptSubmitted", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "handoff: x"})
    );
    let bytes = fixture("copilot", "sessionStart", |_| {});
    let c = run(&Copilot, "sessionStart", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"additionalContext": "session notes: be careful"})
    );
}

#[test]
fn copilot_failing_tool_gate_denies_with_the_failure_as_the_reason_the_model_gets() {
    // Copilot CLI drops a failing hook's stderr (measured in the e2e suite): the deny on
    // stdout carries the reason.
    let bytes = fixture("copilot", "preToolUse", |_| {});
    let c = run(&Copilot, "preToolUse", &bytes, failing_options(false));
    assert_eq!(c.code, 0, "{c:?}");
    c.assert_one_line_stderr();
    assert_eq!(
        c.json(),
        json!({"permissionDecision": "deny", "permissionDecisionReason": c.stderr.trim_end()})
    );
    assert!(
        c.stderr.contains("policy service unreachable"),
        "{}",
        c.stderr
    );
    let c = run(&Copilot, "preToolUse", b"{\"toolName\": ", canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert!(
        c.json()["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| r.starts_with("hooks copilot preToolUse: invalid input")),
        "{c:?}"
    );
}

#[test]
fn copilot_claude_format_input_is_refused_naming_the_format() {
    let bytes = fixture("copilot-claude", "PreToolUse", |_| {});
    let c = run(&Copilot, "preToolUse", &bytes, canonical());
    assert_eq!(c.json()["permissionDecision"], "deny", "{c:?}");
    assert!(c.stderr.contains("Claude-format"), "{}", c.stderr);
}

// Qwen Code

#[test]
fn qwen_shell_tool_is_bash_and_a_block_is_a_deny_with_its_reason() {
    let (opts, log) = canonical_options();
    let bytes = fixture("qwen", "PreToolUse", |v| {
        v["tool_input"]["command"] = json!("rm -rf victim");
    });
    let c = run(&Qwen, "PreToolUse", &bytes, opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf blocked (no UI)"}})
    );
    assert_eq!(log.lock().unwrap().tool_calls[0].tool_name, "bash");
}

#[test]
fn qwen_rewritten_output_replaces_the_result_through_stop_reason() {
    let bytes = fixture("qwen", "PostToolUse", |v| {
        v["tool_response"]["llmContent"] = json!(format!("Output: {SECRET_LINE}"));
    });
    let c = run(&Qwen, "PostToolUse", &bytes, canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"continue": false, "stopReason": "Output: API_KEY=[REDACTED]"})
    );
    let bytes = fixture("qwen", "PostToolUse", |_| {});
    assert_quiet(&run(&Qwen, "PostToolUse", &bytes, canonical()));
}

#[test]
fn qwen_failing_redactor_withholds_with_exit_0_since_qwen_ignores_stdout_on_exit_2() {
    let bytes = fixture("qwen", "PostToolUse", |v| {
        v["tool_response"]["llmContent"] = json!(SECRET_LINE);
    });
    let c = run(&Qwen, "PostToolUse", &bytes, failing_options(false));
    assert_eq!(c.code, 0, "{c:?}");
    let answer = c.json();
    assert_eq!(answer["continue"], false);
    assert!(
        answer["stopReason"]
            .as_str()
            .unwrap()
            .starts_with("[tool output withheld: "),
        "{answer}"
    );
    assert_no_secret(&c);
    c.assert_one_line_stderr();
    // A failing tool gate still exits 2 (Qwen blocks on it).
    let bytes = fixture("qwen", "PreToolUse", |_| {});
    assert_eq!(
        run(&Qwen, "PreToolUse", &bytes, failing_options(false)).code,
        2
    );
}

#[test]
fn qwen_prompt_command_answers_and_the_tool_result_resend_is_no_prompt() {
    let bytes = fixture("qwen", "UserPromptSubmit", |v| {
        v["prompt"] = json!("/handoff x");
        v["submitted_prompt"] = json!("/handoff x");
    });
    let c = run(&Qwen, "UserPromptSubmit", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"decision": "block", "reason": "handoff: x"})
    );
    // Qwen fires UserPromptSubmit again when it sends a tool result: no submitted prompt.
    let bytes = fixture("qwen", "UserPromptSubmit", |v| {
        v["prompt"] = json!("context please");
        v.as_object_mut().unwrap().remove("submitted_prompt");
    });
    assert_quiet(&run(&Qwen, "UserPromptSubmit", &bytes, canonical()));
    let bytes = fixture("qwen", "SessionStart", |_| {});
    let c = run(&Qwen, "SessionStart", &bytes, canonical());
    assert_eq!(
        c.json()["hookSpecificOutput"]["additionalContext"],
        "session notes: be careful"
    );
}

// Factory Droid

#[test]
fn droid_execute_is_bash_and_a_block_is_a_deny_with_its_reason() {
    let (opts, log) = canonical_options();
    let bytes = fixture("droid", "PreToolUse", |v| {
        v["tool_input"]["command"] = json!("rm -rf victim");
    });
    let c = run(&Droid, "PreToolUse", &bytes, opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json()["hookSpecificOutput"]["permissionDecisionReason"],
        "rm -rf blocked (no UI)"
    );
    assert_eq!(log.lock().unwrap().tool_calls[0].tool_name, "bash");
    let bytes = fixture("droid", "PreToolUse", |_| {});
    assert_quiet(&run(&Droid, "PreToolUse", &bytes, canonical()));
}

#[test]
fn droid_rewritten_output_is_withheld_by_ending_the_run() {
    let bytes = fixture("droid", "PostToolUse", |v| {
        v["tool_response"] = json!(format!("{SECRET_LINE}\n"));
    });
    let c = run(&Droid, "PostToolUse", &bytes, canonical());
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"continue": false, "stopReason": droid::WITHHELD})
    );
    let bytes = fixture("droid", "PostToolUse", |_| {});
    assert_quiet(&run(&Droid, "PostToolUse", &bytes, canonical()));
    // A failure too: Droid would show an exit 2's stderr to the model and send the output.
    let c = run(&Droid, "PostToolUse", &bytes, failing_options(false));
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(c.json()["continue"], false);
    c.assert_one_line_stderr();
}

#[test]
fn droid_session_start_message_is_additional_context() {
    let bytes = fixture("droid", "SessionStart", |_| {});
    let c = run(&Droid, "SessionStart", &bytes, canonical());
    assert_eq!(
        c.json()["hookSpecificOutput"]["additionalContext"],
        "session notes: be careful"
    );
}

// Compactions (Gemini CLI's PreCompress, Qwen Code's and Factory Droid's PreCompact)

/// Hooks that record every `session_before_compact` (as JSON) and cancel it.
fn cancel_every_compaction() -> (AdapterOptions, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    let seen = std::sync::Arc::<std::sync::Mutex<Vec<Value>>>::default();
    let log = std::sync::Arc::clone(&seen);
    let opts = AdapterOptions::with_hooks(move |cwd| {
        let mut api = HookApi::new("test-compaction", cwd);
        let log = std::sync::Arc::clone(&log);
        api.on(move |e: &SessionBeforeCompactEvent, ctx: &HookContext| {
            log.lock().unwrap().push(serde_json::to_value(e).unwrap());
            ctx.ui().notify("held for the test", NotifyKind::Warning);
            Some(SessionBeforeCompactResult {
                cancel: Some(true),
                compaction: None,
            })
        });
        vec![api.finish()]
    });
    (opts, seen)
}

/// A `PreCompact` input as Qwen Code 0.24.4 and Factory Droid 0.225.2 build it (their bundled
/// JS: the common fields, `trigger`, `custom_instructions`; Droid adds `message_count`,
/// `estimated_tokens`, `message_id`).
fn pre_compact(trigger: &str, instructions: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "s-compact", "transcript_path": "/tmp/t.jsonl", "cwd": "/e2e/project",
        "permission_mode": "auto-high", "hook_event_name": "PreCompact",
        "trigger": trigger, "custom_instructions": instructions,
        "message_count": 12, "estimated_tokens": 4096, "message_id": "m-12",
    }))
    .unwrap()
}

#[test]
fn droid_pre_compact_cancel_exits_2_the_only_answer_droid_reads_there() {
    let (opts, seen) = cancel_every_compaction();
    let c = run(
        &Droid,
        "PreCompact",
        &pre_compact("manual", "keep the plan"),
        opts,
    );
    assert_eq!(c.code, 2, "{c:?}");
    assert_eq!(c.stdout, "", "Droid reads no answer on PreCompact");
    assert_eq!(
        c.stderr,
        "hooks droid PreCompact: Compaction cancelled by a hook: held for the test\n"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["preparation"]["trigger"], "manual");
    assert_eq!(seen[0]["customInstructions"], "keep the plan");
    // No opinion: exit 0, the compaction runs.
    let c = run(&Droid, "PreCompact", &pre_compact("auto", ""), canonical());
    assert_quiet(&c);
}

#[test]
fn qwen_pre_compact_is_observed_and_a_cancel_answers_nothing_since_qwen_cannot_hold_it() {
    let (opts, seen) = cancel_every_compaction();
    let c = run(&Qwen, "PreCompact", &pre_compact("auto", ""), opts);
    assert_quiet(&c);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "session_before_compact was emitted");
    assert_eq!(seen[0]["preparation"]["trigger"], "auto");
}

#[test]
fn gemini_pre_compress_is_session_before_compact_only_for_a_manual_compression() {
    // `auto` fires before every model turn, compression or not: nothing is emitted.
    let (opts, seen) = cancel_every_compaction();
    let auto = fixture("gemini", "PreCompress", |_| {});
    assert_quiet(&run(&Gemini, "PreCompress", &auto, opts.clone()));
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );
    // `manual` (`/compress`): observed; Gemini CLI ignores the answer, so nothing is sent.
    let manual = fixture("gemini", "PreCompress", |v| v["trigger"] = json!("manual"));
    assert_quiet(&run(&Gemini, "PreCompress", &manual, opts));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["preparation"]["trigger"], "manual");
}

// Cursor (from its documentation)

fn cursor_input(event: &str, extra: Value) -> Vec<u8> {
    let mut value = json!({
        "conversation_id": "c-1",
        "generation_id": "g-1",
        "hook_event_name": event,
        "workspace_roots": ["/nonexistent-root"],
    });
    value
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    serde_json::to_vec(&value).unwrap()
}

#[test]
fn cursor_shell_block_is_permission_deny_and_no_opinion_is_an_empty_object() {
    let (opts, log) = canonical_options();
    let bytes = cursor_input("beforeShellExecution", json!({"command": "rm -rf victim"}));
    let c = run(&Cursor, "beforeShellExecution", &bytes, opts);
    assert_eq!(c.code, 0, "{c:?}");
    assert_eq!(
        c.json(),
        json!({"permission": "deny", "user_message": "rm -rf blocked (no UI)", "agent_message": "rm -rf blocked (no UI)"})
    );
    assert_eq!(log.lock().unwrap().tool_calls[0].tool_name, "bash");
    let bytes = cursor_input("beforeShellExecution", json!({"command": "ls"}));
    let c = run(&Cursor, "beforeShellExecution", &bytes, canonical());
    assert_eq!((c.code, c.json()), (0, json!({})));
}

#[test]
fn cursor_read_of_a_secret_is_withheld_and_a_prompt_command_stops_the_prompt() {
    let bytes = cursor_input(
        "beforeReadFile",
        json!({"file_path": "/p/.env", "content": SECRET_LINE}),
    );
    let c = run(&Cursor, "beforeReadFile", &bytes, canonical());
    assert_eq!(c.json()["permission"], "deny", "{c:?}");
    assert_no_secret(&c);
    let bytes = cursor_input("beforeSubmitPrompt", json!({"prompt": "/handoff x"}));
    let c = run(&Cursor, "beforeSubmitPrompt", &bytes, canonical());
    assert_eq!(
        c.json(),
        json!({"continue": false, "user_message": "handoff: x"})
    );
    let c = run(&Cursor, "beforeShellExecution", b"{", canonical());
    assert_eq!((c.code, c.stdout.as_str()), (2, ""));
}

// Through the built binary

#[test]
fn every_agent_subcommand_serves_the_bundle_on_stdio() {
    let home = workdir();
    let dir = workdir();
    let cwd = dir.path().to_str().unwrap();
    let cases: [(&str, &str, Vec<u8>, &str); 5] = [
        (
            "gemini",
            "BeforeTool",
            fixture("gemini", "BeforeTool", |v| {
                v["tool_input"]["command"] = json!("rm -rf /");
            }),
            "/reason",
        ),
        (
            "copilot",
            "preToolUse",
            fixture("copilot", "preToolUse", |v| {
                v["toolArgs"] = json!(json!({"command": "rm -rf /"}).to_string());
            }),
            "/permissionDecisionReason",
        ),
        (
            "qwen",
            "PreToolUse",
            fixture("qwen", "PreToolUse", |v| {
                v["tool_input"]["command"] = json!("rm -rf /");
            }),
            "/hookSpecificOutput/permissionDecisionReason",
        ),
        (
            "droid",
            "PreToolUse",
            fixture("droid", "PreToolUse", |v| {
                v["tool_input"]["command"] = json!("rm -rf /");
            }),
            "/hookSpecificOutput/permissionDecisionReason",
        ),
        (
            "cursor",
            "beforeShellExecution",
            cursor_input("beforeShellExecution", json!({"command": "rm -rf /"})),
            "/agent_message",
        ),
    ];
    for (agent, event, bytes, pointer) in cases {
        let r = common::hooks(&[agent, event, "--cwd", cwd], &bytes, home.path());
        assert_eq!(r.code, Some(0), "{agent}: {r:?}");
        let reason = r.json().pointer(pointer).cloned();
        assert!(
            reason
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|r| r.contains("rm -rf")),
            "{agent}: {reason:?} in {}",
            r.stdout
        );
        let bad = common::hooks(&[agent, event, "--cwd", cwd], b"not json", home.path());
        bad.assert_one_line_stderr();
        if agent == "copilot" {
            assert_eq!(bad.code, Some(0), "{agent}: {bad:?}");
            assert_eq!(bad.json()["permissionDecision"], "deny");
        } else {
            assert_eq!(bad.code, Some(2), "{agent}: {bad:?}");
        }
    }
}

// Every gating event of every agent, on arbitrary input

fn no_hooks() -> AdapterOptions {
    AdapterOptions::with_hooks(|_cwd| Vec::new())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_input_to_a_gating_event_answers_no_opinion_or_fails_closed(
        bytes in proptest::prop_oneof![
            proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256),
            proptest::prelude::Just(b"{\"toolArgs\": \"[1\"}".to_vec()),
            proptest::prelude::Just(b"{\"llm_request\": {\"messages\": 3}}".to_vec()),
            proptest::prelude::Just(b"{\"tool_name\": \"run_shell_command\"}".to_vec()),
        ],
    ) {
        for agent in [&Gemini as &dyn Protocol, &Copilot, &Qwen, &Droid, &Cursor] {
            for event in agent.events().iter().filter(|e| e.mapping.is_gating()) {
                let dir = workdir();
                let c = call(agent, event.name, &bytes, &no_hooks().cwd(dir.path()));
                if c.stderr.is_empty() {
                    let none = if agent.name() == "cursor" { "{}\n" } else { "" };
                    proptest::prop_assert_eq!((c.code, c.stdout.as_str()), (0, none), "{} {}", agent.name(), event);
                    continue;
                }
                let line = c.stderr.strip_suffix('\n').unwrap_or(&c.stderr);
                proptest::prop_assert!(!line.is_empty() && !line.contains('\n'), "{:?}", c.stderr);
                if c.code == 0 {
                    // The agent ignores exit 2 here: the answer blocks, holding the line.
                    let answer = c.json().to_string();
                    let quoted = serde_json::to_string(line).unwrap();
                    proptest::prop_assert!(
                        answer.contains(quoted.trim_matches('"')),
                        "{} {}: {:?}",
                        agent.name(),
                        event,
                        c
                    );
                } else {
                    proptest::prop_assert_eq!((c.code, c.stdout.as_str()), (2, ""), "{} {} fails closed", agent.name(), event);
                }
            }
        }
    }
}

// Every agent

/// Each adapter tells the hooks which agent they serve: `ctx.agent()` is the `AGENT` of
/// `hooks AGENT EVENT`.
#[test]
fn every_adapter_names_its_agent_to_the_hooks() {
    let dir = workdir();
    let claude_style = |event: &str| {
        common::input(
            event,
            dir.path(),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        )
    };
    let calls: [(&dyn Protocol, &str, Vec<u8>); 7] = [
        (&Claude, "PreToolUse", claude_style("PreToolUse")),
        (&Codex, "PreToolUse", claude_style("PreToolUse")),
        (
            &Gemini,
            "BeforeTool",
            fixture("gemini", "BeforeTool", |_| {}),
        ),
        (&Qwen, "PreToolUse", fixture("qwen", "PreToolUse", |_| {})),
        (&Droid, "PreToolUse", fixture("droid", "PreToolUse", |_| {})),
        (
            &Copilot,
            "preToolUse",
            fixture("copilot", "preToolUse", |_| {}),
        ),
        (
            &Cursor,
            "beforeShellExecution",
            cursor_input("beforeShellExecution", json!({"command": "ls"})),
        ),
    ];
    for (protocol, event, bytes) in calls {
        let (opts, log) = canonical_options();
        let c = run(protocol, event, &bytes, opts);
        assert_eq!(c.code, 0, "{}: {c:?}", protocol.name());
        assert_eq!(
            log.lock().unwrap().agents,
            [Some(protocol.name().to_owned())],
            "{c:?}"
        );
    }
}
