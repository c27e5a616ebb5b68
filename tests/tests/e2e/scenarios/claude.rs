//! Claude Code 2.1.328, `hooks install claude --project` in place.

use serde_json::{Value, json};

use super::bundle;
use crate::agent::claude::{Claude, ClaudeRun, read};
use crate::agent::{Agent, AgentRun, HookFailures, Sandbox};
use crate::fixtures::{self, REDACTED, Recorder, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

/// Claude Code with the hooks installed in a fresh sandbox; each run
/// names the model server ([`Agent::configure`] has nothing to write).
fn setup(name: &str) -> (Claude, Sandbox) {
    let claude = Claude::for_suite();
    let sandbox = Sandbox::new(name);
    claude.install_hooks(&sandbox);
    (claude, sandbox)
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn rm_rf_is_blocked_and_the_model_gets_the_reason() {
    bundle::rm_rf_is_blocked_and_the_model_gets_the_reason::<Claude>("claude-gate");
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn in_audit_mode_rm_rf_runs_and_the_log_records_the_unenforced_deny() {
    let (claude, sb) = setup("claude-audit");
    sb.write("victim/keep.txt", "precious\n");
    // The user's config file, where the hooks Claude Code starts find it ($HOME is the
    // sandbox's); the decision log goes to the default place under the state directory.
    bundle::hooks_config(&sb, "mode = \"audit\"\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = claude.run(&sb, &server, "delete the victim directory");
    assert!(
        !sb.project.join("victim").exists(),
        "audit mode enforces nothing, yet the victim survived:\n{}",
        run.evidence()
    );
    let log = bundle::decision_log(&sb);
    let text = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", log.display(), run.evidence()));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let unenforced = lines
        .iter()
        .find(|l| l["event"]["agent"] == "PreToolUse" && l["tool"] == "bash")
        .unwrap_or_else(|| panic!("no PreToolUse line for bash in {text}"));
    // docs/agents.md's example line is this one, as written (`--nocapture` shows it).
    if let Some(raw) = text.lines().find(|l| l.contains(r#""agent":"PreToolUse""#)) {
        eprintln!("the decision log's PreToolUse line:\n{raw}");
    }
    assert_eq!(unenforced["mode"], "audit", "{unenforced}");
    // Decisions, not content: the command line is there, the prompt and outputs are not.
    assert_eq!(
        unenforced["input"]["command"], "rm -rf victim",
        "{unenforced}"
    );
    assert!(!text.contains("delete the victim directory"), "{text}");
    assert_eq!(unenforced["enforced"], false, "{unenforced}");
    assert_eq!(unenforced["answer"]["stdout"], Value::Null, "{unenforced}");
    let deny = &unenforced["would_have"]["stdout"]["hookSpecificOutput"];
    assert_eq!(deny["permissionDecision"], "deny", "{unenforced}");
    assert_eq!(deny["permissionDecisionReason"], bundle::GUARD_REASON);
    assert!(
        lines
            .iter()
            .all(|l| l["session"].is_string() && l["agent"] == "claude"),
        "{text}"
    );
    assert!(run.finished.success(), "{}", run.evidence());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn ls_runs_quietly() {
    let (run, _sb, server) = bundle::ls_runs_quietly::<Claude>("claude-ls");
    // The hooks answer nothing but what the examples show the user (their status line and
    // debug note after the tool, as a systemMessage): no decision, no context, no error.
    let hook_outputs: Vec<&Value> = run
        .events
        .iter()
        .filter(|e| e["subtype"] == "hook_response")
        .filter(|e| {
            let answer: Value =
                serde_json::from_str(e["output"].as_str().unwrap_or("")).unwrap_or(Value::Null);
            let only_for_the_user = e["output"] == ""
                || answer
                    .as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "systemMessage"));
            e["outcome"] != "success" || !only_for_the_user || e["stderr"] != ""
        })
        .collect();
    assert!(
        hook_outputs.is_empty(),
        "hooks said something: {hook_outputs:?}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
    assert_eq!(server.received("tools run:"), Vec::<String>::new());
}

/// What the examples say to the user after a tool (the status line of `status_line`, the
/// `debug-only` note of `debug_notes` with its renderer) is shown by Claude Code as a system
/// message, and never reaches the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn status_line_and_displayed_messages_reach_the_user_and_never_the_model() {
    let (claude, sb) = setup("claude-shown");
    let server = ModelServer::start(Script::shell_then("echo hi", "done"));
    let run = claude.run(&sb, &server, "say hi");
    let shown = informational(&run);
    assert!(
        shown
            .iter()
            .any(|t| t.starts_with("PostToolUse:Bash says: ")
                && t.contains("status: tools run: 1 · last: bash ✓")
                && t.contains("[debug] bash ")),
        "{shown:?}\n{}",
        run.evidence()
    );
    for needle in ["tools run:", "[debug]", "bytes of text"] {
        assert_eq!(server.received(needle), Vec::<String>::new(), "{needle}");
    }
}

/// Claude Code sends `SessionStart` with `source: "startup"` at the start, `"resume"` for
/// `--continue` and `"compact"` after a compaction; only the start runs the examples'
/// `session_start` hook (its `tools run: 0` status line): a resume is a `session_switch`,
/// which no example handles, and a compaction is no new session.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_runs_only_for_a_new_session() {
    let (claude, sb) = setup("claude-sources");
    let tee = fixtures::tee(sb.root());
    fixtures::edit_handlers(&Claude::installed_hooks(&sb), |event, handler| {
        if event == "SessionStart" {
            let mut args = vec![handler["command"].clone()];
            args.extend(handler["args"].as_array().cloned().unwrap_or_default());
            handler["command"] = json!(tee);
            handler["args"] = Value::Array(args);
        }
    });
    let server = ModelServer::start(Script::new(vec![
        Step::Text("hello".into()),
        Step::Text("again".into()),
    ]));
    for (prompt, args) in [
        ("say hello", &[][..]),
        ("/compact", &["--continue"][..]),
        ("again", &["--continue"][..]),
    ] {
        let run = claude.run_with_args(&sb, &server, prompt, args);
        assert!(run.finished.success(), "{}", run.evidence());
    }
    bundle::assert_only_startup_starts_a_session(
        "claude",
        &sb,
        &["startup", "resume", "compact", "resume"],
    );
}

/// The `system` / `informational` events of a run: what Claude Code showed the user.
fn informational(run: &ClaudeRun) -> Vec<String> {
    run.events
        .iter()
        .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
        .filter_map(|e| e["content"].as_str().map(str::to_owned))
        .collect()
}

/// The text of the request after a compaction that re-attaches the files read before it
/// ("Result of calling the Read tool"), for assertions; empty when no request does.
fn reattached(server: &ModelServer) -> String {
    server
        .model_turns()
        .iter()
        .flat_map(|r| {
            crate::model::strings(&r.body)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|s| s.contains("Result of calling the Read tool"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// After a compaction Claude Code attaches the files read (or edited) recently again, read from
/// disk by itself ("Result of calling the Read tool"), with no hook. The example redactor
/// answers a Read of a file holding a secret itself (a deny whose reason is the redacted
/// text) and blocks its Edit (which needs no Read first), so neither tool opens it and nothing
/// brings it back; a file with no secret reads as usual and is re-attached (which shows the
/// compaction did re-attach what Read opened).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn after_a_compaction_a_secret_read_before_it_never_reaches_the_model() {
    let (claude, sb) = setup("claude-reread");
    let contents = format!("name=demo\n{}\n", secret_line());
    let secret = sb.write("config.txt", &contents);
    let clean = sb.write("notes.txt", "e2e-clean-notes\n");
    let edit = Step::tool(
        "Edit",
        json!({"file_path": secret, "old_string": "name=demo", "new_string": "name=e2e"}),
    );
    let server = ModelServer::start(Script::new(vec![
        read(&secret),
        read(&clean),
        edit,
        Step::Text("read".into()),
        Step::Text("after".into()),
    ]));
    let first = claude.run(&sb, &server, "read config.txt and notes.txt");
    let results = server.tool_results();
    assert!(
        results.len() == 3
            && results[0].1.contains(&format!("2\t{REDACTED}"))
            && results[1].1.contains("1\te2e-clean-notes")
            && !results[1].1.contains("redaction hook"),
        "the model did not get config.txt redacted and notes.txt as Read shows it: {results:?}\n{}",
        first.evidence()
    );
    let compact = claude.run_with_args(&sb, &server, "/compact", &["--continue"]);
    let after = claude.run_with_args(&sb, &server, "go on", &["--continue"]);
    let turns = server.model_turns();
    assert!(
        turns
            .iter()
            .any(|r| r.answered == crate::model::Answered::Summary)
            && turns
                .last()
                .is_some_and(|r| r.answered == crate::model::Answered::Step(4)),
        "no compaction, or no request after it:\n{}\n{}",
        compact.evidence(),
        after.evidence()
    );
    let reattached = reattached(&server);
    assert!(
        reattached.contains("e2e-clean-notes"),
        "the compaction re-attached no file: {reattached:?}\n{}",
        after.evidence()
    );
    assert_eq!(
        server.received(SECRET),
        Vec::<String>::new(),
        "re-attached: {reattached}\n{}",
        after.evidence()
    );
    assert!(
        results[2].1.contains("holds a secret")
            && std::fs::read_to_string(&secret).unwrap() == contents,
        "the Edit of config.txt ran: {:?}",
        results[2]
    );
    assert!(
        first.hook_failures().is_empty(),
        "{:?}",
        first.hook_failures()
    );
}

/// Claude Code never sends malformed input by itself, so each installed gating entry is run the
/// way Claude runs it (exec form, the input on stdin) with broken input: it must exit 2 (a block
/// in Claude Code) with a reason on stderr.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn installed_gating_entries_fail_closed_on_malformed_input() {
    let (_claude, sb) = setup("claude-malformed");
    let installed = fixtures::read_settings(&Claude::installed_hooks(&sb));
    for event in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "PreCompact",
    ] {
        let handler = &installed["hooks"][event][0]["hooks"][0];
        let command = handler["command"].as_str().expect("exec form command");
        let args: Vec<&str> = handler["args"]
            .as_array()
            .expect("exec form args")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for input in [&b"{\"hook_event_name\": "[..], b"", b"[1, 2]", b"\xff\xfe"] {
            let mut cmd = std::process::Command::new(command);
            cmd.args(&args).current_dir(&sb.project);
            let done = crate::process::run_bounded_with_input(
                cmd,
                &crate::process::Input::Bytes(input),
                sb.root(),
                "malformed",
                std::time::Duration::from_secs(30),
            );
            assert_eq!(
                done.code(),
                Some(2),
                "{event} with {:?}: {done:?}",
                String::from_utf8_lossy(input)
            );
            assert!(
                !done.stderr.trim().is_empty(),
                "{event}: no reason on stderr"
            );
        }
    }
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn every_installed_event_runs_cleanly() {
    let (claude, sb) = setup("claude-events");
    sb.write("a.txt", "a\n");
    // PreToolUse and PostToolUse (ls), PostToolUseFailure (a failing command).
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("ls".into()),
        Step::Shell("exit 3".into()),
        Step::Text("done".into()),
    ]));
    let first = claude.run(&sb, &server, "look around");
    // PreCompact, in the same session.
    let compact = claude.run_with_args(&sb, &server, "/compact", &["--continue"]);
    let mut fired = Vec::new();
    for run in [&first, &compact] {
        assert!(run.finished.success(), "{}", run.evidence());
        assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
        // Most events log `finished with status N (Tms)`, PreCompact `completed with status N`.
        for line in run.debug_log.lines() {
            if line.contains("] finished with status") || line.contains("] completed with status") {
                fired.push(line.to_owned());
            }
        }
    }
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse:",
        "PostToolUseFailure",
        "PreCompact",
    ] {
        let runs: Vec<&String> = fired.iter().filter(|l| l.contains(event)).collect();
        assert!(!runs.is_empty(), "{event} never ran: {fired:#?}");
        assert!(
            runs.iter().all(|l| l.contains("ed with status 0")),
            "{event}: {runs:#?}"
        );
    }
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pre_compact_holds_a_compaction_while_the_marker_exists() {
    let (claude, sb) = setup("claude-precompact");
    sb.write(".hooks/hold-compaction", "");
    let server = ModelServer::start(Script::new(vec![Step::Text("hello".into())]));
    let first = claude.run(&sb, &server, "say hello");
    assert!(first.finished.success(), "{}", first.evidence());
    let compact = claude.run_with_args(&sb, &server, "/compact", &["--continue"]);
    let summaries = server
        .requests()
        .iter()
        .filter(|r| r.answered == crate::model::Answered::Summary)
        .count();
    assert_eq!(
        summaries,
        0,
        "the model was asked to compact:\n{}",
        compact.evidence()
    );
    let result = compact
        .events
        .iter()
        .find(|e| e["compact_result"].is_string())
        .cloned()
        .unwrap_or_default();
    assert_eq!(result["compact_result"], "failed", "{}", compact.evidence());
    assert!(
        result["compact_error"]
            .as_str()
            .is_some_and(|e| e.contains("Compaction cancelled by a hook")),
        "{result}"
    );
}

/// Per-hook time inside Claude Code, from its debug log, next to a `/bin/true` hook on the same
/// event (the agent's own cost of starting a hook).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn hook_times_from_the_debug_log() {
    let (claude, sb) = setup("claude-times");
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
    ] {
        fixtures::add_handler(
            &Claude::installed_hooks(&sb),
            event,
            json!({"type": "command", "command": "/bin/true"}),
        );
    }
    let mut steps: Vec<Step> = (0..10).map(|i| Step::Shell(format!("echo {i}"))).collect();
    steps.push(Step::Text("done".into()));
    let server = ModelServer::start(Script::new(steps));
    let run = claude.run(&sb, &server, "count to ten");
    assert!(run.finished.success(), "{}", run.evidence());
    let times = crate::timing::hook_times(&run.debug_log);
    let host_binary = crate::host_binary::path().display().to_string();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
    ] {
        let ours = times.median(event, |c| c.starts_with(&host_binary));
        let truth = times.median(event, |c| c == "/bin/true");
        crate::report(&format!(
            "claude hook time {event}: hooks {ours}, /bin/true {truth}"
        ));
        assert!(
            times.count(event, |c| c.starts_with(&host_binary)) > 0,
            "no {event} time in the debug log"
        );
    }
    assert_eq!(
        times.count("PreToolUse", |c| c.starts_with(&host_binary)),
        10
    );
    assert!(times.failed().is_empty(), "{:?}", times.failed());
}

/// Removes the installed `PreToolUse` entry, where the example redactor answers a read of a
/// file holding a secret itself, so that the read runs and its output reaches `PostToolUse`:
/// the output path alone, as a hook that only rewrites tool output has it.
fn output_path_only(sb: &Sandbox) {
    let bin = crate::host_binary::path().display().to_string();
    fixtures::remove_handlers(&Claude::installed_hooks(sb), "PreToolUse", |h| {
        h["command"].as_str() == Some(bin.as_str())
    });
}

/// Reads `file` (written with `contents`) with Claude's Read tool, with a recorder on
/// PostToolUse (and, with `output_only`, no `PreToolUse` of ours: [`output_path_only`]);
/// returns the run, the server, the sandbox and what PostToolUse received.
fn read_with_recorder(
    name: &str,
    file: &str,
    contents: &[u8],
    output_only: bool,
) -> (ClaudeRun, ModelServer, Sandbox, Vec<Value>) {
    let (claude, sb) = setup(name);
    if output_only {
        output_path_only(&sb);
    }
    let log = sb.root().join("post-tool-use.jsonl");
    let recorder = fixtures::recorder(sb.root(), &log);
    fixtures::add_handler(
        &Claude::installed_hooks(&sb),
        "PostToolUse",
        json!({"type": "command", "command": recorder}),
    );
    let path = sb.write(file, contents);
    let server = ModelServer::start(Script::new(vec![read(&path), Step::Text("read".into())]));
    let run = claude.run(&sb, &server, &format!("read {file}"));
    let inputs = fixtures::recorded(&log);
    (run, server, sb, inputs)
}

/// The `tool_response` shapes PostToolUse received (`type` and keys), for reports.
fn shapes(inputs: &[Value]) -> Vec<String> {
    inputs
        .iter()
        .map(|i| {
            let r = &i["tool_response"];
            let keys = r.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
            format!("type={} keys={keys:?}", r["type"])
        })
        .collect()
}

/// What the adapter answered on PostToolUse and where the secret reached the model.
fn redaction_evidence(run: &ClaudeRun, server: &ModelServer, inputs: &[Value]) -> String {
    format!(
        "PostToolUse input shapes: {:?}\nPostToolUse lines: {:#?}\nthe secret reached the model in: {:?}\ntool results: {:?}",
        shapes(inputs),
        run.debug_lines("PostToolUse"),
        server.received(SECRET),
        server.tool_results()
    )
}

/// The tool result the model got from the one tool call of a scenario.
fn only_result(server: &ModelServer) -> String {
    let results = server.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    results[0].1.clone()
}

/// The redactor answers the read itself (the notebook holds a secret): the cells come as text.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn read_of_a_notebook_is_redacted_before_the_model_sees_it() {
    let (run, server, _sb, inputs) = read_with_recorder(
        "claude-read-notebook",
        "demo.ipynb",
        fixtures::notebook().as_bytes(),
        false,
    );
    let evidence = redaction_evidence(&run, &server, &inputs);
    assert!(server.received(SECRET).is_empty(), "{evidence}");
    let result = only_result(&server);
    assert!(
        result.contains(REDACTED) && result.contains("<cell id=\"c1\">"),
        "the cells did not reach the model redacted, in their own shape: {evidence}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn read_of_a_pdf_never_shows_the_model_a_secret() {
    let (run, server, _sb, inputs) =
        read_with_recorder("claude-read-pdf", "demo.pdf", &fixtures::pdf(), false);
    let evidence = redaction_evidence(&run, &server, &inputs);
    assert!(server.received(SECRET).is_empty(), "{evidence}");
    assert!(
        only_result(&server).contains(hookwright_examples::redact::WITHHELD_DOCUMENT),
        "the model was not told the PDF was withheld: {evidence}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn read_of_an_image_reaches_the_model_unchanged() {
    use base64::Engine as _;
    let png = fixtures::png();
    let (run, server, _sb, inputs) =
        read_with_recorder("claude-read-image", "demo.png", &png, false);
    assert_eq!(
        inputs.first().map(|i| i["tool_response"]["type"].clone()),
        Some(json!("image")),
        "{}",
        redaction_evidence(&run, &server, &inputs)
    );
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    assert!(
        server.received_verbatim(&data),
        "the image did not reach the model as it is: {}",
        redaction_evidence(&run, &server, &inputs)
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn cat_of_a_secret_file_is_redacted_before_the_model_sees_it() {
    let run =
        bundle::a_secret_printed_by_a_command_is_redacted::<Claude>("claude-cat", "cat secret.env");
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// A user-level hook file the `hooks` binary runs after every read
/// (`~/.claude/hooks/post/read.sh`), with `body` as its script.
fn read_post_hook(sb: &Sandbox, body: &str) {
    let dir = sb.home.join(".claude/hooks/post");
    std::fs::create_dir_all(&dir).expect("hook file directory");
    fixtures::script(&dir.join("read.sh"), body);
}

/// A hook file's answer that replaces the text of a read with a caption: an output with no text
/// (an image) gets the caption added after it.
const CAPTION_HOOK: &str = "cat > /dev/null\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"updatedToolOutput\": \"e2e-caption\"}}'";

/// The start of every notice that replaces a withheld output.
const WITHHELD: &str = "[tool output withheld:";

/// Whether Claude Code showed the user `text` (a `systemMessage`, as a `system` event).
fn shown_to_user(run: &ClaudeRun, text: &str) -> bool {
    run.events
        .iter()
        .any(|e| e["type"] == "system" && e["content"].as_str().is_some_and(|c| c.contains(text)))
}

/// The output path alone ([`output_path_only`]): with a read answered by the redactor itself,
/// a notebook holding a secret comes as text, its images left out.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_notebook_image_stays_while_its_text_is_redacted() {
    use base64::Engine as _;
    let (run, server, _sb, inputs) = read_with_recorder(
        "claude-read-notebook-image",
        "plot.ipynb",
        fixtures::notebook_with_image().as_bytes(),
        true,
    );
    let evidence = redaction_evidence(&run, &server, &inputs);
    assert!(server.received(SECRET).is_empty(), "{evidence}");
    assert!(only_result(&server).contains(REDACTED), "{evidence}");
    let png = base64::engine::general_purpose::STANDARD.encode(fixtures::png());
    assert!(
        server.received_verbatim(&png),
        "the notebook's image did not reach the model as it is: {evidence}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_caption_next_to_an_image_read_withholds_it_with_a_notice() {
    use base64::Engine as _;
    let (claude, sb) = setup("claude-image-caption");
    read_post_hook(&sb, CAPTION_HOOK);
    let png = sb.write("demo.png", fixtures::png());
    let server = ModelServer::start(Script::new(vec![read(&png), Step::Text("seen".into())]));
    let run = claude.run(&sb, &server, "look at demo.png");
    let notice = "[tool output withheld: a hook changed it and Claude Code's Read image output \
                  cannot carry the change]";
    let result = only_result(&server);
    assert!(result.contains(notice), "{result:?}\n{}", run.evidence());
    let data = base64::engine::general_purpose::STANDARD.encode(fixtures::png());
    assert!(
        !server.received_verbatim(&data),
        "the image reached the model"
    );
    assert!(shown_to_user(&run, notice), "{}", run.evidence());
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// The output path alone ([`output_path_only`]): a notebook holding a secret reaches
/// `PostToolUse`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_failing_hook_withholds_a_notebook_read() {
    let (claude, sb) = setup("claude-notebook-failing-hook");
    output_path_only(&sb);
    read_post_hook(
        &sb,
        "cat > /dev/null\necho 'redaction service down' >&2\nexit 1",
    );
    let file = sb.write("demo.ipynb", fixtures::notebook());
    let server = ModelServer::start(Script::new(vec![read(&file), Step::Text("read".into())]));
    let run = claude.run(&sb, &server, "read demo.ipynb");
    let result = only_result(&server);
    assert!(
        server.received(SECRET).is_empty(),
        "{result:?}\n{}",
        run.evidence()
    );
    assert!(
        result.contains(WITHHELD) && result.contains("redaction service down"),
        "{result:?}\n{}",
        run.evidence()
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn grep_content_is_redacted_before_the_model_sees_it() {
    let (claude, sb) = setup("claude-grep");
    sb.write("secret.env", format!("name=demo\n{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "Grep",
            json!({"pattern": "API_KEY", "output_mode": "content", "path": sb.project}),
        ),
        Step::Text("found".into()),
    ]));
    // Claude Code 2.1.328 offers Grep only when it is named in --tools or --allowedTools.
    let run = claude.run_with_args(&sb, &server, "find the key", &["--allowedTools", "Grep"]);
    let result = only_result(&server);
    assert!(
        server.received(SECRET).is_empty(),
        "{result:?}\n{}",
        run.evidence()
    );
    assert!(result.contains(REDACTED), "{result:?}\n{}", run.evidence());
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// Reads `demo.pdf` with `pages` (Claude Code renders the pages with `pdftoppm`, here
/// [`fixtures::pdftoppm_stand_in`]); returns the run and the server.
fn read_pdf_pages(name: &str, hook: Option<&str>) -> (ClaudeRun, ModelServer) {
    let (claude, sb) = setup(name);
    if let Some(body) = hook {
        read_post_hook(&sb, body);
    }
    let bin = sb.root().join("bin");
    fixtures::pdftoppm_stand_in(&bin);
    let pdf = sb.write("demo.pdf", fixtures::pdf());
    let server = ModelServer::start(Script::new(vec![
        Step::tool("Read", json!({"file_path": pdf, "pages": "1"})),
        Step::Text("read".into()),
    ]));
    let run = claude.run_with_path(&sb, &server, "read page 1", &[], Some(&bin));
    (run, server)
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn pdf_pages_reach_the_model_as_the_images_they_are() {
    let (run, server) = read_pdf_pages("claude-pdf-pages", None);
    let result = only_result(&server);
    assert!(
        result.contains("PDF pages extracted: 1 page(s)"),
        "{result:?}\n{}",
        run.evidence()
    );
    assert!(
        server.received_verbatim(fixtures::JPEG),
        "{}",
        run.evidence()
    );
    assert!(server.received(SECRET).is_empty());
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_caption_next_to_pdf_pages_withholds_them_with_a_notice() {
    let (run, server) = read_pdf_pages("claude-pdf-pages-caption", Some(CAPTION_HOOK));
    let result = only_result(&server);
    assert!(
        result.contains("Claude Code's Read parts output cannot carry the change"),
        "{result:?}\n{}",
        run.evidence()
    );
    assert!(
        !server.received_verbatim(fixtures::JPEG),
        "the page reached the model"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// How the installed hook entries are broken for a failure scenario.
enum Broken {
    /// The binary is gone.
    Missing,
    /// It exits 1 at once.
    Crashes,
    /// It sleeps past its (2 s) timeout.
    Hangs,
}

/// What a run with broken hooks came to: whether `rm -rf victim` was stopped as the rule says.
struct BrokenRun {
    /// The victim is still there.
    survived: bool,
    /// The run ended by itself (not killed at its time limit) and the model was asked again
    /// after the call, with exactly one tool result, which says the call did not run: the block
    /// reached the model, rather than the run stopping some other way.
    blocked_and_went_on: bool,
    /// The tool results, the PreToolUse debug lines and the exit, for assertion messages.
    evidence: String,
}

/// Breaks the installed `PreToolUse` handler as `how` says, keeping its other fields (and
/// adding `extra`), then runs `rm -rf victim`. Only that one: a broken `UserPromptSubmit`
/// handler blocks the prompt itself, and the run would end before the model ever asks for
/// the command, so the victim would survive without the tool gate being tried.
fn rm_rf_with_broken_hooks(name: &str, how: &Broken, extra: &Value) -> BrokenRun {
    let (claude, sb) = setup(name);
    fixtures::edit_handlers(&Claude::installed_hooks(&sb), |event, handler| {
        if event != "PreToolUse" {
            return;
        }
        match how {
            Broken::Missing => handler["command"] = json!("/nonexistent/hooks"),
            Broken::Crashes => {
                handler["command"] = json!("/bin/false");
                handler["args"] = json!([]);
            }
            Broken::Hangs => {
                handler["command"] = json!("/bin/sleep");
                handler["args"] = json!(["30"]);
                handler["timeout"] = json!(2);
            }
        }
        if let (Some(h), Some(extra)) = (handler.as_object_mut(), extra.as_object()) {
            h.extend(extra.clone());
        }
    });
    sb.write("victim/keep.txt", "precious\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = claude.run(&sb, &server, "delete the victim directory");
    let results = server.tool_results();
    let blocked_and_went_on = run.finished.status.is_some()
        && server.model_turns().len() >= 2
        && results.len() == 1
        && results[0].1.to_lowercase().contains("hook");
    BrokenRun {
        survived: sb.project.join("victim/keep.txt").exists(),
        blocked_and_went_on,
        evidence: format!(
            "tool results: {results:?}\nmodel turns: {}\nPreToolUse lines: {:#?}\n{}",
            server.model_turns().len(),
            run.debug_lines("PreToolUse"),
            run.finished.summary()
        ),
    }
}

/// Install writes `"onFailure": "block"` on every gating entry for Claude Code 2.1.328; without
/// it a broken hook lets `rm -rf` run.
const ON_FAILURE: &str = "a broken hook let rm -rf run (is onFailure: block installed?)";

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn installed_gating_entries_have_on_failure_block() {
    let (_claude, sb) = setup("claude-on-failure");
    let installed = fixtures::read_settings(&Claude::installed_hooks(&sb));
    for (event, groups) in installed["hooks"].as_object().expect("hooks") {
        let handler = &groups[0]["hooks"][0];
        let gating = [
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "PreCompact",
        ]
        .contains(&event.as_str());
        let expected = if gating { json!("block") } else { Value::Null };
        assert_eq!(handler["onFailure"], expected, "{event}: {handler}");
    }
}

/// [`rm_rf_with_broken_hooks`] as installed: the victim survives, because the call was blocked
/// and the model told so (not because the run stopped or was killed).
fn installed_entries_never_let_rm_rf_run(name: &str, how: &Broken) {
    let run = rm_rf_with_broken_hooks(name, how, &json!({}));
    assert!(run.survived, "{ON_FAILURE}:\n{}", run.evidence);
    assert!(
        run.blocked_and_went_on,
        "the victim survived, but not by a block the model was told of:\n{}",
        run.evidence
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_never_lets_rm_rf_run() {
    installed_entries_never_let_rm_rf_run("claude-missing", &Broken::Missing);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_crashing_hook_never_lets_rm_rf_run() {
    installed_entries_never_let_rm_rf_run("claude-crash", &Broken::Crashes);
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_hanging_hook_never_lets_rm_rf_run() {
    installed_entries_never_let_rm_rf_run("claude-hang", &Broken::Hangs);
}

/// What the fix relies on: Claude Code 2.1.328 blocks the call when a handler with
/// `"onFailure": "block"` is missing, crashes or hangs.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn on_failure_block_stops_rm_rf_when_the_hook_is_missing_crashes_or_hangs() {
    for (name, how) in [
        ("claude-missing-block", Broken::Missing),
        ("claude-crash-block", Broken::Crashes),
        ("claude-hang-block", Broken::Hangs),
    ] {
        let run = rm_rf_with_broken_hooks(name, &how, &json!({"onFailure": "block"}));
        assert!(run.survived, "{name}: rm -rf ran:\n{}", run.evidence);
        assert!(
            run.blocked_and_went_on,
            "{name}: the victim survived, but not by a block the model was told of:\n{}",
            run.evidence
        );
    }
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn handoff_prompt_never_reaches_the_model_and_says_why() {
    let run = bundle::a_prompt_command_answers_without_a_model_call::<Claude>("claude-handoff");
    crate::report(&format!("claude /handoff shown: {:?}", informational(&run)));
    let expected = "UserPromptSubmit operation blocked by hook:\n/handoff: starting a new session \
        is not available through the claude hook adapter (the agent owns its sessions); nothing \
        was done.";
    assert!(
        informational(&run).iter().any(|t| t == expected),
        "suppressOriginalPrompt keeps the prompt from being echoed:\n{}",
        run.evidence()
    );
}

/// What a fix for messages to the user can use: a `systemMessage` is shown in `stream-json` as a
/// `system` / `informational` event, and never sent to the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn system_message_is_shown_to_the_user_and_not_to_the_model() {
    let (claude, sb) = setup("claude-system-message");
    let hook = fixtures::script(
        &sb.root().join("say.sh"),
        "cat > /dev/null\necho '{\"systemMessage\": \"e2e-visible-to-the-user\"}'",
    );
    fixtures::add_handler(
        &Claude::installed_hooks(&sb),
        "UserPromptSubmit",
        json!({"type": "command", "command": hook}),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = claude.run(&sb, &server, "hello");
    let shown: Vec<&Value> = run
        .events
        .iter()
        .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
        .collect();
    assert!(
        shown
            .iter()
            .any(|e| e["content"] == "UserPromptSubmit says: e2e-visible-to-the-user"),
        "{}",
        run.evidence()
    );
    assert!(server.received("e2e-visible-to-the-user").is_empty());
}

/// The compaction guard's notify goes with the cancelled compaction's reason, which Claude Code
/// shows as the compaction's error (a PreCompact `systemMessage` is shown nowhere).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_notify_from_a_hook_is_shown_to_the_user() {
    let (claude, sb) = setup("claude-notify");
    sb.write(".hooks/hold-compaction", "");
    let server = ModelServer::start(Script::new(vec![Step::Text("hello".into())]));
    claude.run(&sb, &server, "say hello");
    let compact = claude.run_with_args(&sb, &server, "/compact", &["--continue"]);
    assert!(
        compact.finished.stdout.contains("compaction held"),
        "{}",
        compact.evidence()
    );
}

// What no hook sees in Claude Code 2.1.328 (docs/agents.md's table): each of these pins a path on
// which the secret reaches the model without any hook being asked; when a new version closes
// one, its test fails and docs/agents.md's row has to change.

/// Claude Code with the hooks installed and a recorder on the tool and prompt events.
fn setup_recorded(name: &str) -> (Claude, Sandbox, Recorder) {
    let (claude, sb) = setup(name);
    let recorder = Recorder::new(&sb.root().join("recorder"));
    for event in ["PreToolUse", "PostToolUse", "UserPromptSubmit"] {
        fixtures::add_handler(
            &Claude::installed_hooks(&sb),
            event,
            json!({"type": "command", "command": recorder.command(event)}),
        );
    }
    (claude, sb, recorder)
}

/// `CLAUDE.md` is read by Claude Code itself into the first request; no hook is called.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn memory_file_content_reaches_the_model_with_no_hook_call() {
    let (claude, sb, recorder) = setup_recorded("claude-memory");
    sb.write("CLAUDE.md", format!("# notes\n{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![Step::Text("ok".into())]));
    let run = claude.run(&sb, &server, "hello");
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    assert_eq!(recorder.events(), ["UserPromptSubmit"], "no tool ran");
}

/// `@file` in a prompt attaches the file's content without a tool call: only `UserPromptSubmit`
/// runs, and it sees the file's name, not its content.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_at_mention_attaches_a_file_that_no_tool_hook_sees() {
    let (claude, sb, recorder) = setup_recorded("claude-at-mention");
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![Step::Text("ok".into())]));
    let run = claude.run(&sb, &server, "look at @secret.env");
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    assert_eq!(recorder.events(), ["UserPromptSubmit"]);
    assert_eq!(
        recorder.inputs("UserPromptSubmit")[0]["prompt"],
        "look at @secret.env"
    );
}

/// What the redactor cannot answer: Claude Code reads the files again from disk for the
/// re-attachment, so a file that held no secret when Read opened it, and holds one by the
/// compaction, reaches the model in full, with no hook called for it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn after_a_compaction_a_secret_written_into_a_file_read_before_reaches_the_model() {
    let (claude, sb, recorder) = setup_recorded("claude-reread-changed");
    let file = sb.write("notes.txt", "e2e-clean-notes\n");
    let server = ModelServer::start(Script::new(vec![
        read(&file),
        Step::Text("read".into()),
        Step::Text("after".into()),
    ]));
    let first = claude.run(&sb, &server, "read notes.txt");
    assert_eq!(
        server.received(SECRET),
        Vec::<String>::new(),
        "{}",
        first.evidence()
    );
    sb.write("notes.txt", format!("e2e-clean-notes\n{}\n", secret_line()));
    claude.run_with_args(&sb, &server, "/compact", &["--continue"]);
    let after = claude.run_with_args(&sb, &server, "go on", &["--continue"]);
    let received = server.received(SECRET);
    assert!(
        received.len() == 1 && reattached(&server).contains(SECRET),
        "the secret reached the model in {received:?}, not (only) in the re-attached file:\n{}",
        after.evidence()
    );
    let tool_hooks: Vec<String> = recorder
        .events()
        .into_iter()
        .filter(|e| e != "UserPromptSubmit")
        .collect();
    assert_eq!(
        tool_hooks,
        ["PreToolUse", "PostToolUse"],
        "only the one Read"
    );
}

/// What the withholding of an output of unknown shape relies on, and what it leaves: a
/// `{"continue": false}` from `PostToolUse` stops Claude Code before the model is sent the
/// tool's output, but the output stays in the session, and a `--continue` sends it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn continue_false_on_post_tool_use_stops_claude_before_the_model_sees_the_output() {
    let (claude, sb) = setup("claude-continue-false");
    let hook = fixtures::script(
        &sb.root().join("stop.sh"),
        "cat > /dev/null\necho '{\"continue\": false, \"stopReason\": \"e2e-withheld-notice\"}'",
    );
    fixtures::add_handler(
        &Claude::installed_hooks(&sb),
        "PostToolUse",
        json!({"type": "command", "command": hook}),
    );
    // A file with no secret: the example redactor blocks an Edit of one that holds a secret.
    let file = sb.write("settings.env", "LOG_LEVEL=info\n");
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "Edit",
            json!({"file_path": file, "old_string": "LOG_LEVEL", "new_string": "MY_LOG_LEVEL"}),
        ),
        Step::Text("unexpected".into()),
    ]));
    let run = claude.run(&sb, &server, "edit it");
    assert_eq!(server.model_turns().len(), 1, "{}", run.evidence());
    assert!(
        server.tool_results().is_empty(),
        "{:?}",
        server.tool_results()
    );
    let again = claude.run_with_args(&sb, &server, "go on", &["--continue"]);
    let results = server.tool_results();
    crate::report(&format!(
        "claude PostToolUse continue:false, then --continue: the model got {results:?}"
    ));
    assert!(
        results
            .iter()
            .any(|(_, t)| t.contains("has been updated successfully")),
        "{results:?}\n{}",
        again.evidence()
    );
}

/// Claude Code's `Monitor` hands the model each line its command prints as a notification,
/// with no hook in between (measured: its `PostToolUse` carries only the task id, and without
/// the block `API_KEY=...` reached the model in a `<task-notification>`): the example redactor
/// blocks it, and the model gets the reason.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn monitor_output_never_reaches_the_model_unredacted() {
    let (claude, sb) = setup("claude-monitor");
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "ToolSearch",
            json!({"query": "select:Monitor", "max_results": 5}),
        ),
        Step::tool(
            "Monitor",
            json!({
                "command": "cat secret.env", "description": "watch",
                "timeout_ms": 20000, "persistent": false,
            }),
        ),
        Step::Shell("sleep 3; echo waited".into()),
        Step::Text("done".into()),
    ]));
    let run = claude.run(&sb, &server, "watch secret.env");
    let evidence = format!(
        "tool results: {:?}\n{}",
        server.tool_results(),
        run.evidence()
    );
    assert_eq!(server.received(SECRET), Vec::<String>::new(), "{evidence}");
    assert!(
        server
            .tool_results()
            .iter()
            .any(|(_, t)| t.contains(hookwright_examples::redact::UNHOOKED_OUTPUT_REASON)),
        "the model did not get the reason: {evidence}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// A `Bash` command printing an image data URL: Claude Code hands the hook `isImage: true`
/// with the URL as `stdout`, and the model gets it as an image, which the redactor keeps.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_image_printed_by_bash_reaches_the_model_as_the_image_it_is() {
    use base64::Engine as _;
    let (claude, sb) = setup("claude-bash-image");
    let png = fixtures::png();
    sb.write("demo.png", &png);
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::shell_then(
        "printf 'data:image/png;base64,%s' \"$(base64 -w0 demo.png)\"; cat secret.env >&2",
        "seen",
    ));
    let run = claude.run(&sb, &server, "show demo.png");
    let evidence = format!(
        "tool results: {:?}\n{}",
        server.tool_results(),
        run.evidence()
    );
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    assert!(server.received_verbatim(&data), "no image: {evidence}");
    assert_eq!(server.received(SECRET), Vec::<String>::new(), "{evidence}");
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// A `Bash` command sent to the background: its `PostToolUse` carries an empty `stdout` and
/// the task id, the completion notice names only the output file, and the model reads that
/// file with a tool the redactor covers (here `cat`), so the secret never reaches it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_background_command_s_output_never_reaches_the_model_unredacted() {
    let (claude, sb) = setup("claude-background");
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "Bash",
            json!({
                "command": "cat secret.env", "description": "bg", "run_in_background": true,
            }),
        ),
        Step::Shell(
            "sleep 2; cat $(grep -l API_KEY ../claude-0/*/*/tasks/*.output 2>/dev/null)".into(),
        ),
        Step::Text("done".into()),
    ]));
    let run = claude.run(&sb, &server, "show secret.env in the background");
    let evidence = format!(
        "tool results: {:?}\n{}",
        server.tool_results(),
        run.evidence()
    );
    assert_eq!(server.received(SECRET), Vec::<String>::new(), "{evidence}");
    assert!(
        server
            .tool_results()
            .iter()
            .any(|(_, t)| t.contains(REDACTED)),
        "the model never read the output: {evidence}"
    );
    assert!(run.hook_failures().is_empty(), "{:?}", run.hook_failures());
}

/// What a hook cannot change in Claude Code 2.1.328: a `Bash` command that exits non-zero
/// fires only `PostToolUseFailure`, whose `error` is `Exit code N` and the command's output,
/// and whose answer takes only `additionalContext` (measured besides: `continue: false` and
/// exit 2 there leave what the model gets unchanged), so the secret reaches the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_failing_command_s_output_reaches_the_model_with_no_rewrite() {
    let (claude, sb) = setup("claude-bash-fails");
    let log = sb.root().join("post-tool-use-failure.jsonl");
    let recorder = fixtures::recorder(sb.root(), &log);
    fixtures::add_handler(
        &Claude::installed_hooks(&sb),
        "PostToolUseFailure",
        json!({"type": "command", "command": recorder}),
    );
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::shell_then("cat secret.env; exit 1", "failed"));
    let run = claude.run(&sb, &server, "show secret.env, then fail");
    let recorded = fixtures::recorded(&log);
    let evidence = format!(
        "tool results: {:?}\nPostToolUseFailure saw: {recorded:?}\n{}",
        server.tool_results(),
        run.evidence()
    );
    crate::report(&format!(
        "claude failing Bash: the model got {:?}",
        server.tool_results()
    ));
    assert!(
        recorded
            .iter()
            .any(|i| i["error"].as_str().is_some_and(|e| e.contains(SECRET))),
        "{evidence}"
    );
    assert!(
        only_result(&server).contains(SECRET),
        "the output is redacted now: {evidence}"
    );
}
