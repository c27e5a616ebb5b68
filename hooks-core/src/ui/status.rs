//! The status line: keyed segments set with `ui.set_status`, rendered sorted by key,
//! sanitized, joined with one space and truncated to a width in terminal cells.

use std::collections::BTreeMap;
use std::iter::Peekable;
use std::str::Chars;

use unicode_width::UnicodeWidthChar;

/// The keyed status segments of one UI (SPEC-DETAILS section 4.2).
///
/// ```
/// use hookwright::ui::StatusLine;
/// let mut status = StatusLine::default();
/// status.set("b", Some("second"));
/// status.set("a", Some("first\tline"));
/// assert_eq!(status.render(80).as_deref(), Some("first line second"));
/// assert_eq!(status.render(8).as_deref(), Some("first l…"));
/// status.set("a", None);
/// status.set("b", None);
/// assert_eq!(status.render(80), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusLine {
    segments: BTreeMap<String, String>,
}

impl StatusLine {
    /// Stores `text` under `key` (any string, including `""`), or deletes the key on `None`.
    pub fn set(&mut self, key: &str, text: Option<&str>) {
        match text {
            Some(text) => {
                self.segments.insert(key.to_owned(), text.to_owned());
            }
            None => {
                self.segments.remove(key);
            }
        }
    }

    /// Whether no segment is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The raw segments, sorted by key.
    pub fn segments(&self) -> impl Iterator<Item = (&str, &str)> {
        self.segments.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The line to display in `width` terminal cells, or `None` when no segment is set.
    ///
    /// Segments are sorted by key, each sanitized with [`sanitize_status_text`], joined with
    /// one space (empty texts are not skipped), and truncated with [`truncate_to_width`].
    #[must_use]
    pub fn render(&self, width: usize) -> Option<String> {
        if self.segments.is_empty() {
            return None;
        }
        let line = self
            .segments
            .values()
            .map(|t| sanitize_status_text(t))
            .collect::<Vec<_>>()
            .join(" ");
        Some(truncate_to_width(&line, width))
    }
}

/// Sanitizes status text: whole ANSI/terminal escape sequences are removed (our deliberate
/// difference 2), every other control character (U+0000–U+001F, U+007F–U+009F) becomes a
/// space, runs of spaces collapse to one, and the ends are trimmed.
///
/// Recognized sequences: CSI (`ESC [` parameters, intermediates, final byte), the string
/// sequences OSC/DCS/SOS/PM/APC (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _`) up to BEL or ST
/// (`ESC \`, U+009C), and the other `ESC` sequences (intermediates then a final byte). A lone
/// `ESC` is dropped.
#[must_use]
pub fn sanitize_status_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last_space = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            skip_escape_sequence(&mut chars);
            continue;
        }
        let c = if c.is_control() { ' ' } else { c };
        if c == ' ' {
            if last_space {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        out.push(c);
    }
    out.trim().to_owned()
}

/// Consumes the rest of an escape sequence whose `ESC` was just read.
fn skip_escape_sequence(chars: &mut Peekable<Chars<'_>>) {
    loop {
        match chars.peek().copied() {
            // CSI: parameter and intermediate bytes, then one final byte.
            Some('[') => {
                chars.next();
                while let Some(&c) = chars.peek() {
                    match c {
                        '\x20'..='\x3f' => {
                            chars.next();
                        }
                        '\x40'..='\x7e' => {
                            chars.next();
                            return;
                        }
                        _ => return,
                    }
                }
                return;
            }
            // OSC, DCS, SOS, PM, APC: a string up to BEL or ST.
            Some(']' | 'P' | 'X' | '^' | '_') => {
                chars.next();
                loop {
                    match chars.next() {
                        None | Some('\x07' | '\u{9c}') => return,
                        Some('\x1b') => {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                                return;
                            }
                            // An ESC that is not ST ends the string and starts a new sequence.
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            // nF: intermediate bytes, then one final byte.
            Some('\x20'..='\x2f') => {
                while let Some(&c) = chars.peek() {
                    match c {
                        '\x20'..='\x2f' => {
                            chars.next();
                        }
                        '\x30'..='\x7e' => {
                            chars.next();
                            return;
                        }
                        _ => return,
                    }
                }
                return;
            }
            // Two-character sequences (Fp, Fe, Fs), e.g. `ESC 7`, `ESC M`, `ESC c`.
            Some('\x30'..='\x7e') => {
                chars.next();
                return;
            }
            // A lone ESC.
            _ => return,
        }
    }
}

/// Truncates `line` to `width` terminal cells: unchanged if it fits; otherwise characters are
/// kept while their width stays within `width - 1` and `…` is appended (width 0 gives `""`).
/// Wide characters (CJK) count two cells.
#[must_use]
pub fn truncate_to_width(line: &str, width: usize) -> String {
    let total: usize = line.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return line.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let budget = width - 1;
    let mut used = 0;
    let mut out = String::new();
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}
