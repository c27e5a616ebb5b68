//! The default `hooks` binary (the guards, hookwright-guards) installed as a user installs it,
//! with a real agent: the command that would destroy work is blocked before it runs, and the
//! model is told the rule and the safer way; a key a command prints reaches the model redacted.

use std::process::Command;

use crate::agent::claude::Claude;
use crate::agent::{self, Agent, AgentRun};
use crate::host_binary;
use crate::model::{ModelServer, Script};

/// `git` in `dir` with no configuration of the machine's.
fn git(dir: &std::path::Path, home: &std::path::Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=e2e",
            "-c",
            "user.email=e2e@example.invalid",
        ])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn claude_with_the_default_hooks_never_runs_git_reset_hard_and_hears_the_rule() {
    let server = ModelServer::start(Script::shell_then("git reset --hard", "done"));
    let (claude, sb) = agent::setup::<Claude>("guards-claude", &server);
    sb.write("notes.txt", "committed\n");
    git(&sb.project, &sb.home, &["init", "-q"]);
    git(&sb.project, &sb.home, &["add", "notes.txt"]);
    git(&sb.project, &sb.home, &["commit", "-q", "-m", "one"]);
    let work = sb.write("notes.txt", "uncommitted work\n");
    let path = claude.path_with_binary();
    sb.hooks_of(
        host_binary::guards(),
        &["install", "claude", "--project"],
        &[("PATH", path.as_path())],
    );
    let run = claude.run(&sb, &server, "throw away my changes");
    assert_eq!(
        std::fs::read_to_string(&work).unwrap(),
        "uncommitted work\n",
        "git reset --hard ran:\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert!(
        results.len() == 1
            && results[0].1.contains("[core.git:reset-hard]")
            && results[0].1.contains("Safer:"),
        "the model is told the rule and the safer way: {results:?}\n{}",
        run.evidence()
    );
    assert!(run.finished().success(), "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn claude_with_the_default_hooks_never_shows_the_model_a_key_a_command_printed() {
    // Built here, so that no key-shaped literal is committed.
    let key = ["AKIA", "Z7QK2M4WXN5RJ3VB"].concat();
    let server = ModelServer::start(Script::shell_then("cat .env", "done"));
    let (claude, sb) = agent::setup::<Claude>("guards-claude-redact", &server);
    sb.write(
        ".env",
        format!("AWS_ACCESS_KEY_ID={key}\nREGION=eu-west-1\n"),
    );
    let path = claude.path_with_binary();
    sb.hooks_of(
        host_binary::guards(),
        &["install", "claude", "--project"],
        &[("PATH", path.as_path())],
    );
    let run = claude.run(&sb, &server, "show me the environment file");
    let results = server.tool_results();
    assert!(
        results.len() == 1
            && results[0].1.contains("[redacted:aws-access-token]")
            && results[0].1.contains("REGION=eu-west-1"),
        "the model gets the output with the key redacted and the rest as it was: {results:?}\n{}",
        run.evidence()
    );
    assert!(
        !server.received_verbatim(&key),
        "the key reached the model:\n{}",
        run.evidence()
    );
    assert!(run.finished().success(), "{}", run.evidence());
}
