//! Text from hooks and tools made safe to print: escape sequences and control characters
//! removed (a renderer's SGR colours kept when colour is on), for `hooks run`'s transcript,
//! its prompts and `hooks list`.

/// One line of hook text, safe to print: escape sequences removed, control characters
/// (newlines included) turned into spaces, runs of spaces collapsed.
#[must_use]
pub fn clean(text: &str) -> String {
    hookwright::ui::sanitize_status_text(&sanitize(text, false))
}

/// Several lines of tool or hook text, safe to print: escape sequences removed, tabs kept,
/// other control characters but `\n` turned into spaces.
#[must_use]
pub fn clean_multiline(text: &str) -> String {
    sanitize(text, false)
        .chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// One line of renderer output: SGR colour sequences are kept when colour is on, every other
/// escape sequence and control character is removed.
#[must_use]
pub fn clean_rendered(text: &str, color: bool) -> String {
    sanitize(text, color)
        .chars()
        .map(|c| {
            if c.is_control() && c != '\x1b' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// Removes escape sequences (ESC-based and C1), keeping `ESC [ ... m` when `keep_sgr`.
fn sanitize(text: &str, keep_sgr: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let csi_start = if c == '\x1b' && chars.get(i + 1) == Some(&'[') {
            Some(i + 2)
        } else if c == '\u{9b}' {
            Some(i + 1)
        } else {
            None
        };
        if let Some(start) = csi_start {
            let mut j = start;
            while j < chars.len() && ('\x20'..='\x3f').contains(&chars[j]) {
                j += 1;
            }
            let final_char = chars.get(j).copied();
            if keep_sgr
                && final_char == Some('m')
                && c == '\x1b'
                && chars[start..j]
                    .iter()
                    .all(|c| c.is_ascii_digit() || *c == ';')
            {
                out.extend(&chars[i..=j]);
            }
            i = if final_char.is_some_and(|f| ('\x40'..='\x7e').contains(&f)) {
                j + 1
            } else {
                j
            };
            continue;
        }
        if c == '\x1b' || c == '\u{9d}' || c == '\u{90}' || c == '\u{9e}' || c == '\u{9f}' {
            // OSC, DCS, PM, APC: up to BEL or ST; other ESC sequences: ESC + one char.
            let string_seq = c != '\x1b' || matches!(chars.get(i + 1), Some(']' | 'P' | '^' | '_'));
            if string_seq {
                let mut j = if c == '\x1b' { i + 2 } else { i + 1 };
                while j < chars.len() {
                    if chars[j] == '\x07' || chars[j] == '\u{9c}' {
                        j += 1;
                        break;
                    }
                    if chars[j] == '\x1b' && chars.get(j + 1) == Some(&'\\') {
                        j += 2;
                        break;
                    }
                    j += 1;
                }
                i = j;
            } else {
                i += 2;
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizing_removes_control_sequences() {
        let hostile = "a\x1b[2J\x1b]0;title\x07b\x1b[31mred\x1b[0m\u{9b}1Ac\rd";
        assert_eq!(clean_multiline(hostile), "abredc d");
        assert_eq!(clean(hostile), "abredc d");
        assert_eq!(clean_rendered(hostile, true), "ab\x1b[31mred\x1b[0mc d");
        assert_eq!(clean_rendered(hostile, false), "abredc d");
        assert_eq!(clean_multiline("x\n\ty\x1b"), "x\n\ty");
    }
}
