//! The programs the [interactive-shell check](super) knows, and how the options and operands of
//! each say what it runs.

/// What a program's arguments make it read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Read<'a> {
    /// Its input: commands typed into it later.
    Input,
    /// Code or a script given to it, or nothing (it only prints and exits).
    Nothing,
    /// This shell command line (a shell's `-c` script, `su -c`).
    Line(&'a str),
    /// This command (`sudo CMD`).
    Command(&'a [&'a str]),
}

/// What the code of a program's code option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    /// Not a shell's (Python's, Node's, ...): not read.
    Opaque,
    /// A shell command line, the first operand after the option (`bash -c LINE`, `-lc LINE`).
    Operand,
    /// A shell command line, the option's value (`su -c LINE`, `-cLINE`).
    Value,
}

/// What a program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// The first is the script to run; the rest are its arguments.
    Script,
    /// After this many (`chroot DIR`), a command to run.
    Command(usize),
    /// Names (`su USER`, `script FILE`): not something to run.
    Names,
}

/// How a program that can read commands from its input is told to run something else, in
/// its own options.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spec {
    /// Its names (each also with a version after it: `python3.12`, `ksh93`).
    names: &'static str,
    /// Short options giving it code to run, and long ones (`--command`, `--eval`).
    code: &'static str,
    long_code: &'static [&'static str],
    /// What that code is.
    code_is: Code,
    /// Short and long options that take a value.
    value: &'static str,
    long_value: &'static [&'static str],
    /// Short and long options that make it read its input even after code or a script
    /// (`python -i`), or start a shell (`sudo -i`), or take the script from its input (`bash
    /// -s`).
    input: &'static str,
    long_input: &'static [&'static str],
    /// Short and long options that make it print something and exit (`--version`).
    exits: &'static str,
    long_exits: &'static [&'static str],
    /// Whether `+o` and the like are options too (a shell's).
    plus: bool,
    operands: Operands,
    /// Whether, given no code, no script and no command, it reads its input (`bash`, `su`);
    /// otherwise only with an `input` option (`sudo -i`).
    bare_reads: bool,
}

/// A spec with no options: the base of the others.
const PLAIN: Spec = Spec {
    names: "",
    code: "",
    long_code: &[],
    code_is: Code::Opaque,
    value: "",
    long_value: &[],
    input: "",
    long_input: &[],
    exits: "",
    long_exits: &[],
    plus: false,
    operands: Operands::Script,
    bare_reads: true,
};

const VERSION_HELP: &[&str] = &["version", "help"];

/// The programs this check reads, with their options.
const SPECS: &[Spec] = &[
    Spec {
        names: "bash sh zsh dash ksh mksh ash yash rbash fish tcsh csh",
        code: "c",
        long_code: &["command"],
        code_is: Code::Operand,
        value: "oO",
        long_value: &["rcfile", "init-file", "init-command"],
        input: "s",
        long_exits: VERSION_HELP,
        plus: true,
        ..PLAIN
    },
    Spec {
        names: "python pypy ipython bpython",
        code: "cm",
        value: "WX",
        long_value: &["check-hash-based-pycs"],
        input: "i",
        exits: "Vh?",
        long_exits: &["version", "help", "help-env", "help-xoptions", "help-all"],
        ..PLAIN
    },
    Spec {
        names: "node nodejs",
        code: "ep",
        long_code: &["eval", "print", "test", "run"],
        value: "rC",
        long_value: &[
            "require",
            "import",
            "loader",
            "experimental-loader",
            "conditions",
            "input-type",
            "env-file",
        ],
        input: "i",
        long_input: &["interactive"],
        exits: "vh",
        long_exits: &["version", "help", "v8-options"],
        ..PLAIN
    },
    Spec {
        names: "ruby irb pry",
        code: "e",
        value: "CEIr",
        exits: "vh",
        long_exits: &["version", "help", "copyright"],
        ..PLAIN
    },
    Spec {
        names: "perl",
        code: "eE",
        value: "IMm",
        input: "d",
        exits: "vVh",
        ..PLAIN
    },
    Spec {
        names: "php",
        code: "rfRFBES",
        value: "cdzt",
        input: "a",
        long_input: &["interactive"],
        exits: "vhim",
        long_exits: &["version", "help", "info"],
        ..PLAIN
    },
    Spec {
        names: "lua luajit",
        code: "e",
        value: "l",
        input: "i",
        exits: "v",
        ..PLAIN
    },
    Spec {
        names: "tclsh wish",
        ..PLAIN
    },
    Spec {
        names: "su",
        code: "c",
        long_code: &["command", "session-command"],
        code_is: Code::Value,
        value: "sgGw",
        long_value: &["shell", "group", "supp-group", "whitelist-environment"],
        exits: "hV",
        long_exits: VERSION_HELP,
        operands: Operands::Names,
        ..PLAIN
    },
    Spec {
        names: "script",
        code: "c",
        long_code: &["command"],
        code_is: Code::Value,
        value: "EIOBTmo",
        long_value: &[
            "echo",
            "log-in",
            "log-out",
            "log-io",
            "log-timing",
            "logging-format",
        ],
        exits: "hV",
        long_exits: VERSION_HELP,
        operands: Operands::Names,
        ..PLAIN
    },
    Spec {
        names: "newgrp login",
        operands: Operands::Names,
        ..PLAIN
    },
    Spec {
        names: "sudo",
        value: "ughpCDRrtTU",
        long_value: &[
            "user",
            "group",
            "host",
            "prompt",
            "close-from",
            "chdir",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
        ],
        input: "is",
        long_input: &["login", "shell"],
        operands: Operands::Command(0),
        bare_reads: false,
        ..PLAIN
    },
    Spec {
        names: "doas",
        value: "uC",
        input: "s",
        operands: Operands::Command(0),
        bare_reads: false,
        ..PLAIN
    },
    Spec {
        names: "pkexec unshare",
        value: "SGRw",
        long_value: &[
            "user",
            "setuid",
            "setgid",
            "root",
            "wd",
            "map-user",
            "map-group",
        ],
        operands: Operands::Command(0),
        ..PLAIN
    },
    Spec {
        names: "nsenter",
        value: "tSG",
        long_value: &["target", "setuid", "setgid"],
        operands: Operands::Command(0),
        ..PLAIN
    },
    Spec {
        names: "chroot",
        long_value: &["userspec", "groups"],
        operands: Operands::Command(1),
        ..PLAIN
    },
];

/// The spec of a shell, for `$SHELL`.
const SHELL: &Spec = &SPECS[0];

impl Spec {
    /// The spec of the program `word` names: by its last path component, maybe with a version
    /// after it; `$SHELL` is a shell.
    pub(super) fn of(word: &str) -> Option<&'static Spec> {
        if matches!(word, "$SHELL" | "${SHELL}" | "$BASH" | "${BASH}") {
            return Some(SHELL);
        }
        let name = word.rsplit('/').next().unwrap_or(word);
        SPECS.iter().find(|spec| {
            spec.names.split_ascii_whitespace().any(|n| {
                name.strip_prefix(n)
                    .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
            })
        })
    }

    /// What the program reads, given `args`.
    pub(super) fn read<'a>(&self, args: &'a [&'a str]) -> Read<'a> {
        let mut input = false;
        let mut options = true;
        let mut skip = match self.operands {
            Operands::Command(n) => n,
            _ => 0,
        };
        let mut at = 0;
        while let Some(&word) = args.get(at) {
            at += 1;
            if options && word == "--" {
                options = false;
            } else if options && word == "-" {
                if self.operands == Operands::Script {
                    return Read::Input;
                }
            } else if let Some(long) = word.strip_prefix("--").filter(|_| options) {
                let (name, value) = long
                    .split_once('=')
                    .map_or((long, None), |(n, v)| (n, Some(v)));
                if self.long_code.contains(&name) {
                    let code = value.or_else(|| args.get(at).copied());
                    return self.code(input, code);
                }
                if self.long_exits.contains(&name) {
                    return Read::Nothing;
                }
                input |= self.long_input.contains(&name);
                if self.long_value.contains(&name) && value.is_none() {
                    at += 1;
                }
            } else if options
                && word.len() > 1
                && (word.starts_with('-') || (self.plus && word.starts_with('+')))
            {
                let letters = &word[1..];
                for (i, letter) in letters.char_indices() {
                    let rest = &letters[i + letter.len_utf8()..];
                    if self.code.contains(letter) {
                        let code = match self.code_is {
                            Code::Opaque => None,
                            Code::Operand => args[at..]
                                .iter()
                                .find(|a| !a.starts_with(['-', '+']))
                                .copied(),
                            Code::Value if !rest.is_empty() => Some(rest),
                            Code::Value => args.get(at).copied(),
                        };
                        return self.code(input, code);
                    }
                    if self.exits.contains(letter) {
                        return Read::Nothing;
                    }
                    input |= self.input.contains(letter);
                    if self.value.contains(letter) {
                        if rest.is_empty() {
                            at += 1;
                        }
                        break;
                    }
                }
            } else {
                match self.operands {
                    Operands::Script if input => return Read::Input,
                    Operands::Script => return Read::Nothing,
                    Operands::Command(_) if skip > 0 => skip -= 1,
                    Operands::Command(_) => return Read::Command(&args[at - 1..]),
                    Operands::Names => {}
                }
            }
        }
        if self.bare_reads || input {
            Read::Input
        } else {
            Read::Nothing
        }
    }

    /// What the program reads when given code (`code`, when it is a shell command line), after
    /// an `input` option or not.
    fn code<'a>(&self, input: bool, code: Option<&'a str>) -> Read<'a> {
        match (input, self.code_is, code) {
            (true, ..) => Read::Input,
            (false, Code::Opaque, _) | (false, _, None) => Read::Nothing,
            (false, _, Some(line)) => Read::Line(line),
        }
    }
}
