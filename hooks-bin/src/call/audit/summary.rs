//! What the decision log keeps of a call's content: its decisions, never its content. One
//! summary serves every writer of the log (the command adapters, `hooks serve` over HTTP and
//! its socket, `hooks serve --stdio`), through [`super::record::Record`]; `hooks explain`,
//! which runs on input the user hands it, shows the full results instead.
//!
//! A summary ([`summary`]) has the shape of the JSON it summarizes, so that its keys say which
//! fields were set, but holds none of its text:
//!
//! - `null`, booleans and numbers stay as they are (`block`, `cancel`, `continue`, `isError`,
//!   `timeout`, ...);
//! - a string becomes its size, `{"bytes": N}` (UTF-8), but under a key of the [`Schema`]'s
//!   decisions (`decision`, `permissionDecision`, `permission`, `hookEventName`,
//!   `resultType`, `behavior`, `customType`, `event`, `type`), which stays as it is up to
//!   [`KEYWORD_CHARS`] characters, and under one of its texts (a block's reason, a tool
//!   call's command line or path), which stays as an [`excerpt`];
//! - an empty array stays `[]`; any other array becomes `{"items": N, "bytes": B}`, `B` the
//!   size of its JSON;
//! - an object keeps its keys (cut at [`KEYWORD_CHARS`] characters) with each value
//!   summarized, down to [`DEPTH`] levels and for [`KEYS`] keys in all; past either, an
//!   object becomes `{"keys": N, "bytes": B}`.
//!
//! An excerpt ([`excerpt`]) is a text with the values of credentials replaced by
//! `[redacted]`, then cut at [`TEXT_CHARS`] characters (with `…`): a command line can hold
//! them (`curl -H 'Authorization: Bearer …'`, `API_KEY=… ./deploy`, `--password …`,
//! `https://user:pass@host`), and so can a reason that quotes one.

use std::io;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

/// How many characters of a text an excerpt keeps.
pub const TEXT_CHARS: usize = 200;

/// How many characters of a decision (a keyword) or a key are kept.
pub const KEYWORD_CHARS: usize = 40;

/// How deep a summary goes into nested objects.
pub const DEPTH: usize = 4;

/// How many keys one summary keeps in all.
pub const KEYS: usize = 48;

/// How much of a text is looked at for credentials before it is cut.
const SCANNED_BYTES: usize = 64 * 1024;

/// Which JSON a summary is of, and so which of its keys hold decisions and which texts to keep
/// as excerpts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// A handler's result or an `emit`'s result, in our terms (`{block, reason}`,
    /// `{messages}`, ...): `reason`, `error` and `hookPath` are texts.
    Ours,
    /// An answer in an agent's schema. With `reasons`, the reasons it gives (`reason`,
    /// `permissionDecisionReason`, `stopReason`, Cursor's `user_message` and
    /// `agent_message`) are texts; without (the call replaced a tool's output, the messages
    /// or added context, which some agents carry in those keys: Codex's `decision: "block"`
    /// with the new output as `reason`), they are sizes like any other string.
    Agent {
        /// Whether the answer's reasons are reasons.
        reasons: bool,
    },
    /// A tool call's input: `command`, `cmd`, `path`, `file_path`, `pattern` and `url` are
    /// texts.
    ToolInput,
}

impl Schema {
    /// Whether a string under `key` is a decision, kept as it is.
    fn is_decision(self, key: &str) -> bool {
        matches!(
            key,
            "decision"
                | "permissionDecision"
                | "permission"
                | "hookEventName"
                | "resultType"
                | "behavior"
                | "customType"
                | "event"
                | "type"
        )
    }

    /// Whether a string under `key` is a text kept as an [`excerpt`].
    fn is_text(self, key: &str) -> bool {
        match self {
            Schema::Ours => matches!(key, "reason" | "error" | "hookPath"),
            Schema::Agent { reasons } => {
                reasons
                    && matches!(
                        key,
                        "reason"
                            | "permissionDecisionReason"
                            | "stopReason"
                            | "user_message"
                            | "agent_message"
                    )
            }
            Schema::ToolInput => {
                matches!(
                    key,
                    "command" | "cmd" | "path" | "file_path" | "pattern" | "url"
                )
            }
        }
    }
}

/// The summary of `value` in `schema` (see the [module documentation](self)).
#[must_use]
pub fn summary(value: &Value, schema: Schema) -> Value {
    let mut keys = KEYS;
    summarize(value, schema, None, DEPTH, &mut keys)
}

fn summarize(
    value: &Value,
    schema: Schema,
    key: Option<&str>,
    depth: usize,
    keys: &mut usize,
) -> Value {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        Value::String(text) => match key {
            Some(key) if schema.is_decision(key) => Value::from(cut(text, KEYWORD_CHARS)),
            Some(key) if schema.is_text(key) => Value::from(excerpt(text)),
            _ => json!({ "bytes": text.len() }),
        },
        Value::Array(items) if items.is_empty() => Value::Array(Vec::new()),
        Value::Array(items) => json!({ "items": items.len(), "bytes": json_bytes(value) }),
        Value::Object(map) => object(map, schema, depth, keys),
    }
}

/// The summary of an object `map` (a tool call's input), as [`summary`] gives it.
#[must_use]
pub fn object_summary(map: &Map<String, Value>, schema: Schema) -> Value {
    let mut keys = KEYS;
    object(map, schema, DEPTH, &mut keys)
}

fn object(map: &Map<String, Value>, schema: Schema, depth: usize, keys: &mut usize) -> Value {
    if depth == 0 || map.len() > *keys {
        let mut count = Count(0);
        let _infallible = serde_json::to_writer(&mut count, map);
        return json!({ "keys": map.len(), "bytes": count.0 });
    }
    *keys -= map.len();
    let mut out = Map::new();
    for (k, v) in map {
        out.insert(
            cut(k, KEYWORD_CHARS),
            summarize(v, schema, Some(k), depth - 1, keys),
        );
    }
    Value::Object(out)
}

/// `text` with the values of credentials replaced by `[redacted]`, cut at [`TEXT_CHARS`]
/// characters (`…` says it was): what the log keeps of a command line, a path or a reason.
#[must_use]
pub fn excerpt(text: &str) -> String {
    let scanned = &text[..floor_char_boundary(text, SCANNED_BYTES)];
    cut(&redact(scanned), TEXT_CHARS)
}

/// The first `max` characters of `text`, with `…` when there were more.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// What replaces a credential.
const REDACTED: &str = "[redacted]";

/// A header that carries a credential, up to the end of its quoted or unquoted value:
/// `Authorization: Bearer …`.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|cookie)(\s*:\s*)[^'"\r\n]+"#)
        .expect("the pattern is valid")
});

/// `Bearer …` / `Basic …` outside a header.
static SCHEME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]+").expect("the pattern is valid")
});

/// The user and password of a URL: `https://user:pass@host`.
static USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@").expect("the pattern is valid")
});

/// A variable whose name says it holds a credential, and its value: `API_KEY=…`,
/// `export DB_PASSWORD=…`, `token: …`.
static VARIABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?P<name>\b[a-z0-9_]*(?:key|token|secret|passw(?:or)?d|pass|auth|credential|cookie)",
        r"[a-z0-9_]*)",
        r#"(?P<sep>[\t ]*[=:][\t ]*)(?P<value>"[^"]*"|'[^']*'|[^\s'"]+)"#,
    ))
    .expect("the pattern is valid")
});

/// An option whose name says it takes a credential, and its value: `--password …`,
/// `--token=…` (a short one, `-p…`, is not caught).
static OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?P<name>(?:^|\s)--?[a-z0-9-]*(?:key|token|secret|passw(?:or)?d|pass|auth|",
        r"credential|cookie)[a-z0-9-]*)",
        r#"(?P<sep>=|\s+)(?P<value>"[^"]*"|'[^']*'|[^\s'"]+)"#,
    ))
    .expect("the pattern is valid")
});

/// A run of 24 or more token characters: a key, a token, a hash.
static LONG_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9_+=-]{24,}").expect("the pattern is valid"));

/// `text` with each credential found replaced by `[redacted]`: the value of a credential
/// header (`Authorization: …`, `Cookie: …`, `X-Api-Key: …`), of `Bearer` / `Basic`, a URL's
/// user and password, the value of a variable or an option whose name says it holds one
/// (holding `key`, `token`, `secret`, `password`, `passwd`, `pass`, `auth`, `credential` or
/// `cookie`, in any case: `NAME=…`, `NAME: …`, `--name …`, `--name=…`), and any run of 24 or
/// more letters, digits, `_`, `+`, `=` or `-` that mixes letters and digits (a key, a token,
/// a hash).
#[must_use]
pub fn redact(text: &str) -> String {
    let text = HEADER.replace_all(text, format!("${{1}}${{2}}{REDACTED}"));
    let text = SCHEME.replace_all(&text, format!("${{1}}${{2}}{REDACTED}"));
    let text = USERINFO.replace_all(&text, format!("${{1}}{REDACTED}@"));
    let named = |caps: &regex::Captures<'_>| {
        let value = &caps["value"];
        if value.starts_with(REDACTED) {
            return caps[0].to_owned();
        }
        let quote = match value.chars().next() {
            Some(q @ ('"' | '\'')) => q.to_string(),
            _ => String::new(),
        };
        format!("{}{}{quote}{REDACTED}{quote}", &caps["name"], &caps["sep"])
    };
    let text = VARIABLE.replace_all(&text, named);
    let text = OPTION.replace_all(&text, named);
    LONG_WORD
        .replace_all(&text, |caps: &regex::Captures<'_>| {
            let word = &caps[0];
            let mixed = word.bytes().any(|b| b.is_ascii_digit())
                && word.bytes().any(|b| b.is_ascii_alphabetic());
            if mixed {
                REDACTED.to_owned()
            } else {
                word.to_owned()
            }
        })
        .into_owned()
}

/// A writer that only counts the bytes written to it.
struct Count(usize);

impl io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The size of `value`'s JSON, counted without building it.
fn json_bytes(value: &Value) -> usize {
    let mut count = Count(0);
    let _infallible = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_keeps_decisions_and_sizes_content() {
        let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "updatedToolOutput": {"stdout": "secret out", "interrupted": false}},
            "systemMessage": "status", "continue": true});
        assert_eq!(
            summary(&answer, Schema::Agent { reasons: true }),
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "updatedToolOutput": {"stdout": {"bytes": 10}, "interrupted": false}},
                "systemMessage": {"bytes": 6}, "continue": true})
        );
        let result = json!({"block": true, "reason": "no", "messages": [1, 2], "errors": []});
        assert_eq!(
            summary(&result, Schema::Ours),
            json!({"block": true, "reason": "no", "messages": {"items": 2, "bytes": 5},
                "errors": []})
        );
        let codex = json!({"decision": "block", "reason": "the new output"});
        assert_eq!(
            summary(&codex, Schema::Agent { reasons: false }),
            json!({"decision": "block", "reason": {"bytes": 14}})
        );
    }

    #[test]
    fn a_summary_is_bounded_in_depth_and_keys() {
        let deep = json!({"a": {"b": {"c": {"d": {"e": 1}}}}});
        assert_eq!(
            summary(&deep, Schema::Ours),
            json!({"a": {"b": {"c": {"d": {"keys": 1, "bytes": 7}}}}})
        );
        let wide: Map<String, Value> = (0..100).map(|i| (format!("k{i}"), json!(i))).collect();
        let wide = Value::Object(wide);
        assert_eq!(summary(&wide, Schema::Ours)["keys"], 100);
    }

    #[test]
    fn credentials_in_a_command_line_are_redacted() {
        for (line, want) in [
            (
                "curl -H 'Authorization: Bearer abc.def' x",
                "curl -H 'Authorization: [redacted]' x",
            ),
            (
                "curl -u u:p https://me:pw@host/x",
                "curl -u u:p https://[redacted]@host/x",
            ),
            ("API_KEY=sk-1 ./run", "API_KEY=[redacted] ./run"),
            (
                "mysql --password hunter2 db",
                "mysql --password [redacted] db",
            ),
            ("deploy --token=\"a b\"", "deploy --token=\"[redacted]\""),
            ("echo ghp_1234567890abcdefghijklmnop", "echo [redacted]"),
            (
                "ls -la /tmp/some_long_directory_name",
                "ls -la /tmp/some_long_directory_name",
            ),
            ("rm -rf victim", "rm -rf victim"),
        ] {
            assert_eq!(redact(line), want, "{line}");
        }
        let long = "x ".repeat(300);
        assert_eq!(excerpt(&long).chars().count(), TEXT_CHARS + 1);
    }
}
