//! Codex 0.169.0, `hooks install codex` (user scope, the sandbox's `CODEX_HOME`) in place.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::bundle;
use crate::agent::codex::{Codex, CodexRun, Trust, snake_case, trust_hash};
use crate::agent::{self, Agent, AgentRun, Sandbox};
use crate::fixtures::{self, REDACTED, SECRET, secret_line};
use crate::model::responses::SESSION_ID;
use crate::model::{ModelServer, Script, Step};
use crate::process;

/// Codex configured for `server` (with `config` TOML added), the hooks installed.
fn setup(name: &str, server: &ModelServer, config: &str) -> (Codex, Sandbox) {
    let codex = Codex::for_suite();
    let sandbox = Sandbox::new(name);
    Codex::configure_with(&sandbox, server, config);
    codex.install_hooks(&sandbox);
    (codex, sandbox)
}

/// Adds a recorder of hook inputs on `events`; returns its log.
fn record(sandbox: &Sandbox, events: &[&str]) -> PathBuf {
    let log = sandbox.root().join("hook-inputs.jsonl");
    let recorder = fixtures::recorder(sandbox.root(), &log);
    for event in events {
        fixtures::add_handler(
            &Codex::installed_hooks(sandbox),
            event,
            json!({"type": "command", "command": recorder}),
        );
    }
    log
}

/// Items of `--json` output and stderr lines that mention hooks (paths of the sandbox and of
/// the hooks binary, and the bypass flag's own warning, aside).
fn hook_mentions(run: &CodexRun, sandbox: &Sandbox) -> Vec<String> {
    let root = sandbox.root().display().to_string();
    let bin = crate::host_binary::path().display().to_string();
    let mentions = |text: &str| {
        let text = text.replace(&root, "<sandbox>").replace(&bin, "<hooks>");
        text.to_lowercase().contains("hook") && !text.contains("--dangerously-bypass-hook-trust")
    };
    let mut out: Vec<String> = run
        .events
        .iter()
        .map(Value::to_string)
        .filter(|e| mentions(e))
        .collect();
    out.extend(
        run.finished
            .stderr
            .lines()
            .filter(|l| mentions(l))
            .map(str::to_owned),
    );
    out
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn rm_rf_is_blocked_and_the_model_gets_the_reason() {
    bundle::rm_rf_is_blocked_and_the_model_gets_the_reason::<Codex>("codex-gate");
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn ls_runs_quietly() {
    let (run, sb, _server) = bundle::ls_runs_quietly::<Codex>("codex-ls");
    assert!(run.finished.success(), "{}", run.evidence());
    assert_eq!(hook_mentions(&run, &sb), Vec::<String>::new());
}

/// Codex never sends malformed input by itself, so each installed gating entry is run the way
/// Codex runs it (its command string through the shell, the input on stdin) with broken input:
/// it must exit 2 with a reason on stderr, which Codex treats as a block; on `PreCompact`, where
/// Codex compacts after any exit code, exit 0 with `continue: false` and the reason as its
/// `stopReason`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn installed_gating_entries_fail_closed_on_malformed_input() {
    let server = ModelServer::start(Script::default());
    let (_codex, sb) = setup("codex-malformed", &server, "");
    let installed = fixtures::read_settings(&Codex::installed_hooks(&sb));
    for event in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "PreCompact",
    ] {
        let command = installed["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .expect("shell form command")
            .to_owned();
        for input in [&b"{\"hook_event_name\": "[..], b"", b"[1, 2]", b"\xff\xfe"] {
            let mut cmd = Command::new("/bin/sh");
            cmd.arg("-c").arg(&command).current_dir(&sb.project);
            let done = process::run_bounded_with_input(
                cmd,
                &crate::process::Input::Bytes(input),
                sb.root(),
                "malformed",
                Duration::from_secs(30),
            );
            let case = format!(
                "{event} with {:?}: {done:?}",
                String::from_utf8_lossy(input)
            );
            assert!(
                !done.stderr.trim().is_empty(),
                "{event}: no reason on stderr"
            );
            if event == "PreCompact" {
                // Codex compacts after any exit code: only `continue: false` holds it.
                assert_eq!(done.code(), Some(0), "{case}");
                let answer: Value = serde_json::from_str(&done.stdout).expect("a JSON answer");
                assert_eq!(
                    answer,
                    json!({"continue": false, "stopReason": done.stderr.trim_end()}),
                    "{case}"
                );
            } else {
                assert_eq!(done.code(), Some(2), "{case}");
            }
        }
    }
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn cat_of_a_secret_file_is_redacted_before_the_model_sees_it() {
    bundle::a_secret_printed_by_a_command_is_redacted::<Codex>("codex-cat", "cat secret.env");
}

/// Codex runs `PostToolUse` after a failing command too, so its output is redacted as well.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_failing_command_s_output_is_redacted_too() {
    bundle::a_secret_printed_by_a_command_is_redacted::<Codex>(
        "codex-cat-fails",
        "cat secret.env; exit 1",
    );
}

/// `exec_command` with a command that is still running after `yield_ms`, then `write_stdin`
/// waiting for the rest of its output (the session id taken from the first result).
fn exec_then_wait(cmd: &str, yield_ms: u64, text: &str) -> Script {
    Script::new(vec![
        Step::tool(
            "exec_command",
            json!({"cmd": cmd, "yield_time_ms": yield_ms}),
        ),
        Step::tool(
            "write_stdin",
            json!({"session_id": SESSION_ID, "chars": "", "yield_time_ms": 10_000}),
        ),
        Step::Text(text.into()),
    ])
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_command_that_ends_while_write_stdin_waits_is_redacted() {
    let server = ModelServer::start(exec_then_wait("sleep 2; cat secret.env", 250, "read"));
    let (codex, sb) = setup("codex-write-stdin", &server, "");
    sb.write("secret.env", format!("{}\n", secret_line()));
    let run = codex.run(&sb, &server, "show secret.env slowly");
    let results = server.tool_results();
    assert!(
        results
            .first()
            .is_some_and(|(_, t)| t.contains("Process running with session ID")),
        "the command did not yield: {results:?}\n{}",
        run.evidence()
    );
    assert!(server.received(SECRET).is_empty(), "{results:?}");
    assert!(
        results.len() == 2 && results[1].1.contains(REDACTED),
        "{results:?}\n{}",
        run.evidence()
    );
}

/// What a hook cannot see in Codex 0.169.0: what a command prints before `exec_command` yields
/// while it still runs reaches the model at once, and `PostToolUse` fires only when a later
/// `write_stdin` sees the command end.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn output_printed_before_exec_command_yields_reaches_the_model_without_a_hook() {
    let server = ModelServer::start(exec_then_wait("cat secret.env; sleep 2", 1_000, "read"));
    let (codex, sb) = setup("codex-yield", &server, "");
    sb.write("secret.env", format!("{}\n", secret_line()));
    let log = record(&sb, &["PostToolUse"]);
    let run = codex.run(&sb, &server, "show secret.env, then wait");
    let results = server.tool_results();
    let recorded = fixtures::recorded(&log);
    crate::report(&format!(
        "codex exec_command yielding: the model got {results:?}; PostToolUse saw {:?}",
        recorded
            .iter()
            .map(|i| &i["tool_response"])
            .collect::<Vec<_>>()
    ));
    assert!(
        results
            .first()
            .is_some_and(|(_, t)| t.contains(SECRET) && t.contains("Process running")),
        "{results:?}\n{}",
        run.evidence()
    );
    assert_eq!(
        recorded.len(),
        1,
        "one PostToolUse, at the end: {recorded:?}"
    );
}

/// Codex 0.169.0 replaces what the model gets with a `PostToolUse` block's reason for each
/// tool whose call fires `PostToolUse`: `exec_command` (as `Bash`), `write_stdin` once the
/// command ended (as `Bash`), `view_image`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn post_tool_use_block_replaces_the_output_of_every_tool_that_fires_it() {
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("echo plain".into()),
        Step::tool(
            "exec_command",
            json!({"cmd": "sleep 2; echo late", "yield_time_ms": 250}),
        ),
        Step::tool(
            "write_stdin",
            json!({"session_id": SESSION_ID, "chars": "", "yield_time_ms": 10_000}),
        ),
        Step::tool("view_image", json!({"path": "demo.png"})),
        Step::Text("done".into()),
    ]));
    let (codex, sb) = setup("codex-block-every-tool", &server, "");
    sb.write("demo.png", fixtures::png());
    let hook = fixtures::script(
        &sb.root().join("replace.sh"),
        "cat >> \"$(dirname \"$0\")/seen.jsonl\"\necho >> \"$(dirname \"$0\")/seen.jsonl\"\n\
         echo '{\"decision\": \"block\", \"reason\": \"e2e-replaced\"}'",
    );
    fixtures::add_handler(
        &Codex::installed_hooks(&sb),
        "PostToolUse",
        json!({"type": "command", "command": hook}),
    );
    let run = codex.run(&sb, &server, "run them");
    let seen: Vec<Value> = fixtures::recorded(&sb.root().join("seen.jsonl"));
    let tools: Vec<&str> = seen
        .iter()
        .filter_map(|i| i["tool_name"].as_str())
        .collect();
    assert_eq!(tools, ["Bash", "Bash", "view_image"], "{}", run.evidence());
    let results = server.tool_results();
    let texts: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[1].contains("Process running"), "{texts:?}");
    for i in [0, 2, 3] {
        assert!(texts[i].contains("e2e-replaced"), "result {i}: {texts:?}");
        assert!(
            !texts[i].contains("plain")
                && !texts[i].contains("late")
                && !texts[i].contains("base64"),
            "result {i}: {texts:?}"
        );
    }
}

/// A command the `rm -rf` guard blocks but Codex's own policy lets through (Codex 0.169.0
/// itself rejects `rm -rf ...`, `rm -r -f ...`, `/bin/rm -rf ...` and `bash -c 'rm -rf ...'` in
/// `exec_command`, so those cannot show whether the hook ran; it does not look inside `eval`):
/// it leaves `ran.txt` behind when it runs.
const GUARDED: &str = "touch ran.txt; eval \"rm -rf victim\"";

/// `codex exec` without the bypass of hook trust runs [`GUARDED`]: the guard blocks it, and
/// the model gets its reason.
fn the_guard_runs_without_the_bypass(codex: &Codex, sb: &Sandbox, server: &ModelServer) {
    let run = codex.exec(sb, server, Trust::Config, &[], "run it");
    assert!(
        !sb.project.join("ran.txt").exists(),
        "the guard did not run:\n{}",
        run.evidence()
    );
    bundle::assert_the_model_got_the_guard_s_reason(server, &run.evidence());
}

/// Codex 0.169.0 runs no hook that the user has not trusted, and says nothing about it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn untrusted_hooks_are_skipped_without_a_word() {
    let server = ModelServer::start(Script::shell_then(GUARDED, "done"));
    let (codex, sb) = setup("codex-untrusted", &server, "");
    let run = codex.exec(&sb, &server, Trust::Config, &[], "run it");
    assert!(
        sb.project.join("ran.txt").exists(),
        "the guard ran although nobody trusted it:\n{}",
        run.evidence()
    );
    assert_eq!(
        hook_mentions(&run, &sb),
        Vec::<String>::new(),
        "{}",
        run.evidence()
    );
}

/// Trusting the installed hooks by writing what Codex's review writes (see
/// [`Codex::trust_hooks`]) makes them run without `--dangerously-bypass-hook-trust`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn hooks_trusted_in_config_toml_run_without_the_bypass() {
    let server = ModelServer::start(Script::shell_then(GUARDED, "done"));
    let (codex, sb) = setup("codex-trusted", &server, "");
    Codex::trust_hooks(&sb);
    the_guard_runs_without_the_bypass(&codex, &sb, &server);
}

/// `hooks install codex` ends by saying that Codex runs the hooks only once trusted, and how
/// to trust them for unattended runs; `--trust` trusts them in `config.toml` as Codex's review
/// does, and Codex then runs them without `--dangerously-bypass-hook-trust`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn hooks_trusted_by_install_run_without_the_bypass() {
    let server = ModelServer::start(Script::shell_then(GUARDED, "done"));
    let (codex, sb) = agent::setup::<Codex>("codex-install-trust", &server);
    let installed = codex.install_hooks(&sb);
    for needle in [
        "only after you trust them",
        "--trust",
        "codex exec --dangerously-bypass-hook-trust",
    ] {
        assert!(
            installed.stdout.contains(needle),
            "{needle}: {}",
            installed.stdout
        );
    }
    let trusted = Codex::install_trusted_hooks(&sb);
    assert!(
        trusted.stdout.contains("Trusted 5 hooks in") && trusted.stdout.contains("up to date"),
        "{}",
        trusted.stdout
    );
    the_guard_runs_without_the_bypass(&codex, &sb, &server);
}

/// After `hooks install codex --trust`, Codex's own `hooks/list` lists every installed hook as
/// trusted.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn install_trust_makes_codex_list_every_hook_trusted() {
    let server = ModelServer::start(Script::default());
    let (codex, sb) = agent::setup::<Codex>("codex-listed-trusted", &server);
    Codex::install_trusted_hooks(&sb);
    let hooks = listed_hooks(&codex, &sb);
    assert_eq!(hooks.len(), 5, "{hooks:?}");
    for hook in &hooks {
        assert_eq!(hook["trustStatus"], "trusted", "{hook}");
    }
}

/// The hooks Codex's app server lists for the sandbox's project (`hooks/list`).
fn listed_hooks(codex: &Codex, sb: &Sandbox) -> Vec<Value> {
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "hooks-e2e", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
               "params": {"cwds": [sb.project]}}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let is_answer = |line: &str| serde_json::from_str::<Value>(line).is_ok_and(|m| m["id"] == 2);
    let listed = codex.app_server(sb, input.as_bytes(), &is_answer);
    let answer = listed
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no hooks/list answer: {listed:?}"));
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The trust hash computed here equals `currentHash` in Codex's own `hooks/list` (its
/// app-server, over JSON-RPC on stdio), for every installed hook.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn trust_hash_is_the_one_codex_lists() {
    let server = ModelServer::start(Script::default());
    let (codex, sb) = setup("codex-hash", &server, "");
    let hooks = listed_hooks(&codex, &sb);
    let answer = Value::Array(hooks.clone());
    let installed = fixtures::read_settings(&Codex::installed_hooks(&sb));
    let events = installed["hooks"].as_object().expect("hooks object");
    assert_eq!(hooks.len(), events.len(), "{answer}");
    for (event, groups) in events {
        let handler = &groups[0]["hooks"][0];
        let key = format!(
            "{}:{}:0:0",
            Codex::installed_hooks(&sb).display(),
            snake_case(event)
        );
        let listed = hooks
            .iter()
            .find(|h| h["key"] == key)
            .unwrap_or_else(|| panic!("{key} not listed: {answer}"));
        assert_eq!(listed["trustStatus"], "untrusted");
        assert_eq!(
            listed["currentHash"],
            trust_hash(&snake_case(event), None, handler),
            "{event}"
        );
    }
}

/// Codex 0.169.0 fails open when a hook cannot start: with the hooks binary gone, the guarded
/// command runs (Codex has no `onFailure` setting; docs/agents.md has to say so).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_missing_hook_binary_lets_codex_run_the_command() {
    let server = ModelServer::start(Script::shell_then(GUARDED, "done"));
    let (codex, sb) = setup("codex-missing", &server, "");
    let bin = crate::host_binary::path().display().to_string();
    fixtures::edit_handlers(&Codex::installed_hooks(&sb), |_, handler| {
        let command = handler["command"].as_str().unwrap_or_default();
        handler["command"] = json!(command.replace(&bin, "/nonexistent/hooks"));
    });
    let run = codex.run(&sb, &server, "run it");
    assert!(
        sb.project.join("ran.txt").exists(),
        "the command did not run: {:?}\n{}",
        server.tool_results(),
        run.evidence()
    );
    crate::report(&format!(
        "codex, hook binary missing: tool results {:?}; hook mentions {:?}",
        server.tool_results(),
        hook_mentions(&run, &sb)
    ));
}

/// Codex 0.169.0 fails open as well when a hook crashes (exits 1 at once) or hangs past its
/// timeout (2 s here): the guarded command runs (what docs/agents.md's Codex table says).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_crashing_or_hanging_hook_lets_codex_run_the_command() {
    for (name, command, timeout) in [
        ("codex-crash", "exit 1", None),
        ("codex-hang", "sleep 30", Some(2)),
    ] {
        let server = ModelServer::start(Script::shell_then(GUARDED, "done"));
        let (codex, sb) = setup(name, &server, "");
        fixtures::edit_handlers(&Codex::installed_hooks(&sb), |_, handler| {
            handler["command"] = json!(command);
            if let Some(secs) = timeout {
                handler["timeout"] = json!(secs);
            }
        });
        let run = codex.run(&sb, &server, "run it");
        assert!(
            sb.project.join("ran.txt").exists(),
            "{name}: the command did not run: {:?}\n{}",
            server.tool_results(),
            run.evidence()
        );
        crate::report(&format!(
            "codex, hook {command:?}: ran after {:.1} s; hook mentions {:?}",
            run.finished.elapsed.as_secs_f64(),
            hook_mentions(&run, &sb)
        ));
    }
}

/// Per-hook time inside Codex, from the `durationMs` its app server reports for each hook run,
/// next to the same turn with every hook `/bin/true` (the agent's own cost of starting a hook).
/// (`Stop` is left out: the turn is over, and the input closed, before its run is reported.)
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn hook_times_from_the_app_server() {
    let count_to_ten = || {
        let mut steps: Vec<Step> = (0..10).map(|i| Step::Shell(format!("echo {i}"))).collect();
        steps.push(Step::Text("done".into()));
        Script::new(steps)
    };
    let mut times = Vec::new();
    for (name, replace) in [("codex-times", false), ("codex-times-true", true)] {
        let server = ModelServer::start(count_to_ten());
        let (codex, sb) = setup(name, &server, "");
        if replace {
            fixtures::edit_handlers(&Codex::installed_hooks(&sb), |_, handler| {
                handler["command"] = json!("/bin/true");
            });
        }
        Codex::trust_hooks(&sb);
        let turn = codex.app_server_turn(&sb, "count to ten");
        let turn_times = turn.hook_times();
        assert_eq!(
            turn_times.count("preToolUse", |_| true),
            10,
            "{}",
            turn.evidence()
        );
        assert!(turn_times.failed().is_empty(), "{:?}", turn_times.failed());
        times.push(turn_times);
    }
    for event in [
        "sessionStart",
        "userPromptSubmit",
        "preToolUse",
        "postToolUse",
    ] {
        let (ours, truth) = (
            times[0].median(event, |_| true),
            times[1].median(event, |_| true),
        );
        crate::report(&format!(
            "codex hook time {event}: hooks {ours}, /bin/true {truth}"
        ));
        assert!(
            times[0].count(event, |_| true) > 0,
            "no {event} time reported"
        );
    }
}

/// What `/handoff` answers: the prompt is blocked, and the reason says that a new session
/// cannot be started from a hook.
const HANDOFF_REASON: &str = "/handoff: starting a new session is not available through the \
    codex hook adapter (the agent owns its sessions); nothing was done.";

/// In Codex's TUI and app (their `app-server`), a blocked prompt's reason is the hook run's
/// `feedback`, shown to the user; the prompt never reaches the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn handoff_reason_reaches_the_tui_as_hook_feedback() {
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let (codex, sb) = setup("codex-handoff-tui", &server, "");
    Codex::trust_hooks(&sb);
    let turn = codex.app_server_turn(&sb, "/handoff");
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model:\n{}",
        turn.evidence()
    );
    let runs = turn.hook_runs("userPromptSubmit");
    assert!(
        runs.iter().any(|r| r["status"] == "blocked"),
        "{}",
        turn.evidence()
    );
    assert_eq!(
        turn.entries("userPromptSubmit", "feedback"),
        [HANDOFF_REASON],
        "{}",
        turn.evidence()
    );
}

/// `codex exec` shows a blocked prompt's reason nowhere: the turn ends with no item and exit 0
/// (docs/agents.md says so). The prompt does not reach the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn codex_exec_shows_a_blocked_prompts_reason_nowhere() {
    let run = bundle::a_prompt_command_answers_without_a_model_call::<Codex>("codex-handoff");
    assert!(run.finished.success(), "{}", run.evidence());
    assert!(
        !run.finished.stdout.contains("not available")
            && !run.finished.stderr.contains("not available"),
        "codex exec now shows the reason: update docs/agents.md\n{}",
        run.evidence()
    );
}

/// What the examples say to the user after a tool (the status line and the `debug-only` note)
/// reaches Codex's TUI and app as the `postToolUse` hook run's warning, and never the model.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn status_line_and_displayed_messages_reach_the_tui_as_hook_warnings() {
    let server = ModelServer::start(Script::shell_then("echo hi", "done"));
    let (codex, sb) = setup("codex-shown", &server, "");
    Codex::trust_hooks(&sb);
    let turn = codex.app_server_turn(&sb, "say hi");
    let warnings = turn.entries("postToolUse", "warning");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("status: tools run: 1 · last: bash ✓")
                && w.contains("[debug] bash ")),
        "{warnings:?}\n{}",
        turn.evidence()
    );
    for needle in ["tools run:", "[debug]", "bytes of text"] {
        assert_eq!(server.received(needle), Vec::<String>::new(), "{needle}");
    }
}

/// Config that makes Codex compact once the usage of one answer is large.
const COMPACT_EARLY: &str =
    "model_auto_compact_token_limit = 10000\nmodel_context_window = 1000000";

/// What the fix of `SessionStart`'s mapping relies on: Codex 0.169.0 sends `SessionStart` with
/// `source: "startup"` at the start, `"compact"` after each compaction (after `PreCompact` and
/// `PostCompact`, `trigger: "auto"`), and `"resume"` on `codex exec resume`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_source_says_startup_compact_or_resume() {
    let mut script = Script::new(vec![
        Step::Shell("echo one".into()),
        Step::Text("first done".into()),
        Step::Text("second done".into()),
    ]);
    script.large_usage_at = Some(0);
    let server = ModelServer::start(script);
    let (codex, sb) = setup("codex-sources", &server, COMPACT_EARLY);
    let log = record(&sb, &["SessionStart", "PreCompact", "PostCompact"]);
    let first = codex.run(&sb, &server, "count");
    assert!(first.finished.success(), "{}", first.evidence());
    let resumed = codex.exec(&sb, &server, Trust::Bypass, &["resume", "--last"], "again");
    assert!(resumed.finished.success(), "{}", resumed.evidence());
    let seen: Vec<String> = fixtures::recorded(&log)
        .iter()
        .map(|i| {
            let detail = i["source"].as_str().or(i["trigger"].as_str()).unwrap_or("");
            format!("{}:{detail}", i["hook_event_name"].as_str().unwrap_or(""))
        })
        .collect();
    crate::report(&format!("codex hook sequence: {seen:?}"));
    assert_eq!(
        seen,
        [
            "SessionStart:startup",
            "PreCompact:auto",
            "PostCompact:auto",
            "SessionStart:compact",
            "SessionStart:resume"
        ],
        "{}\n{}",
        first.evidence(),
        resumed.evidence()
    );
}

/// What the compaction guard answers while its marker exists.
const HELD: &str =
    "Compaction cancelled by a hook: compaction held: remove .hooks/hold-compaction to allow it";

/// A script whose first answer reports a large usage, so that Codex compacts before the next.
fn compacting_script() -> Script {
    let mut script = Script::new(vec![
        Step::Shell("echo one".into()),
        Step::Text("first done".into()),
    ]);
    script.large_usage_at = Some(0);
    script
}

fn summaries(server: &ModelServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.answered == crate::model::Answered::Summary)
        .count()
}

/// Codex 0.169.0 holds a compaction only for PreCompact `{"continue": false}`, which also stops
/// the turn (exit 2 with a reason, `decision: "block"` and exit 1 all let it compact): the
/// least that holds it. Its TUI and app show the reason as the hook run's `stop` entry, with
/// what the guard notified; the turn ends `interrupted`.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_held_compaction_stops_the_turn_and_the_tui_says_why() {
    let server = ModelServer::start(compacting_script());
    let (codex, sb) = setup("codex-hold-tui", &server, COMPACT_EARLY);
    sb.write(".hooks/hold-compaction", "");
    Codex::trust_hooks(&sb);
    let turn = codex.app_server_turn(&sb, "count");
    assert_eq!(summaries(&server), 0, "compacted:\n{}", turn.evidence());
    assert_eq!(
        turn.entries("preCompact", "stop"),
        [HELD],
        "{}",
        turn.evidence()
    );
    assert_eq!(
        turn.completed_turn().map(|t| t["status"].clone()),
        Some(json!("interrupted")),
        "{}",
        turn.evidence()
    );
}

/// `codex exec` ends with exit 1 when a PreCompact hook holds the compaction, and shows the
/// reason nowhere (docs/agents.md says so).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn codex_exec_stops_at_a_held_compaction_and_shows_the_reason_nowhere() {
    let server = ModelServer::start(compacting_script());
    let (codex, sb) = setup("codex-hold", &server, COMPACT_EARLY);
    sb.write(".hooks/hold-compaction", "");
    let run = codex.run(&sb, &server, "count");
    assert_eq!(summaries(&server), 0, "compacted:\n{}", run.evidence());
    assert_eq!(run.finished.code(), Some(1), "{}", run.evidence());
    assert!(
        !run.finished.stdout.contains("compaction held")
            && !run.finished.stderr.contains("compaction held"),
        "codex exec now shows the reason: update docs/agents.md\n{}",
        run.evidence()
    );
}

/// A failing `PreCompact` hook holds the compaction in Codex too, though Codex compacts after
/// any exit code: the adapter answers its failure with `continue: false`, whose reason (the
/// failure line) the app shows as the hook run's `stop` entry. The failure here is a working
/// directory that does not exist (`--cwd`).
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn a_failing_pre_compact_hook_holds_the_compaction() {
    let server = ModelServer::start(compacting_script());
    let (codex, sb) = setup("codex-compact-fails", &server, COMPACT_EARLY);
    let missing = sb.root().join("no-such-dir");
    fixtures::edit_handlers(&Codex::installed_hooks(&sb), |event, handler| {
        if event == "PreCompact" {
            let command = handler["command"].as_str().unwrap_or_default().to_owned();
            handler["command"] = json!(format!("{command} --cwd '{}'", missing.display()));
        }
    });
    Codex::trust_hooks(&sb);
    let turn = codex.app_server_turn(&sb, "count");
    assert_eq!(summaries(&server), 0, "compacted:\n{}", turn.evidence());
    let expected = format!(
        "hooks codex PreCompact: the working directory {} is not a directory",
        missing.display()
    );
    assert_eq!(
        turn.entries("preCompact", "stop"),
        [expected],
        "{}",
        turn.evidence()
    );
}

/// What the Codex answer to a cancelled compaction relies on: of the PreCompact answers its
/// schema allows or its exit codes mean, only `{"continue": false}` holds the compaction (and it
/// ends the run with exit 1); exit 2 with a reason on stderr, exit 1, and `decision: "block"`
/// (not in its schema) all let it compact.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn only_continue_false_holds_a_codex_compaction() {
    use crate::fixtures::{Answer, Recorder};
    for (answer, held) in [
        (
            Answer::json(&json!({"continue": false, "stopReason": "held"})),
            true,
        ),
        (Answer::exit(2, "held"), false),
        (Answer::exit(1, "held"), false),
        (
            Answer::json(&json!({"decision": "block", "reason": "held"})),
            false,
        ),
    ] {
        let server = ModelServer::start(compacting_script());
        let codex = Codex::for_suite();
        let sb = Sandbox::new("codex-precompact-answers");
        Codex::configure_with(&sb, &server, COMPACT_EARLY);
        let recorder = Recorder::new(&sb.root().join("recorder"));
        fixtures::add_group(
            &Codex::installed_hooks(&sb),
            "PreCompact",
            json!({"hooks": [{"type": "command", "command": recorder.command("PreCompact")}]}),
        );
        recorder.answer("PreCompact", &answer);
        let run = codex.run(&sb, &server, "count");
        assert_eq!(recorder.events(), ["PreCompact"], "{}", run.evidence());
        assert_eq!(
            summaries(&server) == 0,
            held,
            "{answer:?}\n{}",
            run.evidence()
        );
        assert_eq!(
            run.finished.code(),
            Some(if held { 1 } else { 0 }),
            "{answer:?}"
        );
    }
}

/// Only a new session runs the examples' `session_start` hook (its `tools run: 0` status line):
/// a resume is a `session_switch`, which no example handles, and a compaction is no new session.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn session_start_runs_only_for_a_new_session() {
    let server = ModelServer::start({
        let mut script = compacting_script();
        script.steps.push(Step::Text("second done".into()));
        script
    });
    let (codex, sb) = setup("codex-session-start", &server, COMPACT_EARLY);
    let tee = crate::fixtures::tee(sb.root());
    fixtures::edit_handlers(&Codex::installed_hooks(&sb), |event, handler| {
        if event == "SessionStart" {
            let command = handler["command"].as_str().unwrap_or_default();
            handler["command"] = json!(format!("'{}' {command}", tee.display()));
        }
    });
    let first = codex.run(&sb, &server, "count");
    assert!(first.finished.success(), "{}", first.evidence());
    let resumed = codex.exec(&sb, &server, Trust::Bypass, &["resume", "--last"], "again");
    assert!(resumed.finished.success(), "{}", resumed.evidence());
    bundle::assert_only_startup_starts_a_session("codex", &sb, &["startup", "compact", "resume"]);
}

// What no hook sees in Codex 0.169.0 (docs/agents.md's table); see the Claude Code scenarios.

/// `AGENTS.md` is read by Codex itself into the first request; no hook is called for it.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn agents_md_content_reaches_the_model_with_no_hook_call() {
    let server = ModelServer::start(Script::new(vec![Step::Text("ok".into())]));
    let (codex, sb) = setup("codex-agents-md", &server, "");
    let log = record(&sb, &["PreToolUse", "PostToolUse"]);
    sb.write("AGENTS.md", format!("# notes\n{}\n", secret_line()));
    let run = codex.run(&sb, &server, "hello");
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    assert!(fixtures::recorded(&log).is_empty(), "no tool ran");
}

/// A command still running when `exec_command` yields (here after 500 ms; 10 s by default)
/// hands the model its output so far with no `PostToolUse`: Codex runs `PostToolUse` once, when
/// the process exits, with the last chunk only (seen when the model polls it with
/// `write_stdin`), and never when nobody polls.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn output_before_a_command_yields_reaches_the_model_with_no_post_tool_use() {
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "exec_command",
            json!({"cmd": format!("echo {}; sleep 3; echo done", secret_line()), "yield_time_ms": 500}),
        ),
        Step::Text("ok".into()),
    ]));
    let (codex, sb) = setup("codex-yield", &server, "");
    let log = record(&sb, &["PreToolUse", "PostToolUse"]);
    let run = codex.run(&sb, &server, "run it");
    assert!(
        server
            .tool_results()
            .iter()
            .any(|(_, t)| t.contains("Process running with session ID")),
        "{:?}",
        server.tool_results()
    );
    assert!(!server.received(SECRET).is_empty(), "{}", run.evidence());
    let events: Vec<String> = fixtures::recorded(&log)
        .iter()
        .map(|i| i["hook_event_name"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(events, ["PreToolUse"], "{}", run.evidence());
}

/// Codex 0.169.0 runs `PreToolUse` for `exec_command` only, never for `write_stdin`: what the
/// model types into a command that `exec_command` started with a terminal (`tty: true`;
/// without one, `write_stdin` finds its input closed) reaches no hook. Measured without the
/// guard's check: this script (`bash` with a terminal, then `rm -rf victim` typed into it)
/// removed `victim`, and the one hook call was `Bash` with `tool_input: {"command": "bash"}`
/// (no `tty`). The guard refuses the shell itself, and the model is told to run the command
/// directly; `write_stdin` then has no session to write into.
#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn an_interactive_shell_is_refused_so_write_stdin_cannot_feed_it_rm_rf() {
    let server = ModelServer::start(Script::new(vec![
        Step::tool(
            "exec_command",
            json!({"cmd": "bash", "tty": true, "yield_time_ms": 1_000}),
        ),
        Step::tool(
            "write_stdin",
            json!({
                "session_id": SESSION_ID, "chars": "rm -rf victim\n", "yield_time_ms": 2_000,
            }),
        ),
        Step::Text("done".into()),
    ]));
    let (codex, sb) = setup("codex-interactive-shell", &server, "");
    sb.write("victim/keep.txt", "precious\n");
    let log = record(&sb, &["PreToolUse"]);
    let run = codex.run(&sb, &server, "open a shell and clean up");
    let results = server.tool_results();
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran through write_stdin: {results:?}\n{}",
        run.evidence()
    );
    assert!(
        results.first().is_some_and(
            |(_, t)| t.contains(hookwright_examples::block_rm::INTERACTIVE_SHELL_BLOCKED)
        ),
        "the model did not receive the reason: {results:?}\n{}",
        run.evidence()
    );
    let inputs: Vec<Value> = fixtures::recorded(&log)
        .iter()
        .map(|i| json!([i["tool_name"], i["tool_input"]]))
        .collect();
    assert_eq!(
        inputs,
        [json!(["Bash", {"command": "bash"}])],
        "{}",
        run.evidence()
    );
}
