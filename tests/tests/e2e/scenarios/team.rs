//! Installs a team can commit: `hooks install AGENT --project` run by a `hooks` that lives
//! inside the project writes a path relative to the project through the agent's
//! project-directory variable; the project is then copied elsewhere (as a teammate's clone
//! is somewhere else) and the original removed, so that no absolute path of the install could
//! answer, and the agent, started in the copy, still runs the guard through the entry. The
//! same for a bare-name entry with Claude Code, `hooks` on the teammate's `PATH`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::bundle;
use crate::agent::claude::Claude;
use crate::agent::copilot::Copilot;
use crate::agent::droid::Droid;
use crate::agent::gemini::Gemini;
use crate::agent::qwen::Qwen;
use crate::agent::{self, Agent, AgentRun};
use crate::host_binary;
use crate::model::{ModelServer, Script};

/// Where the project keeps its own `hooks`, relative to the project.
const IN_PROJECT: &str = "tools/hooks";

/// `hooks` placed at `path` (a hard link where the file system allows, else a copy).
fn place(path: &Path) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("tools directory");
    if fs::hard_link(host_binary::path(), path).is_err() {
        fs::copy(host_binary::path(), path).expect("copy of hooks");
    }
}

/// `from` copied to `to` as `cp -a` copies (links, modes), then `from` removed.
fn move_by_copy(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(
        status.success(),
        "cp -a {} {}",
        from.display(),
        to.display()
    );
    fs::remove_dir_all(from).expect("the original project is removed");
}

/// The scenario for `A`, whose entries must spell the binary as `word`.
fn a_project_relative_entry_answers_from_a_copy_elsewhere<A: Agent>(name: &str, word: &str) {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let (agent, mut sb) = agent::setup::<A>(name, &server);
    let binary = sb.project.join(IN_PROJECT);
    place(&binary);
    let mut args = vec!["install", A::NAME, "--project"];
    if A::NAME == "claude" {
        args.extend(["--claude-version", "2.1.328"]);
    }
    let installed = sb.hooks_of(&binary, &args, &[]);
    assert!(
        installed.stdout.contains(&format!(
            "Entries run `{word}`: `hooks` is not on PATH, and the binary is inside the project \
             ({IN_PROJECT})"
        )),
        "{}",
        installed.stdout
    );
    let settings = fs::read_to_string(A::installed_hooks(&sb)).expect("installed settings");
    assert!(
        !settings.contains(&sb.project.display().to_string()),
        "no path of this checkout in the committed file: {settings}"
    );
    // A space and a quote in its path: each agent's spelling of the variable must survive them.
    let elsewhere: PathBuf = sb.root().join("a teammate's clone");
    move_by_copy(&sb.project, &elsewhere);
    sb.project = elsewhere;
    let kept = sb.victims(&["victim"]);
    let run = agent.run(&sb, &server, "delete the victim directory");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    bundle::assert_the_model_got_the_guard_s_reason(&server, &run.evidence());
    assert!(run.finished().success(), "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn claude_runs_a_project_relative_entry_from_a_copy_elsewhere() {
    a_project_relative_entry_answers_from_a_copy_elsewhere::<Claude>(
        "team-claude",
        "${CLAUDE_PROJECT_DIR}/tools/hooks",
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn gemini_runs_a_project_relative_entry_from_a_copy_elsewhere() {
    a_project_relative_entry_answers_from_a_copy_elsewhere::<Gemini>(
        "team-gemini",
        "$GEMINI_PROJECT_DIR/tools/hooks",
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn qwen_runs_a_project_relative_entry_from_a_copy_elsewhere() {
    a_project_relative_entry_answers_from_a_copy_elsewhere::<Qwen>(
        "team-qwen",
        "\"$QWEN_PROJECT_DIR\"/tools/hooks",
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn droid_runs_a_project_relative_entry_from_a_copy_elsewhere() {
    a_project_relative_entry_answers_from_a_copy_elsewhere::<Droid>(
        "team-droid",
        "\"$FACTORY_PROJECT_DIR\"/tools/hooks",
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn copilot_runs_a_project_relative_entry_from_a_copy_elsewhere() {
    a_project_relative_entry_answers_from_a_copy_elsewhere::<Copilot>(
        "team-copilot",
        "\"$COPILOT_PROJECT_DIR\"/tools/hooks",
    );
}

/// A teammate with the binary (`hooks-examples`) on `PATH`: the bare name is written, and Claude Code, started in a
/// copy of the project elsewhere with that `PATH`, finds it there and the guard answers.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn claude_runs_a_bare_name_entry_found_on_path_from_a_copy_elsewhere() {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let (claude, mut sb) = agent::setup::<Claude>("team-claude-bare", &server);
    let bin = sb.root().join("bin");
    fs::create_dir_all(&bin).expect("bin directory");
    let name = host_binary::path()
        .file_name()
        .and_then(|n| n.to_str())
        .expect("the binary's name");
    std::os::unix::fs::symlink(host_binary::path(), bin.join(name)).expect("hooks on PATH");
    let path = agent::path_with(&[&bin.join(name)]);
    let installed = sb.hooks(
        &[
            "install",
            "claude",
            "--project",
            "--claude-version",
            "2.1.328",
        ],
        &[("PATH", path.as_path())],
    );
    assert!(
        installed.stdout.contains(&format!(
            "Entries run `{name}`: `{name}` on PATH is this binary."
        )),
        "{}",
        installed.stdout
    );
    let elsewhere: PathBuf = sb.root().join("a teammate's clone");
    move_by_copy(&sb.project, &elsewhere);
    sb.project = elsewhere;
    let kept = sb.victims(&["victim"]);
    let run = claude.run_with_path(&sb, &server, "delete the victim directory", &[], Some(&bin));
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    bundle::assert_the_model_got_the_guard_s_reason(&server, &run.evidence());
    assert!(run.finished().success(), "{}", run.evidence());
}
