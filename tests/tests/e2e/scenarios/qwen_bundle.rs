//! Qwen Code 0.24.4 with `hooks install qwen --project` in place.

use crate::agent::Sandbox;
use crate::agent::qwen::{Qwen, QwenRun};
use crate::fixtures::SECRET;
use crate::model::{ModelServer, Script, Step};

use super::bundle::{self, REDACTED};

/// Qwen Code configured for an offline run with the hooks installed, or `None` (skipped).
fn setup(name: &str) -> Option<(Qwen, Sandbox)> {
    let qwen = Qwen::for_suite()?;
    let sandbox = Sandbox::new(name);
    Qwen::configure(&sandbox);
    sandbox.hooks(&["install", "qwen", "--project"], &[]);
    Some((qwen, sandbox))
}

fn assert_no_hook_failure(run: &QwenRun) {
    assert!(
        run.hook_failures().is_empty(),
        "Qwen Code reported hook failures: {:?}\n{}",
        run.hook_failures(),
        run.evidence()
    );
}

#[test]
fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
    let Some((qwen, sb)) = setup("qwen-bundle") else {
        return;
    };
    let secret = bundle::project(&sb, SECRET);
    // A fast command's output sometimes reaches Qwen's model empty; the sleep avoids it.
    let server = ModelServer::start(bundle::guarded_script(
        "ls; sleep 0.3",
        bundle::read("read_file", "file_path", &secret),
    ));
    let run = qwen.run(&sb, &server, "tidy up");
    let evidence = run.evidence();
    bundle::assert_guard_and_ls(&sb, &server, &evidence);
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model: {:?}\n{evidence}",
        server.received(SECRET)
    );
    let results = server.tool_results();
    assert!(
        results.get(2).is_some_and(|(_, r)| r.contains(REDACTED)),
        "{results:?}\n{evidence}"
    );
    assert_eq!(
        run.result().and_then(|r| r["result"].as_str()),
        Some("done"),
        "{evidence}"
    );
    assert_no_hook_failure(&run);
}

/// Qwen Code shows a blocked prompt's reason nowhere (measured), so the command's answer is
/// only seen by its effect: the model is not asked.
#[test]
fn a_prompt_command_answers_without_a_model_call() {
    let Some((qwen, sb)) = setup("qwen-bundle-handoff") else {
        return;
    };
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = qwen.run(&sb, &server, "/handoff");
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model\n{}",
        run.evidence()
    );
    assert!(run.finished.success(), "{}", run.evidence());
    assert_no_hook_failure(&run);
}

#[test]
fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
    let Some((qwen, sb)) = setup("qwen-bundle-malformed") else {
        return;
    };
    bundle::break_input(
        &Qwen::project_settings(&sb),
        "/hooks/PreToolUse/0/hooks/0/command",
    );
    sb.write("victim/keep.txt", "precious\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = qwen.run(&sb, &server, "delete victim");
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert!(
        results
            .first()
            .is_some_and(|(_, r)| r.contains("hooks qwen PreToolUse: invalid input")),
        "{results:?}\n{}",
        run.evidence()
    );
}

#[test]
fn a_bundle_session_start_message_reaches_the_model() {
    let Some(qwen) = Qwen::for_suite() else {
        return;
    };
    let sb = Sandbox::new("qwen-bundle-session");
    Qwen::configure(&sb);
    bundle::install_e2e_bundle(&sb, "qwen");
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = qwen.run(&sb, &server, "hello");
    bundle::assert_session_context(&server, &run.evidence());
    assert_no_hook_failure(&run);
}
