//! Session scripts: parsing and validation.
//!
//! A script is a JSON Lines file. Each line is one action; blank lines and lines whose first
//! non-blank character is `#` are skipped. The whole file is checked before anything runs,
//! `command` lines against the registered commands too; every problem is reported as
//! `FILE:LINE:COLUMN: message`, the message saying what was expected.
//!
//! | action | line |
//! | --- | --- |
//! | prompt | `{"prompt": "text", "reply"?: "assistant text"}`, or just `"text"` |
//! | tool call | `{"tool": "bash", "input"?: {...}, "id"?: "call-1"}` |
//! | slash command | `{"command": "/handoff some args"}` (a prompt starting with `/name` of a registered command runs it too) |
//! | compaction | `{"compact": {"customInstructions"?: "...", "summary"?: "..."}}` |
//! | session switch | `{"switch": {"reason": "new" \| "resume" \| "fork", "session"?: "file.jsonl"}}` |
//! | branch | `{"branch": {"entry": "<entry id>" \| INDEX}}` |
//! | tree navigation | `{"tree": {"target": "<entry id>" \| INDEX, "summarize"?: true}}` |
//!
//! An `INDEX` picks an entry of the current session by its position in the session file (every
//! branch, in the order written): `0` is the first entry, `-1` the last, `-2` the one before it.
//!
//! A `branch` starts a new session file holding the path before the chosen entry (the entry
//! itself is left out, as upstream); a `tree` navigation moves the current session's leaf to the
//! target, so later entries continue from there and the model sees only that branch.

use std::fmt;
use std::path::{Path, PathBuf};

use hooks_core::events::{SwitchReason, ToolInput};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

use crate::text::json_kind;
use crate::tools::BuiltinTool;

/// The largest script accepted, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// The action keys, in the order the docs list them.
pub const ACTION_KEYS: [&str; 7] = [
    "prompt", "tool", "command", "compact", "switch", "branch", "tree",
];

/// A parsed, validated script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The file it was read from.
    pub path: PathBuf,
    /// The actions, in order.
    pub steps: Vec<Step>,
}

/// One action and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column of the action's value (for errors found while it runs).
    pub column: usize,
    /// What to do.
    pub action: Action,
}

/// What one script line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A user prompt: one agent run.
    Prompt {
        /// The prompt text.
        text: String,
        /// The assistant's scripted final answer.
        reply: Option<String>,
    },
    /// A tool call inside the current agent run.
    Tool {
        /// The tool name.
        name: String,
        /// Its input.
        input: ToolInput,
        /// The tool call id (default `call_<line>`).
        id: Option<String>,
    },
    /// A slash command.
    Command {
        /// The name without `/`.
        name: String,
        /// The text after the name.
        args: String,
    },
    /// A compaction.
    Compact(CompactSpec),
    /// A session switch.
    Switch(SwitchSpec),
    /// A branch into a new session file.
    Branch(BranchSpec),
    /// A navigation in the session tree.
    Tree(TreeSpec),
}

impl Action {
    /// The action's key, e.g. `tool`.
    #[must_use]
    pub fn key(&self) -> &'static str {
        match self {
            Action::Prompt { .. } => "prompt",
            Action::Tool { .. } => "tool",
            Action::Command { .. } => "command",
            Action::Compact(_) => "compact",
            Action::Switch(_) => "switch",
            Action::Branch(_) => "branch",
            Action::Tree(_) => "tree",
        }
    }
}

/// `{"compact": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "an object: {\"summary\"?: \"...\", \"customInstructions\"?: \"...\"}"
)]
pub struct CompactSpec {
    /// Instructions for the summary (passed to `session_before_compact`).
    #[serde(default)]
    pub custom_instructions: Option<String>,
    /// The summary the built-in (model-less) compaction writes.
    #[serde(default)]
    pub summary: Option<String>,
}

/// `{"switch": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"reason\": \"new\" | \"resume\" | \"fork\", \"session\"?: \"file.jsonl\"}"
)]
pub struct SwitchSpec {
    /// `new`, `resume` or `fork`.
    pub reason: SwitchReason,
    /// For `resume`: the session file (relative to the session directory, or absolute).
    #[serde(default)]
    pub session: Option<String>,
}

/// `{"branch": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"entry\": an entry id or index}"
)]
pub struct BranchSpec {
    /// The entry to branch from.
    pub entry: EntryRef,
}

/// `{"tree": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"target\": an entry id or index, \"summarize\"?: true}"
)]
pub struct TreeSpec {
    /// The entry to navigate to.
    pub target: EntryRef,
    /// Whether to summarize the branch left behind.
    #[serde(default)]
    pub summarize: bool,
}

/// An entry of the current session: by id, or by index (negative counts from the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryRef {
    /// An entry id.
    Id(String),
    /// A position: `0` first, `-1` last.
    Index(i64),
}

impl<'de> Deserialize<'de> for EntryRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = EntryRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an entry id (a string) or an entry index (an integer, -1 = last)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EntryRef, E> {
                Ok(EntryRef::Id(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EntryRef, E> {
                Ok(EntryRef::Index(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EntryRef, E> {
                i64::try_from(v)
                    .map(EntryRef::Index)
                    .map_err(|_| E::custom("entry index too large"))
            }
        }
        d.deserialize_any(V)
    }
}

/// One problem in a script, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line (0 when the file as a whole is wrong).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

impl std::error::Error for ScriptError {}

/// Reads and parses the script at `path`; `commands` are the registered command names (without
/// `/`) a `command` line may name.
///
/// # Errors
/// Every problem found (the file cannot be read, is too large or not UTF-8, or lines that are
/// not valid actions), in file order.
pub fn load(path: &Path, commands: &[String]) -> Result<Script, Vec<ScriptError>> {
    let whole = |message: String| {
        vec![ScriptError {
            path: path.to_path_buf(),
            line: 0,
            column: 0,
            message,
        }]
    };
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read script: {e}")))?;
    // A FIFO or a device would block or never end (`/dev/zero` reports no size).
    if !meta.is_file() && !meta.is_dir() {
        return Err(whole("cannot read script: not a regular file".to_owned()));
    }
    let too_large = |len: u64| {
        whole(format!(
            "script is {len} bytes; the limit is {MAX_SCRIPT_BYTES} bytes"
        ))
    };
    if meta.len() > MAX_SCRIPT_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| {
            use std::io::Read as _;
            file.take(MAX_SCRIPT_BYTES + 1).read_to_end(&mut bytes)
        })
        .map_err(|e| whole(format!("cannot read script: {e}")))?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        // It grew while read.
        return Err(too_large(bytes.len() as u64));
    }
    parse_bytes(path, &bytes, commands)
}

/// Parses script text (`path` is only used in error messages); `commands` are the registered
/// command names (without `/`) a `command` line may name.
///
/// # Errors
/// Every line that is not a valid action, in order.
pub fn parse_bytes(
    path: &Path,
    bytes: &[u8],
    commands: &[String],
) -> Result<Script, Vec<ScriptError>> {
    // A leading byte order mark (some editors write one) is not part of the first line.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let before = &bytes[..e.valid_up_to()];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            return Err(vec![ScriptError {
                path: path.to_path_buf(),
                line,
                column,
                message: "invalid UTF-8: a script must be UTF-8 text".to_owned(),
            }]);
        }
    };
    let mut steps = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_line(line, commands) {
            Ok((column, action)) => steps.push(Step {
                line: index + 1,
                column,
                action,
            }),
            Err((column, message)) => errors.push(ScriptError {
                path: path.to_path_buf(),
                line: index + 1,
                column,
                message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(Script {
            path: path.to_path_buf(),
            steps,
        })
    } else {
        Err(errors)
    }
}

/// A line's error: column and message.
type LineError = (usize, String);

/// Parses one non-blank line into its action and the column of the action's value.
fn parse_line(line: &str, commands: &[String]) -> Result<(usize, Action), LineError> {
    let value: Value = serde_json::from_str(line).map_err(|e| json_error(line, &e))?;
    let first = line.len() - line.trim_start().len();
    let first_col = line[..first].chars().count() + 1;
    let map = match value {
        Value::String(text) => {
            return Ok((first_col, Action::Prompt { text, reply: None }));
        }
        Value::Object(map) => map,
        other => {
            return Err((
                first_col,
                format!(
                    "expected a JSON object with one action key ({}) or a string (a prompt), found {}",
                    ACTION_KEYS.join(", "),
                    json_kind(&other)
                ),
            ));
        }
    };
    let keys = top_level_keys(line);
    let col_of_key = |k: &str| {
        keys.iter()
            .find(|(n, _, _)| n == k)
            .map_or(first_col, |e| e.1)
    };
    let col_of_value = |k: &str| {
        keys.iter()
            .find(|(n, _, _)| n == k)
            .map_or(first_col, |e| e.2)
    };
    let actions: Vec<&str> = ACTION_KEYS
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    let key = match actions.as_slice() {
        [key] => *key,
        [] => {
            let found = map.keys().next().map(String::as_str);
            let column = found.map_or(first_col, col_of_key);
            let what = found.map_or_else(
                || "an empty object".to_owned(),
                |k| format!("the key `{k}`"),
            );
            return Err((
                column,
                format!(
                    "unknown action: expected one of the keys {}, found {what}",
                    ACTION_KEYS
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        [a, b, ..] => {
            return Err((
                col_of_key(b),
                format!("one action per line: found both `{a}` and `{b}`"),
            ));
        }
    };
    let column = col_of_value(key);
    // serde points at the end of an unknown key; point at its start when it is a top-level one.
    let typed = |e: serde_json::Error| {
        let (column, message) = json_error(line, &e);
        let unknown = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split('`').next());
        match unknown.and_then(|k| keys.iter().find(|(n, _, _)| n == k)) {
            Some(entry) => (entry.1, message),
            None => (column, message),
        }
    };
    let action = match key {
        "prompt" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                prompt: String,
                #[serde(default)]
                reply: Option<String>,
            }
            let l: L = serde_json::from_str(line).map_err(typed)?;
            Action::Prompt {
                text: l.prompt,
                reply: l.reply,
            }
        }
        "tool" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                tool: String,
                #[serde(default)]
                input: Option<ToolInput>,
                #[serde(default)]
                id: Option<String>,
            }
            let l: L = serde_json::from_str(line).map_err(typed)?;
            let input = l.input.unwrap_or_default();
            BuiltinTool::check_input(&l.tool, &input).map_err(|e| {
                if e.starts_with("unknown tool") {
                    (column, e)
                } else {
                    (
                        col_of_value("input"),
                        format!("invalid input for tool `{}`: {e}", l.tool),
                    )
                }
            })?;
            Action::Tool {
                name: l.tool,
                input,
                id: l.id,
            }
        }
        "command" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                command: String,
            }
            let l: L = serde_json::from_str(line).map_err(typed)?;
            let (name, args) = split_command(&l.command);
            if name.is_empty() || name.chars().any(char::is_whitespace) {
                return Err((
                    column,
                    "expected a command like \"/handoff some args\"".to_owned(),
                ));
            }
            if !commands.iter().any(|c| c == name) {
                return Err((column, unknown_command(name, commands)));
            }
            Action::Command {
                name: name.to_owned(),
                args: args.to_owned(),
            }
        }
        "compact" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                compact: CompactSpec,
            }
            Action::Compact(serde_json::from_str::<L>(line).map_err(typed)?.compact)
        }
        "switch" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                switch: SwitchSpec,
            }
            let spec = serde_json::from_str::<L>(line).map_err(typed)?.switch;
            if spec.reason == SwitchReason::Resume && spec.session.is_none() {
                return Err((
                    column,
                    "a `resume` switch needs \"session\": the session file to resume".to_owned(),
                ));
            }
            if spec.reason != SwitchReason::Resume && spec.session.is_some() {
                return Err((
                    column,
                    "\"session\" names the file of a `resume` switch; a `new` or `fork` switch \
                     creates its own"
                        .to_owned(),
                ));
            }
            Action::Switch(spec)
        }
        "branch" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                branch: BranchSpec,
            }
            Action::Branch(serde_json::from_str::<L>(line).map_err(typed)?.branch)
        }
        "tree" => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct L {
                tree: TreeSpec,
            }
            Action::Tree(serde_json::from_str::<L>(line).map_err(typed)?.tree)
        }
        _ => unreachable!("ACTION_KEYS covers every key"),
    };
    Ok((column, action))
}

/// Says that `/name` is not among the registered `commands`.
fn unknown_command(name: &str, commands: &[String]) -> String {
    let expected = if commands.is_empty() {
        "none are registered".to_owned()
    } else {
        commands
            .iter()
            .map(|c| format!("/{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("unknown command /{name}: expected one of the registered commands ({expected})")
}

/// Splits `"/name rest"` (the slash is optional) into name and arguments.
#[must_use]
pub fn split_command(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let text = text.strip_prefix('/').unwrap_or(text);
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim_start()),
        None => (text, ""),
    }
}

/// A serde_json error as (character column, message without its position suffix).
fn json_error(line: &str, e: &serde_json::Error) -> LineError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    // serde_json counts bytes; report characters, pointing at the offending character.
    let byte = e.column().saturating_sub(1).min(line.len());
    let byte = (0..=byte)
        .rev()
        .find(|b| line.is_char_boundary(*b))
        .unwrap_or(0);
    (line[..byte].chars().count() + 1, message)
}

/// The keys of the top-level object of `line`, each with the 1-based character column of the
/// key and of its value. Best effort: only used to point error messages at the right place.
fn top_level_keys(line: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut expect_key = false;
    while i < chars.len() {
        let (_, c) = chars[i];
        match c {
            '{' | '[' => {
                depth += 1;
                expect_key = c == '{' && depth == 1;
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_key = true,
            '"' => {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i].1 != '"' {
                    if chars[i].1 == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && expect_key {
                    let end = chars.get(i).map_or(line.len(), |c| c.0 + 1);
                    let raw = &line[chars[start].0..end];
                    let key = serde_json::from_str::<String>(raw).unwrap_or_default();
                    let mut j = i + 1;
                    while j < chars.len() && (chars[j].1.is_whitespace() || chars[j].1 == ':') {
                        j += 1;
                    }
                    out.push((key, start + 1, j + 1));
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
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
            [
                "s.jsonl:1:10: unknown tool `rm` (known tools: bash, read, write, edit, ls, grep, find)"
            ]
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
}
