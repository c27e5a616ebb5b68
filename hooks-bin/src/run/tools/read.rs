//! `read`: the lines of a UTF-8 text file from `offset` (1-based), at most `limit` of them.
//!
//! The file is streamed in [`CHUNK`]-byte pieces and never held whole: the answer keeps at most
//! [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, and the rest of the file is only scanned, to
//! check it is UTF-8 and to count its lines (the answer states the total). Memory stays
//! bounded by the answer plus one chunk whatever the file's size; the time is that of reading
//! it through. A line longer than [`MAX_BYTES`] that would be the first one shown is shown cut
//! to its head, and the answer says so; a later one ends the answer before it (an `offset`
//! starting at it shows its head).

use std::io::{self, Read};

use cap_std::fs::OpenOptions;
use hookwright::{ToolError, ToolOutput};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::files::open_regular;
use super::{MAX_BYTES, MAX_LINES, Workspace};

/// The bytes read from the file at a time.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadInput {
    path: String,
    offset: Option<usize>,
    limit: Option<usize>,
}

/// Reads the file; the details carry its path, its total line count and whether the answer is
/// cut.
pub(crate) fn read(
    ws: &Workspace,
    input: ReadInput,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let path = ws.resolve(&input.path)?;
    let mut options = OpenOptions::new();
    options.read(true);
    let file = open_regular(ws, &input.path, &path, &mut options, "read", ": use ls")?;
    let offset = input.offset.unwrap_or(1).max(1);
    let mut lines = Lines::new(offset, input.limit.unwrap_or(usize::MAX));
    match scan(file, cancel, |text| lines.feed(text)) {
        Ok(()) => {}
        Err(Scan::Cancelled) => return Err(ToolError::Cancelled),
        Err(Scan::NotUtf8) => {
            return Err(ToolError::failed(format!(
                "\"{}\" is not a UTF-8 text file",
                input.path
            )));
        }
        Err(Scan::Io(e)) => return Err(ws.error("read", &input.path, &e)),
    }
    let total = lines.total();
    if offset > total.max(1) {
        return Err(ToolError::failed(format!(
            "offset {offset} is beyond the end of \"{}\" ({total} lines)",
            input.path
        )));
    }
    let (content, truncated) = lines.answer();
    let mut output = ToolOutput::text(content);
    output.details = Some(serde_json::json!({
        "path": ws.display(&path),
        "lines": total,
        "truncated": truncated,
    }));
    Ok(output)
}

/// Why a scan stopped early.
enum Scan {
    Cancelled,
    NotUtf8,
    Io(io::Error),
}

/// Feeds all of `file` to `each` as UTF-8 text, one chunk at a time (a character split between
/// two reads is carried over to the next piece), checking `cancel` between chunks.
fn scan(
    mut file: impl Read,
    cancel: &CancellationToken,
    mut each: impl FnMut(&str),
) -> Result<(), Scan> {
    let mut buf = vec![0u8; CHUNK];
    // Bytes of a character cut by the previous read, at the start of `buf`.
    let mut carried = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(Scan::Cancelled);
        }
        let read = match file.read(&mut buf[carried..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Scan::Io(e)),
        };
        let end = carried + read;
        let valid = match std::str::from_utf8(&buf[..end]) {
            Ok(text) => {
                each(text);
                end
            }
            // Only the last character is incomplete: the next read brings the rest of it.
            Err(e) if e.error_len().is_none() => {
                let valid = e.valid_up_to();
                each(std::str::from_utf8(&buf[..valid]).map_err(|_| Scan::NotUtf8)?);
                valid
            }
            Err(_) => return Err(Scan::NotUtf8),
        };
        buf.copy_within(valid..end, 0);
        carried = end - valid;
    }
    if carried == 0 {
        Ok(())
    } else {
        Err(Scan::NotUtf8)
    }
}

/// The lines of a file as it streams by: their count, and the answer for `offset` and `limit`.
struct Lines {
    offset: usize,
    limit: usize,
    /// Lines ended so far (newlines seen).
    ended: usize,
    /// Bytes of the line under way so far.
    current: usize,
    /// The lines kept for the answer, each whole (or one head, see `cut`).
    out: String,
    /// The kept part of the line under way.
    pending: String,
    /// How many lines `out` holds.
    shown: usize,
    /// Nothing more goes into the answer.
    full: bool,
    /// The line shown cut to its head: its number, then its length once it ended.
    cut: Option<(usize, usize)>,
}

impl Lines {
    fn new(offset: usize, limit: usize) -> Self {
        Lines {
            offset,
            limit,
            ended: 0,
            current: 0,
            out: String::new(),
            pending: String::new(),
            shown: 0,
            full: false,
            cut: None,
        }
    }

    fn feed(&mut self, text: &str) {
        for piece in text.split_inclusive('\n') {
            let line = self.ended + 1;
            if !self.full && line >= self.offset && line - self.offset < self.limit {
                self.keep(line, piece);
            }
            self.current += piece.len();
            if piece.ends_with('\n') {
                self.end_line();
            }
        }
    }

    /// Adds a piece of line `line` to the answer, while it fits.
    fn keep(&mut self, line: usize, piece: &str) {
        if self.shown == MAX_LINES {
            self.full = true;
            return;
        }
        let room = MAX_BYTES - self.out.len() - self.pending.len();
        if piece.len() <= room {
            self.pending.push_str(piece);
            return;
        }
        self.full = true;
        if self.shown == 0 {
            // The first line shown is longer than the cap: its head, rather than nothing.
            self.pending
                .push_str(&piece[..piece.floor_char_boundary(room)]);
            self.cut = Some((line, 0));
            self.out.push_str(&self.pending);
        }
        self.pending.clear();
    }

    fn end_line(&mut self) {
        let line = self.ended + 1;
        if let Some((cut, len)) = &mut self.cut
            && *cut == line
        {
            *len = self.current;
        }
        if !self.pending.is_empty() {
            self.out.push_str(&self.pending);
            self.pending.clear();
            self.shown += 1;
        }
        self.ended += 1;
        self.current = 0;
    }

    /// The number of lines, as [`str::lines`] counts them; call once the file has ended.
    fn total(&mut self) -> usize {
        if self.current > 0 {
            self.end_line();
        }
        self.ended
    }

    /// The answer, and whether it is cut; call after [`Lines::total`].
    fn answer(self) -> (String, bool) {
        let selected = (self.ended + 1).saturating_sub(self.offset).min(self.limit);
        let mut out = self.out;
        let note = if let Some((line, len)) = self.cut {
            let shown = out.len();
            let mut note = format!("line {line} is {len} bytes, showing its first {shown}");
            if selected > 1 {
                note.push_str(&format!("; use offset {} to read on", line + 1));
            }
            note
        } else if self.shown < selected {
            format!(
                "showing {} of {selected} lines; use offset and limit to read more",
                self.shown
            )
        } else {
            return (out, false);
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("[output truncated: {note}]"));
        (out, true)
    }
}
