//! A place in a text as people read it: the 1-based line and column an error about a file
//! names (`file:line:column`), from the byte offset a parser reports.

use std::fmt;

/// A 1-based line and column (the column counted in bytes, as serde_json and toml count it).
///
/// ```
/// use hookwright::position::Position;
///
/// let text = b"[packs]\ndisable = [\"core.gti\"]\n";
/// let at = Position::of_offset(text, 19);
/// assert_eq!((at.line, at.column), (2, 12));
/// assert_eq!(at.to_string(), "2:12");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column in bytes, from 1.
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `text` (an offset past its end is its end).
    #[must_use]
    pub fn of_offset(text: &[u8], offset: usize) -> Position {
        let before = &text[..offset.min(text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Position {
            line,
            column: before.len() - line_start + 1,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}
