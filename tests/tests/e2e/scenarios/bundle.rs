//! What the four agents installed with `hooks install <agent> --project` share in their
//! scenarios (`gemini_bundle`, `copilot_bundle`, `qwen_bundle`, `droid_bundle`): the examples
//! bundle served through the agent's adapter, checked on what the model received.
//!
//! One guarded run per agent covers the guard, `ls` and a secret file: the model asks for
//! `rm -rf victim`, then `ls`, then reads a file with a secret; then it answers. A second run
//! sends `/handoff`, a third runs the guard with the installed `PreToolUse` command fed a
//! truncated input.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::fixtures;
use crate::model::{ModelServer, Script, Step};

/// The guard's reason (examples/src/block_rm.rs).
pub(super) const GUARD_REASON: &str = "rm -rf blocked (no UI)";

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
