//! Reading a command line as the shell would: the simple commands that would run.
//!
//! The parsing is brush-parser's (the parser of the brush shell, tested against bash); this
//! module walks its syntax tree and yields every simple command that may run: those of
//! pipelines, `&&` / `||` / `;` / `&` lists, subshells, brace groups, `if` / `while` / `for` /
//! `case` bodies, function bodies, command substitutions (`$(...)`, backquotes, also inside double
//! quotes, assignments, redirections and expanding heredocs) and process substitutions. Each
//! word is given after quote removal, with its expansions kept as written.

use brush_parser::ast;
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

/// One word of a simple command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word as the command would receive it when nothing expands; parameter expansions,
    /// command substitutions and tildes are kept as written (`$HOME`, `${TMPDIR:-/tmp}`, `~`).
    pub text: String,
    /// Whether part of the word is only known when it runs (a parameter, a substitution, `~`).
    pub dynamic: bool,
}

impl Word {
    /// A word with no expansion in it.
    #[must_use]
    pub fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            dynamic: false,
        }
    }
}

/// A simple command that would run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command name and its arguments (assignments and redirections left out).
    pub words: Vec<Word>,
    /// What its standard input is fed with, when the command line says it literally: a heredoc,
    /// a here-string, or the output of an `echo` / `printf` of literal words piped into it.
    pub stdin: Option<String>,
    /// The targets of its output redirections (`>`, `>>`, `>|`, `<>`, `&>`).
    pub writes: Vec<Word>,
}

/// Why a command line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The text is not valid shell syntax (or brush-parser does not read it).
    Syntax(String),
    /// Commands nest deeper than [`MAX_DEPTH`] (substitutions in substitutions, `bash -c` in
    /// `bash -c`, ...).
    TooDeep,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Syntax(msg) => write!(f, "not readable as shell: {msg}"),
            ReadError::TooDeep => write!(f, "nested more than {MAX_DEPTH} levels deep"),
        }
    }
}

/// How deep command substitutions and nested shells may nest before a command is refused.
pub const MAX_DEPTH: usize = 12;

/// How deep brackets (`(`, `{`, `[`) and compound commands (`if`, `case`, `for`, `while`,
/// `until`, `select`) may nest in a command line, counted without regard to quotes, before it
/// is refused ([`ReadError::TooDeep`]) rather than parsed.
pub const MAX_BRACKETS: usize = 64;

/// The deepest nesting of brackets and compound commands in `text`, quotes not considered (a
/// quoted `if` counts too: over-counting can only refuse, as a guard that cannot decide does).
fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut open = |depth: &mut usize| {
        *depth += 1;
        max = max.max(*depth);
    };
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'{' | b'[' => open(&mut depth),
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        // A keyword is a whole word: the bytes of one end here.
        let ends_word = text
            .as_bytes()
            .get(i + 1)
            .is_none_or(|next| !(next.is_ascii_alphanumeric() || *next == b'_'));
        if !ends_word || !b.is_ascii_alphabetic() {
            continue;
        }
        let start = text.as_bytes()[..=i]
            .iter()
            .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(0, |p| p + 1);
        match &text.as_bytes()[start..=i] {
            b"if" | b"case" | b"for" | b"while" | b"until" | b"select" => open(&mut depth),
            b"fi" | b"esac" | b"done" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The simple commands of `script`, in source order (a command substitution's commands come
/// before the command whose word holds it). `depth` is how deep `script` already is.
///
/// # Errors
///
/// [`ReadError::Syntax`] when the text is not shell, [`ReadError::TooDeep`] past [`MAX_DEPTH`].
pub fn simple_commands(script: &str, depth: usize) -> Result<Vec<SimpleCommand>, ReadError> {
    if depth > MAX_DEPTH {
        return Err(ReadError::TooDeep);
    }
    if script.trim().is_empty() {
        return Ok(Vec::new());
    }
    if script.contains('\0') {
        // No shell receives a NUL: the command would be cut there, or refused.
        return Err(ReadError::Syntax("a NUL character".to_owned()));
    }
    if bracket_depth(script) > MAX_BRACKETS {
        // The parser recurses per level: refuse before it runs out of stack.
        return Err(ReadError::TooDeep);
    }
    let options = ParserOptions::default();
    let program = Parser::new(script.as_bytes(), &options)
        .parse_program()
        .map_err(|err| ReadError::Syntax(err.to_string()))?;
    let mut walker = Walker {
        options,
        depth,
        out: Vec::new(),
    };
    for list in &program.complete_commands {
        walker.list(list)?;
    }
    Ok(walker.out)
}

struct Walker {
    options: ParserOptions,
    depth: usize,
    out: Vec<SimpleCommand>,
}

impl Walker {
    fn list(&mut self, list: &ast::CompoundList) -> Result<(), ReadError> {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first)?;
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p)?,
                }
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) -> Result<(), ReadError> {
        let mut echoed: Option<String> = None;
        for command in &pipeline.seq {
            let start = self.out.len();
            self.command(command)?;
            // The command itself is the last one pushed (substitutions come first).
            let pushed = self.out.len() > start;
            let text = echoed.take();
            if pushed
                && let (Some(text), Some(last)) = (text, self.out.last_mut())
                && last.stdin.is_none()
            {
                last.stdin = Some(text);
            }
            if pushed && let Some(last) = self.out.last() {
                echoed = echo_output(last);
            }
        }
        Ok(())
    }

    fn command(&mut self, command: &ast::Command) -> Result<(), ReadError> {
        match command {
            ast::Command::Simple(simple) => self.simple(simple),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound)?;
                if let Some(redirects) = redirects {
                    let mut sink = SimpleCommand::default();
                    for redirect in &redirects.0 {
                        self.redirect(redirect, &mut sink)?;
                    }
                    if !sink.writes.is_empty() {
                        self.out.push(sink);
                    }
                }
                Ok(())
            }
            ast::Command::Function(function) => self.compound(&function.body.0),
            ast::Command::ExtendedTest(test, _) => self.test(&test.expr),
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand) -> Result<(), ReadError> {
        match compound {
            ast::CompoundCommand::Arithmetic(arithmetic) => self.arithmetic(&arithmetic.expr),
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(expr)?;
                }
                self.list(&clause.body.list)
            }
            ast::CompoundCommand::BraceGroup(group) => self.list(&group.list),
            ast::CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            ast::CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.word(value)?;
                }
                self.list(&clause.body.list)
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value)?;
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.word(pattern)?;
                    }
                    if let Some(cmd) = &case.cmd {
                        self.list(cmd)?;
                    }
                }
                Ok(())
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition)?;
                self.list(&clause.then)?;
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition)?;
                    }
                    self.list(&other.body)?;
                }
                Ok(())
            }
            ast::CompoundCommand::WhileClause(clause)
            | ast::CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0)?;
                self.list(&clause.1.list)
            }
            ast::CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body),
        }
    }

    /// The substitutions in the words of `[[ ... ]]`.
    fn test(&mut self, expr: &ast::ExtendedTestExpr) -> Result<(), ReadError> {
        match expr {
            ast::ExtendedTestExpr::And(left, right) | ast::ExtendedTestExpr::Or(left, right) => {
                self.test(left)?;
                self.test(right)
            }
            ast::ExtendedTestExpr::Not(inner) | ast::ExtendedTestExpr::Parenthesized(inner) => {
                self.test(inner)
            }
            ast::ExtendedTestExpr::UnaryTest(_, word) => self.word(word).map(drop),
            ast::ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.word(left)?;
                self.word(right).map(drop)
            }
        }
    }

    /// The substitutions in an arithmetic expression (`(( $(cmd) ))`).
    fn arithmetic(&mut self, expr: &ast::UnexpandedArithmeticExpr) -> Result<(), ReadError> {
        self.expansion(&expr.value).map(drop)
    }

    /// The commands of the substitutions inside an expansion's raw text (`${x:-$(cmd)}`,
    /// `$(( $(cmd) ))`), read as a word.
    fn expansion(&mut self, raw: &str) -> Result<(), ReadError> {
        if !raw.contains("$(") && !raw.contains('`') {
            return Ok(());
        }
        let inner = raw
            .strip_prefix("$((")
            .and_then(|r| r.strip_suffix("))"))
            .or_else(|| raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')))
            .or_else(|| raw.strip_prefix("$[").and_then(|r| r.strip_suffix(']')))
            .unwrap_or(raw);
        let pieces = brush_parser::word::parse(inner, &self.options)
            .map_err(|err| ReadError::Syntax(err.to_string()))?;
        let mut text = String::new();
        self.pieces(inner, &pieces, &mut text).map(drop)
    }

    fn simple(&mut self, simple: &ast::SimpleCommand) -> Result<(), ReadError> {
        let mut cmd = SimpleCommand::default();
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        for item in prefix {
            self.item(item, true, &mut cmd)?;
        }
        if let Some(name) = &simple.word_or_name {
            let word = self.word(name)?;
            cmd.words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, false, &mut cmd)?;
        }
        if !cmd.words.is_empty() || !cmd.writes.is_empty() {
            self.out.push(cmd);
        }
        Ok(())
    }

    /// A prefix (`in_prefix`) or suffix item of `cmd`. After the command name an assignment
    /// is an ordinary argument (`dd of=/dev/sda`).
    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        in_prefix: bool,
        cmd: &mut SimpleCommand,
    ) -> Result<(), ReadError> {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect, cmd)?,
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                let word = self.word(word)?;
                cmd.words.push(word);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                if in_prefix {
                    self.assignment(assignment)?;
                } else {
                    let word = self.word(word)?;
                    cmd.words.push(word);
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.list(&subshell.list)?;
                cmd.words.push(Word {
                    text: "/dev/fd/63".to_owned(),
                    dynamic: true,
                });
            }
        }
        Ok(())
    }

    fn assignment(&mut self, assignment: &ast::Assignment) -> Result<(), ReadError> {
        match &assignment.value {
            ast::AssignmentValue::Scalar(word) => {
                self.word(word)?;
            }
            ast::AssignmentValue::Array(values) => {
                for (key, value) in values {
                    if let Some(key) = key {
                        self.word(key)?;
                    }
                    self.word(value)?;
                }
            }
        }
        Ok(())
    }

    fn redirect(
        &mut self,
        redirect: &ast::IoRedirect,
        cmd: &mut SimpleCommand,
    ) -> Result<(), ReadError> {
        match redirect {
            ast::IoRedirect::File(_, kind, target) => match target {
                ast::IoFileRedirectTarget::Filename(word) => {
                    let word = self.word(word)?;
                    if matches!(
                        kind,
                        ast::IoFileRedirectKind::Write
                            | ast::IoFileRedirectKind::Append
                            | ast::IoFileRedirectKind::Clobber
                            | ast::IoFileRedirectKind::ReadAndWrite
                    ) {
                        cmd.writes.push(word);
                    }
                }
                ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                    self.list(&subshell.list)?;
                }
                ast::IoFileRedirectTarget::Duplicate(word) => {
                    let word = self.word(word)?;
                    // `>& file` writes to the file; `>&2`, `>&-` duplicate a descriptor.
                    let fd = word.text.bytes().all(|b| b.is_ascii_digit() || b == b'-');
                    if !fd && matches!(kind, ast::IoFileRedirectKind::DuplicateOutput) {
                        cmd.writes.push(word);
                    }
                }
                ast::IoFileRedirectTarget::Fd(_) => {}
            },
            ast::IoRedirect::OutputAndError(word, _) => {
                let word = self.word(word)?;
                cmd.writes.push(word);
            }
            ast::IoRedirect::HereString(_, word) => {
                let word = self.word(word)?;
                cmd.stdin = Some(word.text);
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    let pieces = brush_parser::word::parse_heredoc(&doc.doc.value, &self.options)
                        .map_err(|err| ReadError::Syntax(err.to_string()))?;
                    let mut text = String::new();
                    self.pieces(&doc.doc.value, &pieces, &mut text)?;
                }
                cmd.stdin = Some(doc.doc.value.clone());
            }
        }
        Ok(())
    }

    /// The word after quote removal; the commands of its substitutions are walked first.
    fn word(&mut self, word: &ast::Word) -> Result<Word, ReadError> {
        let pieces = brush_parser::word::parse(&word.value, &self.options)
            .map_err(|err| ReadError::Syntax(err.to_string()))?;
        let mut text = String::with_capacity(word.value.len());
        let dynamic = self.pieces(&word.value, &pieces, &mut text)?;
        Ok(Word { text, dynamic })
    }

    /// Appends the pieces' text to `text`; whether any of them expands at run time.
    fn pieces(
        &mut self,
        source: &str,
        pieces: &[WordPieceWithSource],
        text: &mut String,
    ) -> Result<bool, ReadError> {
        let mut dynamic = false;
        for piece in pieces {
            let raw = source.get(piece.start_index..piece.end_index).unwrap_or("");
            match &piece.piece {
                WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => text.push_str(&ansi_c(s)),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    dynamic |= self.pieces(source, inner, text)?;
                }
                WordPiece::EscapeSequence(s) => {
                    let escaped = s.strip_prefix('\\').unwrap_or(s);
                    if escaped != "\n" {
                        text.push_str(escaped);
                    }
                }
                WordPiece::TildeExpansion(_) => {
                    dynamic = true;
                    text.push_str(raw);
                }
                WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                    dynamic = true;
                    self.expansion(raw)?;
                    text.push_str(raw);
                }
                WordPiece::CommandSubstitution(script)
                | WordPiece::BackquotedCommandSubstitution(script) => {
                    dynamic = true;
                    let inner = simple_commands(script, self.depth + 1)?;
                    self.out.extend(inner);
                    text.push_str(raw);
                }
            }
        }
        Ok(dynamic)
    }
}

/// The text of `$'...'` after its escapes (`\\x67` is `g`, `\\n` a newline, `\\047` a quote).
fn ansi_c(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => (0, 0),
        };
        if radix == 0 {
            out.push(match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'a' => '\x07',
                'b' => '\x08',
                'e' | 'E' => '\x1b',
                'f' => '\x0c',
                'v' => '\x0b',
                other => other,
            });
            continue;
        }
        let mut digits = String::new();
        if radix == 8 {
            digits.push(e);
        }
        while digits.len() < max
            && let Some(&d) = chars.peek()
            && d.is_digit(radix)
        {
            digits.push(d);
            chars.next();
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('\\');
                out.push(e);
                out.push_str(if radix == 8 { &digits[1..] } else { &digits });
            }
        }
    }
    out
}

/// What `echo` / `printf` with literal arguments writes, for the command it is piped into.
fn echo_output(cmd: &SimpleCommand) -> Option<String> {
    let (name, args) = cmd.words.split_first()?;
    if name.text == "cat" && args.is_empty() {
        // `cat <<EOF | bash`: the heredoc goes through.
        return cmd.stdin.clone();
    }
    if !matches!(name.text.as_str(), "echo" | "printf") || args.iter().any(|w| w.dynamic) {
        return None;
    }
    let args: Vec<&str> = args
        .iter()
        .map(|w| w.text.as_str())
        .skip_while(|a| name.text == "echo" && matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    Some(args.join(" ").replace("\\n", "\n"))
}

/// The commands the judge looks through (it judges the command they run, not them): wrappers,
/// `eval`, `find` (its `-exec`), besides the shells ([`shell_name`]).
const LOOKED_THROUGH: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "command",
    "builtin",
    "nohup",
    "setsid",
    "unbuffer",
    "caffeinate",
    "exec",
    "nice",
    "time",
    "ionice",
    "stdbuf",
    "strace",
    "ltrace",
    "timeout",
    "flock",
    "watch",
    "xargs",
    "eval",
    "trap",
    "su",
    "runuser",
    "toybox",
    "find",
];

/// Whether the guard judges what `name` runs rather than `name` itself (a wrapper, `eval`,
/// `find`, a shell): allowing such a program would mean nothing.
#[must_use]
pub fn looks_through(name: &str) -> bool {
    LOOKED_THROUGH.contains(&name) || shell_name(name)
}

/// Whether `name` is a shell that runs `-c` scripts, script files or its standard input.
#[must_use]
pub fn shell_name(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "busybox" | "fish"
    )
}
