//! Factory Droid 0.225.2 with `hooks install droid --project` in place.
//!
//! Droid cannot replace a tool's result, so a read whose output a hook rewrites ends the run
//! before the model sees it. `droid exec` never fires `UserPromptSubmit`, so no prompt
//! command can answer there (a `/name` prompt goes to the model).

use serde_json::json;

use crate::agent::Sandbox;
use crate::agent::droid::{Droid, DroidRun};
use crate::fixtures::{self, Recorder};
use crate::model::{ModelServer, Script, Step};

use super::bundle;

/// A secret value Droid does not mask by itself (it masks `sk-...` keys in tool output).
const PLAIN_SECRET: &str = "e2e-plain-value";

/// Droid in a fresh sandbox with the hooks installed, or `None` (skipped); configure it for
/// a server with [`Droid::configure`].
fn setup(name: &str) -> Option<(Droid, Sandbox)> {
    let droid = Droid::for_suite()?;
    let sandbox = Sandbox::new(name);
    sandbox.hooks(&["install", "droid", "--project"], &[]);
    Some((droid, sandbox))
}

fn assert_no_hook_failure(run: &DroidRun) {
    let codes = run.hook_exit_codes();
    assert!(
        !codes.is_empty() && codes.iter().all(|&c| c == 0),
        "hook exit codes {codes:?}\n{}",
        run.evidence()
    );
}

#[test]
fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_withheld() {
    let Some((droid, sb)) = setup("droid-bundle") else {
        return;
    };
    let secret = bundle::project(&sb, PLAIN_SECRET);
    let server = ModelServer::start(bundle::guarded_script(
        "ls",
        bundle::read("Read", "file_path", &secret),
    ));
    Droid::configure(&sb, &server);
    // A recorder next to the installed hook shows what Droid handed the hooks.
    let recorder = Recorder::new(&sb.root().join("recorder"));
    fixtures::add_group(
        &Droid::user_settings(&sb),
        "PostToolUse",
        json!({"hooks": [{"type": "command", "command": recorder.command("PostToolUse")}]}),
    );
    let run = droid.exec(&sb, &server, "tidy up");
    let evidence = run.evidence();
    bundle::assert_guard_and_ls(&sb, &server, &evidence);
    assert!(
        recorder
            .inputs("PostToolUse")
            .iter()
            .any(|i| i["tool_response"].to_string().contains(PLAIN_SECRET)),
        "Droid masked the secret itself; the scenario proves nothing\n{evidence}"
    );
    assert!(
        server.received(PLAIN_SECRET).is_empty(),
        "the secret reached the model: {:?}\n{evidence}",
        server.received(PLAIN_SECRET)
    );
    assert_eq!(server.tool_results().len(), 2, "{evidence}");
    assert_no_hook_failure(&run);
}

#[test]
fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
    let Some((droid, sb)) = setup("droid-bundle-malformed") else {
        return;
    };
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    Droid::configure(&sb, &server);
    bundle::break_input(
        &Droid::project_settings(&sb),
        "/hooks/PreToolUse/0/hooks/0/command",
    );
    sb.write("victim/keep.txt", "precious\n");
    let run = droid.exec(&sb, &server, "delete victim");
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert!(
        results
            .first()
            .is_some_and(|(_, r)| r.contains("hooks droid PreToolUse: invalid input")),
        "{results:?}\n{}",
        run.evidence()
    );
}

#[test]
fn a_bundle_session_start_message_reaches_the_model() {
    let Some(droid) = Droid::for_suite() else {
        return;
    };
    let sb = Sandbox::new("droid-bundle-session");
    bundle::install_e2e_bundle(&sb, "droid");
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    Droid::configure(&sb, &server);
    let run = droid.exec(&sb, &server, "hello");
    bundle::assert_session_context(&server, &run.evidence());
    assert_no_hook_failure(&run);
}
