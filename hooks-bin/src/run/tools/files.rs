//! `write` and `ls`, and how `read`, `write` and `edit` open a file.
//!
//! `read`, `write` and `edit` work on regular files only (symbolic links that stay inside the
//! workspace are followed): a FIFO, a socket or a device could block the tool forever. The file
//! is opened without blocking and checked on the open handle, so what is checked is what is
//! read or written.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use cap_std::fs::OpenOptions;
use hookwright::{ToolError, ToolOutput};
use serde::Deserialize;

use super::Workspace;

/// Opens the regular file at `resolved` (`path` as the input gave it) with `options`, for a
/// tool that is to `what` it. A directory is refused with `"<path>" is a directory` followed by
/// `dir_hint`, anything else that is not a regular file with `"<path>" is not a regular file`.
pub(crate) fn open_regular(
    ws: &Workspace,
    path: &str,
    resolved: &Path,
    options: &mut OpenOptions,
    what: &str,
    dir_hint: &str,
) -> Result<File, ToolError> {
    let is_dir = || ToolError::failed(format!("\"{path}\" is a directory{dir_hint}"));
    let not_regular = || ToolError::failed(format!("\"{path}\" is not a regular file"));
    let file = match ws.open(resolved, options) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => return Err(is_dir()),
        // What opening a FIFO without a reader for writing, a socket or a device without its
        // driver fails with; a regular file never does.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
            return Err(not_regular());
        }
        Err(e) => return Err(ws.error(what, path, &e)),
    };
    let meta = file.metadata().map_err(|e| ws.error(what, path, &e))?;
    if meta.is_file() {
        Ok(file)
    } else if meta.is_dir() {
        Err(is_dir())
    } else {
        Err(not_regular())
    }
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
    if let Some(parent) = ws.beneath(&path).parent()
        && !parent.as_os_str().is_empty()
    {
        match ws.dir().metadata(parent) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => ws
                .dir()
                .create_dir_all(parent)
                .map_err(|e| ws.error("create the directory of", &input.path, &e))?,
            Err(e) => return Err(ws.error("write", &input.path, &e)),
        }
    }
    let mut options = OpenOptions::new();
    options.write(true).create(true);
    let mut file = open_regular(ws, &input.path, &path, &mut options, "write", "")?;
    file.set_len(0)
        .and_then(|()| file.write_all(input.content.as_bytes()))
        .map_err(|e| ws.error("write", &input.path, &e))?;
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
    path: Option<String>,
    limit: Option<usize>,
}

/// Lists a directory, sorted by name, directories with a trailing `/`, dotfiles included.
pub(crate) fn ls(ws: &Workspace, input: LsInput) -> Result<ToolOutput, ToolError> {
    let shown = input.path.as_deref().unwrap_or(".");
    let path = ws.resolve(shown)?;
    let cannot_list = |e: io::Error| ws.error("list", shown, &e);
    let dir = ws.dir().open_dir(ws.beneath(&path)).map_err(cannot_list)?;
    let mut names = Vec::new();
    for entry in dir.entries().map_err(cannot_list)? {
        let entry = entry.map_err(cannot_list)?;
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
