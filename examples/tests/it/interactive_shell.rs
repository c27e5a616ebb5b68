//! The recommended guard (`hookwright_examples::block_rm::block_rm_rf`) refuses a shell call that starts
//! a shell or an interpreter with nothing to run: what is typed into it later (Codex's
//! `write_stdin`) reaches no hook.

use std::sync::Arc;

use hookwright::prelude::*;
use hookwright::{HookRunner, Host, JsonlSessionStore};
use hookwright_examples::block_rm::interactive::{
    argv_starts_interactive_shell, starts_interactive_shell,
};
use hookwright_examples::block_rm::{self, INTERACTIVE_SHELL_BLOCKED};
use serde_json::{Value, json};

/// Each command line that starts a shell or an interpreter reading its input, with what it
/// shows.
const INTERACTIVE: &[(&str, &str)] = &[
    ("bash", "a bare shell"),
    ("sh", "sh"),
    ("zsh", "zsh"),
    ("fish", "fish"),
    ("dash", "dash"),
    ("ksh", "ksh"),
    ("tcsh", "tcsh"),
    ("bash -i", "an interactive shell"),
    ("bash -l", "a login shell"),
    ("bash --login", "a login shell, long option"),
    ("bash --norc --noprofile", "options only"),
    ("bash -o vi", "an option with a value"),
    ("bash -s", "a script read from the input"),
    (
        "bash -s arg1 arg2",
        "-s: the operands are arguments, not a script",
    ),
    ("bash -", "- ends the options: the script is the input"),
    ("python", "python"),
    ("python3", "python3"),
    ("python3.12", "a versioned python"),
    ("python3 -i", "python -i"),
    ("python3 -u -q", "python with options only"),
    ("python3 -W ignore", "python with an option's value"),
    ("python3 -i script.py", "a script, then the prompt"),
    ("python3 -i -c 'x = 1'", "code, then the prompt"),
    ("python3 -", "the script read from the input"),
    ("ipython", "ipython"),
    ("node", "node"),
    ("nodejs", "nodejs"),
    ("node -i -e 'let x = 1'", "node -i"),
    ("node --interactive", "node --interactive"),
    ("node -r ts-node/register", "node with a preloaded module"),
    ("ruby", "ruby, reading its program from the input"),
    ("irb", "irb"),
    ("pry", "pry"),
    ("perl", "perl, reading its program from the input"),
    ("perl -de0", "the perl debugger as a prompt"),
    ("php", "php, reading its program from the input"),
    ("php -a", "php's interactive shell"),
    ("lua", "lua"),
    ("lua -i script.lua", "lua -i"),
    ("tclsh", "tclsh"),
    ("su", "su"),
    ("su -", "a login su"),
    ("su - postgres", "su to a user"),
    ("su -s /bin/bash deploy", "su with a shell"),
    ("sudo -i", "sudo -i"),
    ("sudo -s", "sudo -s"),
    ("sudo -iu root", "sudo -i with a user in the cluster"),
    ("sudo -u root -i", "sudo -i after a user"),
    ("sudo --login", "sudo --login"),
    ("sudo bash", "sudo with a shell"),
    ("sudo -u deploy -E bash", "sudo with options and a shell"),
    ("sudo su -", "sudo su"),
    ("doas -s", "doas -s"),
    ("pkexec", "pkexec with no program"),
    ("chroot /srv/root", "chroot with no command"),
    ("unshare -r", "unshare with no program"),
    ("nsenter -t 1 -m -u -n", "nsenter with no program"),
    ("script -q /dev/null", "script with no command"),
    ("newgrp docker", "newgrp"),
    ("/bin/bash", "an absolute path"),
    ("/usr/bin/python3", "an absolute path to python"),
    ("env bash", "env"),
    ("/usr/bin/env python3", "env by path"),
    ("env -i PATH=/bin bash", "env with options and assignments"),
    ("exec bash", "exec"),
    ("exec -a shell bash -l", "exec with an option's value"),
    ("command bash", "command"),
    ("nohup bash", "nohup"),
    ("timeout 600 bash", "timeout"),
    ("timeout -s KILL 10m python3", "timeout with options"),
    ("nice -n 10 bash", "nice"),
    ("busybox sh", "busybox"),
    ("strace -f -o trace.log bash", "strace"),
    ("time python3", "time"),
    ("FOO=1 bash", "an assignment before"),
    ("'bash'", "a quoted name"),
    ("\\bash", "a backslash"),
    ("$SHELL", "the user's shell"),
    ("\"$SHELL\" -l", "the user's shell, quoted, login"),
    ("bash > out.log", "output redirected, not the input"),
    ("bash 2>&1", "stderr redirected"),
    (
        "bash | tee log",
        "the first command of a pipeline reads the input",
    ),
    ("cd /tmp && bash", "after &&"),
    ("ls; python3", "after ;"),
    ("false || bash", "after || (no pipe)"),
    ("(bash)", "in a subshell"),
    ("{ bash; }", "in a group"),
    ("echo $(date) && bash", "after a substitution"),
    ("bash -c bash", "a shell started by a shell's script"),
    ("bash -lc 'exec bash -i'", "exec in a shell's script"),
    (
        "sh -c 'cd /tmp && python3'",
        "an interpreter in a shell's script",
    ),
    ("su -c bash", "su's command"),
    ("script -qc bash /dev/null", "script's command"),
    ("eval bash", "eval"),
    (
        "find . -maxdepth 0 -exec bash \\;",
        "find -exec with no script",
    ),
];

/// Each pair: a program with nothing to run (blocked), and the same program given something
/// to run or its input (allowed), with what the second shows.
const GIVEN: &[(&str, &str, &str)] = &[
    ("bash", "bash -c 'ls'", "a script given with -c"),
    ("bash", "bash -lc 'ls'", "a script given with -lc"),
    ("bash", "bash -ec 'ls'", "a script given with -ec"),
    ("bash -i", "bash -ic 'ls'", "-i with a script"),
    ("bash", "bash script.sh", "a script file"),
    (
        "bash",
        "bash -e ./script.sh arg",
        "a script file after options",
    ),
    (
        "bash",
        "bash -o pipefail script.sh",
        "a script file after an option's value",
    ),
    ("bash", "bash -- script.sh", "a script file after --"),
    (
        "bash",
        "bash -x -- ./configure --prefix=/usr",
        "options of the script",
    ),
    ("sh", "sh ./configure", "sh with a script"),
    ("zsh", "zsh -c 'ls'", "zsh -c"),
    ("fish", "fish -c 'ls'", "fish -c"),
    ("fish", "fish --command='ls'", "fish --command="),
    ("bash", "echo ls | bash", "the input is a pipe"),
    ("bash", "printf 'ls\\n' |& bash", "the input is a |& pipe"),
    (
        "bash",
        "curl -fsSL https://example.com/x.sh | sh",
        "an installer piped into sh",
    ),
    ("bash", "{ echo ls; } | bash", "a group piped into bash"),
    (
        "bash",
        "echo ls |\nbash",
        "a pipe continued on the next line",
    ),
    (
        "bash -s",
        "bash -s arg < script.sh",
        "-s with the input redirected",
    ),
    ("bash", "bash <<EOF\nls\nEOF", "a here-document"),
    ("bash", "bash <<'EOF'\nls\nEOF", "a quoted here-document"),
    ("bash", "bash <<< 'ls'", "a here-string"),
    (
        "bash",
        "bash < script.sh",
        "the input redirected from a file",
    ),
    ("bash", "bash <script.sh", "the input redirected, no blank"),
    (
        "bash",
        "bash 0< script.sh",
        "the input redirected by number",
    ),
    (
        "bash",
        "< script.sh bash",
        "the input redirected before the program",
    ),
    (
        "bash",
        "bash -c \"$(curl -fsSL https://example.com/install.sh)\"",
        "a script made at run time",
    ),
    ("bash", "bash --version", "prints its version"),
    ("python3", "python3 x.py", "a script file"),
    ("python3", "python3 -u x.py", "a script file after options"),
    (
        "python3",
        "python3 -W ignore x.py",
        "a script file after an option's value",
    ),
    ("python3", "python3 -c 'print(1)'", "code given with -c"),
    ("python3", "python3 -c'print(1)'", "code attached to -c"),
    ("python3", "python3 -m pytest -q", "a module"),
    ("python3", "python3 -m http.server 8000", "a module server"),
    ("python3", "python3 --version", "prints its version"),
    ("python3", "python3 -V", "prints its version, short"),
    (
        "python3",
        "python3 - <<'EOF'\nprint(1)\nEOF",
        "the script from a here-document",
    ),
    ("python3", "cat x.py | python3", "the script from a pipe"),
    (
        "python3 -i",
        "python3 -i < session.txt",
        "-i with the input redirected",
    ),
    (
        "python3",
        "python3 -c 'print(1)' -i",
        "-i after -c is the code's argument",
    ),
    ("node", "node -e 'console.log(1)'", "node -e"),
    ("node", "node --eval 'console.log(1)'", "node --eval"),
    ("node", "node -p '1 + 1'", "node -p"),
    ("node", "node app.js", "a script file"),
    (
        "node",
        "node -r dotenv/config app.js",
        "a script after a preloaded module",
    ),
    ("node", "node --test", "node's test runner"),
    ("node", "node -v", "prints its version"),
    ("ruby", "ruby -e 'puts 1'", "ruby -e"),
    (
        "ruby",
        "ruby -Ilib test.rb",
        "a script file after an attached value",
    ),
    (
        "ruby",
        "ruby -r json -e 'puts 1'",
        "ruby -e after an option's value",
    ),
    ("irb", "irb script.rb", "irb with a file"),
    ("perl", "perl -e 'print 1'", "perl -e"),
    ("perl", "perl -pi -e 's/a/b/' f.txt", "perl -pi -e"),
    ("perl", "perl -lne 'print' f.txt", "perl -lne"),
    (
        "perl",
        "perl -MData::Dumper script.pl",
        "a module attached to -M",
    ),
    ("perl", "perl script.pl", "a script file"),
    ("php", "php -r 'echo 1;'", "php -r"),
    ("php", "php artisan migrate", "a script file"),
    ("php", "php -S localhost:8000", "php's built-in server"),
    ("php", "php -l index.php", "php's linter"),
    ("lua", "lua -e 'print(1)'", "lua -e"),
    ("lua", "lua script.lua", "a script file"),
    ("su", "su -c 'ls' deploy", "su -c"),
    ("su", "su - deploy -c 'ls'", "su -c after the user"),
    ("su", "su --command=ls deploy", "su --command="),
    ("sudo -i", "sudo -i ls", "sudo -i with a command"),
    ("sudo -s", "sudo -s -- ls", "sudo -s with a command"),
    ("sudo bash", "sudo bash -c 'ls'", "sudo bash -c"),
    (
        "sudo bash",
        "sudo apt-get install -y bash python3",
        "packages named like shells",
    ),
    (
        "sudo bash",
        "sudo -u postgres psql -c 'select 1'",
        "sudo running another program",
    ),
    ("doas -s", "doas ls", "doas with a command"),
    ("pkexec", "pkexec ls", "pkexec with a program"),
    (
        "chroot /srv/root",
        "chroot /srv/root ls",
        "chroot with a command",
    ),
    ("unshare -r", "unshare -r ls", "unshare with a program"),
    (
        "nsenter -t 1 -m",
        "nsenter -t 1 -m ls",
        "nsenter with a program",
    ),
    (
        "script -q /dev/null",
        "script -qc 'ls' /dev/null",
        "script with a command",
    ),
    ("env bash", "env bash -c 'ls'", "env bash -c"),
    (
        "env bash",
        "env FOO=1 make test",
        "env running another program",
    ),
    ("exec bash", "exec bash -c 'ls'", "exec bash -c"),
    (
        "command bash",
        "command -v bash",
        "command -v only looks it up",
    ),
    (
        "command python3",
        "command -V python3",
        "command -V only describes it",
    ),
    (
        "timeout 600 bash",
        "timeout 600 bash -c 'ls'",
        "timeout bash -c",
    ),
    (
        "timeout 60 python3",
        "timeout 60 which python3",
        "timeout running which",
    ),
    (
        "nice bash",
        "nice git log --grep bash",
        "a shell's name as another program's argument",
    ),
    (
        "nohup python3",
        "nohup python3 -m http.server &",
        "a module in the background",
    ),
    (
        "find . -exec bash \\;",
        "find . -name '*.sh' -exec bash {} \\;",
        "find -exec with a script",
    ),
    (
        "bash",
        "ls *.sh | xargs -n1 bash",
        "xargs gives its input as arguments",
    ),
    ("bash", "xargs -I{} sh -c 'echo {}' < list", "xargs sh -c"),
    ("bash", "sh -c 'echo \"$0\"' sh", "sh -c with its $0"),
    ("bash", "which bash", "which"),
    ("bash", "type python3", "type"),
    ("bash", "echo bash", "a shell's name as echo's argument"),
    ("bash", "echo 'python3'", "quoted text"),
    ("bash", "ls # bash", "a comment"),
    ("bash", "cargo test", "anything else"),
    (
        "bash",
        "bash 'never closed",
        "a line that cannot be read (left to the shell)",
    ),
    ("$SHELL", "$SHELL -c 'ls'", "the user's shell with a script"),
    ("$SHELL", "$CMD", "another program named at run time"),
    (
        "$SHELL",
        "for c in make cargo; do $c; done",
        "a loop over programs",
    ),
];

struct NoHost;

impl Host for NoHost {}

fn runner() -> HookRunner {
    let cwd = std::env::temp_dir();
    let runner = HookRunner::new(
        Vec::new(),
        &cwd,
        Arc::new(JsonlSessionStore::in_memory(&cwd)),
    );
    runner.initialize(NoHost);
    runner
}

fn call(input: Value) -> ToolCallEvent {
    ToolCallEvent {
        tool_name: "bash".into(),
        tool_call_id: "c1".into(),
        input: input.as_object().cloned().expect("object").into(),
    }
}

/// What the registered guard answers to `command`, without a UI.
fn guard(runner: &HookRunner, input: Value) -> Option<ToolCallEventResult> {
    let ctx = runner.create_context();
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(block_rm::block_rm_rf(&call(input), &ctx))
}

fn blocked() -> Option<ToolCallEventResult> {
    Some(ToolCallEventResult::block(INTERACTIVE_SHELL_BLOCKED))
}

#[test]
fn a_shell_or_interpreter_with_nothing_to_run_is_blocked_in_every_spelling() {
    let runner = runner();
    let missed: Vec<_> = INTERACTIVE
        .iter()
        .filter(|(line, _)| guard(&runner, json!({ "command": line })) != blocked())
        .collect();
    assert!(missed.is_empty(), "not blocked: {missed:#?}");
    assert!(
        INTERACTIVE
            .iter()
            .all(|(line, _)| starts_interactive_shell(line))
    );
}

#[test]
fn the_same_program_given_something_to_run_is_allowed() {
    let runner = runner();
    let wrong: Vec<_> = GIVEN
        .iter()
        .filter(|(bare, given, _)| {
            guard(&runner, json!({ "command": bare })) != blocked()
                || guard(&runner, json!({ "command": given })).is_some()
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "the first not blocked, or the second not allowed: {wrong:#?}"
    );
    assert!(
        GIVEN
            .iter()
            .all(|(_, given, _)| !starts_interactive_shell(given))
    );
}

#[test]
fn an_argument_vector_that_starts_a_shell_is_blocked() {
    let runner = runner();
    // The Codex adapter's shape: `command` joined from the vector, the vector as `argv`.
    for argv in [
        &["bash"][..],
        &["bash", "-i"],
        &["/usr/bin/env", "python3"],
        &["bash", "-lc", "bash"],
    ] {
        let input = json!({ "command": "true", "argv": argv });
        assert_eq!(guard(&runner, input), blocked(), "{argv:?}");
        assert!(argv_starts_interactive_shell(argv), "{argv:?}");
    }
    for argv in [
        &["bash", "-lc", "ls"][..],
        &["python3", "x.py"],
        // One word, not a command line: no shell splits it.
        &["bash -i"],
    ] {
        let input = json!({ "command": "true", "argv": argv });
        assert_eq!(guard(&runner, input), None, "{argv:?}");
        assert!(!argv_starts_interactive_shell(argv), "{argv:?}");
    }
}

#[test]
fn the_reason_tells_the_model_to_run_the_command_directly() {
    let runner = runner();
    let Some(result) = guard(&runner, json!({ "command": "bash" })) else {
        panic!("bash was not blocked");
    };
    let reason = result.reason.unwrap_or_default();
    assert!(reason.contains("run each command directly"), "{reason}");
    assert!(reason.contains("bash -c"), "{reason}");
}
