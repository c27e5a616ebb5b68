//! Unit tests of the pure protocol functions of `claude.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::events::{ImageContent, ToolInput};

fn session() -> HookSession {
    HookSession {
        session_id: "s1".into(),
        transcript_path: Some(PathBuf::from("/tmp/s1.jsonl")),
        cwd: PathBuf::from("/work/p"),
    }
}

fn input(v: serde_json::Value) -> ToolInput {
    v.as_object().unwrap().clone().into()
}

const FILE: &str = "/h/pre/bash.sh";

fn file() -> &'static Path {
    Path::new(FILE)
}

#[test]
fn tool_names_map_to_claude_spelling() {
    let pairs = [
        ("bash", "Bash"),
        ("read", "Read"),
        ("write", "Write"),
        ("edit", "Edit"),
        ("grep", "Grep"),
        ("find", "Glob"),
        ("ls", "ls"),
        ("mcp__x", "mcp__x"),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(CLAUDE_TOOL_NAMES.theirs(ours), theirs);
    }
    assert!(tool_matches("*", "ls"));
    assert!(tool_matches("bash", "bash"));
    assert!(tool_matches("Bash", "bash"));
    assert!(tool_matches("Glob", "find"));
    assert!(!tool_matches("read", "bash"));
}

#[test]
fn claude_tool_names_read_both_ways_from_one_table() {
    assert_eq!(CLAUDE_TOOL_NAMES.ours("Glob"), "find");
    assert_eq!(CLAUDE_TOOL_NAMES.ours("WebFetch"), "webfetch");
    for &(theirs, ours) in CLAUDE_TOOL_NAMES.pairs() {
        assert_eq!(CLAUDE_TOOL_NAMES.ours(theirs), ours);
        assert_eq!(CLAUDE_TOOL_NAMES.theirs(ours), theirs);
    }
}

#[test]
fn pre_tool_use_input_has_claude_shape() {
    let event = ToolCallEvent {
        tool_name: "find".into(),
        tool_call_id: "t1".into(),
        input: input(json!({"pattern": "*.rs"})),
    };
    assert_eq!(
        pre_tool_use_input(&event, &session()),
        json!({
            "session_id": "s1",
            "transcript_path": "/tmp/s1.jsonl",
            "cwd": "/work/p",
            "hook_event_name": "PreToolUse",
            "tool_name": "Glob",
            "tool_input": {"pattern": "*.rs"},
            "tool_use_id": "t1",
        })
    );
    let mut no_file = session();
    no_file.transcript_path = None;
    assert_eq!(
        pre_tool_use_input(&event, &no_file)["transcript_path"],
        json!(null)
    );
}

#[test]
fn post_tool_use_input_carries_the_response() {
    let event = ToolResultEvent {
        tool_name: "bash".into(),
        tool_call_id: "t2".into(),
        input: input(json!({"command": "ls"})),
        content: vec![Content::text("a"), Content::text("b")],
        details: Some(json!({"exitCode": 0})),
        is_error: Some(false),
        is_warning: None,
    };
    let v = post_tool_use_input(&event, &session());
    assert_eq!(v["hook_event_name"], "PostToolUse");
    assert_eq!(v["tool_name"], "Bash");
    assert_eq!(v["tool_use_id"], "t2");
    assert_eq!(v["tool_input"], json!({"command": "ls"}));
    assert_eq!(
        v["tool_response"],
        json!({
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "details": {"exitCode": 0},
            "stdout": "a\nb",
            "stderr": "",
            "interrupted": false,
            "isImage": false,
            "text": "a\nb",
        })
    );
    let read = ToolResultEvent {
        tool_name: "read".into(),
        details: None,
        ..event
    };
    let v = post_tool_use_input(&read, &session());
    assert!(v["tool_response"].get("stdout").is_none());
    assert!(v["tool_response"].get("details").is_none());
}

fn block(reason: &str) -> Result<Option<ToolCallEventResult>, String> {
    Ok(Some(ToolCallEventResult::block(reason)))
}

#[test]
fn pre_decisions() {
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}"#;
    let deny_bare = r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#;
    let allow = r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#;
    let legacy = r#" {"decision":"block","reason":"old"} "#;
    let cases: Vec<(HookRun, Result<Option<ToolCallEventResult>, String>)> = vec![
        (HookRun::exited(0, "", ""), Ok(None)),
        (HookRun::exited(0, "\n  \n", "ignored"), Ok(None)),
        (HookRun::exited(0, "some text", ""), Ok(None)),
        (HookRun::exited(0, deny, ""), block("nope")),
        (
            HookRun::exited(0, deny_bare, ""),
            block("Blocked by hook /h/pre/bash.sh"),
        ),
        (HookRun::exited(0, allow, ""), Ok(None)),
        (HookRun::exited(0, legacy, ""), block("old")),
        (
            HookRun::exited(0, r#"{"decision":"approve"}"#, ""),
            Ok(None),
        ),
        (HookRun::exited(2, "", "  why  \n"), block("why")),
        (
            HookRun::exited(2, deny, ""),
            block("Blocked by hook /h/pre/bash.sh (exit code 2)"),
        ),
    ];
    for (run, want) in cases {
        assert_eq!(decide_pre_tool_use(&run, file()), want, "{run:?}");
    }
}

#[test]
fn pre_failures_name_the_file_and_the_cause() {
    let cases = [
        (
            HookRun::exited(1, "", "bad\n"),
            "hook /h/pre/bash.sh failed with exit code 1: bad",
        ),
        (
            HookRun::exited(0, "{oops", ""),
            "hook /h/pre/bash.sh printed invalid JSON",
        ),
        (
            HookRun::exited(0, "{}x", ""),
            "hook /h/pre/bash.sh printed invalid JSON",
        ),
        (
            HookRun {
                exit: HookExit::Signal(9),
                ..HookRun::exited(0, "", "")
            },
            "hook /h/pre/bash.sh was killed by signal 9",
        ),
        (
            HookRun {
                exit: HookExit::TimedOut(Duration::from_millis(1500)),
                ..HookRun::exited(0, "", "")
            },
            "hook /h/pre/bash.sh timed out after 1500 ms",
        ),
        (
            HookRun {
                stdout_truncated: true,
                ..HookRun::exited(0, "{", "")
            },
            "hook /h/pre/bash.sh wrote more than 1048576 bytes to stdout",
        ),
    ];
    for (run, want) in cases {
        let err = decide_pre_tool_use(&run, file()).unwrap_err();
        assert!(err.starts_with(want), "{err} / {want}");
    }
}

#[test]
fn post_decisions() {
    let s = |out: &str| decide_post_tool_use(&HookRun::exited(0, out, ""), file());
    assert_eq!(s(""), Ok(None));
    assert_eq!(s("note"), Ok(None));
    assert_eq!(s(r#"{"hookSpecificOutput":{}}"#), Ok(None));
    assert_eq!(
        s(r#"{"hookSpecificOutput":{"updatedToolOutput":"new"}}"#),
        Ok(Some("new".into()))
    );
    assert_eq!(
        s(r#"{"hookSpecificOutput":{"updatedToolOutput":{"text":"t","stdout":"s"}}}"#),
        Ok(Some("t".into()))
    );
    assert_eq!(
        s(r#"{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"s"}}}"#),
        Ok(Some("s".into()))
    );
    assert!(s(r#"{"hookSpecificOutput":{"updatedToolOutput":{"x":1}}}"#).is_err());
    assert!(s(r#"{"hookSpecificOutput":{"updatedToolOutput":[1]}}"#).is_err());
    assert!(s("{bad").is_err());
    let exit2 = decide_post_tool_use(&HookRun::exited(2, "", "no"), file()).unwrap_err();
    assert_eq!(exit2, "hook /h/pre/bash.sh failed with exit code 2: no");
}

#[test]
fn replacing_text_keeps_images() {
    let image = Content::Image(ImageContent {
        data: "AA==".into(),
        mime_type: "image/png".into(),
        extra: Default::default(),
    });
    let content = vec![Content::text("a"), image.clone(), Content::text("b")];
    assert_eq!(
        replace_text_content(&content, "z"),
        vec![Content::text("z"), image.clone()]
    );
    assert_eq!(
        replace_text_content(std::slice::from_ref(&image), "z"),
        vec![image, Content::text("z")]
    );
    assert_eq!(replace_text_content(&[], "z"), vec![Content::text("z")]);
}
