//! Where in a script line an error is: the character column of a serde_json error, and of
//! each top-level key and value.

/// A line's error: column and message.
pub(super) type LineError = (usize, String);

/// A serde_json error as (character column, message without its position suffix).
pub(super) fn json_error(line: &str, e: &serde_json::Error) -> LineError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    // serde_json counts bytes; report characters, pointing at the offending character.
    let byte = e.column().saturating_sub(1).min(line.len());
    let byte = (0..=byte)
        .rev()
        .find(|b| line.is_char_boundary(*b))
        .unwrap_or(0);
    (line[..byte].chars().count() + 1, message)
}

/// The keys of the top-level object of `line`, each with the 1-based character column of the
/// key and of its value. Best effort: only used to point error messages at the right place.
pub(super) fn top_level_keys(line: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut expect_key = false;
    while i < chars.len() {
        let (_, c) = chars[i];
        match c {
            '{' | '[' => {
                depth += 1;
                expect_key = c == '{' && depth == 1;
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_key = true,
            '"' => {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i].1 != '"' {
                    if chars[i].1 == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && expect_key {
                    let end = chars.get(i).map_or(line.len(), |c| c.0 + 1);
                    let raw = &line[chars[start].0..end];
                    let key = serde_json::from_str::<String>(raw).unwrap_or_default();
                    let mut j = i + 1;
                    while j < chars.len() && (chars[j].1.is_whitespace() || chars[j].1 == ':') {
                        j += 1;
                    }
                    out.push((key, start + 1, j + 1));
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}
