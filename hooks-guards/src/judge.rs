//! Judging what would run: wrappers unwrapped, shells and interpreters looked into, then the
//! packs, under a configuration ([`Config`]): a rule it turns off lets its command through,
//! and so do the programs, commands and paths it allows; each is noted ([`Allowed`]) when a
//! rule would have blocked.

use std::cell::RefCell;

use crate::Block;
use crate::config::{Allowed, Config, Decision, Origin};
use crate::packs::{filesystem, git, inline, system};
use crate::shell::{self, ReadError, SimpleCommand, Word, shell_name};

/// One decision in the making: the configuration, and what it let through so far.
pub(crate) struct Judge<'a> {
    config: &'a Config,
    /// Whether `allow` entries apply (off when asking what a rule would have said).
    allowing: bool,
    allowed: RefCell<Vec<Allowed>>,
}

impl<'a> Judge<'a> {
    /// A judge under `config`.
    pub(crate) fn new(config: &'a Config) -> Self {
        Judge {
            config,
            allowing: true,
            allowed: RefCell::new(Vec::new()),
        }
    }

    /// The decision: `block`, and what was let through on the way.
    pub(crate) fn decision(self, block: Option<Block>) -> Decision {
        Decision {
            block,
            allowed: self.allowed.into_inner(),
        }
    }

    /// A judge under the same configuration with no `allow` entry: what the rules say.
    fn strict(&self) -> Judge<'a> {
        Judge {
            config: self.config,
            allowing: false,
            allowed: RefCell::new(Vec::new()),
        }
    }

    fn note(&self, rule: &'static str, key: &'static str, by: &Origin) {
        self.allowed.borrow_mut().push(Allowed {
            rule,
            key,
            by: by.clone(),
        });
    }

    /// `block` unless the configuration turns its rule off (noted).
    fn rule(&self, block: Option<Block>) -> Option<Block> {
        let block = block?;
        match self.config.disabled_by(block.rule) {
            None => Some(block),
            Some((key, by)) => {
                self.note(block.rule, key, by);
                None
            }
        }
    }

    /// `None` for what the `allow` entry at `by` (`key`) lets through, noting the rule that
    /// would have blocked `words` without it.
    fn allow(
        &self,
        key: &'static str,
        by: &Origin,
        words: &[Word],
        stdin: Option<&str>,
        depth: usize,
    ) -> Option<Block> {
        if let Some(block) = self.strict().command(words, stdin, depth) {
            self.note(block.rule, key, by);
        }
        None
    }

    /// The block of a filesystem rule `judge` gives when only temporary directories are
    /// disposable, unless `allow.paths` makes the targets disposable too (noted).
    fn paths(&self, judge: impl Fn(&dyn Fn(&str) -> bool) -> Option<Block>) -> Option<Block> {
        let strict = judge(&|t| filesystem::is_temp_path(t))?;
        if !self.allowing || self.config.paths.is_empty() {
            return self.rule(Some(strict));
        }
        let used: RefCell<Option<Origin>> = RefCell::new(None);
        let relaxed = judge(&|t| {
            filesystem::is_temp_path(t)
                || self.config.path_allowed(t).is_some_and(|by| {
                    used.borrow_mut().get_or_insert_with(|| by.clone());
                    true
                })
        });
        match (relaxed, used.into_inner()) {
            (None, Some(by)) => {
                self.note(strict.rule, "allow.paths", &by);
                None
            }
            (relaxed, _) => self.rule(relaxed.or(Some(strict))),
        }
    }

    /// The first block among the commands `text` would run, read as a shell script at `depth`.
    pub(crate) fn script(&self, text: &str, depth: usize) -> Option<Block> {
        match shell::simple_commands(text, depth) {
            Ok(commands) => commands.iter().find_map(|cmd| self.simple(cmd, depth)),
            Err(err) => Some(unreadable(&err)),
        }
    }

    /// The block for one simple command, if any.
    fn simple(&self, cmd: &SimpleCommand, depth: usize) -> Option<Block> {
        if let Some(block) = cmd
            .writes
            .iter()
            .find_map(|w| self.rule(system::redirect_to_device(w)))
        {
            return Some(block);
        }
        self.command(&cmd.words, cmd.stdin.as_deref(), depth)
    }

    /// The block for running `words` with `stdin` fed to it, if any.
    pub(crate) fn command(
        &self,
        words: &[Word],
        stdin: Option<&str>,
        depth: usize,
    ) -> Option<Block> {
        if depth > shell::MAX_DEPTH {
            return Some(unreadable(&ReadError::TooDeep));
        }
        let (first, args) = words.split_first()?;
        if self.allowing
            && let Some(by) = self.config.command_allowed(words)
        {
            return self.allow("allow.commands", by, words, stdin, depth);
        }
        let name = basename(&first.text);
        if first.dynamic
            && (!first.text.contains('/') || name.contains(['$', '`', '{', '}', '(', ')']))
        {
            // The name is only known when it runs (`$(echo ls)`, `$CMD`): its substitutions
            // were judged on their own; what it expands to cannot be. A literal last component
            // (`$HOME/bin/git`) names the tool.
            return None;
        }
        if is_help_or_version(args) {
            return None;
        }
        if let Some(judged) = self.wrapper(name, args, stdin, depth) {
            return judged;
        }
        if self.allowing
            && let Some(by) = self.config.program_allowed(name)
        {
            return self.allow("allow.programs", by, words, stdin, depth);
        }
        if let Some(lang) = inline::language(name) {
            let code =
                inline::code(lang, args).or(stdin.filter(|_| inline::reads_stdin(lang, args)))?;
            let scan = inline::scan(lang, code);
            if let Some(block) = self.rule(scan.deletion) {
                return Some(block);
            }
            return scan
                .commands
                .iter()
                .find_map(|command| self.script(command, depth + 1));
        }
        let args: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
        match name {
            "git" => self.rule(git::judge(&args)),
            "rm" => self.paths(|disposable| filesystem::rm(&args, disposable)),
            "chmod" | "chown" | "chgrp" => self.rule(filesystem::recursive_mode(name, &args)),
            _ => self.rule(system::judge(name, &args)),
        }
    }

    /// What a command that runs another gives ([`shell::looks_through`]): `Some` with
    /// the block (or `None`) of what it runs; `None` when `name` is no such command.
    #[expect(
        clippy::option_option,
        reason = "outer: whether `name` runs another command; inner: the block"
    )]
    fn wrapper(
        &self,
        name: &str,
        args: &[Word],
        stdin: Option<&str>,
        depth: usize,
    ) -> Option<Option<Block>> {
        let judged = match name {
            "sudo" | "doas" => {
                skip_sudo(args).and_then(|rest| self.command(rest, stdin, depth + 1))
            }
            "env" => self.env(args, stdin, depth),
            "command" => {
                let flags = args
                    .iter()
                    .take_while(|w| w.text.starts_with('-') && w.text != "--");
                if flags.clone().any(|w| w.text.contains(['v', 'V'])) {
                    // `command -v git`: where `git` is, not running it.
                    None
                } else {
                    self.command(skip_flags(args), stdin, depth + 1)
                }
            }
            "builtin" | "nohup" | "setsid" | "unbuffer" | "caffeinate" => {
                self.command(skip_flags(args), stdin, depth + 1)
            }
            "exec" => self.command(skip_options(args, &["-a"]), stdin, depth + 1),
            "nice" => self.command(
                skip_options(args, &["-n", "--adjustment"]),
                stdin,
                depth + 1,
            ),
            "time" => self.command(
                skip_options(args, &["-f", "-o", "--format", "--output"]),
                stdin,
                depth + 1,
            ),
            "ionice" => self.command(
                skip_options(args, &["-c", "-n", "-p", "-P", "-u"]),
                stdin,
                depth + 1,
            ),
            "stdbuf" => self.command(skip_options(args, &["-i", "-o", "-e"]), stdin, depth + 1),
            "strace" | "ltrace" => self.command(
                skip_options(
                    args,
                    &["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-X"],
                ),
                stdin,
                depth + 1,
            ),
            "timeout" => {
                let rest = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
                self.command(rest.get(1..).unwrap_or(&[]), stdin, depth + 1)
            }
            "flock" => {
                let rest = skip_options(args, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
                match rest.get(1) {
                    Some(w) if w.text == "-c" => rest
                        .get(2)
                        .and_then(|script| self.script_word(script, depth)),
                    _ => self.command(rest.get(1..).unwrap_or(&[]), stdin, depth + 1),
                }
            }
            "watch" => {
                let rest = skip_options(args, &["-n", "--interval", "-d", "-q", "--differences"]);
                self.script(&join(rest), depth + 1)
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
                self.command(rest, None, depth + 1)
            }
            "eval" => {
                let args = match args.first() {
                    Some(w) if w.text == "--" => &args[1..],
                    _ => args,
                };
                self.script(&join(args), depth + 1)
            }
            // `trap 'cmd' EXIT`: the handler runs as a script.
            "trap" => args
                .iter()
                .find(|w| !w.text.starts_with('-'))
                .and_then(|handler| self.script_word(handler, depth)),
            "su" => self.su(args, depth),
            "runuser" => match skip_options(args, &["-u", "--user", "-g", "--group", "-G"]) {
                rest if args
                    .iter()
                    .any(|w| matches!(w.text.as_str(), "-u" | "--user")) =>
                {
                    self.command(rest, stdin, depth + 1)
                }
                _ => self.su(args, depth),
            },
            // `busybox rm -rf /` runs the applet; `busybox sh -c` a shell.
            "busybox" | "toybox" => match args.first() {
                Some(applet) if shell_name(&applet.text) => self.shell(&args[1..], stdin, depth),
                _ => self.command(args, stdin, depth + 1),
            },
            "find" => self.find(args, depth),
            _ if shell_name(name) => self.shell(args, stdin, depth),
            _ => return None,
        };
        Some(judged)
    }

    /// The block for `text` given as one word to a shell (`bash -c`, `flock -c`).
    fn script_word(&self, word: &Word, depth: usize) -> Option<Block> {
        self.script(&word.text, depth + 1)
    }

    /// `bash [options] [-c script | file | (stdin)]`.
    fn shell(&self, args: &[Word], stdin: Option<&str>, depth: usize) -> Option<Block> {
        let mut inline = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let text = arg.text.as_str();
            if text == "--" || text == "-" {
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
            Some(word) if inline => self.script_word(word, depth),
            // A script file: what it runs is not on the command line.
            Some(_) => None,
            None if inline => None,
            None => stdin.and_then(|text| self.script(text, depth + 1)),
        }
    }

    /// `su [options] [user] -c script`: the script judged; without `-c` a login shell.
    fn su(&self, args: &[Word], depth: usize) -> Option<Block> {
        args.iter().enumerate().find_map(|(i, w)| {
            if let Some(script) = w.text.strip_prefix("--command=") {
                return self.script(script, depth + 1);
            }
            let c = w.text == "--command"
                || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.ends_with('c'));
            if c {
                args.get(i + 1)
                    .and_then(|script| self.script_word(script, depth))
            } else {
                None
            }
        })
    }

    /// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [command [args]]`.
    fn env(&self, args: &[Word], stdin: Option<&str>, depth: usize) -> Option<Block> {
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
                return self.script(&line, depth + 1);
            } else if let Some(line) = text.strip_prefix("--split-string=") {
                return self.script(line, depth + 1);
            } else if (text.starts_with('-') && text.len() > 1)
                || (text.contains('=') && !text.starts_with('='))
            {
                // An option without a value, or a `NAME=VALUE` assignment.
                i += 1;
            } else {
                break;
            }
        }
        self.command(args.get(i..).unwrap_or(&[]), stdin, depth + 1)
    }

    /// `find PATHS... EXPRESSION`: each `-exec` / `-execdir` / `-ok` / `-okdir` command is judged
    /// with `{}` standing for a file under the starting paths, and `-delete` by the filesystem pack.
    fn find(&self, args: &[Word], depth: usize) -> Option<Block> {
        // `-H`, `-L`, `-P`, `-D debugopts`, `-O3` come before the starting paths.
        let mut lead = 0;
        while let Some(w) = args.get(lead) {
            match w.text.as_str() {
                "-H" | "-L" | "-P" => lead += 1,
                "-D" => lead += 2,
                t if t.starts_with("-O") => lead += 1,
                _ => break,
            }
        }
        let args = args.get(lead..).unwrap_or(&[]);
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
                    if let Some(block) = self.command(&run, None, depth + 1) {
                        return Some(block);
                    }
                }
                i = end + 1;
                continue;
            }
            if arg.text == "-delete" {
                return self.paths(|disposable| filesystem::find_delete(&start_paths, disposable));
            }
            i += 1;
        }
        None
    }
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
        let takes_value = with_value.contains(&text)
            || (!text.starts_with("--") && cluster_ends_with_value(text, with_value));
        i += if takes_value { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Whether the short-option cluster `text` (`-Eu`) ends with an option that takes the next
/// word as its value (`-u`), rather than holding its value glued (`-uroot`).
fn cluster_ends_with_value(text: &str, with_value: &[&str]) -> bool {
    for (i, c) in text.char_indices().skip(1) {
        if with_value.contains(&format!("-{c}").as_str()) {
            return i + c.len_utf8() == text.len();
        }
    }
    false
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
