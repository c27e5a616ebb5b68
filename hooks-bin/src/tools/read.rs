//! `read`: the lines of a UTF-8 text file from `offset` (1-based), at most `limit` of them.

use std::io::Read;

use cap_std::fs::OpenOptions;
use hooks_core::{ToolError, ToolOutput};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::files::open_regular;
use super::{Workspace, cap_head};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadInput {
    path: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Reads the file; the details carry its path, its total line count and whether the answer is
/// cut.
pub(crate) fn read(
    ws: &Workspace,
    input: ReadInput,
    _cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let path = ws.resolve(&input.path)?;
    let mut options = OpenOptions::new();
    options.read(true);
    let mut file = open_regular(ws, &input.path, &path, &mut options, "read", ": use ls")?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| ws.error("read", &input.path, &e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::failed(format!("\"{}\" is not a UTF-8 text file", input.path)))?;
    let total = text.lines().count();
    let offset = input.offset.unwrap_or(1).max(1);
    if offset > total.max(1) {
        return Err(ToolError::failed(format!(
            "offset {offset} is beyond the end of \"{}\" ({total} lines)",
            input.path
        )));
    }
    let selected: String = text
        .split_inclusive('\n')
        .skip(offset - 1)
        .take(input.limit.unwrap_or(usize::MAX))
        .collect();
    let (content, truncated) = cap_head(&selected, "; use offset and limit to read more");
    let mut output = ToolOutput::text(content);
    output.details = Some(serde_json::json!({
        "path": ws.display(&path),
        "lines": total,
        "truncated": truncated,
    }));
    Ok(output)
}
