//! Whether a shell command line runs `rm` with a recursive and a force flag.
//!
//! The line is read the way a shell reads it, as far as it takes to find each command it runs:
//!
//! 1. `$IFS` and `${IFS...}` are a blank (`rm${IFS}-rf` is `rm -rf`).
//! 2. The line is cut into simple commands at each unquoted `;`, `&`, `|`, `(`, `)` and newline
//!    (so at `&&`, `||`, pipes, subshells and `{ ...; }` bodies); `\`-newline joins two lines
//!    and a `#` comment is skipped. A `$(...)` or `` `...` `` command substitution, quoted or
//!    not, is a command line of its own, and stands in its command as the word `$()`.
//! 3. Each simple command is split into words by [`shlex`], which removes quotes and
//!    backslashes (`'rm'`, `\rm` and `r"m"` are `rm`; `'-rf'` is `-rf`; `$'rm'` is read as
//!    `'rm'`, its escapes not decoded); a word with a brace list is expanded (`{rm,-rf,x}` is
//!    `rm -rf x`).
//! 4. Leading `NAME=value` assignments and redirections are skipped. The next word is the
//!    program, named by its last path component (`/bin/rm` is `rm`):
//!    - `rm`: it counts when a later word, before `--`, is a recursive flag (`-r`, `-R` or
//!      `--recursive`, or a prefix of it such as `--rec`) and a later word a force flag (`-f`,
//!      `--force`), alone or in a cluster: `-rf`, `-fr`, `-Rfv`, `-r -f`, `--force -R`; an
//!      option made at run time (`-$FLAGS`) may be both;
//!    - a shell (`bash`, `sh`, `zsh`, ..., `su`) with a `-c` option (`-c`, `-lc`, `-ec`): each
//!      word after that option is a command line, read the same way, up to [`MAX_DEPTH`] deep;
//!    - `eval`: its words joined by blanks are a command line;
//!    - a name made at run time (`$RM`, `"$(which rm)"`, `/bin/r?`): read both as `rm` and as
//!      a shell, since it may be either;
//!    - a program that runs a command given in its arguments (`sudo`, `env`, `command`, `exec`,
//!      `xargs`, `find` for `-exec`, `nice`, `timeout`, ..., and the keywords `if`, `then`,
//!      `do`, `!`, `{`, ...): where its own options end cannot be told without knowing each
//!      one, so the first later word that names `rm`, the first that names a shell, and the
//!      first `eval` are each read as above (a run-time name there is not: `sudo -u "$USER"
//!      cp -rf` is common).
//!
//! A line that cannot be read so (an unbalanced quote, a `$(` never closed, substitutions or
//! shells nested too deep) is judged conservatively: with every quote and backslash removed
//! and cut at blanks and operators, it counts when a word `rm` has a recursive and a force flag
//! anywhere after it. A here-document's body is read as commands too; both err toward a block.
//!
//! Only `rm` itself counts: `git rm -rf` (git's own subcommand, which removes only files git
//! tracks), `grep -rf`, `echo rm -rf` and `rm -r dir` without force are not `rm -rf`.
//!
//! What it cannot see: a command that a program builds or reads itself (a script file, a line
//! piped or fed into `sh`, `env -S 'rm -rf x'`, `python -c "shutil.rmtree(...)"`, `find
//! -delete`), flags held in a variable (`rm $FLAGS x`), an alias or a function defined earlier,
//! a command run elsewhere (`ssh host rm -rf x`). That is why a guard like this is a speed
//! bump, not a sandbox.

use std::sync::LazyLock;

use regex::Regex;

use super::simple_commands::simple_commands;

/// How deep `bash -c` and `eval` lines are read inside one another; a line deeper than that
/// is judged conservatively.
pub const MAX_DEPTH: usize = 8;

/// `$IFS` or `${IFS...}` (`${IFS}`, `${IFS:0:1}`), which a shell splits like a blank.
static IFS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{IFS[^}]*\}|\$IFS\b").expect("the pattern is valid"));

/// A leading `NAME=value` (or `NAME+=value`) assignment.
pub(super) static ASSIGNMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*\+?=").expect("the pattern is valid"));

/// A redirection operator at the start of a word (`>`, `2>>`, `<<<`, `&>`, `<&`).
pub(super) static REDIRECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9]*(?:&>>?|<<<|<<-?|<>|<&|>&|>>|>\||<|>)").expect("the pattern is valid")
});

/// Shells that run the script given after `-c`.
const SHELLS: &str = "bash sh zsh dash ksh mksh ash fish su script";

/// Programs and keywords that run a command given among their arguments.
pub(super) const WRAPPERS: &str = "sudo doas pkexec env command builtin exec nohup nice ionice chrt taskset \
    timeout stdbuf setsid unbuffer xargs parallel find chroot busybox flock watch strace ltrace \
    nsenter unshare systemd-run runuser time ! { if then elif else do while until function coproc";

/// Whether `name` is one of the blank-separated `names`.
pub(super) fn listed(names: &str, name: &str) -> bool {
    names.split_ascii_whitespace().any(|n| n == name)
}

/// Whether the command line `line` runs `rm` with a recursive and a force flag, read as the
/// [module documentation](self) says.
#[must_use]
pub fn runs_rm_rf(line: &str) -> bool {
    line_runs_rm_rf(line, 0)
}

/// Whether the argument vector `argv` (a program and its arguments, run without a shell, as
/// Codex's `shell` tool sends them) runs `rm` with a recursive and a force flag; a shell's `-c`
/// script in it is read as a command line.
#[must_use]
pub fn argv_runs_rm_rf<S: AsRef<str>>(argv: &[S]) -> bool {
    command_runs_rm_rf(argv, 0)
}

fn line_runs_rm_rf(line: &str, depth: usize) -> bool {
    let line = without_ifs(line);
    if depth > MAX_DEPTH {
        return conservatively_runs_rm_rf(&line);
    }
    let Some(commands) = simple_commands(&line) else {
        return conservatively_runs_rm_rf(&line);
    };
    commands.iter().any(|command| match words(&command.text) {
        Some(words) => command_runs_rm_rf(&words, depth),
        None => conservatively_runs_rm_rf(&command.text),
    })
}

/// `line` with each `$IFS` and `${IFS...}` as a blank (step 1 of the
/// [module documentation](self)).
pub(super) fn without_ifs(line: &str) -> std::borrow::Cow<'_, str> {
    IFS.replace_all(line, " ")
}

/// The words of the simple command `text`, quotes and backslashes removed and brace lists
/// expanded (step 3); `None` when [`shlex`] cannot split it.
pub(super) fn words(text: &str) -> Option<Vec<String>> {
    let words = shlex::split(text)?;
    Some(words.iter().flat_map(|w| expand_braces(w)).collect())
}

/// What a command's program word is, for this check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Program {
    Rm,
    Shell,
    Eval,
    /// Made at run time: may be `rm` or a shell.
    Unknown,
    Wrapper,
    Other,
}

impl Program {
    fn of(word: &str) -> Program {
        let name = word.rsplit('/').next().unwrap_or(word);
        if name == "rm" {
            Program::Rm
        } else if listed(SHELLS, name) {
            Program::Shell
        } else if name == "eval" {
            Program::Eval
        } else if listed(WRAPPERS, name) {
            Program::Wrapper
        } else if word.contains(['$', '*', '?'])
            || (word.contains('[') && !["[", "[["].contains(&word))
        {
            Program::Unknown
        } else {
            Program::Other
        }
    }
}

/// Whether the simple command `words` (program first) runs `rm -rf`.
fn command_runs_rm_rf<S: AsRef<str>>(words: &[S], depth: usize) -> bool {
    let words = without_prefix(words);
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let shell_runs = || shell_scripts(args).any(|script| line_runs_rm_rf(script, depth + 1));
    match Program::of(program.as_ref()) {
        Program::Rm => recursive_and_force(args) || option_made_at_run_time(args),
        Program::Shell => shell_runs(),
        Program::Unknown => recursive_and_force(args) || shell_runs(),
        Program::Eval => {
            let line: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
            line_runs_rm_rf(&line.join(" "), depth + 1)
        }
        Program::Wrapper => {
            let first = |kind: Program| {
                args.iter()
                    .position(|w| Program::of(w.as_ref()) == kind)
                    .is_some_and(|at| command_runs_rm_rf(&args[at..], depth))
            };
            first(Program::Rm) || first(Program::Shell) || first(Program::Eval)
        }
        Program::Other => false,
    }
}

/// `words` without the leading assignments and redirections (and a redirection's target when
/// it is a word of its own: `> out rm -rf x`).
fn without_prefix<S: AsRef<str>>(mut words: &[S]) -> &[S] {
    while let Some((first, rest)) = words.split_first() {
        let first = first.as_ref();
        if ASSIGNMENT.is_match(first) {
            words = rest;
        } else if let Some(op) = REDIRECTION.find(first) {
            let target_apart = op.end() == first.len();
            words = if target_apart {
                rest.get(1..).unwrap_or(&[])
            } else {
                rest
            };
        } else {
            break;
        }
    }
    words
}

/// Whether `args` hold a recursive flag and a force flag before a `--`.
fn recursive_and_force<S: AsRef<str>>(args: &[S]) -> bool {
    has_recursive_and_force(options(args))
}

/// The words of `args` before a `--`.
fn options<S: AsRef<str>>(args: &[S]) -> impl Iterator<Item = &str> {
    args.iter().map(AsRef::as_ref).take_while(|&a| a != "--")
}

/// Whether `rm`'s `args` have an option made at run time (`-$FLAGS`, `-r$(echo f)`), which
/// may be either flag.
fn option_made_at_run_time<S: AsRef<str>>(args: &[S]) -> bool {
    options(args).any(|a| a.starts_with('-') && a.contains('$'))
}

/// Whether `words` hold a recursive flag and a force flag.
fn has_recursive_and_force<'a>(words: impl Iterator<Item = &'a str>) -> bool {
    let (mut recursive, mut force) = (false, false);
    for word in words {
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if !name.is_empty() {
                recursive |= "recursive".starts_with(name);
                force |= "force".starts_with(name);
            }
        } else if let Some(short) = word.strip_prefix('-') {
            recursive |= short.contains(['r', 'R']);
            force |= short.contains('f');
        }
        if recursive && force {
            return true;
        }
    }
    false
}

/// The scripts a shell's arguments give it: every word that is not an option after the first
/// option cluster holding `c` (`-c`, `-lc`, `-ec`); none without one.
fn shell_scripts<S: AsRef<str>>(args: &[S]) -> impl Iterator<Item = &str> {
    let is_c = |a: &str| {
        a.strip_prefix('-').is_some_and(|flags| {
            !flags.starts_with('-') && flags.contains('c') && flags.chars().all(char::is_alphabetic)
        })
    };
    let after = args
        .iter()
        .position(|a| is_c(a.as_ref()))
        .map_or(&[][..], |at| &args[at + 1..]);
    after
        .iter()
        .map(AsRef::as_ref)
        .filter(|a| !a.starts_with('-'))
}

/// The words a shell's brace expansion makes of `word` (`-r{f,}` is `-rf` and `-r`); the word
/// itself when it has no brace list. Quoting is not known here, so a quoted brace list is
/// expanded too.
fn expand_braces(word: &str) -> Vec<String> {
    const MAX_WORDS: usize = 64;
    let mut done = Vec::new();
    let mut todo = vec![word.to_owned()];
    while let Some(word) = todo.pop() {
        match brace_list(&word) {
            Some((open, close)) if done.len() + todo.len() < MAX_WORDS => {
                let (head, tail) = (&word[..open], &word[close + 1..]);
                for choice in word[open + 1..close].rsplit(',') {
                    todo.push(format!("{head}{choice}{tail}"));
                }
            }
            _ => done.push(word),
        }
    }
    done
}

/// The byte range of the first innermost `{...}` in `word` that holds a comma.
fn brace_list(word: &str) -> Option<(usize, usize)> {
    let mut open = None;
    for (at, c) in word.char_indices() {
        match c {
            '{' => open = Some(at),
            '}' => {
                if let Some(start) = open.take()
                    && word[start..at].contains(',')
                {
                    return Some((start, at));
                }
            }
            _ => {}
        }
    }
    None
}

/// The conservative reading, for a line that cannot be read as a shell would: every quote and
/// backslash removed, cut at blanks and operators, whether a word `rm` has a recursive and a
/// force flag anywhere after it.
fn conservatively_runs_rm_rf(line: &str) -> bool {
    let plain: String = line
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect();
    let mut words = plain
        .split(|c: char| c.is_whitespace() || ";&|()<>`${},".contains(c))
        .filter(|w| !w.is_empty());
    words.any(|w| Program::of(w) == Program::Rm) && has_recursive_and_force(words)
}
