//! What the example redactor answers, in Claude Code, to a tool that would put a file holding a
//! secret into Claude Code's file state: [`answer_read`] for `Read` (the file's text with each
//! secret's value redacted, as `Read` would show it) and [`answer_edit`] for `Edit` (a block).
//!
//! Why not let the tool run and redact its output ([`redact_tool_output`](super::redact_tool_output))?
//! Claude Code keeps every file `Read` opened or `Edit` changed in its file state (2.1.328: an
//! `Edit` needs no `Read` first), and after a compaction it reads the most recent of them again
//! from disk (five, each up to 5,000 tokens) and attaches them to the next model request, past
//! every hook: the secret the output hook redacted reaches the model in full. A file neither
//! tool opened is not in that state. (`NotebookEdit` takes only a notebook `Read` opened;
//! `Write` puts in the state what the model itself wrote.)
//!
//! What [`inspect`] reads, and what it leaves to the tool:
//!
//! - a file larger than [`SCAN_LIMIT`] is left to the tool (a `Read` of it is redacted as
//!   usual): a re-attachment reads no more than 256 KiB of a file, and of a larger one attaches
//!   only its name (measured: "the contents are too large to include");
//! - images (`png`, `jpg`, `jpeg`, `gif`, `webp`, or no extension and an image's first bytes)
//!   and PDFs are left to the tool: an image passes the output hook as it is, a PDF read whole
//!   is withheld by it, its pages come as images, and a re-attached PDF carries no content;
//! - a notebook (`.ipynb`) is checked in its cells' sources and text outputs, and in its JSON
//!   as a whole;
//! - text is decoded as `Read` decodes it (UTF-8, or UTF-16LE after a `FF FE` mark or when NUL
//!   bytes make up a quarter of its start; both are checked then); a binary file (NUL in its
//!   text) that holds a secret is answered with a notice, not shown;
//! - a file that does not exist and a directory are left to the tool, which fails on them (or,
//!   for `Edit`, creates the file); a file that cannot be read here (no permission, not a
//!   regular file, an I/O error) is blocked with the reason: if the tool could read it, its raw
//!   text would stay in the file state.
//!
//! The text a read is answered with honours `Read`'s `offset` (the first line, from 1; 0 is 1
//! too) and `limit` (default [`DEFAULT_LINES`]) and is cut at [`SHOWN_LIMIT`] bytes with the
//! `offset` to read on; the whole file is checked whatever lines are asked for, since a
//! re-attachment shows the file from its start.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::redact_secrets;

/// The most of a file read to decide, in bytes: four times the 256 KiB that Claude Code
/// 2.1.328's `Read`, and its re-attachment after a compaction, read of a file without a line
/// range. A larger file is left to the tool (a compaction re-attaches only its name).
pub const SCAN_LIMIT: u64 = 1024 * 1024;

/// The lines shown when the call names no `limit` (`Read`'s default).
pub const DEFAULT_LINES: usize = 2000;

/// The most text shown in one answer, in bytes (about `Read`'s own cap of 25,000 tokens); the
/// lines past it are named with the `offset` that reads on.
pub const SHOWN_LIMIT: usize = 100_000;

/// How the answer to a `Read` of a file holding a secret begins; the path, the lines shown and
/// the text (`Read`'s form: the line number, a tab, the line) follow.
pub const READ_IN_PLACE: &str = "The redaction hook read this file in place of the Read tool, \
     since it holds a secret: below is its text, each secret's value shown as [REDACTED]. \
     (Claude Code shows a file that Read or Edit opens to the model again after a compaction, \
     unredacted; so change this file with a shell command, not with Edit.)";

/// The reason an `Edit` of a file holding a secret is blocked with; the path follows.
pub const EDIT_BLOCKED: &str = "Blocked by the redaction hook: this file holds a secret, and \
     Claude Code shows a file that Edit changed to the model again after a compaction, whole \
     and unredacted. Change it with a shell command (sed, a script) instead:";

/// How the answer for a file that could not be checked begins; the path and the error follow.
pub const UNCHECKED: &str = "The redaction hook could not read this file to check it for \
     secrets, so the tool was not run (Claude Code shows a file that Read or Edit opens to the \
     model again after a compaction, where no hook can redact it):";

/// How the answer to a `Read` of a binary file holding a secret begins; the path follows.
pub const BINARY: &str = "This file holds a secret and is binary: the redaction hook shows \
     none of it, and the Read tool was not run (Claude Code shows a file that Read opens to the \
     model again after a compaction, unredacted):";

/// The extensions `Read` shows as images.
const IMAGES: &[&str] = &["png", "jpg", "jpeg", "gif", "webp"];

/// The lines a `Read` call asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lines {
    /// The first line, from 1 (0 is 1 too); `None` is 1.
    pub offset: Option<u64>,
    /// How many lines; `None` is [`DEFAULT_LINES`].
    pub limit: Option<u64>,
}

/// The `file_path` of a `Read` or `Edit` call as Claude Code resolves it: trimmed, `~` and
/// `~/...` under `home`, a relative path under `cwd`.
#[must_use]
pub fn resolve(path: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let path = path.trim();
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => cwd.join(path),
    }
}

/// What [`inspect`] found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inspection {
    /// Nothing of it would come back after a compaction, or it holds no secret: the tool runs
    /// (missing, a directory, an image, a PDF, larger than [`SCAN_LIMIT`], or clean).
    LeftToTool,
    /// It could not be read here, for this reason.
    Unchecked(String),
    /// It holds a secret: its text with each secret's value redacted.
    Secret(Redacted),
}

/// The redacted text of a file holding a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redacted {
    /// Text, with each secret's value redacted.
    Text(String),
    /// A notebook's cells as text, redacted.
    Cells(String),
    /// A binary file (NUL in its text): nothing of it is shown.
    Binary,
}

/// Whether the file at `path` holds a secret, as far as what comes back of it after a
/// compaction goes (see the [module docs](self)).
#[must_use]
pub fn inspect(path: &Path) -> Inspection {
    let unchecked = |why: &dyn std::fmt::Display| Inspection::Unchecked(why.to_string());
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Inspection::LeftToTool,
        Err(e) => return unchecked(&e),
    };
    if meta.is_dir() {
        return Inspection::LeftToTool;
    }
    if !meta.is_file() {
        return unchecked(&"it is not a regular file");
    }
    if meta.len() > SCAN_LIMIT {
        return Inspection::LeftToTool;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if IMAGES.contains(&ext.as_str()) || ext == "pdf" {
        return Inspection::LeftToTool;
    }
    let bytes = match read_at_most(path, SCAN_LIMIT) {
        Ok(bytes) => bytes,
        Err(e) => return unchecked(&e),
    };
    if bytes.len() as u64 > SCAN_LIMIT {
        // It grew past the limit since it was measured: left to the tool, as a large file is.
        return Inspection::LeftToTool;
    }
    if ext.is_empty() && is_image(&bytes) {
        return Inspection::LeftToTool;
    }
    if ext == "ipynb"
        && let Some(cells) = notebook_text(&bytes)
    {
        let raw = String::from_utf8_lossy(&bytes);
        let redacted = redact_secrets(&cells);
        if redacted == cells && redact_secrets(&raw) == raw {
            return Inspection::LeftToTool;
        }
        return Inspection::Secret(Redacted::Cells(redacted));
    }
    let found = decodings(&bytes)
        .into_iter()
        .map(|text| {
            let redacted = redact_secrets(&text);
            (text, redacted)
        })
        .find(|(text, redacted)| text != redacted);
    match found {
        None => Inspection::LeftToTool,
        Some((text, _)) if text.contains('\0') => Inspection::Secret(Redacted::Binary),
        Some((_, redacted)) => Inspection::Secret(Redacted::Text(redacted)),
    }
}

/// The answer to a `Read` of `path`: `None` lets `Read` run; `Some(reason)` denies it with
/// `reason`, which is [`READ_IN_PLACE`] and the redacted text of `lines` (of a notebook: its
/// cells), or [`BINARY`], or [`UNCHECKED`] and why the file could not be read.
#[must_use]
pub fn answer_read(path: &Path, lines: Lines) -> Option<String> {
    match inspect(path) {
        Inspection::LeftToTool => None,
        Inspection::Unchecked(why) => Some(format!("{UNCHECKED} {}: {why}", path.display())),
        Inspection::Secret(Redacted::Text(text)) => Some(shown(path, &text, lines)),
        Inspection::Secret(Redacted::Cells(cells)) => Some(shown_cells(path, &cells)),
        Inspection::Secret(Redacted::Binary) => Some(format!("{BINARY} {}", path.display())),
    }
}

/// The answer to an `Edit` of `path`: `None` lets it run; `Some(reason)` blocks it with
/// [`EDIT_BLOCKED`] (the file holds a secret) or [`UNCHECKED`] and why the file could not be
/// read.
#[must_use]
pub fn answer_edit(path: &Path) -> Option<String> {
    match inspect(path) {
        Inspection::LeftToTool => None,
        Inspection::Unchecked(why) => Some(format!("{UNCHECKED} {}: {why}", path.display())),
        Inspection::Secret(_) => Some(format!("{EDIT_BLOCKED} {}", path.display())),
    }
}

/// The first `limit + 1` bytes of the regular file at `path` (one more than the limit tells a
/// file that grew).
fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("it is not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether `bytes` begin as a PNG, JPEG, GIF or WebP image does (`Read` shows a file without
/// an extension as an image then).
fn is_image(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n")
        || bytes.starts_with(b"\xff\xd8\xff")
        || bytes.starts_with(b"GIF87a")
        || bytes.starts_with(b"GIF89a")
        || (bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP")
}

/// The texts `bytes` may be read as: UTF-8 (lossy, without a byte-order mark) and, after a
/// `FF FE` mark or when NUL bytes make up over a quarter of the first 512 bytes (as `Read`
/// guesses), UTF-16LE.
fn decodings(bytes: &[u8]) -> Vec<String> {
    let utf16 = |from: usize| {
        let units: Vec<u16> = bytes[from..]
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    };
    if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        return vec![utf16(2), String::from_utf8_lossy(rest).into_owned()];
    }
    let utf8 = String::from_utf8_lossy(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes));
    let start = &bytes[..bytes.len().min(512)];
    let (even, odd) =
        start
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == 0)
            .fold((0, 0), |(even, odd), (i, _)| {
                if i % 2 == 0 {
                    (even + 1, odd)
                } else {
                    (even, odd + 1)
                }
            });
    let mut texts = vec![utf8.into_owned()];
    if start.len() >= 8 && (even + odd) * 4 > start.len() {
        texts.push(utf16(usize::from(even > odd)));
    }
    texts
}

/// A notebook's cells as text: each cell's source in `<cell id="...">` marks, then its outputs
/// (`stream` text, `text/plain` data, an error's name, value and traceback; an image named, not
/// shown) in `<output>` marks; `None` when `bytes` are no notebook.
fn notebook_text(bytes: &[u8]) -> Option<String> {
    let notebook: Value = serde_json::from_slice(bytes).ok()?;
    let cells = notebook.get("cells")?.as_array()?;
    let mut out = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let id = cell["id"]
            .as_str()
            .map_or_else(|| format!("cell-{i}"), str::to_owned);
        let kind = cell["cell_type"].as_str().unwrap_or("code");
        let _ = write!(out, "<cell id=\"{id}\">");
        if kind != "code" {
            let _ = write!(out, "<cell_type>{kind}</cell_type>");
        }
        out.push_str(&joined(&cell["source"]));
        let _ = writeln!(out, "</cell id=\"{id}\">");
        for output in cell["outputs"].as_array().into_iter().flatten() {
            let images = output["data"]
                .as_object()
                .into_iter()
                .flat_map(|data| data.keys())
                .filter(|kind| kind.starts_with("image/"))
                .map(|kind| format!("[{kind} output, not shown]"));
            let parts: Vec<String> = [
                joined(&output["text"]),
                joined(&output["data"]["text/plain"]),
                [&output["ename"], &output["evalue"]]
                    .iter()
                    .filter_map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(": "),
                joined(&output["traceback"]),
            ]
            .into_iter()
            .chain(images)
            .filter(|part| !part.is_empty())
            .collect();
            if parts.is_empty() {
                continue;
            }
            out.push_str("<output>");
            for part in parts {
                out.push_str(&part);
                if !part.ends_with('\n') {
                    out.push('\n');
                }
            }
            out.push_str("</output>\n");
        }
    }
    Some(out)
}

/// A notebook field that is a string or an array of strings, as one string.
fn joined(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// [`READ_IN_PLACE`], the path, and a notebook's cells ([`notebook_text`], redacted), cut at
/// [`SHOWN_LIMIT`] bytes (`Read` takes no line range of a notebook).
fn shown_cells(path: &Path, cells: &str) -> String {
    let mut cut = SHOWN_LIMIT.min(cells.len());
    while !cells.is_char_boundary(cut) {
        cut -= 1;
    }
    let rest = if cut < cells.len() {
        "\n[the rest of the notebook is not shown]"
    } else {
        ""
    };
    format!(
        "{READ_IN_PLACE}\n{}: its cells:\n{}{rest}",
        path.display(),
        &cells[..cut]
    )
}

/// [`READ_IN_PLACE`], the path, and `lines` of `text` as `Read` shows them (`N\tLINE`), cut at
/// [`SHOWN_LIMIT`] bytes.
fn shown(path: &Path, text: &str, lines: Lines) -> String {
    let all: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let total = all.len();
    let first = lines
        .offset
        .map_or(1, |n| usize::try_from(n).unwrap_or(usize::MAX))
        .max(1);
    let limit = lines
        .limit
        .map_or(DEFAULT_LINES, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let path = path.display();
    if first > total {
        return format!(
            "{READ_IN_PLACE}\n{path}: the file has {total} lines, fewer than the offset {first}."
        );
    }
    let mut body = String::new();
    let mut last = first - 1;
    for (i, line) in all.iter().enumerate().skip(first - 1).take(limit) {
        let entry = format!("{}\t{line}\n", i + 1);
        if body.len() + entry.len() > SHOWN_LIMIT {
            if last < first {
                // A first line longer than the limit: its start.
                let mut cut = SHOWN_LIMIT.min(entry.len());
                while !entry.is_char_boundary(cut) {
                    cut -= 1;
                }
                body.push_str(&entry[..cut]);
                body.push_str("\n[the line is cut here]\n");
                last = i + 1;
            }
            break;
        }
        body.push_str(&entry);
        last = i + 1;
    }
    let mut answer = format!("{READ_IN_PLACE}\n{path}: lines {first}-{last} of {total}:\n{body}");
    if last < total {
        let _ = write!(
            answer,
            "[lines {}-{total} not shown: read on with offset={}]",
            last + 1,
            last + 1
        );
    }
    answer
}
