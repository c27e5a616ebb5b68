//! Small text helpers shared by the commands' messages.

use serde_json::Value;

/// `s` quoted for a POSIX shell when it needs it (for commands printed for the user to run,
/// and written into agent settings).
pub(crate) fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// What kind of JSON value `value` is, for error messages ("an object", "a string", ...).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `text` with ANSI escape sequences and control characters other than newline and tab
/// removed: for multi-line text shown to a user (a command's output).
pub(crate) fn clean_text(text: &str) -> String {
    strip_ansi_escapes::strip_str(text)
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}
