//! The script parser's unit tests.

use std::path::Path;

use super::*;

fn errors(text: &str) -> Vec<String> {
    parse_bytes(Path::new("s.jsonl"), text.as_bytes(), &[])
        .expect_err("should fail")
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn session_action_errors_say_what_is_expected_not_the_rust_type() {
    let errors = errors(
        "{\"compact\": true}\n{\"switch\": {\"reason\": \"new\", \"session\": \"x.jsonl\"}}\n{\"branch\": 5}",
    );
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].contains("expected an object: {\"summary\"?"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("names the file of a `resume` switch"),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].contains("expected an object: {\"entry\""),
        "{}",
        errors[2]
    );
    assert!(!errors.iter().any(|e| e.contains("Spec")), "{errors:?}");
}

#[test]
fn a_leading_byte_order_mark_is_not_part_of_the_first_line() {
    let script =
        parse_bytes(Path::new("s.jsonl"), b"\xEF\xBB\xBF\"hello\"\n", &[]).expect("parses");
    assert_eq!(script.steps.len(), 1);
}

#[test]
fn parses_every_action() {
    let text = r#"
# a comment
{"prompt": "hello", "reply": "hi"}
"/handoff next"
{"tool": "bash", "input": {"command": "ls"}, "id": "c1"}
{"command": "/handoff some args"}
{"compact": {"summary": "s"}}
{"switch": {"reason": "resume", "session": "a.jsonl"}}
{"branch": {"entry": -1}}
{"tree": {"target": "abc", "summarize": true}}
"#;
    let script = parse_bytes(
        Path::new("s.jsonl"),
        text.as_bytes(),
        &["handoff".to_owned()],
    )
    .expect("parses");
    let keys: Vec<_> = script
        .steps
        .iter()
        .map(|s| (s.line, s.action.key()))
        .collect();
    assert_eq!(
        keys,
        [
            (3, "prompt"),
            (4, "prompt"),
            (5, "tool"),
            (6, "command"),
            (7, "compact"),
            (8, "switch"),
            (9, "branch"),
            (10, "tree")
        ]
    );
    assert_eq!(
        script.steps[3].action,
        Action::Command {
            name: "handoff".into(),
            args: "some args".into()
        }
    );
    assert_eq!(
        script.steps[6].action,
        Action::Branch(BranchSpec {
            entry: EntryRef::Index(-1)
        })
    );
}

#[test]
fn reports_position_and_expectation() {
    assert_eq!(
        errors("{\"prompt\": \"a\"\n{\"tool\" \"bash\"}"),
        [
            "s.jsonl:1:14: EOF while parsing an object",
            "s.jsonl:2:9: expected `:`"
        ]
    );
    assert_eq!(
        errors(r#"{"prompt": "a", "frobnicate": 1}"#),
        ["s.jsonl:1:17: unknown field `frobnicate`, expected `prompt` or `reply`"]
    );
    assert_eq!(
        errors(r#"{"say": "a"}"#),
        [
            "s.jsonl:1:2: unknown action: expected one of the keys `prompt`, `tool`, `command`, `compact`, `switch`, `branch`, `tree`, found the key `say`"
        ]
    );
    assert_eq!(
        errors(r#"{"tool": 3}"#),
        ["s.jsonl:1:10: invalid type: integer `3`, expected a string"]
    );
    assert_eq!(
        errors(r#"{"tool": "bash", "input": {"command": true}}"#),
        [
            "s.jsonl:1:27: invalid input for tool `bash`: invalid type: boolean `true`, expected a string"
        ]
    );
    assert_eq!(
        errors(r#"{"tool": "rm", "input": {}}"#),
        ["s.jsonl:1:10: unknown tool `rm` (known tools: bash, read, write, edit, ls, grep, find)"]
    );
    assert_eq!(
        errors("[1]"),
        [
            "s.jsonl:1:1: expected a JSON object with one action key (prompt, tool, command, compact, switch, branch, tree) or a string (a prompt), found an array"
        ]
    );
    assert_eq!(
        errors(r#"{"switch": {"reason": "sideways"}}"#),
        ["s.jsonl:1:32: unknown variant `sideways`, expected one of `new`, `resume`, `fork`"]
    );
    assert_eq!(
        errors(r#"{"prompt": "a", "tool": "bash"}"#),
        ["s.jsonl:1:17: one action per line: found both `prompt` and `tool`"]
    );
    assert_eq!(
        errors("{\"prompt\": \"é\", \"x\": 1}"),
        ["s.jsonl:1:17: unknown field `x`, expected `prompt` or `reply`"]
    );
}

#[test]
fn rejects_invalid_utf8_with_position() {
    let err = parse_bytes(Path::new("s.jsonl"), b"\"ok\"\n\"a\xffb\"", &[]).expect_err("utf8");
    assert_eq!(
        err[0].to_string(),
        "s.jsonl:2:3: invalid UTF-8: a script must be UTF-8 text"
    );
}
