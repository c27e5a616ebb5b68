//! The default `hooks` binary (the guards, hookwright-guards) installed as a user installs it,
//! with a real agent: the command that would destroy work is blocked before it runs, and the
//! model is told the rule and the safer way.

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
