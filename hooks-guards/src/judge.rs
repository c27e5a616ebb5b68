//! Judging what would run: wrappers unwrapped, shells and interpreters looked into, then the
//! packs.

use crate::Block;
use crate::packs::{filesystem, git, inline, system};
use crate::shell::{self, ReadError, SimpleCommand, Word};

/// The first block among the commands `text` would run, read as a shell script at `depth`.
pub(crate) fn script(text: &str, depth: usize) -> Option<Block> {
    match shell::simple_commands(text, depth) {
        Ok(commands) => commands.iter().find_map(|cmd| simple(cmd, depth)),
        Err(err) => Some(unreadable(&err)),
    }
}

/// The block for one simple command, if any.
pub(crate) fn simple(cmd: &SimpleCommand, depth: usize) -> Option<Block> {
    if let Some(block) = cmd.writes.iter().find_map(system::redirect_to_device) {
        return Some(block);
    }
    command(&cmd.words, cmd.stdin.as_deref(), depth)
}

/// The block for running `words` with `stdin` fed to it, if any.
pub(crate) fn command(words: &[Word], stdin: Option<&str>, depth: usize) -> Option<Block> {
    if depth > shell::MAX_DEPTH {
        return Some(unreadable(&ReadError::TooDeep));
    }
    let (first, args) = words.split_first()?;
    let name = basename(&first.text);
    if first.dynamic && (!first.text.contains('/') || name.contains(['$', '`', '{', '}', '(', ')']))
    {
        // The name is only known when it runs (`$(echo ls)`, `$CMD`): its substitutions were
        // judged on their own; what it expands to cannot be. A literal last component
        // (`$HOME/bin/git`) names the tool.
        return None;
    }
    if is_help_or_version(args) {
        return None;
    }
    match name {
        "sudo" | "doas" => return command(skip_sudo(args)?, stdin, depth + 1),
        "env" => return env(args, stdin, depth),
        "command" => {
            let flags = args
                .iter()
                .take_while(|w| w.text.starts_with('-') && w.text != "--");
            if flags.clone().any(|w| w.text.contains(['v', 'V'])) {
                // `command -v git`: where `git` is, not running it.
                return None;
            }
            return command(skip_flags(args), stdin, depth + 1);
        }
        "builtin" | "nohup" | "setsid" | "unbuffer" | "caffeinate" => {
            return command(skip_flags(args), stdin, depth + 1);
        }
        "exec" => return command(skip_options(args, &["-a"]), stdin, depth + 1),
        "nice" => {
            return command(
                skip_options(args, &["-n", "--adjustment"]),
                stdin,
                depth + 1,
            );
        }
        "time" => {
            return command(
                skip_options(args, &["-f", "-o", "--format", "--output"]),
                stdin,
                depth + 1,
            );
        }
        "ionice" => {
            return command(
                skip_options(args, &["-c", "-n", "-p", "-P", "-u"]),
                stdin,
                depth + 1,
            );
        }
        "stdbuf" => return command(skip_options(args, &["-i", "-o", "-e"]), stdin, depth + 1),
        "strace" | "ltrace" => {
            return command(
                skip_options(
                    args,
                    &["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-X"],
                ),
                stdin,
                depth + 1,
            );
        }
        "timeout" => {
            let rest = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
            return command(rest.get(1..).unwrap_or(&[]), stdin, depth + 1);
        }
        "flock" => {
            let rest = skip_options(args, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
            return match rest.get(1) {
                Some(w) if w.text == "-c" => script_word(rest.get(2)?, depth),
                _ => command(rest.get(1..).unwrap_or(&[]), stdin, depth + 1),
            };
        }
        "watch" => {
            let rest = skip_options(args, &["-n", "--interval", "-d", "-q", "--differences"]);
            return script(&join(rest), depth + 1);
        }
        "xargs" => {
            let rest = skip_options(
                args,
                &[
                    "-I",
                    "-L",
                    "-n",
                    "-P",
                    "-s",
                    "-d",
                    "-E",
                    "-a",
                    "--max-args",
                    "--max-procs",
                    "--delimiter",
                    "--arg-file",
                    "--replace",
                    "--max-lines",
                    "--max-chars",
                    "--eof",
                ],
            );
            return command(rest, None, depth + 1);
        }
        "eval" => return script(&join(args), depth + 1),
        "find" => return find(args, depth),
        _ => {}
    }
    if shell_name(name) {
        return shell(args, stdin, depth);
    }
    if let Some(lang) = inline::language(name) {
        let code = inline::code(lang, args).or(stdin.filter(|_| inline::reads_stdin(lang, args)))?;
        return inline::judge(lang, code, depth);
    }
    let args: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    match name {
        "git" => git::judge(&args),
        "rm" => filesystem::rm(&args),
        "chmod" | "chown" | "chgrp" => filesystem::recursive_mode(name, &args),
        _ => system::judge(name, &args),
    }
}

/// The block for `text` given as one word to a shell (`bash -c`, `flock -c`).
fn script_word(word: &Word, depth: usize) -> Option<Block> {
    script(&word.text, depth + 1)
}

/// `bash [options] [-c script | file | (stdin)]`.
fn shell(args: &[Word], stdin: Option<&str>, depth: usize) -> Option<Block> {
    let mut inline = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if matches!(text, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if text.starts_with("--") {
            i += 1;
            continue;
        }
        if (text.starts_with('-') || text.starts_with('+')) && text.len() > 1 {
            inline |= text[1..].contains('c');
            i += 1;
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(word) if inline => script_word(word, depth),
        // A script file: what it runs is not on the command line.
        Some(_) => None,
        None if inline => None,
        None => stdin.and_then(|text| script(text, depth + 1)),
    }
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [command [args]]`.
fn env(args: &[Word], stdin: Option<&str>, depth: usize) -> Option<Block> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if matches!(text, "-u" | "--unset" | "-C" | "--chdir") {
            i += 2;
        } else if matches!(text, "-S" | "--split-string") {
            let mut line = args.get(i + 1).map(|w| w.text.clone()).unwrap_or_default();
            for rest in args.get(i + 2..).unwrap_or(&[]) {
                line.push(' ');
                line.push_str(&rest.text);
            }
            return script(&line, depth + 1);
        } else if let Some(line) = text.strip_prefix("--split-string=") {
            return script(line, depth + 1);
        } else if (text.starts_with('-') && text.len() > 1)
            || (text.contains('=') && !text.starts_with('='))
        {
            // An option without a value, or a `NAME=VALUE` assignment.
            i += 1;
        } else {
            break;
        }
    }
    command(args.get(i..).unwrap_or(&[]), stdin, depth + 1)
}

/// `find PATHS... EXPRESSION`: each `-exec` / `-execdir` / `-ok` / `-okdir` command is judged
/// with `{}` standing for a file under the starting paths, and `-delete` by the filesystem pack.
fn find(args: &[Word], depth: usize) -> Option<Block> {
    let starts: Vec<&Word> = args
        .iter()
        .take_while(|w| !w.text.starts_with('-') && !matches!(w.text.as_str(), "(" | "!" | ","))
        .collect();
    let start_paths: Vec<&str> = if starts.is_empty() {
        vec!["."]
    } else {
        starts.iter().map(|w| w.text.as_str()).collect()
    };
    let mut i = starts.len();
    while let Some(arg) = args.get(i) {
        if matches!(arg.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end = args[i + 1..]
                .iter()
                .position(|w| matches!(w.text.as_str(), ";" | "+"))
                .map_or(args.len(), |p| i + 1 + p);
            for start in &start_paths {
                let run: Vec<Word> = args[i + 1..end]
                    .iter()
                    .map(|w| {
                        if w.text.contains("{}") {
                            Word {
                                text: w.text.replace(
                                    "{}",
                                    &format!("{}/{{}}", start.trim_end_matches('/')),
                                ),
                                dynamic: w.dynamic,
                            }
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                if let Some(block) = command(&run, None, depth + 1) {
                    return Some(block);
                }
            }
            i = end + 1;
            continue;
        }
        if arg.text == "-delete" {
            return filesystem::find_delete(&start_paths);
        }
        i += 1;
    }
    None
}

/// The block given when a command cannot be read: a guard that cannot decide blocks.
pub(crate) fn unreadable(err: &ReadError) -> Block {
    Block {
        rule: "guard:unreadable",
        what: format!(
            "the command could not be judged ({err}), and a guard that cannot decide blocks"
        ),
        instead: "split it into simpler commands, or write the script to a file, show it to the user and run it with their consent",
    }
}

/// `sudo`'s command: its options skipped. `None` when it runs no command (`sudo -i`, `-l`, `-v`).
fn skip_sudo(args: &[Word]) -> Option<&[Word]> {
    let rest = skip_options(
        args,
        &[
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-T",
            "-U",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--close-from",
        ],
    );
    if rest.is_empty() { None } else { Some(rest) }
}

/// `args` from the first word that is not an option, where the `with_value` options take the
/// word after them (or `=value`, or a value glued to a short option).
fn skip_options<'a>(args: &'a [Word], with_value: &[&str]) -> &'a [Word] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return &args[i + 1..];
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        let takes_value = with_value.contains(&text);
        i += if takes_value { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// `args` past the leading options, none of which take a value.
fn skip_flags(args: &[Word]) -> &[Word] {
    let n = args
        .iter()
        .take_while(|w| w.text.starts_with('-') && w.text.len() > 1 && w.text != "--")
        .count();
    if args.get(n).is_some_and(|w| w.text == "--") {
        &args[n + 1..]
    } else {
        &args[n..]
    }
}

/// Whether `--help` or `--version` is among the options: the tool prints and exits.
fn is_help_or_version(args: &[Word]) -> bool {
    args.iter()
        .take_while(|w| w.text != "--")
        .any(|w| matches!(w.text.as_str(), "--help" | "--version"))
}

/// The words joined by spaces, as `eval` and `watch` join them.
fn join(args: &[Word]) -> String {
    let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    texts.join(" ")
}

/// The command name without its directory: `/usr/bin/git` is `git`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `name` is a shell that runs `-c` scripts, script files or its standard input.
fn shell_name(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "busybox" | "fish"
    )
}
