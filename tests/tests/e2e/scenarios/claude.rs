//! Claude Code 2.1.328, `hooks install claude --project` in place.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::agent::claude::{Claude, ClaudeRun};
use crate::fixtures::{self, REDACTED, Recorder, SECRET, secret_line};
use crate::model::{ModelServer, Script, Step};

/// Claude Code with the hooks installed in a fresh sandbox, or `None` (skipped).
fn setup(name: &str) -> Option<(Claude, Sandbox)> {
    let claude = Claude::for_suite()?;
    let sandbox = Sandbox::new(name);
    let installed = claude.install_hooks(&sandbox);
    assert!(
        installed.stdout.contains("Claude Code 2.1.328 ("),
        "install did not ask the Claude Code on PATH: {}",
        installed.stdout
    );
    Some((claude, sandbox))
}

fn settings(sandbox: &Sandbox) -> PathBuf {
    sandbox.project.join(".claude/settings.json")
}

fn read(path: &std::path::Path) -> Step {
    Step::Tool {
        name: "Read".to_owned(),
        input: json!({ "file_path": path }),
    }
}

/// Phrases of Claude Code's complaints about a hook's output.
const COMPLAINTS: [&str; 6] = [
    "hook error",
    "validation failed",
    "Failed with non-blocking",
    "non-blocking status code",
    "does not match",
    "Hook JSON output",
];

/// Debug-log lines in which Claude Code complains about a hook: an error or warning about a
/// hook, or one of [`COMPLAINTS`].
fn complaints(run: &ClaudeRun) -> Vec<&str> {
    let bin = crate::hooks_bin::path().display().to_string();
    run.debug_log
        .lines()
        .filter(|l| {
            let about_hooks = l.replace(&bin, "<hooks>").to_lowercase().contains("hook");
            let bad = l.contains("[ERROR]") || l.contains("[WARN]");
            about_hooks && (bad || COMPLAINTS.iter().any(|c| l.contains(c)))
        })
        .collect()
}

#[test]
fn rm_rf_is_blocked_and_the_model_gets_the_reason() {
    let Some((claude, sb)) = setup("claude-gate") else {
        return;
    };
    sb.write("victim/keep.txt", "precious\n");
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let run = claude.run(&sb, &server, "delete the victim directory", &[]);
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran:\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert!(
        results
            .iter()
            .any(|(_, text)| text.contains("rm -rf blocked (no UI)")),
        "the model did not receive the reason: {results:?}\n{}",
        run.evidence()
    );
    assert!(run.finished.success(), "{}", run.evidence());
}

#[test]
fn ls_runs_quietly() {
    let Some((claude, sb)) = setup("claude-ls") else {
        return;
    };
    sb.write("listed-file.txt", "hello\n");
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let run = claude.run(&sb, &server, "list the files", &[]);
    let results = server.tool_results();
    assert_eq!(results.len(), 1, "{results:?}\n{}", run.evidence());
    assert!(
        results[0].1.contains("listed-file.txt") && !results[0].1.to_lowercase().contains("hook"),
        "the model received {:?}\n{}",
        results[0].1,
        run.evidence()
    );
    assert_eq!(run.result(), Some("listed"), "{}", run.evidence());
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
    assert!(complaints(&run).is_empty(), "{:?}", complaints(&run));
    assert_eq!(server.received("tools run:"), Vec::<String>::new());
}

/// What the examples say to the user after a tool (the status line of `status_line`, the
/// `debug-only` note of `debug_notes` with its renderer) is shown by Claude Code as a system
/// message, and never reaches the model.
#[test]
fn status_line_and_displayed_messages_reach_the_user_and_never_the_model() {
    let Some((claude, sb)) = setup("claude-shown") else {
        return;
    };
    let server = ModelServer::start(Script::shell_then("echo hi", "done"));
    let run = claude.run(&sb, &server, "say hi", &[]);
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
fn session_start_runs_only_for_a_new_session() {
    let Some((claude, sb)) = setup("claude-sources") else {
        return;
    };
    let tee = fixtures::tee(sb.root());
    fixtures::edit_handlers(&settings(&sb), |event, handler| {
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
        let run = claude.run(&sb, &server, prompt, args);
        assert!(run.finished.success(), "{}", run.evidence());
    }
    let calls: Vec<(String, String)> = fixtures::teed(sb.root())
        .into_iter()
        .map(|(input, output, code)| {
            assert_eq!(code, 0, "{input} -> {output}");
            (input["source"].as_str().unwrap_or("").to_owned(), output)
        })
        .collect();
    crate::report(&format!("claude SessionStart answers: {calls:?}"));
    let sources: Vec<&str> = calls.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        sources,
        ["startup", "resume", "compact", "resume"],
        "{calls:?}"
    );
    for (source, output) in &calls {
        let started = output.contains("status: tools run: 0");
        assert_eq!(started, source == "startup", "{source}: {output:?}");
    }
}

/// The `system` / `informational` events of a run: what Claude Code showed the user.
fn informational(run: &ClaudeRun) -> Vec<String> {
    run.events
        .iter()
        .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
        .filter_map(|e| e["content"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn read_of_a_text_file_is_redacted_before_the_model_sees_it() {
    let Some((claude, sb)) = setup("claude-read-text") else {
        return;
    };
    let file = sb.write("config.txt", format!("name=demo\n{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![read(&file), Step::Text("read".into())]));
    let run = claude.run(&sb, &server, "read config.txt", &[]);
    let results = server.tool_results();
    assert!(
        results.iter().any(|(_, t)| t.contains(REDACTED)),
        "no redacted text reached the model: {results:?}\n{}",
        run.evidence()
    );
    assert_eq!(
        server.received(SECRET),
        Vec::<String>::new(),
        "{}",
        run.evidence()
    );
    assert!(complaints(&run).is_empty(), "{:?}", complaints(&run));
}

/// Claude Code never sends malformed input by itself, so each installed gating entry is run the
/// way Claude runs it (exec form, the input on stdin) with broken input: it must exit 2 (a block
/// in Claude Code) with a reason on stderr.
#[test]
fn installed_gating_entries_fail_closed_on_malformed_input() {
    let Some((_claude, sb)) = setup("claude-malformed") else {
        return;
    };
    let installed = fixtures::read_settings(&settings(&sb));
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
fn every_installed_event_runs_cleanly() {
    let Some((claude, sb)) = setup("claude-events") else {
        return;
    };
    sb.write("a.txt", "a\n");
    // PreToolUse and PostToolUse (ls), PostToolUseFailure (a failing command).
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("ls".into()),
        Step::Shell("exit 3".into()),
        Step::Text("done".into()),
    ]));
    let first = claude.run(&sb, &server, "look around", &[]);
    // PreCompact, in the same session.
    let compact = claude.run(&sb, &server, "/compact", &["--continue"]);
    let mut fired = Vec::new();
    for run in [&first, &compact] {
        assert!(run.finished.success(), "{}", run.evidence());
        assert!(complaints(run).is_empty(), "{:?}", complaints(run));
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
fn pre_compact_holds_a_compaction_while_the_marker_exists() {
    let Some((claude, sb)) = setup("claude-precompact") else {
        return;
    };
    sb.write(".hooks/hold-compaction", "");
    let server = ModelServer::start(Script::new(vec![Step::Text("hello".into())]));
    let first = claude.run(&sb, &server, "say hello", &[]);
    assert!(first.finished.success(), "{}", first.evidence());
    let compact = claude.run(&sb, &server, "/compact", &["--continue"]);
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
fn hook_times_from_the_debug_log() {
    let Some((claude, sb)) = setup("claude-times") else {
        return;
    };
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
    ] {
        fixtures::add_handler(
            &settings(&sb),
            event,
            json!({"type": "command", "command": "/bin/true"}),
        );
    }
    let mut steps: Vec<Step> = (0..10).map(|i| Step::Shell(format!("echo {i}"))).collect();
    steps.push(Step::Text("done".into()));
    let server = ModelServer::start(Script::new(steps));
    let run = claude.run(&sb, &server, "count to ten", &[]);
    assert!(run.finished.success(), "{}", run.evidence());
    let times = crate::timing::hook_times(&run.debug_log);
    let hooks_bin = crate::hooks_bin::path().display().to_string();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
    ] {
        let ours = times.median(event, |c| c.starts_with(&hooks_bin));
        let truth = times.median(event, |c| c == "/bin/true");
        crate::report(&format!(
            "claude hook time {event}: hooks {ours}, /bin/true {truth}"
        ));
        assert!(
            times.count(event, |c| c.starts_with(&hooks_bin)) > 0,
            "no {event} time in the debug log"
        );
    }
    assert_eq!(times.count("PreToolUse", |c| c.starts_with(&hooks_bin)), 10);
    assert!(times.failed().is_empty(), "{:?}", times.failed());
}

/// Reads `file` (written with `contents`) with Claude's Read tool, with a recorder on
/// PostToolUse; returns the run, the server, the sandbox and what PostToolUse received.
fn read_with_recorder(
    name: &str,
    file: &str,
    contents: &[u8],
) -> Option<(ClaudeRun, ModelServer, Sandbox, Vec<Value>)> {
    let (claude, sb) = setup(name)?;
    let log = sb.root().join("post-tool-use.jsonl");
    let recorder = fixtures::recorder(sb.root(), &log);
    fixtures::add_handler(
        &settings(&sb),
        "PostToolUse",
        json!({"type": "command", "command": recorder}),
    );
    let path = sb.write(file, contents);
    let server = ModelServer::start(Script::new(vec![read(&path), Step::Text("read".into())]));
    let run = claude.run(&sb, &server, &format!("read {file}"), &[]);
    let inputs = fixtures::recorded(&log);
    Some((run, server, sb, inputs))
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

#[test]
#[ignore = "issue 14: a notebook Read gets the {decision: block} fallback, which Claude Code \
            ignores: the original cells, secret included, reach the model"]
fn read_of_a_notebook_is_redacted_before_the_model_sees_it() {
    let Some((run, server, _sb, inputs)) = read_with_recorder(
        "claude-read-notebook",
        "demo.ipynb",
        fixtures::notebook().as_bytes(),
    ) else {
        return;
    };
    assert!(
        server.received(SECRET).is_empty(),
        "{}",
        redaction_evidence(&run, &server, &inputs)
    );
}

#[test]
#[ignore = "issue 14: a PDF Read reaches the model as a base64 document the redactor cannot \
            see into; the adapter answers nothing and the secret reaches the model"]
fn read_of_a_pdf_never_shows_the_model_a_secret() {
    let Some((run, server, _sb, inputs)) =
        read_with_recorder("claude-read-pdf", "demo.pdf", &fixtures::pdf())
    else {
        return;
    };
    assert!(
        server.received(SECRET).is_empty(),
        "{}",
        redaction_evidence(&run, &server, &inputs)
    );
}

#[test]
fn read_of_an_image_reaches_the_model_unchanged() {
    use base64::Engine as _;
    let png = fixtures::png();
    let Some((run, server, _sb, inputs)) =
        read_with_recorder("claude-read-image", "demo.png", &png)
    else {
        return;
    };
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
    assert!(complaints(&run).is_empty(), "{:?}", complaints(&run));
}

#[test]
#[ignore = "issue 14: the example redactor covers `read` only; `cat` output reaches the model \
            with the key"]
fn cat_of_a_secret_file_is_redacted_before_the_model_sees_it() {
    let Some((claude, sb)) = setup("claude-cat") else {
        return;
    };
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::shell_then("cat secret.env", "read"));
    let run = claude.run(&sb, &server, "show secret.env", &[]);
    assert!(
        server.received(SECRET).is_empty(),
        "tool results: {:?}\nPostToolUse lines: {:#?}",
        server.tool_results(),
        run.debug_lines("PostToolUse")
    );
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

/// Breaks every installed handler as `how` says, keeping its other fields (and adding
/// `extra`), then runs `rm -rf victim`; returns whether the victim survived, with evidence.
fn rm_rf_with_broken_hooks(name: &str, how: &Broken, extra: &Value) -> Option<(bool, String)> {
    let (claude, sb) = setup(name)?;
    fixtures::edit_handlers(&settings(&sb), |_, handler| {
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
    let run = claude.run(&sb, &server, "delete the victim directory", &[]);
    let survived = sb.project.join("victim/keep.txt").exists();
    let evidence = format!(
        "tool results: {:?}\nPreToolUse lines: {:#?}\nexit {:?}",
        server.tool_results(),
        run.debug_lines("PreToolUse"),
        run.finished.status
    );
    Some((survived, evidence))
}

/// Install writes `"onFailure": "block"` on every gating entry for Claude Code 2.1.328; without
/// it a broken hook lets `rm -rf` run.
const ON_FAILURE: &str = "a broken hook let rm -rf run (is onFailure: block installed?)";

#[test]
fn installed_gating_entries_have_on_failure_block() {
    let Some((_claude, sb)) = setup("claude-on-failure") else {
        return;
    };
    let installed = fixtures::read_settings(&settings(&sb));
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

#[test]
fn a_missing_hook_binary_never_lets_rm_rf_run() {
    let Some((survived, evidence)) =
        rm_rf_with_broken_hooks("claude-missing", &Broken::Missing, &json!({}))
    else {
        return;
    };
    assert!(survived, "{ON_FAILURE}:\n{evidence}");
}

#[test]
fn a_crashing_hook_never_lets_rm_rf_run() {
    let Some((survived, evidence)) =
        rm_rf_with_broken_hooks("claude-crash", &Broken::Crashes, &json!({}))
    else {
        return;
    };
    assert!(survived, "{ON_FAILURE}:\n{evidence}");
}

#[test]
fn a_hanging_hook_never_lets_rm_rf_run() {
    let Some((survived, evidence)) =
        rm_rf_with_broken_hooks("claude-hang", &Broken::Hangs, &json!({}))
    else {
        return;
    };
    assert!(survived, "{ON_FAILURE}:\n{evidence}");
}

/// What the fix relies on: Claude Code 2.1.328 blocks the call when a handler with
/// `"onFailure": "block"` is missing, crashes or hangs.
#[test]
fn on_failure_block_stops_rm_rf_when_the_hook_is_missing_crashes_or_hangs() {
    for (name, how) in [
        ("claude-missing-block", Broken::Missing),
        ("claude-crash-block", Broken::Crashes),
        ("claude-hang-block", Broken::Hangs),
    ] {
        let Some((survived, evidence)) =
            rm_rf_with_broken_hooks(name, &how, &json!({"onFailure": "block"}))
        else {
            return;
        };
        assert!(survived, "{name}: rm -rf ran:\n{evidence}");
    }
}

#[test]
fn handoff_prompt_never_reaches_the_model_and_says_why() {
    let Some((claude, sb)) = setup("claude-handoff") else {
        return;
    };
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let run = claude.run(&sb, &server, "/handoff", &[]);
    crate::report(&format!("claude /handoff shown: {:?}", informational(&run)));
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model:\n{}",
        run.evidence()
    );
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
fn system_message_is_shown_to_the_user_and_not_to_the_model() {
    let Some((claude, sb)) = setup("claude-system-message") else {
        return;
    };
    let hook = fixtures::script(
        &sb.root().join("say.sh"),
        "cat > /dev/null\necho '{\"systemMessage\": \"e2e-visible-to-the-user\"}'",
    );
    fixtures::add_handler(
        &settings(&sb),
        "UserPromptSubmit",
        json!({"type": "command", "command": hook}),
    );
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let run = claude.run(&sb, &server, "hello", &[]);
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
fn a_notify_from_a_hook_is_shown_to_the_user() {
    let Some((claude, sb)) = setup("claude-notify") else {
        return;
    };
    sb.write(".hooks/hold-compaction", "");
    let server = ModelServer::start(Script::new(vec![Step::Text("hello".into())]));
    claude.run(&sb, &server, "say hello", &[]);
    let compact = claude.run(&sb, &server, "/compact", &["--continue"]);
    assert!(
        compact.finished.stdout.contains("compaction held"),
        "{}",
        compact.evidence()
    );
}

// What no hook sees in Claude Code 2.1.328 (the README's table): each of these pins a path on
// which the secret reaches the model without any hook being asked; when a new version closes
// one, its test fails and the README's row has to change.

/// Claude Code with the hooks installed and a recorder on the tool and prompt events.
fn setup_recorded(name: &str) -> Option<(Claude, Sandbox, Recorder)> {
    let (claude, sb) = setup(name)?;
    let recorder = Recorder::new(&sb.root().join("recorder"));
    for event in ["PreToolUse", "PostToolUse", "UserPromptSubmit"] {
        fixtures::add_handler(
            &settings(&sb),
            event,
            json!({"type": "command", "command": recorder.command(event)}),
        );
    }
    Some((claude, sb, recorder))
}

/// `CLAUDE.md` is read by Claude Code itself into the first request; no hook is called.
#[test]
fn memory_file_content_reaches_the_model_with_no_hook_call() {
    let Some((claude, sb, recorder)) = setup_recorded("claude-memory") else {
        return;
    };
    sb.write("CLAUDE.md", format!("# notes\n{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![Step::Text("ok".into())]));
    let run = claude.run(&sb, &server, "hello", &[]);
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    assert_eq!(recorder.events(), ["UserPromptSubmit"], "no tool ran");
}

/// `@file` in a prompt attaches the file's content without a tool call: only `UserPromptSubmit`
/// runs, and it sees the file's name, not its content.
#[test]
fn an_at_mention_attaches_a_file_that_no_tool_hook_sees() {
    let Some((claude, sb, recorder)) = setup_recorded("claude-at-mention") else {
        return;
    };
    sb.write("secret.env", format!("{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![Step::Text("ok".into())]));
    let run = claude.run(&sb, &server, "look at @secret.env", &[]);
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    assert_eq!(recorder.events(), ["UserPromptSubmit"]);
    assert_eq!(
        recorder.inputs("UserPromptSubmit")[0]["prompt"],
        "look at @secret.env"
    );
}

/// After a compaction Claude Code attaches the files read recently again, read from disk by
/// itself ("Result of calling the Read tool"): the Read that PostToolUse redacted reaches the
/// model in full, and no hook is called for it.
#[test]
fn after_a_compaction_recent_reads_reach_the_model_again_with_no_hook_call() {
    let Some((claude, sb, recorder)) = setup_recorded("claude-reread") else {
        return;
    };
    let file = sb.write("config.txt", format!("name=demo\n{}\n", secret_line()));
    let server = ModelServer::start(Script::new(vec![
        read(&file),
        Step::Text("read".into()),
        Step::Text("after".into()),
    ]));
    let first = claude.run(&sb, &server, "read config.txt", &[]);
    assert_eq!(
        server.received(SECRET),
        Vec::<String>::new(),
        "redacted at first"
    );
    claude.run(&sb, &server, "/compact", &["--continue"]);
    let after = claude.run(&sb, &server, "go on", &["--continue"]);
    assert!(
        !server.received(SECRET).is_empty(),
        "{}\n{}",
        first.evidence(),
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
