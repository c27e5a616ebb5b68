//! `read`, `write` and `ls`.
//!
//! `read`, `write` and `edit` work on regular files only (symbolic links are followed by
//! [`Workspace::resolve`]): a FIFO, a socket or a device could block the tool forever.

use std::fs;

use hooks_core::{ToolError, ToolOutput};
use serde::Deserialize;

use super::{Workspace, cap_head};

fn io_error(what: &str, path: &str, e: &std::io::Error) -> ToolError {
    ToolError::failed(format!("cannot {what} \"{path}\": {e}"))
}

/// Fails unless `meta` is that of a regular file; `shown` is the path as the input gave it.
pub(crate) fn ensure_regular(shown: &str, meta: &fs::Metadata) -> Result<(), ToolError> {
    if meta.is_file() {
        Ok(())
    } else if meta.is_dir() {
        Err(ToolError::failed(format!("\"{shown}\" is a directory")))
    } else {
        Err(ToolError::failed(format!(
            "\"{shown}\" is not a regular file"
        )))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadInput {
    path: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Reads a UTF-8 text file, optionally from line `offset` (1-based) for `limit` lines.
pub(crate) fn read(ws: &Workspace, input: ReadInput) -> Result<ToolOutput, ToolError> {
    let path = ws.resolve(&input.path)?;
    let meta = fs::metadata(&path).map_err(|e| io_error("read", &input.path, &e))?;
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "\"{}\" is a directory: use ls",
            input.path
        )));
    }
    ensure_regular(&input.path, &meta)?;
    let bytes = fs::read(&path).map_err(|e| io_error("read", &input.path, &e))?;
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteInput {
    path: String,
    content: String,
}

/// Creates or overwrites a regular file, creating missing parent directories.
pub(crate) fn write(ws: &Workspace, input: WriteInput) -> Result<ToolOutput, ToolError> {
    let path = ws.resolve(&input.path)?;
    if let Ok(meta) = fs::metadata(&path) {
        ensure_regular(&input.path, &meta)?;
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| io_error("create the directory of", &input.path, &e))?;
    }
    fs::write(&path, input.content.as_bytes()).map_err(|e| io_error("write", &input.path, &e))?;
    Ok(ToolOutput::text(format!(
        "Wrote {} bytes to {}",
        input.content.len(),
        ws.display(&path)
    )))
}

/// The default number of entries `ls` lists.
const LS_LIMIT: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LsInput {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Lists a directory, sorted by name, directories with a trailing `/`, dotfiles included.
pub(crate) fn ls(ws: &Workspace, input: LsInput) -> Result<ToolOutput, ToolError> {
    let shown = input.path.as_deref().unwrap_or(".");
    let path = ws.resolve(shown)?;
    let mut names = Vec::new();
    for entry in fs::read_dir(&path).map_err(|e| io_error("list", shown, &e))? {
        let entry = entry.map_err(|e| io_error("list", shown, &e))?;
        let mut name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            name.push('/');
        }
        names.push(name);
    }
    names.sort();
    let limit = input.limit.unwrap_or(LS_LIMIT);
    let total = names.len();
    let mut text = names.into_iter().take(limit).collect::<Vec<_>>().join("\n");
    if total > limit {
        text.push_str(&format!("\n[{} more entries not shown]", total - limit));
    }
    if text.is_empty() {
        text.push_str("(empty directory)");
    }
    let mut output = ToolOutput::text(text);
    output.details = Some(serde_json::json!({"entries": total}));
    Ok(output)
}
