//! The simple commands of a shell command line, found the way a shell finds where each ends:
//! at unquoted `;`, `&`, `|`, `(`, `)` and newlines, with command substitutions read as
//! command lines of their own (see [`super::command_line`]), and whether each reads a pipe.

use std::iter::Peekable;
use std::str::Chars;

/// How deep command substitutions are read inside one another before the line is judged
/// conservatively (a shell would have to parse them too; this bounds the reader's stack).
const MAX_NESTING: usize = 32;

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SimpleCommand {
    /// Its text, quotes kept (for [`shlex`]).
    pub(super) text: String,
    /// Whether its input is a pipe: it comes after a `|` or `|&` (not `||`), maybe on the next
    /// line or inside a `(`.
    pub(super) piped: bool,
}

/// The simple commands of `line`, with those of its command substitutions; `None` when the
/// line cannot be read (an unbalanced quote, a `$(` or `` ` `` never closed, substitutions
/// nested deeper than [`MAX_NESTING`]).
pub(super) fn simple_commands(line: &str) -> Option<Vec<SimpleCommand>> {
    let mut reader = Reader::new(line, 0);
    reader.commands(false)?;
    Some(reader.found)
}

/// Reads a command line character by character, the way a shell finds where commands end.
struct Reader<'a> {
    chars: Peekable<Chars<'a>>,
    nesting: usize,
    found: Vec<SimpleCommand>,
    /// Whether the next command found reads a pipe.
    piped: bool,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, nesting: usize) -> Self {
        Reader {
            chars: text.chars().peekable(),
            nesting,
            found: Vec::new(),
            piped: false,
        }
    }

    /// Reads commands to the end of the text, or, `inside` a `$(`, to the `)` that closes it.
    fn commands(&mut self, inside: bool) -> Option<()> {
        let mut current = String::new();
        let mut parens = 0usize;
        while let Some(c) = self.chars.next() {
            match c {
                '\'' => self.single_quoted(&mut current)?,
                '"' => self.double_quoted(&mut current)?,
                '\\' => self.escaped(&mut current),
                '`' => {
                    self.backquoted()?;
                    current.push_str("$()");
                }
                '$' if self.chars.next_if_eq(&'(').is_some() => {
                    self.substitution()?;
                    current.push_str("$()");
                }
                // `$'...'` and `$"..."` are quotes (their escapes are not decoded).
                '$' if matches!(self.chars.peek(), Some('\'' | '"')) => {}
                '#' if current.is_empty() || current.ends_with([' ', '\t']) => {
                    while self.chars.next_if(|&c| c != '\n').is_some() {}
                }
                // `2>&1`, `>|`: part of a redirection.
                '&' | '|' if current.ends_with(['<', '>']) => current.push(c),
                ')' if inside && parens == 0 => {
                    self.finish(&mut current);
                    return Some(());
                }
                ';' | '&' | '|' | '(' | ')' | '\n' => {
                    match c {
                        '(' => parens += 1,
                        ')' => parens = parens.saturating_sub(1),
                        _ => {}
                    }
                    let ended = self.finish(&mut current);
                    match c {
                        // `||` is no pipe; `|&` pipes stderr too.
                        '|' => self.piped = self.chars.next_if_eq(&'|').is_none(),
                        // A pipe goes on across a newline or into a subshell.
                        '\n' | '(' if !ended => {}
                        _ => self.piped = false,
                    }
                    if c == '|' && self.piped {
                        self.chars.next_if_eq(&'&');
                    }
                }
                _ => current.push(c),
            }
        }
        self.finish(&mut current);
        (!inside).then_some(())
    }

    /// Ends the command in `current`; whether there was one.
    fn finish(&mut self, current: &mut String) -> bool {
        let ended = !current.trim().is_empty();
        if ended {
            self.found.push(SimpleCommand {
                text: std::mem::take(current),
                piped: std::mem::take(&mut self.piped),
            });
        }
        current.clear();
        ended
    }

    fn single_quoted(&mut self, current: &mut String) -> Option<()> {
        current.push('\'');
        loop {
            let c = self.chars.next()?;
            current.push(c);
            if c == '\'' {
                return Some(());
            }
        }
    }

    fn double_quoted(&mut self, current: &mut String) -> Option<()> {
        current.push('"');
        loop {
            match self.chars.next()? {
                '"' => {
                    current.push('"');
                    return Some(());
                }
                '\\' => match self.chars.next()? {
                    '\n' => {}
                    c => {
                        current.push('\\');
                        current.push(c);
                    }
                },
                '`' => {
                    self.backquoted()?;
                    current.push_str("$()");
                }
                '$' if self.chars.next_if_eq(&'(').is_some() => {
                    self.substitution()?;
                    current.push_str("$()");
                }
                c => current.push(c),
            }
        }
    }

    /// A backslash outside quotes: `\`-newline joins lines, any other escape is kept for
    /// [`shlex`].
    fn escaped(&mut self, current: &mut String) {
        match self.chars.next() {
            Some('\n') => {}
            Some(c) => {
                current.push('\\');
                current.push(c);
            }
            None => current.push('\\'),
        }
    }

    /// The commands of a `$(...)`, after its `$(`.
    fn substitution(&mut self) -> Option<()> {
        if self.nesting >= MAX_NESTING {
            return None;
        }
        self.nesting += 1;
        let piped = std::mem::take(&mut self.piped);
        let read = self.commands(true);
        self.piped = piped;
        self.nesting -= 1;
        read
    }

    /// The commands of a `` `...` ``, after its first backquote (`` \` ``, `\\` and `\$`
    /// inside stand for the character).
    fn backquoted(&mut self) -> Option<()> {
        if self.nesting >= MAX_NESTING {
            return None;
        }
        let mut text = String::new();
        loop {
            match self.chars.next()? {
                '`' => break,
                '\\' => match self.chars.next()? {
                    c @ ('`' | '\\' | '$') => text.push(c),
                    c => {
                        text.push('\\');
                        text.push(c);
                    }
                },
                c => text.push(c),
            }
        }
        let mut inner = Reader::new(&text, self.nesting + 1);
        inner.commands(false)?;
        self.found.append(&mut inner.found);
        Some(())
    }
}
