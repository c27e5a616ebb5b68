//! `inline.<language>`: interpreter one-liners that delete files or run shell commands.
//!
//! The code of `python -c`, `node -e` / `--eval` / `-p`, `ruby -e`, `perl -e` / `-E`, `php -r`
//! (or fed on standard input) is searched for the language's deletion calls, which block, and
//! for its ways to run a shell command (`os.system`, `subprocess.run`, `child_process.execSync`,
//! `system`, `exec`, ...), whose string arguments the judge then judges as shell commands
//! ([`scan`] only says what the code does; it judges no shell itself).

use std::sync::LazyLock;

use regex::Regex;

use crate::Block;
use crate::shell::Word;

/// An interpreter whose one-liners are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `python`, `python3`, `python3.12`, `pypy3`.
    Python,
    /// `node`, `nodejs`, `bun`, `deno` (`eval`).
    Node,
    /// `ruby`.
    Ruby,
    /// `perl`.
    Perl,
    /// `php`.
    Php,
}

impl Language {
    fn pack(self) -> &'static str {
        match self {
            Language::Python => "inline.python",
            Language::Node => "inline.node",
            Language::Ruby => "inline.ruby",
            Language::Perl => "inline.perl",
            Language::Php => "inline.php",
        }
    }
}

/// The language of the interpreter `name`, if it is one.
#[must_use]
pub fn language(name: &str) -> Option<Language> {
    let lang = if name.starts_with("python") || name.starts_with("pypy") {
        Language::Python
    } else if matches!(name, "node" | "nodejs" | "bun" | "deno") {
        Language::Node
    } else if name == "ruby"
        || name.starts_with("ruby") && name[4..].chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        Language::Ruby
    } else if name == "perl" || name.starts_with("perl5") {
        Language::Perl
    } else if name == "php"
        || name.starts_with("php") && name[3..].chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        Language::Php
    } else {
        return None;
    };
    Some(lang)
}

/// The code given on the command line (`-c CODE`, `-e CODE`, ...), all pieces joined.
#[must_use]
pub fn code(lang: Language, args: &[Word]) -> Option<&str> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        let takes_code = match lang {
            Language::Python => {
                text == "-c"
                    || (text.starts_with('-') && !text.starts_with("--") && text.ends_with('c'))
            }
            Language::Node => matches!(
                text,
                "-e" | "--eval" | "-p" | "--print" | "-pe" | "-ep" | "eval"
            ),
            Language::Ruby | Language::Perl => {
                // A cluster of flag letters ending in `e` (`-we`, `-E`), not `-MFile::Path=rmtree`
                // nor `-rfileutils`, whose letters after the first are a value.
                text.starts_with('-')
                    && !text.starts_with("--")
                    && (text.ends_with('e') || text.ends_with('E'))
                    && !text[1..].starts_with(['M', 'm', 'I', 'r', 'x'])
            }
            Language::Php => text == "-r",
        };
        if takes_code {
            return args.get(i + 1).map(|w| w.text.as_str());
        }
        if lang == Language::Node
            && let Some(code) = text
                .strip_prefix("--eval=")
                .or_else(|| text.strip_prefix("--print="))
        {
            return Some(code);
        }
        if !text.starts_with('-') {
            // A script file: its code is not on the command line.
            return None;
        }
        // Options whose value is the next word (`python -W ignore`, `ruby -r lib`, `perl -I dir`).
        let with_value = match lang {
            Language::Python => matches!(text, "-W" | "-X" | "--check-hash-based-pycs"),
            Language::Node => matches!(text, "-r" | "--require" | "--import" | "--input-type"),
            Language::Ruby => matches!(text, "-r" | "-I" | "-C" | "-E" | "--encoding"),
            Language::Perl => matches!(text, "-I" | "-M" | "-m" | "-x"),
            Language::Php => matches!(text, "-c" | "-d" | "-z"),
        };
        i += if with_value { 2 } else { 1 };
    }
    None
}

/// Whether the interpreter reads its program from standard input (no script, or `-`).
#[must_use]
pub fn reads_stdin(_lang: Language, args: &[Word]) -> bool {
    args.iter().all(|w| w.text.starts_with('-'))
}

/// What a one-liner does, as far as the pack reads it: the deletion it makes, and the shell
/// commands it runs (for the judge to judge as it judges a command line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// The block for a deletion call in the code (`inline.<language>:delete`), if there is one.
    pub deletion: Option<Block>,
    /// The shell commands the code runs, in source order: backquotes (Ruby, Perl, PHP), then
    /// the string arguments of each call of the language's runners, joined by spaces.
    pub commands: Vec<String>,
}

/// What running `code` in `lang` deletes and runs ([`Scan`]).
#[must_use]
pub fn scan(lang: Language, code: &str) -> Scan {
    let deletion = deletion(lang).find(code).map(|found| Block {
        rule: match lang {
            Language::Python => "inline.python:delete",
            Language::Node => "inline.node:delete",
            Language::Ruby => "inline.ruby:delete",
            Language::Perl => "inline.perl:delete",
            Language::Php => "inline.php:delete",
        },
        what: format!(
            "the {} one-liner deletes files (`{}`), which no shell rule can check",
            lang.pack().trim_start_matches("inline."),
            found.as_str().trim_end_matches('(')
        ),
        instead: "delete only files you created, by name, with a plain `rm file`, or write \
                  the script to a file and show it to the user first",
    });
    let mut commands = Vec::new();
    if matches!(lang, Language::Ruby | Language::Perl | Language::Php) {
        // Backquotes run a shell command in these languages.
        commands.extend(
            string_literals(code)
                .into_iter()
                .filter(|(delimiter, _)| *delimiter == '`')
                .map(|(_, command)| command),
        );
    }
    for call in runner(lang).find_iter(code) {
        let args = call_arguments(&code[call.end()..]);
        let strings: Vec<String> = string_literals(args).into_iter().map(|(_, s)| s).collect();
        if !strings.is_empty() {
            commands.push(strings.join(" "));
        }
    }
    Scan { deletion, commands }
}

/// The text up to the parenthesis closing the call (or the end of the line for a call
/// without parentheses, as Ruby's and Perl's `system "..."`).
fn call_arguments(after: &str) -> &str {
    let mut level = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in after.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => level += 1,
            ')' | ']' | '}' => {
                if level <= 1 {
                    return &after[..i];
                }
                level -= 1;
            }
            ';' | '\n' if level == 0 => return &after[..i],
            _ => {}
        }
    }
    after
}

/// The string literals in `code` (`'...'`, `"..."`, `` `...` ``): delimiter and contents.
fn string_literals(code: &str) -> Vec<(char, String)> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut literal = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            if escaped {
                literal.push(match d {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == c {
                break;
            } else {
                literal.push(d);
            }
        }
        out.push((c, literal));
    }
    out
}

fn deletion(lang: Language) -> &'static Regex {
    static PYTHON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\bshutil\s*\.\s*rmtree|\bos\s*\.\s*(?:remove|unlink|rmdir|removedirs)|\.\s*(?:unlink|rmdir|rmtree)|\bsend2trash)\s*\(").expect("valid regex")
    });
    static NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:rmSync|rmdirSync|unlinkSync|removeSync|emptyDirSync|(?:fs|fsp|promises)\s*\.\s*(?:rm|rmdir|unlink))\s*\(").expect("valid regex")
    });
    static RUBY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:FileUtils\s*\.\s*(?:rm\w*|remove\w*)|File\s*\.\s*(?:delete|unlink)|Dir\s*\.\s*(?:delete|rmdir|unlink))\b").expect("valid regex")
    });
    static PERL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:unlink|rmtree|remove_tree|rmdir)\b").expect("valid regex")
    });
    static PHP: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:unlink|rmdir)\s*\(").expect("valid regex"));
    match lang {
        Language::Python => &PYTHON,
        Language::Node => &NODE,
        Language::Ruby => &RUBY,
        Language::Perl => &PERL,
        Language::Php => &PHP,
    }
}

fn runner(lang: Language) -> &'static Regex {
    static PYTHON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:os\s*\.\s*(?:system|popen|exec\w*|spawn\w*)|subprocess\s*\.\s*(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))\s*").expect("valid regex")
    });
    static NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*")
            .expect("valid regex")
    });
    static RUBY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\b(?:system|exec|spawn|IO\s*\.\s*popen|Open3\s*\.\s*\w+)\s*|%x)")
            .expect("valid regex")
    });
    static PERL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:\b(?:system|exec)\s*|\bqx)").expect("valid regex"));
    static PHP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*")
            .expect("valid regex")
    });
    match lang {
        Language::Python => &PYTHON,
        Language::Node => &NODE,
        Language::Ruby => &RUBY,
        Language::Perl => &PERL,
        Language::Php => &PHP,
    }
}
