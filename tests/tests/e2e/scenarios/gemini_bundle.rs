//! Gemini CLI 0.61.0 with `hooks install gemini --project` in place (a trusted folder).

use crate::agent::Sandbox;
use crate::agent::gemini::{Folder, Gemini, GeminiRun};
use crate::fixtures::SECRET;
use crate::model::{ModelServer, Script, Step};

use super::bundle::{self, REDACTED};

/// Gemini CLI configured for an offline run with the hooks installed, or `None` (skipped).
fn setup(name: &str) -> Option<(Gemini, Sandbox)> {
    let gemini = Gemini::for_suite()?;
    let sandbox = Sandbox::new(name);
    Gemini::configure(&sandbox);
    sandbox.hooks(&["install", "gemini", "--project"], &[]);
    Some((gemini, sandbox))
}

fn assert_no_hook_failure(run: &GeminiRun) {
    assert!(
        run.hook_failures().is_empty(),
        "Gemini CLI reported hook failures: {:?}\n{}",
        run.hook_failures(),
        run.evidence()
    );
}

#[test]
fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
    let Some((gemini, sb)) = setup("gemini-bundle") else {
        return;
    };
    let secret = bundle::project(&sb, SECRET);
    // The decision log, a line per call of ours: which events Gemini CLI ran us for.
    let config = sb.home.join(".config/hooks");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[log]\nenabled = true\n").unwrap();
    let server = ModelServer::start(bundle::guarded_script(
        "ls",
        bundle::read("read_file", "file_path", &secret),
    ));
    let run = gemini.run(&sb, &server, Folder::Trusted, "tidy up", &[]);
    let evidence = run.evidence();
    bundle::assert_guard_and_ls(&sb, &server, &evidence);
    let log = std::fs::read_to_string(sb.home.join(".local/state/hooks/decisions.jsonl"))
        .unwrap_or_default();
    let called: Vec<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|l| l["event"]["agent"].as_str().map(str::to_owned))
        .collect();
    assert!(
        called.iter().any(|e| e == "BeforeTool"),
        "the log has our calls: {called:?}\n{evidence}"
    );
    // Installed for the manual trigger only: Gemini CLI's PreCompress before every model
    // turn (trigger "auto") starts no process of ours.
    assert!(
        !called.iter().any(|e| e == "PreCompress"),
        "PreCompress ran us: {called:?}\n{evidence}"
    );
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model: {:?}\n{evidence}",
        server.received(SECRET)
    );
    let results = server.tool_results();
    assert!(
        results.get(2).is_some_and(|(_, r)| r.contains(REDACTED)),
        "the read did not reach the model redacted: {results:?}\n{evidence}"
    );
    assert_eq!(run.response(), Some("done"), "{evidence}");
    assert_no_hook_failure(&run);
}

#[test]
fn a_prompt_command_answers_without_a_model_call() {
    let Some((gemini, sb)) = setup("gemini-bundle-handoff") else {
        return;
    };
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = gemini.run(&sb, &server, Folder::Trusted, "/handoff", &[]);
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model\n{}",
        run.evidence()
    );
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.starts_with("Agent execution blocked: ") && w.contains("not available")),
        "{}",
        run.evidence()
    );
    assert!(run.finished.success(), "{}", run.evidence());
    assert_no_hook_failure(&run);
}

#[test]
fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
    let Some((gemini, sb)) = setup("gemini-bundle-malformed") else {
        return;
    };
    bundle::break_input(
        &Gemini::project_settings(&sb),
        "/hooks/BeforeTool/0/hooks/0/command",
    );
    sb.write("victim/keep.txt", "precious\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = gemini.run(&sb, &server, Folder::Trusted, "delete victim", &[]);
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert!(
        results
            .first()
            .is_some_and(|(_, r)| r.contains("hooks gemini BeforeTool: invalid input")),
        "the model did not get the adapter's reason: {results:?}\n{}",
        run.evidence()
    );
}

#[test]
fn a_bundle_session_start_message_reaches_the_model() {
    let Some(gemini) = Gemini::for_suite() else {
        return;
    };
    let sb = Sandbox::new("gemini-bundle-session");
    Gemini::configure(&sb);
    bundle::install_e2e_bundle(&sb, "gemini");
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = gemini.run(&sb, &server, Folder::Trusted, "hello", &[]);
    bundle::assert_session_context(&server, &run.evidence());
    assert_no_hook_failure(&run);
}

/// Gemini CLI's `BeforeModel` is our `context` event: a bundle handler's rewrite of a user
/// message is what the model gets, in every model turn (the prompt's and, after a tool, the
/// next one's), and the text it replaced never reaches the model.
#[test]
fn a_bundle_context_handler_rewrites_what_the_model_is_sent() {
    let Some(gemini) = Gemini::for_suite() else {
        return;
    };
    let sb = Sandbox::new("gemini-bundle-context");
    Gemini::configure(&sb);
    bundle::install_e2e_bundle(&sb, "gemini");
    let server = ModelServer::start(Script::shell_then("echo E2E-TOOL-RAN", "done"));
    let prompt = format!("please {} now", bundle::REWRITE_ME);
    let run = gemini.run(&sb, &server, Folder::Trusted, &prompt, &[]);
    let evidence = run.evidence();
    let turns = server.model_turns();
    assert_eq!(turns.len(), 2, "{evidence}");
    for turn in &turns {
        let texts = crate::model::strings(&turn.body);
        assert!(
            texts
                .iter()
                .any(|t| t.contains(&format!("please {} now", bundle::REWRITTEN))),
            "the rewritten prompt is not in {}\n{evidence}",
            turn.body
        );
    }
    assert!(
        server.received(bundle::REWRITE_ME).is_empty(),
        "the replaced text reached the model: {:?}\n{evidence}",
        server.received(bundle::REWRITE_ME)
    );
    assert!(
        server
            .tool_results()
            .first()
            .is_some_and(|(_, r)| r.contains("E2E-TOOL-RAN")),
        "the tool's result did not reach the model: {:?}\n{evidence}",
        server.tool_results()
    );
    assert_eq!(run.response(), Some("done"), "{evidence}");
    assert_no_hook_failure(&run);
}
