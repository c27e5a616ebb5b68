//! `hooks explain AGENT EVENT`: every handler that ran, in dispatch order, with its hook,
//! position, outcome and time, and exactly the answer the adapter gives for the same input.

use serde_json::json;

use crate::common::{hooks, input, workdir};
use hookwright::events::{ToolCallEvent, ToolCallEventResult};
use hookwright::{HookApi, HookContext};
use hookwright_cli::agents::Agent;
use hookwright_cli::call::{AdapterOptions, answer};
use hookwright_cli::cli::explain::explain;

/// Four hooks on `tool_call`, in load order: one with no opinion, one blocking, one
/// failing, and one more that never runs (on `tool_call` an error ends the emission: fail
/// closed).
fn three() -> AdapterOptions {
    AdapterOptions::with_hooks(|cwd| {
        let mut quiet = HookApi::new("quiet", cwd);
        quiet.on(|_e: &ToolCallEvent, _c: &HookContext| -> Option<ToolCallEventResult> { None });
        let mut failing = HookApi::new("failing", cwd);
        failing.on(
            |_e: &ToolCallEvent, _c: &HookContext| -> Result<Option<ToolCallEventResult>, String> {
                Err("policy service unreachable".to_owned())
            },
        );
        let mut blocker = HookApi::new("blocker", cwd);
        blocker.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult {
            block: Some(false),
            reason: Some("no".to_owned()),
        });
        let mut after = HookApi::new("after", cwd);
        after.on(|_e: &ToolCallEvent, _c: &HookContext| -> Option<ToolCallEventResult> { None });
        vec![
            quiet.finish(),
            blocker.finish(),
            failing.finish(),
            after.finish(),
        ]
    })
}

fn bash(cwd: &std::path::Path, command: &str) -> Vec<u8> {
    input(
        "PreToolUse",
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
    )
}

#[test]
fn explain_shows_every_handler_in_dispatch_order_and_gives_the_adapters_exact_answer() {
    let dir = workdir();
    let opts = three().cwd(dir.path());
    let call = bash(dir.path(), "ls");
    let explained = explain(Agent::Claude, "PreToolUse", &call, &opts);
    let seen: Vec<(&str, &str, &str)> = explained
        .runs
        .iter()
        .map(|r| (r.hook.as_str(), r.event, r.outcome))
        .collect();
    assert_eq!(
        seen,
        [
            ("quiet", "tool_call", "no opinion"),
            ("blocker", "tool_call", "result"),
            ("failing", "tool_call", "error"),
        ],
        "{explained:#?}"
    );
    assert_eq!(
        explained.runs[2].error.as_deref(),
        Some("policy service unreachable")
    );
    assert_eq!(
        explained.runs[1].result,
        Some(json!({"block": false, "reason": "no"}))
    );
    // The same bytes and exit code as the adapter itself, which the tracing does not change.
    for agent in [Agent::Claude, Agent::Codex] {
        let explained = explain(agent, "PreToolUse", &call, &opts);
        assert_eq!(
            explained.outcome,
            answer(agent.protocol(), "PreToolUse", &call, &opts),
            "{agent}"
        );
    }
}

#[test]
fn hooks_explain_names_the_handlers_file_and_line_and_prints_what_hooks_claude_prints() {
    let dir = workdir();
    let call = bash(dir.path(), "rm -rf target");
    let home = dir.path();
    let adapter = hooks(&["claude", "PreToolUse"], &call, home);
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let explained = hooks(&["explain", "claude", "PreToolUse", "--json"], &call, home);
    assert_eq!(explained.code, Some(0), "{explained:?}");
    let json = explained.json();
    assert_eq!(json["stdout"], adapter.stdout.as_str());
    assert_eq!(json["stderr"], adapter.stderr.as_str());
    assert_eq!(json["exitCode"], adapter.code.unwrap());
    let guard = &json["handlers"][0];
    assert_eq!(guard["hook"], "hookwright_examples::block_rm", "{json:#}");
    assert_eq!(guard["handler"], "block_rm_rf");
    let location = guard["location"].as_str().unwrap();
    assert!(
        location.starts_with("examples/src/block_rm.rs:"),
        "{location}"
    );
    assert!(guard["micros"].is_u64());
    let after: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after, "explain wrote nothing");

    let text = hooks(&["explain", "claude", "PreToolUse"], &call, home);
    assert!(
        text.stdout
            .contains(&format!("({location}) on tool_call: result")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("The agent gets: exit 0\n"),
        "{}",
        text.stdout
    );
    let help = hooks(&["explain", "--help"], b"", home);
    assert!(
        help.stdout
            .contains("Exit status: 0 the call was explained"),
        "{}",
        help.stdout
    );
    let missing = hooks(
        &[
            "explain",
            "claude",
            "PreToolUse",
            "--input",
            "/nonexistent/x.json",
        ],
        b"",
        home,
    );
    assert_eq!(missing.code, Some(1), "{missing:?}");
}
