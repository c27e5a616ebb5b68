//! The guard's rules, beyond dcg's corpus (hookwright-cli's `corpus` test): each test is
//! named after the rule it checks and asserts the rule that blocks, or that the command runs.

use hookwright_guards::{check_argv, check_command};

/// The rule that blocks `command`, or `"allow"`.
fn rule(command: &str) -> &'static str {
    check_command(command).map_or("allow", |block| block.rule)
}

#[test]
fn git_reset_hard_is_blocked_through_every_wrapper_and_shell() {
    for command in [
        "git -C repo reset --hard",
        "timeout 5 git reset --hard",
        "eval 'git reset --hard'",
        "echo 'git reset --hard' | bash",
        "printf 'git reset --hard\\n' | sh",
        "env -S 'git reset --hard'",
        "bash -lc 'cd repo && git reset --hard'",
        "bash -c \"bash -c 'git reset --hard'\"",
        "if true; then git reset --hard; fi",
        "for f in a; do git reset --hard; done",
        "f() { git reset --hard; }",
        "cat <(git reset --hard)",
        "X=$(git reset --hard) true",
        "cat <<EOF\n$(git reset --hard)\nEOF",
        "xargs git reset --hard",
        "watch -n 1 git reset --hard",
        "\"$HOME/bin/git\" reset --hard",
    ] {
        assert_eq!(rule(command), "core.git:reset-hard", "{command}");
    }
}

#[test]
fn git_rules_block_what_destroys_work_and_allow_the_safe_spellings() {
    let cases = [
        ("git push origin +main", "core.git:push-force-refspec"),
        ("git push -uf origin main", "core.git:push-force-short"),
        ("git push --force-with-lease origin main", "allow"),
        ("git checkout -- .", "core.git:checkout-discard"),
        ("git checkout .", "core.git:checkout-discard"),
        (
            "git checkout HEAD -- src/main.rs",
            "core.git:checkout-ref-discard",
        ),
        ("git checkout -b topic", "allow"),
        ("git restore src/main.rs", "core.git:restore-worktree"),
        ("git restore --staged src/main.rs", "allow"),
        ("git clean -n -d", "allow"),
        ("git clean --force", "core.git:clean-force"),
        (
            "git branch -d --force topic",
            "core.git:branch-force-delete",
        ),
        ("git stash list", "allow"),
        ("git reset --merge", "core.git:reset-merge"),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn rm_rf_is_allowed_only_strictly_inside_temporary_directories() {
    let cases = [
        ("rm -rf /tmp/build", "allow"),
        ("rm -rf /tmp/../etc", "core.filesystem:rm-rf-general"),
        ("rm -rf /tmp", "core.filesystem:rm-rf-general"),
        ("rm -rf /tmp/$X", "core.filesystem:rm-rf-general"),
        ("rm -rf /tmp/a /srv/b", "core.filesystem:rm-rf-general"),
        ("/bin/rm -rf /srv", "core.filesystem:rm-rf-general"),
        ("sudo -u bob rm -rf /srv", "core.filesystem:rm-rf-general"),
        ("ls | xargs rm -rf", "core.filesystem:rm-rf-general"),
        ("rm -r ~", "core.filesystem:rm-r-root-home"),
        ("rm -r build", "allow"),
        (
            "rm -rf --no-preserve-root /",
            "core.filesystem:rm-rf-root-home",
        ),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn find_delete_and_exec_are_judged_with_the_starting_paths() {
    let cases = [
        ("find . -name '*.o' -delete", "core.filesystem:find-delete"),
        ("find /tmp/x -name '*.o' -delete", "allow"),
        (
            "find src -exec rm -rf {} +",
            "core.filesystem:rm-rf-general",
        ),
        ("find /tmp/x -exec rm -rf {} +", "allow"),
        ("find . -exec git reset --hard \\;", "core.git:reset-hard"),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn disk_rules_block_dd_mkfs_and_redirects_onto_devices() {
    let cases = [
        ("dd if=image.iso of=/dev/sda bs=4M", "system.disk:dd-device"),
        ("dd if=/dev/zero of=disk.img bs=1M count=1", "allow"),
        ("sudo mkfs.ext4 /dev/sdb1", "system.disk:mkfs"),
        ("echo x > /dev/nvme0n1", "system.disk:redirect-device"),
        ("echo x > /dev/null", "allow"),
        ("chmod -R 777 /", "core.filesystem:chmod-recursive-root"),
        (
            "sudo chown -R me /etc",
            "core.filesystem:chmod-recursive-root",
        ),
        ("chmod -R u+w ./build", "allow"),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn inline_rules_judge_interpreter_one_liners_and_the_commands_they_run() {
    let cases = [
        (
            "python3 -c \"import subprocess; subprocess.run(['git', 'reset', '--hard'])\"",
            "core.git:reset-hard",
        ),
        (
            "python3 -c 'import os; os.system(\"rm -rf /srv\")'",
            "core.filesystem:rm-rf-general",
        ),
        (
            "node -e \"require('fs').rmSync('/srv', {recursive: true})\"",
            "inline.node:delete",
        ),
        (
            "node -e \"require('child_process').execSync('git clean -fdx')\"",
            "core.git:clean-force",
        ),
        ("perl -e 'unlink \"/etc/passwd\"'", "inline.perl:delete"),
        ("ruby -e '`git stash clear`'", "core.git:stash-clear"),
        (
            "python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/srv')\nEOF",
            "inline.python:delete",
        ),
        ("python3 -c 'print(\"rm -rf /\")'", "allow"),
        ("python3 script.py", "allow"),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn safe_list_allows_data_help_and_lookups() {
    for command in [
        "echo 'rm -rf /' > notes.txt",
        "git reset --hard --help",
        "rm -rf / --version",
        "command -v rm",
        "type git",
        "which git",
        "cat <<'EOF'\ngit reset --hard\nEOF",
        "grep -rn 'git push --force' docs",
    ] {
        assert_eq!(rule(command), "allow", "{command}");
    }
}

#[test]
fn guard_unreadable_blocks_what_cannot_be_parsed_or_nests_too_deep() {
    assert_eq!(rule("echo \"unterminated"), "guard:unreadable");
    assert_eq!(rule("if then fi"), "guard:unreadable");
    let mut deep = "git status".to_owned();
    for _ in 0..20 {
        deep = format!("echo $({deep})");
    }
    assert_eq!(rule(&deep), "guard:unreadable");
}

#[test]
fn every_block_names_its_rule_and_a_safer_alternative() {
    let block = check_command("git reset --hard").expect("blocked");
    let reason = block.reason();
    assert!(reason.contains("[core.git:reset-hard]"), "{reason}");
    assert!(reason.contains("Safer: `git stash`"), "{reason}");
}

#[test]
fn argv_is_judged_without_a_shell() {
    assert_eq!(
        check_argv(&["git", "reset", "--hard"]).map(|b| b.rule),
        Some("core.git:reset-hard")
    );
    assert_eq!(check_argv(&["echo", "rm -rf /"]), None);
}

#[test]
fn core_git_rules_catch_abbreviations_clusters_switch_and_remote_deletes() {
    let cases = [
        ("git reset --ha", "core.git:reset-hard"),
        ("git clean --forc", "core.git:clean-force"),
        ("git push --forc origin main", "core.git:push-force-long"),
        ("git checkout -qf main", "core.git:checkout-force"),
        (
            "git switch --discard-changes main",
            "core.git:checkout-force",
        ),
        ("git switch -f main", "core.git:checkout-force"),
        ("git switch -c topic", "allow"),
        ("git push --delete origin main", "core.git:push-delete"),
        ("git push -d origin main", "core.git:push-delete"),
        ("git push origin :main", "core.git:push-delete"),
        ("git push --mirror", "core.git:push-delete"),
        ("git push -u origin main", "allow"),
    ];
    for (command, want) in cases {
        assert_eq!(rule(command), want, "{command}");
    }
}

#[test]
fn wrappers_su_busybox_trap_and_clustered_options_are_looked_through() {
    for command in [
        "sudo -Eu root rm -rf /srv",
        "busybox rm -rf /srv",
        "busybox sh -c 'rm -rf /srv'",
        "su -c 'rm -rf /srv'",
        "su - root -c 'rm -rf /srv'",
        "runuser -u bob -- rm -rf /srv",
        "trap 'rm -rf /srv' EXIT",
        "eval -- 'rm -rf /srv'",
        "bash - <<< 'rm -rf /srv'",
        "cat <<EOF | bash\nrm -rf /srv\nEOF",
        "find -L /srv -exec rm -rf {} +",
    ] {
        assert_ne!(rule(command), "allow", "{command}");
    }
    assert_eq!(rule("find -P /tmp/x -delete"), "allow");
}

#[test]
fn substitutions_in_tests_arithmetic_expansions_and_ansi_c_quotes_are_judged() {
    for command in [
        "[[ $(git reset --hard) ]]",
        "(( $(git reset --hard) ))",
        "echo $(( $(git reset --hard) ))",
        "echo ${x:-$(git reset --hard)}",
        "for ((i=0;i<1;i++)); do git reset --hard; done",
        "$'\\x67it' reset --hard",
        "git reset $'\\x2d-hard'",
    ] {
        assert_eq!(rule(command), "core.git:reset-hard", "{command}");
    }
    assert_eq!(rule("cat x >& /dev/sda"), "system.disk:redirect-device");
    assert_eq!(rule("ls >&2"), "allow");
}

#[test]
fn inline_delete_sees_through_interpreter_options() {
    for command in [
        "python3 -W ignore -c 'import shutil; shutil.rmtree(\"/srv\")'",
        "python3 -c \"__import__('shutil').rmtree('/srv')\"",
        "python3 -c 'import pathlib; pathlib.Path(\"/srv\").unlink()'",
        "node -pe \"require('fs').rmSync('/srv')\"",
        "perl -MFile::Path=rmtree -e 'rmtree(\"/srv\")'",
        "ruby -r fileutils -e 'FileUtils.rm_rf(\"/srv\")'",
    ] {
        assert!(rule(command).ends_with(":delete"), "{command}");
    }
}

#[test]
fn guard_unreadable_blocks_nul_and_bracket_nesting_before_the_parser_overflows() {
    assert_eq!(rule("git reset --hard\0"), "guard:unreadable");
    assert_eq!(rule(&"(".repeat(100_000)), "guard:unreadable");
    assert_eq!(rule(&"$(".repeat(5000)), "guard:unreadable");
    // Compound commands nest in the parser as brackets do (3,000 `if`s aborted the process).
    let ifs = format!(
        "{}git status{}",
        "if true; then ".repeat(3000),
        "; fi".repeat(3000)
    );
    assert_eq!(rule(&ifs), "guard:unreadable");
    let loops = format!(
        "{}ls{}",
        "while true; do ".repeat(3000),
        "; done".repeat(3000)
    );
    assert_eq!(rule(&loops), "guard:unreadable");
    // Shallow nesting, and the words as data, stay allowed.
    assert_eq!(
        rule("if true; then for f in a b; do echo \"$f\"; done; fi"),
        "allow"
    );
    assert_eq!(rule("echo if if if case for while done fi"), "allow");
    assert_eq!(rule("rm -rf \"$HOME\""), "core.filesystem:rm-rf-root-home");
}
