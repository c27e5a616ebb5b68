//! Whether a shell command line starts an interactive shell: a shell or an interpreter with
//! nothing to run, which takes the commands it runs from its input, after the call began.
//!
//! # Why a guard refuses them
//!
//! A guard sees each shell call's command line, once, before it runs. What is typed into a
//! shell that call started reaches no hook, and Codex lets the model type into a command that
//! is still running. In Codex 0.169.0, `exec_command` keeps a command that has not ended when
//! it yields as a session, and `write_stdin` types into it when it was started with a terminal
//! (`tty: true`; without one its input is closed: `write_stdin failed: stdin is closed for this
//! session`). Codex runs `PreToolUse` for `exec_command` only, with `tool_input: {"command":
//! CMD}` (no `tty`, `shell` or `login`). Measured: `exec_command {"cmd": "bash", "tty": true}`,
//! then `write_stdin {"chars": "rm -rf victim\n"}`: the one hook call saw `bash`, and `victim`
//! was gone.
//!
//! Copilot CLI 1.0.102's code has such a tool too (`write_bash`, `{shellId, input}`, into a
//! `bash` call with `mode: "async"`), but `copilot -p` does not offer it, and it would be
//! hooked: measured, a `write_bash` call got `Tool 'write_bash' does not exist` after a
//! `preToolUse` that saw its `toolArgs`, and an async `bash` running `bash` ended at once.
//!
//! Where the model cannot type into a command (Claude Code's `Bash`, pi's `bash`, Codex without
//! `tty` and Copilot CLI give the command no input: a bare `bash` reads end of input and exits;
//! oh-my-pi's `bash` with `pty: true` and Gemini CLI's interactive shell let the user type, not
//! the model), an interactive shell does nothing the model could use, so refusing it costs
//! nothing. The check therefore applies in every agent and whatever the call's other
//! arguments, which the hook may not see anyway (`tty`), and needs no knowledge of which agent
//! runs the hook: it also covers an agent that adds such a tool later.
//!
//! # What counts
//!
//! The line is read as [`super::command_line`] reads it (each simple command, its words). A
//! simple command starts an interactive shell when its input is the caller's (not a pipe:
//! `echo ls | bash`; not redirected: `bash < x`, `bash <<EOF`, `bash <<< ls`) and its program
//! (named by its last path component; `$SHELL` is a shell) is one of these, given nothing to
//! run:
//!
//! - a shell (`bash`, `sh`, `zsh`, `dash`, `ksh`, `mksh`, `ash`, `yash`, `rbash`, `fish`,
//!   `tcsh`, `csh`) without `-c` and without a script file (`bash`, `bash -i`, `bash -l`, `bash
//!   -o vi`), or with `-s` (its script is its input); the script of `-c` is read the same way
//!   (`bash -c bash` starts one);
//! - an interpreter (`python`, `python3`, `python3.12`, `pypy3`, `ipython`, `node`, `nodejs`,
//!   `ruby`, `irb`, `pry`, `perl`, `php`, `lua`, `luajit`, `tclsh`) without code (`-c`, `-m`,
//!   `-e`, `-p`, `-r`, ...) and without a script, or with an option that reads its input after
//!   them (`python -i x.py`, `node -i`, `php -a`, `perl -d`, `lua -i`); `-` as the script is
//!   its input;
//! - a program that starts a shell when given no command: `su` without `-c`, `sudo -i`, `sudo
//!   -s`, `doas -s`, `pkexec`, `chroot DIR`, `unshare`, `nsenter`, `script` without `-c`,
//!   `newgrp`; their command, when given one, is read in turn (`sudo bash`, `su -c bash`);
//! - any of these after assignments, redirections, `eval`, or a program that runs a command
//!   given in its arguments (`env`, `exec`, `command`, `nohup`, `nice`, `timeout`, `time`,
//!   `find -exec`, ...): the first of its words that is not an option, an option's value or an
//!   assignment is that command (`timeout 60 bash`; not `nice git grep bash`). `xargs` gives its
//!   input to the command as arguments, and `command -v` only looks a name up: neither counts.
//!
//! Options are read as each program reads them (`-abc` is `-a -b -c`; an option with a value
//! takes the rest of its word or the next word, `-o vi`, `-W ignore`, `-u root`), and the
//! first operand ends them; a version or help option (`--version`, `python3 -V`, `node -v`)
//! runs nothing. A line that cannot be read (an unbalanced quote) is left to the shell, which
//! refuses it too; shells nested deeper than [`MAX_DEPTH`] count as interactive.
//!
//! # What it cannot see
//!
//! Any other program that reads its terminal and runs what it reads: one that passes lines to
//! a shell (`cat | sh`, `while read l; do eval "$l"; done`), a program with a prompt of its own
//! that runs commands (a pager's `!`: `less`, `git log` or `man` on a terminal; an editor's
//! `:!`: `vi`, `git commit` without `-m`; `gdb`, `sqlite3`'s `.shell`, `psql`'s `\!`, a REPL
//! not listed above: `R`, `julia`, `ghci`, `jshell`, `deno`, `bun repl`, `pwsh`), a shell
//! elsewhere (`ssh host`, `docker exec -it c sh`, `kubectl exec -it`, `tmux`, `screen`), a
//! name made at run time (`$CMD`, `$(which bash)`; `$SHELL` aside), escapes in `$'...'` (not
//! decoded). Measured in Codex 0.169.0 with `tty: true`: `less notes.txt`, then `!rm -rf
//! victim` typed with `write_stdin`, and `cat | sh`, then `rm -rf victim`, each removed
//! `victim`, the hook having seen only `less notes.txt` and `cat | sh`.

mod programs;

use super::command_line::{
    ASSIGNMENT, MAX_DEPTH, REDIRECTION, WRAPPERS, listed, without_ifs, words,
};
use super::simple_commands::simple_commands;
use programs::{Read, Spec};

/// Whether the command line `line` starts an interactive shell, read as the
/// [module documentation](self) says.
#[must_use]
pub fn starts_interactive_shell(line: &str) -> bool {
    line_starts(line, 0)
}

/// Whether the argument vector `argv` (a program and its arguments, run without a shell, as
/// Codex's `shell` tool sends them) starts an interactive shell; a shell's `-c` script in it is
/// read as a command line.
#[must_use]
pub fn argv_starts_interactive_shell<S: AsRef<str>>(argv: &[S]) -> bool {
    let words: Vec<&str> = argv.iter().map(AsRef::as_ref).collect();
    command_starts(&words, 0)
}

fn line_starts(line: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let line = without_ifs(line);
    let Some(commands) = simple_commands(&line) else {
        return false;
    };
    commands.iter().any(|command| {
        let Some(words) = words(&command.text) else {
            return false;
        };
        let (words, fed) = without_redirections(&words);
        !command.piped && !fed && command_starts(&words, depth)
    })
}

/// `words` without their redirections (and a redirection's target when it is a word of its
/// own), and whether one of them gives the command its input (`<`, `0<`, `<<`, `<<<`, `<&`,
/// `<>`).
fn without_redirections(words: &[String]) -> (Vec<&str>, bool) {
    let (mut kept, mut fed) = (Vec::new(), false);
    let mut words = words.iter();
    while let Some(word) = words.next() {
        match REDIRECTION.find(word) {
            Some(op) => {
                let fd = op.as_str().trim_end_matches(['<', '>', '&', '|', '-']);
                fed |= op.as_str()[fd.len()..].starts_with('<') && matches!(fd, "" | "0");
                if op.end() == word.len() {
                    words.next();
                }
            }
            None => kept.push(word.as_str()),
        }
    }
    (kept, fed)
}

/// Whether the simple command `words` (program first, redirections removed) starts an
/// interactive shell.
fn command_starts(words: &[&str], depth: usize) -> bool {
    let at = words
        .iter()
        .position(|w| !ASSIGNMENT.is_match(w))
        .unwrap_or(words.len());
    let Some((program, args)) = words[at..].split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if name == "eval" {
        return line_starts(&args.join(" "), depth + 1);
    }
    if let Some(spec) = Spec::of(program) {
        return match spec.read(args) {
            Read::Input => true,
            Read::Nothing => false,
            Read::Line(line) => line_starts(line, depth + 1),
            Read::Command(command) => command_starts(command, depth + 1),
        };
    }
    listed(WRAPPERS, name) && wrapped_starts(name, args, depth)
}

/// Wrappers whose first operand is not the command (`timeout 60 CMD`, `flock FILE CMD`).
const WITH_OPERAND: &str = "timeout flock taskset chrt";

/// Whether the command that the wrapper `name` runs, given `args`, starts an interactive
/// shell.
fn wrapped_starts(name: &str, args: &[&str], depth: usize) -> bool {
    match name {
        // Their input becomes the command's arguments (and xargs gives it no input).
        "xargs" | "parallel" => return false,
        "command" if looks_up(args) => return false,
        "find" => {
            return exec_of_find(args).is_some_and(|command| command_starts(command, depth + 1));
        }
        _ => {}
    }
    let mut operands = usize::from(listed(WITH_OPERAND, name));
    let mut after_option = false;
    for (at, word) in args.iter().enumerate() {
        if word.len() > 1 && word.starts_with('-') {
            after_option = true;
        } else if ASSIGNMENT.is_match(word) {
            after_option = false;
        } else if names_ours(word) {
            return command_starts(&args[at..], depth + 1);
        } else if after_option {
            // Maybe the option's value (`-u root`, `-n 10`).
            after_option = false;
        } else if operands > 0 {
            operands -= 1;
        } else {
            return false;
        }
    }
    false
}

/// Whether `command ARGS` only looks a name up (`-v`, `-V`).
fn looks_up(args: &[&str]) -> bool {
    args.iter()
        .take_while(|a| a.starts_with('-'))
        .any(|a| a.contains(['v', 'V']))
}

/// The command of `find ... -exec CMD ... ;` (or `-execdir`, `-ok`, `-okdir`, ended by `;` or
/// `+`).
fn exec_of_find<'a>(args: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let start = args
        .iter()
        .position(|a| matches!(*a, "-exec" | "-execdir" | "-ok" | "-okdir"))?
        + 1;
    let len = args[start..]
        .iter()
        .position(|a| matches!(*a, ";" | "+"))
        .unwrap_or(args.len() - start);
    Some(&args[start..start + len])
}

/// Whether `word` names a program this check reads: a listed one, a wrapper or `eval`.
fn names_ours(word: &str) -> bool {
    let name = word.rsplit('/').next().unwrap_or(word);
    Spec::of(word).is_some() || name == "eval" || listed(WRAPPERS, name)
}
