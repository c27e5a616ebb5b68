//! Copilot CLI 1.0.102 with `hooks install copilot --project` in place (`--trust-folder`).

use crate::agent::Sandbox;
use crate::agent::copilot::{Copilot, CopilotRun, Folder};
use crate::fixtures::SECRET;
use crate::model::{ModelServer, Script, Step};

use super::bundle::{self, REDACTED};

/// Copilot CLI with the hooks installed in a fresh sandbox, or `None` (skipped).
fn setup(name: &str) -> Option<(Copilot, Sandbox)> {
    let copilot = Copilot::for_suite()?;
    let sandbox = Sandbox::new(name);
    sandbox.hooks(&["install", "copilot", "--project"], &[]);
    Some((copilot, sandbox))
}

fn assert_no_hook_failure(run: &CopilotRun) {
    assert!(
        run.failed_hooks().is_empty(),
        "Copilot CLI reported failed hooks\n{}",
        run.evidence()
    );
    assert!(
        run.log_lines("[rust:hooks]")
            .iter()
            .all(|l| !l.contains("[ERROR]") && !l.contains("[WARNING]")),
        "{}",
        run.evidence()
    );
}

#[test]
fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
    let Some((copilot, sb)) = setup("copilot-bundle") else {
        return;
    };
    let secret = bundle::project(&sb, SECRET);
    let server = ModelServer::start(bundle::guarded_script(
        "ls",
        bundle::read("view", "path", &secret),
    ));
    let run = copilot.run(&sb, &server, Folder::Trusted, "tidy up", &[]);
    let evidence = run.evidence();
    bundle::assert_guard_and_ls(&sb, &server, &evidence);
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model: {:?}\n{evidence}",
        server.received(SECRET)
    );
    let results = server.tool_results();
    assert_eq!(
        results.get(2).map(|(_, r)| r.as_str()),
        Some(format!("name=demo\n{REDACTED}\n").as_str()),
        "{evidence}"
    );
    assert_eq!(run.answer(), Some("done"), "{evidence}");
    assert_no_hook_failure(&run);
}

#[test]
fn a_prompt_command_answers_without_a_model_call() {
    let Some((copilot, sb)) = setup("copilot-bundle-handoff") else {
        return;
    };
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = copilot.run(&sb, &server, Folder::Trusted, "/handoff", &[]);
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model\n{}",
        run.evidence()
    );
    assert!(
        run.events.iter().any(|e| e["type"] == "session.warning"
            && e["data"]["warningType"] == "policy_blocked"
            && e["data"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("not available"))),
        "no policy_blocked warning with the command's answer: {:?}\n{}",
        run.events,
        run.evidence()
    );
    assert_no_hook_failure(&run);
}

#[test]
fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
    let Some((copilot, sb)) = setup("copilot-bundle-malformed") else {
        return;
    };
    bundle::break_input(
        &Copilot::project_hooks(&sb, "hooks"),
        "/hooks/preToolUse/0/bash",
    );
    sb.write("victim/keep.txt", "precious\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = copilot.run(&sb, &server, Folder::Trusted, "delete victim", &[]);
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{}",
        run.evidence()
    );
    // Copilot CLI drops a hook's stderr on exit 2; the adapter's deny carries the reason.
    let results = server.tool_results();
    assert!(
        results.first().is_some_and(|(_, r)| r
            .starts_with("Denied by preToolUse hook: hooks copilot preToolUse: invalid input")),
        "{results:?}\n{}",
        run.evidence()
    );
}

#[test]
fn a_bundle_session_start_message_reaches_the_model() {
    let Some(copilot) = Copilot::for_suite() else {
        return;
    };
    let sb = Sandbox::new("copilot-bundle-session");
    bundle::install_e2e_bundle(&sb, "copilot");
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = copilot.run(&sb, &server, Folder::Trusted, "hello", &[]);
    bundle::assert_session_context(&server, &run.evidence());
    assert_no_hook_failure(&run);
}
