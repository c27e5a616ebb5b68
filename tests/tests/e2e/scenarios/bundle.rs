//! What the four agents installed with `hooks install <agent> --project` share in their
//! scenarios (`gemini_bundle`, `copilot_bundle`, `qwen_bundle`, `droid_bundle`): the examples
//! bundle served through the agent's adapter, checked on what the model received.
//!
//! One guarded run per agent covers the guard, `ls` and a secret file: the model asks for
//! `rm -rf victim`, then `ls`, then reads a file with a secret; then it answers. A second run
//! sends `/handoff`, a third runs the guard with the installed `PreToolUse` command fed a
//! truncated input. Another run per agent installs an author's own binary, `hooks-e2e`
//! (tests/bundles/e2e-bundle), whose `session_start` message must reach the model.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::model::{self, ModelServer, Script, Step};
use crate::{fixtures, hooks_bin};

/// The guard's reason (examples/src/block_rm.rs).
pub(super) const GUARD_REASON: &str = "rm -rf blocked (no UI)";

/// The text `hooks-e2e` sends on `session_start` (tests/bundles/e2e-bundle).
pub(super) const SESSION_CONTEXT: &str = "E2E-SESSION-START-CONTEXT";

/// The text `hooks-e2e`'s `context` handler replaces in user messages, and its replacement.
pub(super) const REWRITE_ME: &str = "E2E-CONTEXT-REWRITE-ME";
/// See [`REWRITE_ME`].
pub(super) const REWRITTEN: &str = "E2E-CONTEXT-REWRITTEN";

/// `hooks-e2e install AGENT --project` in the sandbox.
pub(super) fn install_e2e_bundle(sb: &Sandbox, agent: &str) {
    sb.hooks_of(
        hooks_bin::e2e_bundle(),
        &["install", agent, "--project"],
        &[],
    );
}

/// Asserts that the first model turn carries [`SESSION_CONTEXT`].
pub(super) fn assert_session_context(server: &ModelServer, evidence: &str) {
    let turns = server.model_turns();
    assert!(
        turns.first().is_some_and(|turn| model::strings(&turn.body)
            .iter()
            .any(|s| s.contains(SESSION_CONTEXT))),
        "the session-start context is not in the first model turn (it reached: {:?})
{evidence}",
        server.received(SESSION_CONTEXT)
    );
}

/// The file `ls` must show.
pub(super) const LISTED: &str = "listed-file.txt";

/// What the redactor leaves of `API_KEY=...`.
pub(super) const REDACTED: &str = "API_KEY=[REDACTED]";

/// The project files of a guarded run: `victim/keep.txt`, [`LISTED`], and `secret.env` with
/// `API_KEY=SECRET`; returns the secret file's path.
pub(super) fn project(sb: &Sandbox, secret: &str) -> PathBuf {
    sb.write("victim/keep.txt", "precious\n");
    sb.write(LISTED, "hello\n");
    sb.write("secret.env", format!("name=demo\nAPI_KEY={secret}\n"))
}

/// `rm -rf victim`, `ls` (as `ls`, the command to run), `read` (the agent's read tool call),
/// then `done`.
pub(super) fn guarded_script(ls: &str, read: Step) -> Script {
    Script::new(vec![
        Step::Shell("rm -rf victim".into()),
        Step::Shell(ls.into()),
        read,
        Step::Text("done".into()),
    ])
}

/// A call of the agent's read tool `name` with `{key: path}`.
pub(super) fn read(name: &str, key: &str, path: &Path) -> Step {
    Step::Tool {
        name: name.into(),
        input: json!({ key: path }),
    }
}

/// Asserts that the victim survived, that the first tool result has the guard's reason and
/// that the second lists [`LISTED`] without a word about hooks.
pub(super) fn assert_guard_and_ls(sb: &Sandbox, server: &ModelServer, evidence: &str) {
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{evidence}"
    );
    let results = server.tool_results();
    assert!(results.len() >= 2, "the model got {results:?}\n{evidence}");
    assert!(
        results[0].1.contains(GUARD_REASON),
        "the model did not get the reason: {:?}\n{evidence}",
        results[0].1
    );
    assert!(
        results[1].1.contains(LISTED) && !results[1].1.to_lowercase().contains("hook"),
        "ls: the model got {:?}\n{evidence}",
        results[1].1
    );
}

/// The installed `PreToolUse` (`event`) command of the settings file `path`, at `pointer` in
/// it, fed a truncated JSON input instead of the agent's.
pub(super) fn break_input(path: &Path, pointer: &str) {
    let mut settings = fixtures::read_settings(path);
    let command = settings
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in {}", path.display()));
    let installed = command.as_str().expect("a shell-form command").to_owned();
    *command = Value::String(format!("printf '{{\"tool_name\": ' | {installed}"));
    fixtures::write_settings(path, &settings);
}
