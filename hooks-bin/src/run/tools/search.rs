//! `grep` and `find`: walk the workspace (hidden files skipped, `.gitignore` honoured, symbolic
//! links not followed, so the walk cannot leave the workspace).
//!
//! The walk lists directories by path; what it finds is then used through the workspace's
//! handle ([`Workspace`]), so a directory swapped for a link to the outside while the walk
//! runs cannot make them report what is out there: `grep` opens each file beneath the root
//! (and skips one that is no longer a regular file there), `find` reports a path only if it is
//! a regular file beneath the root when it is checked.

use std::io::Read;
use std::path::Path;

use cap_std::fs::OpenOptions;

use globset::{Glob, GlobBuilder, GlobMatcher};
use hookwright::{ToolError, ToolOutput};
use regex::{Regex, RegexBuilder};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{MAX_BYTES, Workspace, cap_head};

/// The default number of matches `grep` reports.
const GREP_LIMIT: usize = 100;
/// The default number of paths `find` reports.
const FIND_LIMIT: usize = 1000;
/// Longer matching lines are cut to this many characters.
const LINE_CHARS: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct GrepInput {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    literal: bool,
    #[serde(default)]
    context: usize,
    limit: Option<usize>,
}

impl GrepInput {
    fn regex(&self) -> Result<Regex, String> {
        let pattern = if self.literal {
            regex::escape(&self.pattern)
        } else {
            self.pattern.clone()
        };
        RegexBuilder::new(&pattern)
            .case_insensitive(self.ignore_case)
            .build()
            .map_err(|e| format!("invalid pattern {:?}: {}", self.pattern, one_line(&e)))
    }

    /// Checks the pattern and glob compile.
    pub(crate) fn check(self) -> Result<(), String> {
        self.regex()?;
        if let Some(glob) = &self.glob {
            matcher(glob)?;
        }
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindInput {
    pattern: String,
    path: Option<String>,
    limit: Option<usize>,
}

impl FindInput {
    /// Checks the glob compiles.
    pub(crate) fn check(self) -> Result<(), String> {
        matcher(&self.pattern).map(drop)
    }
}

/// A regex error on one line: the parser's `error: ...` line, without the picture of the
/// pattern it draws over several lines.
fn one_line(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .find_map(|line| line.strip_prefix("error: "))
        .map_or_else(
            || text.split_whitespace().collect::<Vec<_>>().join(" "),
            str::to_owned,
        )
}

fn matcher(glob: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|g: Glob| g.compile_matcher())
        .map_err(|e| format!("invalid glob {glob:?}: {}", e.kind()))
}

/// The files under `root` (or `root` itself when it is a file), sorted by path.
fn files(root: &Path, cancel: &CancellationToken) -> Result<Vec<std::path::PathBuf>, ToolError> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(root)
        .follow_links(false)
        .sort_by_file_path(Ord::cmp)
        .build()
    {
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_file()) {
            out.push(entry.into_path());
        }
    }
    Ok(out)
}

/// The bytes of the regular file at `file` (a path the walk found), read through the
/// workspace's handle; `None` when it cannot be read or is no longer a regular file there.
fn read_beneath(ws: &Workspace, file: &Path) -> Option<Vec<u8>> {
    let mut opened = ws.open(file, OpenOptions::new().read(true)).ok()?;
    if !opened.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    opened.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Whether `file` (a path the walk found) is a regular file beneath the root, not a link.
fn is_file_beneath(ws: &Workspace, file: &Path) -> bool {
    ws.dir()
        .symlink_metadata(ws.beneath(file))
        .is_ok_and(|m| m.is_file())
}

/// Searches file contents; each match is `path:line: text`, context lines `path-line- text`.
pub(crate) fn grep(
    ws: &Workspace,
    input: GrepInput,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let regex = input.regex().map_err(ToolError::failed)?;
    let glob = input
        .glob
        .as_deref()
        .map(matcher)
        .transpose()
        .map_err(ToolError::failed)?;
    let root = ws.resolve(input.path.as_deref().unwrap_or("."))?;
    let limit = input.limit.unwrap_or(GREP_LIMIT);
    let mut out = String::new();
    let mut matches = 0usize;
    let mut limited = false;
    'files: for file in files(&root, cancel)? {
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let shown = ws.display(&file);
        if let Some(glob) = &glob
            && !glob.is_match(&shown)
            && !file.file_name().is_some_and(|n| glob.is_match(n))
        {
            continue;
        }
        let Some(bytes) = read_beneath(ws, &file) else {
            continue;
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let mut last_printed: Option<usize> = None;
        for (i, line) in lines.iter().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            if matches == limit {
                limited = true;
                break 'files;
            }
            matches += 1;
            let from = i.saturating_sub(input.context);
            let to = (i + input.context).min(lines.len().saturating_sub(1));
            for (j, text) in lines.iter().enumerate().take(to + 1).skip(from) {
                if last_printed.is_some_and(|p| j <= p) {
                    continue;
                }
                let sep = if j == i { ':' } else { '-' };
                let shown_line: String = text.chars().take(LINE_CHARS).collect();
                out.push_str(&format!("{shown}{sep}{}{sep} {shown_line}\n", j + 1));
                last_printed = Some(j);
            }
            if out.len() > MAX_BYTES {
                limited = true;
                break 'files;
            }
        }
    }
    if matches == 0 {
        out.push_str("No matches found");
    } else if limited {
        out.push_str(&format!("[match limit reached: {matches} matches shown]"));
    }
    let (text, _) = cap_head(out.trim_end());
    let mut output = ToolOutput::text(text);
    output.details = Some(serde_json::json!({"matches": matches, "limitReached": limited}));
    Ok(output)
}

/// Finds files whose path (relative to the search root) or name matches a glob.
pub(crate) fn find(
    ws: &Workspace,
    input: FindInput,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let glob = matcher(&input.pattern).map_err(ToolError::failed)?;
    let root = ws.resolve(input.path.as_deref().unwrap_or("."))?;
    let limit = input.limit.unwrap_or(FIND_LIMIT);
    let mut found = Vec::new();
    let mut limited = false;
    for file in files(&root, cancel)? {
        let rel = file.strip_prefix(&root).unwrap_or(&file);
        let matched = glob.is_match(rel) || file.file_name().is_some_and(|n| glob.is_match(n));
        if matched && is_file_beneath(ws, &file) {
            if found.len() == limit {
                limited = true;
                break;
            }
            found.push(ws.display(&file));
        }
    }
    let mut text = found.join("\n");
    if found.is_empty() {
        text.push_str("No files found");
    } else if limited {
        text.push_str(&format!("\n[result limit reached: {limit} paths shown]"));
    }
    let (text, _) = cap_head(&text);
    let mut output = ToolOutput::text(text);
    output.details = Some(serde_json::json!({"files": found.len(), "limitReached": limited}));
    Ok(output)
}
