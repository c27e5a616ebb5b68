//! Reading a script: the file (bounded), its lines, and each line decoded and checked into
//! its [`Action`].

use std::path::Path;

use hookwright::events::{SwitchReason, ToolInput};
use serde::Deserialize;
use serde_json::Value;

use super::position::{LineError, json_error, top_level_keys};
use super::{
    ACTION_KEYS, Action, BranchSpec, CompactSpec, MAX_SCRIPT_BYTES, Script, ScriptError, Step,
    SwitchSpec, TreeSpec,
};
use crate::run::tools::BuiltinTool;
use crate::text::json_kind;

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
                input: Option<ToolInput>,
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
