//! Property tests for the bounded JSON decoder and the adapters that use it: no input makes
//! them panic, every rejection is one line naming the input (and the position), and the
//! bounds hold exactly.

use crate::common;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use hookwright_cli::agents::Protocol;
use hookwright_cli::agents::claude::Claude;
use hookwright_cli::agents::codex::Codex;
use hookwright_cli::call::AdapterOptions;
use hookwright_cli::json::{InputError, MAX_DEPTH, decode_object};
use hookwright_cli::transport::command;

fn no_hooks() -> AdapterOptions {
    AdapterOptions::with_hooks(|_cwd| Vec::new()).cwd(std::env::temp_dir())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A valid PreToolUse input for a dangerous command, compact (no whitespace).
fn deny_input() -> Value {
    json!({
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
        "tool_use_id": "t",
    })
}

const KNOWN: &[&str] = &[
    "cwd",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "error",
    "prompt",
    "trigger",
    "custom_instructions",
    "last_assistant_message",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoder_never_panics_and_errors_are_one_line(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Err(e) = decode_object::<Map<String, Value>>(&bytes, "stdin") {
            let text = e.to_string();
            prop_assert!(text.starts_with("stdin"), "{}", text);
            prop_assert!(!text.contains('\n'), "{}", text);
        }
    }

    #[test]
    fn adapters_on_arbitrary_bytes_answer_nothing_or_fail_closed(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..256),
            json_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        ],
        event in prop::sample::select(vec!["PreToolUse", "PostToolUse", "UserPromptSubmit", "PreCompact"]),
    ) {
        for protocol in [&Claude as &dyn Protocol, &Codex] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = command::run(protocol, event, &bytes, &mut out, &mut err, &no_hooks());
            let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
            if code == 0 && err.is_empty() {
                prop_assert!(out.is_empty(), "no hooks, no answer");
                continue;
            }
            let line = err.strip_suffix('\n').unwrap_or(&err);
            prop_assert!(!line.is_empty() && !line.contains('\n'), "{:?}", err);
            if (protocol.name(), event) == ("codex", "PreCompact") {
                // Codex compacts after any exit code: a failure holds it with `continue: false`.
                prop_assert_eq!(code, 0);
                let answer: Value = serde_json::from_str(&out).unwrap();
                prop_assert_eq!(answer, json!({"continue": false, "stopReason": line}));
            } else {
                prop_assert_eq!(code, 2, "gating events fail closed");
                prop_assert!(out.is_empty(), "no hooks, no answer");
            }
        }
    }

    #[test]
    fn mutated_inputs_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..8),
    ) {
        let mut bytes = serde_json::to_vec(&deny_input()).unwrap();
        for (at, byte, op) in edits {
            let i = at.index(bytes.len() + 1);
            match op {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => { bytes.remove(i); }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => {}
            }
        }
        let log = common::Log::default();
        let opts = AdapterOptions::with_hooks(move |cwd| vec![common::canonical(cwd, &log)])
            .cwd(std::env::temp_dir());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = command::run(&Claude, "PreToolUse", &bytes, &mut out, &mut err, &opts);
        let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
        // A panic anywhere is caught and fails the call closed (exit 2) with its text: the
        // exit code alone cannot tell it from bad input, the line can.
        prop_assert!(!err.contains("panicked"), "{}", err);
        match code {
            // Decoded: the hook's answer (a deny of the canonical input) or no opinion.
            0 => prop_assert!(err.is_empty() && (out.is_empty() || out.contains("\"deny\"")), "{:?} {:?}", out, err),
            // Not decodable: one line naming the input, nothing on stdout.
            2 => {
                prop_assert!(out.is_empty(), "{}", out);
                prop_assert!(err.ends_with('\n') && err.trim_end().lines().count() == 1, "{:?}", err);
            }
            other => prop_assert!(false, "exit {}: {:?}", other, err),
        }
    }

    #[test]
    fn unknown_fields_are_ignored(extra in prop::collection::vec((any::<String>(), json_value()), 0..6)) {
        let mut value = deny_input();
        for (k, v) in extra {
            if !KNOWN.contains(&k.as_str()) {
                value[k] = v;
            }
        }
        let bytes = serde_json::to_vec(&value).unwrap();
        let log = common::Log::default();
        let opts = AdapterOptions::with_hooks(move |cwd| vec![common::canonical(cwd, &log)])
            .cwd(std::env::temp_dir());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = command::run(&Claude, "PreToolUse", &bytes, &mut out, &mut err, &opts);
        prop_assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        let answer: Value = serde_json::from_slice(&out).unwrap();
        prop_assert_eq!(&answer["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn truncated_inputs_are_errors(value in json_value(), cut in any::<prop::sample::Index>()) {
        let mut full = deny_input();
        full["tool_input"]["payload"] = value;
        let bytes = serde_json::to_vec(&full).unwrap();
        let cut = cut.index(bytes.len());
        let result = decode_object::<Map<String, Value>>(&bytes[..cut], "stdin");
        prop_assert!(result.is_err(), "a strict prefix of an object is never valid");
        prop_assert!(decode_object::<Map<String, Value>>(&bytes, "stdin").is_ok());
    }

    #[test]
    fn nesting_bound_is_exact(depth in 0usize..(MAX_DEPTH + 20)) {
        // Root object (1) + tool_input (2) + `depth` arrays.
        let text = format!(
            r#"{{"tool_name":"Bash","tool_input":{{"x":{}0{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let result = decode_object::<Map<String, Value>>(text.as_bytes(), "stdin");
        if depth + 2 <= MAX_DEPTH {
            prop_assert!(result.is_ok(), "{:?}", result);
        } else {
            let is_too_deep = matches!(result, Err(InputError::TooDeep { .. }));
            prop_assert!(is_too_deep, "{:?}", result);
        }
    }

    #[test]
    fn invalid_utf8_is_reported_at_its_offset(at in any::<prop::sample::Index>()) {
        let mut bytes = serde_json::to_vec(&deny_input()).unwrap();
        let i = at.index(bytes.len());
        bytes.insert(i, 0xff);
        match decode_object::<Map<String, Value>>(&bytes, "stdin") {
            Err(InputError::NotUtf8 { offset, at, .. }) => {
                prop_assert_eq!(offset, i);
                prop_assert_eq!(at.line, 1);
                prop_assert_eq!(at.column, i + 1);
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn wrong_types_name_the_field(value in json_value().prop_filter("not a string", |v| !v.is_string() && !v.is_null())) {
        let mut input = deny_input();
        input["tool_name"] = value;
        let bytes = serde_json::to_vec(&input).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = command::run(&Claude, "PreToolUse", &bytes, &mut out, &mut err, &no_hooks());
        prop_assert_eq!(code, 2);
        let err = String::from_utf8(err).unwrap();
        prop_assert!(err.contains("tool_name") && err.contains("stdin:1:"), "{}", err);
    }
}
