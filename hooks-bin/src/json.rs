//! Bounded JSON decoding for everything a user or an agent hands the host: adapter stdin, the
//! settings files `hooks install` edits and the trust store; the fuzz targets run the same
//! decoder.
//!
//! Every decode runs the same checks, in this order, and stops at the first failure:
//!
//! 1. size: at most [`MAX_INPUT_BYTES`] (16 MiB);
//! 2. encoding: UTF-8, reported at the first invalid byte;
//! 3. not empty (only whitespace counts as empty);
//! 4. shape: the document starts with `{` (every input here is one JSON object);
//! 5. nesting: at most [`MAX_DEPTH`] levels of objects and arrays, checked by one linear scan
//!    before parsing, so hostile input cannot push the parser into deep recursion;
//! 6. syntax and types, by serde: unknown fields are ignored, a known field of the wrong type
//!    is an error naming the field.
//!
//! The cost of each step is linear in the input length. Errors are one line, in the form
//! `NAME:LINE:COLUMN: message` (lines and columns 1-based, columns counted in bytes), so a
//! terminal or an editor can jump to the spot.

use std::io::{self, Read};

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The largest input accepted, in bytes (16 MiB).
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting of JSON objects and arrays accepted.
pub const MAX_DEPTH: usize = 64;

/// Longest error message kept from the parser (the rest is cut, with `...`).
const MAX_MESSAGE_CHARS: usize = 300;

/// Why an input could not be decoded. Its `Display` is one line naming the input (`stdin`, or
/// a file path) and, where there is one, the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// Nothing but whitespace.
    #[error("{name}: empty input (expected one JSON object)")]
    Empty {
        /// The input's name.
        name: String,
    },
    /// Larger than the limit.
    #[error("{name}: input too large (more than {limit} bytes)")]
    TooLarge {
        /// The input's name.
        name: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// Not UTF-8.
    #[error("{name}:{}: input is not valid UTF-8 (byte offset {offset})", .at)]
    NotUtf8 {
        /// The input's name.
        name: String,
        /// Where the first invalid byte is.
        at: Position,
        /// Its byte offset.
        offset: usize,
    },
    /// Nested deeper than the limit.
    #[error("{name}:{}: nested deeper than {limit} levels", .at)]
    TooDeep {
        /// The input's name.
        name: String,
        /// Where the first too-deep bracket is.
        at: Position,
        /// The limit.
        limit: usize,
    },
    /// Malformed, truncated, or a field of the wrong type.
    #[error("{name}:{}: {message}", .at)]
    Syntax {
        /// The input's name.
        name: String,
        /// Where the parser stopped.
        at: Position,
        /// What it expected.
        message: String,
    },
    /// Well-formed JSON that does not carry what the event needs (a missing field).
    #[error("{name}: {message}")]
    Invalid {
        /// The input's name.
        name: String,
        /// What is missing or wrong.
        message: String,
    },
}

pub use hookwright::position::Position;

/// Reads everything from `reader`, but never more than [`MAX_INPUT_BYTES`] + 1 bytes, so an
/// endless or huge stream costs bounded memory; [`decode_object`] then reports an input over
/// the limit as [`InputError::TooLarge`].
///
/// # Errors
/// The reader's I/O error.
pub fn read_bounded(reader: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    reader
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// Decodes `bytes`, which must hold one JSON object, into `T` after the checks of the
/// [module documentation](self). `name` names the input in errors (`stdin`, a path).
///
/// # Errors
/// The first check that fails, as an [`InputError`].
pub fn decode_object<T: DeserializeOwned>(bytes: &[u8], name: &str) -> Result<T, InputError> {
    let text = check(bytes, name)?;
    // Decoding with the path tracked costs an allocation per key; the path is only needed
    // for the error, so the input is decoded again with it when the plain decode fails.
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        syntax(name, e.inner(), &path)
    })?;
    de.end().map_err(|e| syntax(name, &e, ""))?;
    Ok(value)
}

/// Decodes `value` as `T`; the error names the path of the field that is wrong
/// (`input.command: invalid type: ...`). Tracking the path costs an allocation per key, so it
/// is tracked only when the plain decode fails, by decoding again.
///
/// # Errors
/// What is missing or of the wrong type, with its path.
pub fn from_value<T: DeserializeOwned>(
    value: &Value,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    T::deserialize(value).or_else(|_| serde_path_to_error::deserialize(value))
}

/// `bytes` as text after checks 1 and 2 (size and encoding), for an input that is kept as
/// text (a settings file edited in place) before it is decoded.
///
/// # Errors
/// [`InputError::TooLarge`] or [`InputError::NotUtf8`].
pub fn text<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, InputError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            limit: MAX_INPUT_BYTES,
        });
    }
    std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        name: name.to_owned(),
        at: Position::of_offset(bytes, e.valid_up_to()),
        offset: e.valid_up_to(),
    })
}

/// Runs checks 1 to 5 and returns the text.
fn check<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, InputError> {
    let text = text(bytes, name)?;
    let Some(first) = text.find(|c: char| !c.is_ascii_whitespace()) else {
        return Err(InputError::Empty {
            name: name.to_owned(),
        });
    };
    if !text[first..].starts_with('{') {
        return Err(InputError::Syntax {
            name: name.to_owned(),
            at: Position::of_offset(bytes, first),
            message: "expected a JSON object (`{`)".to_owned(),
        });
    }
    if let Some(offset) = too_deep_at(bytes, MAX_DEPTH) {
        return Err(InputError::TooDeep {
            name: name.to_owned(),
            at: Position::of_offset(bytes, offset),
            limit: MAX_DEPTH,
        });
    }
    Ok(text)
}

/// The offset of the first `{` or `[` (outside strings) that opens level `limit + 1`.
/// Linear in the input; brackets inside strings (with escapes) do not count.
#[must_use]
pub fn too_deep_at(bytes: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn syntax(name: &str, err: &serde_json::Error, path: &str) -> InputError {
    // serde_json's Display ends in " at line L column C"; keep the message only.
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let mut message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    // serde_path_to_error writes `?` for a segment it does not know (e.g. inside a key).
    let mut path = path;
    while let Some(rest) = path.strip_suffix(".?") {
        path = rest;
    }
    if !path.is_empty() && path != "." && path != "?" {
        message = format!("{message} (field `{path}`)");
    }
    if err.is_eof() && !message.contains("EOF") {
        message = format!("{message} (input truncated?)");
    }
    InputError::Syntax {
        name: name.to_owned(),
        at: Position {
            line: err.line().max(1),
            column: err.column().max(1),
        },
        message: one_line(&message, MAX_MESSAGE_CHARS),
    }
}

/// `text` as one line: ANSI escape sequences removed, control characters (newlines included)
/// turned into spaces, runs of whitespace collapsed, trimmed, and cut to `max_chars`.
#[must_use]
pub fn one_line(text: &str, max_chars: usize) -> String {
    let stripped = strip_ansi_escapes::strip_str(text);
    let mut out = String::with_capacity(stripped.len().min(max_chars + 3));
    let mut chars = 0usize;
    let mut pending_space = false;
    for c in stripped.chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            chars += 1;
            pending_space = false;
        }
        if chars >= max_chars {
            out.push_str("...");
            return out;
        }
        out.push(c);
        chars += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct T {
        #[serde(default)]
        #[expect(dead_code, reason = "only its type is checked")]
        a: Option<String>,
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(
            Position::of_offset(b"ab\ncd", 0),
            Position { line: 1, column: 1 }
        );
        assert_eq!(
            Position::of_offset(b"ab\ncd", 4),
            Position { line: 2, column: 2 }
        );
    }

    #[test]
    fn errors_name_input_and_position() {
        let err = decode_object::<T>(b"{\"a\": 5}", "stdin").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("stdin:1:"), "{text}");
        assert!(text.contains("field `a`"), "{text}");
        let err = decode_object::<T>(b"{", "stdin").unwrap_err().to_string();
        assert!(!err.contains('?'), "{err}");
        let err = decode_object::<T>(b"{\"a\": \"x\"", "f.json").unwrap_err();
        assert!(err.to_string().starts_with("f.json:1:"), "{err}");
        assert!(decode_object::<T>(b"{} x", "s").is_err());
        assert!(matches!(
            decode_object::<T>(b" \n", "s"),
            Err(InputError::Empty { .. })
        ));
        assert!(matches!(
            decode_object::<T>(b"[]", "s"),
            Err(InputError::Syntax { .. })
        ));
    }

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert_eq!(too_deep_at(br#"{"a":"[[[[\"[[["}"#, 1), None);
        assert_eq!(too_deep_at(b"[[", 1), Some(1));
    }

    #[test]
    fn one_line_strips_controls() {
        assert_eq!(one_line("a\n\x1b[31mb\x1b[0m\t c", 100), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc...");
    }
}
