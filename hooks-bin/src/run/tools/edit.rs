//! `edit`: replaces one exact, unique occurrence of `oldText` with `newText`.

use std::io::{Read, Seek, Write};

use cap_std::fs::OpenOptions;
use hookwright::{ToolError, ToolOutput};
use serde::Deserialize;

use super::Workspace;
use super::files::open_regular;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct EditInput {
    path: String,
    old_text: String,
    new_text: String,
}

/// Applies the edit to a regular file, read and rewritten in place through one handle; the
/// details carry a unified diff and the first changed line.
pub(crate) fn edit(ws: &Workspace, input: EditInput) -> Result<ToolOutput, ToolError> {
    let path = ws.resolve(&input.path)?;
    if input.old_text.is_empty() {
        return Err(ToolError::failed(
            "oldText is empty: give the exact text to replace",
        ));
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    let mut file = open_regular(ws, &input.path, &path, &mut options, "read", "")?;
    let mut before = String::new();
    file.read_to_string(&mut before)
        .map_err(|e| ws.error("read", &input.path, &e))?;
    let count = before.matches(&input.old_text).count();
    match count {
        0 => {
            return Err(ToolError::failed(format!(
                "Could not find the exact text in {}. The old text must match exactly, including all whitespace and newlines.",
                input.path
            )));
        }
        1 => {}
        n => {
            return Err(ToolError::failed(format!(
                "Found {n} occurrences of the text in {}. The text must be unique: add more surrounding context.",
                input.path
            )));
        }
    }
    let at = before.find(&input.old_text).unwrap_or_default();
    let after = before.replacen(&input.old_text, &input.new_text, 1);
    file.rewind()
        .and_then(|()| file.write_all(after.as_bytes()))
        .and_then(|()| file.set_len(after.len() as u64))
        .map_err(|e| ws.error("write", &input.path, &e))?;
    let first_changed_line = before[..at].matches('\n').count() + 1;
    let shown = ws.display(&path);
    let diff = similar::TextDiff::from_lines(&before, &after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    let mut output = ToolOutput::text(format!("Edited {shown} at line {first_changed_line}"));
    output.details = Some(serde_json::json!({
        "diff": diff,
        "firstChangedLine": first_changed_line,
    }));
    Ok(output)
}
