//! What the recommended guard (`hookwright_examples::block_rm::command_line`) counts as `rm -rf`.

use hookwright_examples::block_rm::command_line::{MAX_DEPTH, argv_runs_rm_rf, runs_rm_rf};

/// Each command line that must be blocked, with what it shows.
const BLOCKED: &[(&str, &str)] = &[
    ("rm -rf x", "the canonical spelling"),
    ("rm -fr x", "flags in the other order"),
    ("rm -r -f x", "flags apart"),
    ("rm -Rf x", "capital R"),
    ("rm -rfv x", "a cluster with more flags"),
    ("rm --recursive --force x", "long flags"),
    ("rm --force -R x", "long and short"),
    ("rm --rec --forc x", "long-flag prefixes"),
    ("rm x -rf", "flags after the operand (GNU)"),
    ("/bin/rm -rf x", "a path to rm"),
    ("command rm -rf x", "command"),
    ("sudo rm -rf x", "sudo"),
    ("sudo -u root rm -rf x", "sudo with options"),
    ("env rm -rf x", "env"),
    ("env -i PATH=/bin rm -rf x", "env with options"),
    ("nohup timeout 5 nice -n 1 rm -rf x", "wrappers in a row"),
    ("FOO=1 rm -rf x", "an assignment before"),
    ("> log rm -rf x", "a redirection before"),
    ("\\rm -rf x", "a backslash"),
    ("'rm' -rf x", "a quoted program"),
    ("r\"m\" -rf x", "a partly quoted program"),
    ("rm '-rf' x", "quoted flags"),
    ("rm \"-r\" \"-f\" x", "each flag quoted"),
    ("$'rm' -rf x", "an ANSI-C quoted program"),
    ("rm $'-rf' x", "ANSI-C quoted flags"),
    ("rm -$FLAGS x", "an option made at run time"),
    ("rm -r$(echo f) x", "a flag made at run time"),
    ("ls; rm -rf x", "after ;"),
    ("ls && rm -rf x", "after &&"),
    ("false || rm -rf x", "after ||"),
    ("ls | rm -rf x", "after |"),
    ("ls&rm -rf x", "after & without blanks"),
    ("ls\nrm -fr x", "on the next line"),
    ("(rm -rf x)", "in a subshell"),
    ("{ rm -rf x; }", "in a group"),
    ("if true; then rm -rf x; fi", "in an if"),
    ("for d in a b; do rm -rf \"$d\"; done", "in a loop"),
    ("echo $(rm -rf x)", "in a command substitution"),
    ("echo \"$(rm -rf x)\"", "in a quoted command substitution"),
    ("echo `rm -rf x`", "in backquotes"),
    ("rm\t-rf x", "a tab between words"),
    ("rm${IFS}-rf${IFS}x", "${IFS} between words"),
    ("rm$IFS-rf x", "$IFS between words"),
    ("rm -r \\\n -f x", "a continued line"),
    ("{rm,-rf,x}", "a brace list"),
    ("rm -r{f,} x", "flags from a brace list"),
    ("bash -c 'rm -fr x'", "bash -c"),
    ("sh -c \"rm -r -f x\"", "sh -c"),
    ("bash -lc 'cd /tmp && rm -rf x'", "bash -lc"),
    ("sudo bash -c 'rm -rf x'", "sudo bash -c"),
    ("script -qc 'rm -rf x' /dev/null", "script -c"),
    ("bash -c \"bash -c 'rm -rf x'\"", "bash -c in bash -c"),
    ("ls | xargs sh -c 'rm -rf \"$0\"'", "xargs sh -c"),
    ("eval 'rm -rf x'", "eval"),
    ("find . -name x -exec rm -rf {} +", "find -exec"),
    ("xargs rm -rf < list", "xargs"),
    ("$RM -rf x", "a program named at run time"),
    ("$(which rm) -rf x", "a program found at run time"),
    (
        "rm -fr x 'never closed",
        "an unbalanced quote after the command",
    ),
    ("echo $(rm -rf x", "a $( never closed"),
];

/// Each command line that must be allowed, with why.
const ALLOWED: &[(&str, &str)] = &[
    ("rm -r dir", "recursive without force"),
    ("rm -f file", "force without recursion"),
    ("rm file", "no flags"),
    ("rm -i -r x", "interactive, not forced"),
    ("rm -r -- -f", "-f after -- is a file name"),
    ("rm -r \"$dir\"", "a variable operand"),
    (
        "$CC -I$INCLUDE -c x.c",
        "a run-time program with a run-time option",
    ),
    ("echo \"rm -rf\"", "rm -rf is echo's argument"),
    ("echo rm -rf x", "rm is echo's argument"),
    ("printf '%s\\n' 'rm -rf /'", "quoted text"),
    ("echo 'a; rm -rf x'", "a quoted operator"),
    ("echo \"${IFS}rm -rf\"", "${IFS} inside one quoted word"),
    ("ls # rm -rf x", "a comment"),
    ("git rm -rf x", "git's own rm"),
    ("grep -rf patterns .", "grep's -r and -f"),
    ("cp -rf a b", "cp"),
    ("kubectl delete -R -f k8s/", "another program's -R and -f"),
    ("docker run --rm img", "--rm"),
    ("sudo -u \"$USER\" cp -rf a b", "sudo running cp"),
    ("rmdir -p a/b", "rmdir"),
    ("[ -r a -a -f b ]", "test"),
    (
        "find . -name '*.tmp' -exec rm -f {} +",
        "find -exec rm without recursion",
    ),
    ("bash -c 'rm -r x'", "bash -c rm without force"),
    ("echo 'never closed", "an unbalanced quote without rm"),
    ("cargo test", "anything else"),
];

#[test]
fn rm_with_recursive_and_force_flags_is_blocked_in_every_spelling() {
    let missed: Vec<_> = BLOCKED
        .iter()
        .filter(|(line, _)| !runs_rm_rf(line))
        .collect();
    assert!(missed.is_empty(), "not seen as rm -rf: {missed:#?}");
}

#[test]
fn commands_that_do_not_remove_by_force_recursively_are_allowed() {
    let blocked: Vec<_> = ALLOWED
        .iter()
        .filter(|(line, _)| runs_rm_rf(line))
        .collect();
    assert!(blocked.is_empty(), "seen as rm -rf: {blocked:#?}");
}

#[test]
fn an_argument_vector_is_read_word_by_word() {
    for argv in [
        &["rm", "-r", "-f", "x"][..],
        &["/usr/bin/env", "rm", "-Rf", "x"],
        &["bash", "-lc", "rm -fr x"],
        &["sudo", "sh", "-c", "ls; rm --recursive --force x"],
    ] {
        assert!(argv_runs_rm_rf(argv), "{argv:?} not seen as rm -rf");
    }
    for argv in [
        &["echo", "rm -rf"][..],
        &["git", "rm", "-rf", "x"],
        &["rm", "-r", "x"],
        // One word, not a command line: no shell splits it.
        &["rm -rf x"],
    ] {
        assert!(!argv_runs_rm_rf(argv), "{argv:?} seen as rm -rf");
    }
}

#[test]
fn shells_nested_past_the_depth_bound_are_judged_conservatively() {
    // Within the bound each `eval` is read: `rm` is echo's argument.
    let within = format!("{}echo rm -rf x", "eval ".repeat(MAX_DEPTH));
    assert!(!runs_rm_rf(&within), "{within}");
    // Past it, the conservative reading sees the word rm with -rf after it.
    let past = format!("{}echo rm -rf x", "eval ".repeat(MAX_DEPTH + 2));
    assert!(runs_rm_rf(&past), "{past}");
}

#[test]
fn deeply_nested_substitutions_are_judged_without_exhausting_the_stack() {
    let depth = 100_000;
    let line = format!("{}rm -fr x{}", "$(".repeat(depth), ")".repeat(depth));
    assert!(runs_rm_rf(&line));
    let line = format!("{}ls{}", "$(".repeat(depth), ")".repeat(depth));
    assert!(!runs_rm_rf(&line));
}
