//! The bridge (`hooks-bin/bridges/pi/hooks.ts`) in the real pi 0.73.1 and oh-my-pi 18.2.3:
//! `hooks-e2e install pi|omp` puts it in the project, and a print run of the agent runs the
//! bundle of `hooks-e2e` (an author's own binary: the examples and a `before_agent_start`
//! hook, tests/bundles/e2e-bundle) through `hooks-e2e serve --stdio`, against the scripted
//! model server. Each scenario checks what the model got, the session files and the agent's
//! stderr (where the bridge prints notifications and the status line: print mode has no UI),
//! and that nothing is left running.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::pi::{Flavor, PiAgent, PiRun, Probe};
use crate::agent::{RUN_LIMIT, Sandbox};
use crate::host_binary;
use crate::model::{ModelServer, Script, Step};

use super::bundle::GUARD_REASON;

/// The agent, a sandbox with the bridge installed in its project, and a model server for
/// `script`.
fn setup(flavor: Flavor, name: &str, script: Script) -> (PiAgent, Sandbox, ModelServer) {
    let agent = PiAgent::for_suite(flavor);
    let sandbox = Sandbox::new(&format!("bridge-{}-{name}", flavor.name()));
    let server = ModelServer::start(script);
    agent.configure(&sandbox, &server, "");
    let installed = sandbox.hooks_of(
        host_binary::e2e_bundle(),
        &["install", flavor.name(), "--project"],
        &[],
    );
    assert!(installed.stdout.contains("Added the"), "{installed:?}");
    (agent, sandbox, server)
}

/// A print run with `args` and `prompts`, with more environment.
fn run(
    agent: &PiAgent,
    sb: &Sandbox,
    args: &[&str],
    prompts: &[&str],
    env: &[(&str, &str)],
) -> PiRun {
    // No probe is installed; its variables are harmless.
    let probe = Probe::new(sb, &json!({}));
    agent.run_with_env(sb, &probe, args, prompts, env, RUN_LIMIT)
}

fn finish(run: &PiRun, server: &ModelServer, sb: &Sandbox) {
    server.save_log(sb.root());
    assert!(
        run.finished.leftovers.is_empty(),
        "the agent left processes running: {:?}\n{}",
        run.finished.leftovers,
        run.evidence()
    );
}

/// The status lines the bridge printed, in order.
fn status_lines(run: &PiRun) -> Vec<&str> {
    run.finished
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("hooks: [status] "))
        .collect()
}

fn session_files(dir: &Path) -> Vec<(PathBuf, Vec<Value>)> {
    let mut files: Vec<(PathBuf, Vec<Value>)> = walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| {
            let lines = fs::read_to_string(&p)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            (p, lines)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .flat_map(|e| {
            let p = e.path();
            if p.is_dir() { walk(&p) } else { vec![p] }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Tools: the guard, the redactor, the context filter, the status line's counter

/// The tool that reads `secrets.env` as the agent offers it.
fn read_secrets(flavor: Flavor) -> Step {
    match flavor {
        Flavor::Pi => Step::tool("read", json!({"path": "secrets.env"})),
        Flavor::Omp => Step::tool("_read", json!({"path": "secrets.env", "i": "e2e"})),
    }
}

/// The start of the secret in `secrets.env` (`API_KEY=...`), which the bundle's redactor
/// replaces.
const SECRET: &str = "sk-e2e-secret";

fn tools_run_through_the_bundle(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("rm -rf victim"),
        read_secrets(flavor),
        flavor.shell("echo E2E-AFTER"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "tools", script);
    sb.write("victim/keep.txt", "precious\n");
    sb.write("secrets.env", format!("API_KEY={SECRET}-0123456789\n"));
    let sessions = sb.root().join("sessions");
    let dir = sessions.display().to_string();
    let run = run(&agent, &sb, &["--session-dir", &dir], &["go"], &[]);
    finish(&run, &server, &sb);
    assert!(run.finished.success(), "{}", run.evidence());
    // The guard: the victim survives, the model gets the reason.
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    let texts: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:?}\n{}", run.evidence());
    assert_eq!(texts[0], GUARD_REASON, "{}", run.evidence());
    // The redactor: what the model gets of the file is redacted, everywhere.
    assert!(
        texts[1].contains("API_KEY=[REDACTED]"),
        "{texts:?}\n{}",
        run.evidence()
    );
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model"
    );
    assert!(texts[2].contains("E2E-AFTER"), "{texts:?}");
    // The context filter: the debug notes sent after each tool are in the session, not in
    // any request.
    let notes = "bytes of text";
    let kept = session_files(&sessions)
        .iter()
        .any(|(_, lines)| lines.iter().any(|l| l.to_string().contains(notes)));
    assert!(
        kept,
        "no debug note in the session files\n{}",
        run.evidence()
    );
    assert!(
        server.received(notes).is_empty(),
        "a debug note reached the model"
    );
    // An event the bundle handles and the agent cannot deliver is named once, at start.
    let named = run
        .finished
        .stderr
        .matches("cannot deliver ttsr_triggered")
        .count();
    let expected = match flavor {
        Flavor::Pi => 1,
        Flavor::Omp => 0,
    };
    assert_eq!(named, expected, "{}", run.evidence());
    // The message of before_agent_start is in the request, after the prompt.
    let first = server.model_turns()[0].body["messages"].to_string();
    assert!(
        first.contains("E2E-BEFORE-AGENT-START"),
        "the injected message is not in the first request: {first}"
    );
    // One runner per session: the counter grows across the tool calls (the blocked one never
    // ran), and the status line reaches the output.
    let status = status_lines(&run);
    assert_eq!(
        status.first().copied(),
        Some("tools run: 0"),
        "{}",
        run.evidence()
    );
    assert!(
        status
            .iter()
            .any(|s| s.starts_with("tools run: 2 · last: ")),
        "{status:?}\n{}",
        run.evidence()
    );
}

for_pi_and_omp!(
    tools_run_through_the_bundle =>
        pi_bridge_runs_the_guard_redactor_context_filter_injection_and_counter,
        omp_bridge_runs_the_guard_redactor_context_filter_injection_and_counter
);

// ---------------------------------------------------------------------------------------
// /handoff: a new session in the agent, its parent the old one

fn handoff_starts_a_new_session(flavor: Flavor) {
    let script = Script::new(vec![
        Step::Text("first answer".into()),
        Step::Text("answer in the new session".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "handoff", script);
    let sessions = sb.root().join("sessions");
    let dir = sessions.display().to_string();
    let run = run(
        &agent,
        &sb,
        &["--session-dir", &dir],
        &["hello", "/handoff", "next"],
        &[],
    );
    finish(&run, &server, &sb);
    assert!(run.finished.success(), "{}", run.evidence());
    let files = session_files(&sessions);
    // The header is the `session` line (oh-my-pi writes a `title` line before it).
    let header = |lines: &[Value]| lines.iter().find(|l| l["type"] == "session").cloned();
    let child = files
        .iter()
        .find(|(_, lines)| header(lines).is_some_and(|h| h["parentSession"].is_string()))
        .unwrap_or_else(|| {
            panic!(
                "no session with a parentSession: {files:?}\n{}",
                run.evidence()
            )
        });
    let parent = PathBuf::from(
        header(&child.1).expect("a header")["parentSession"]
            .as_str()
            .expect("a path"),
    );
    assert!(
        files.iter().any(|(p, _)| *p == parent),
        "the parent {} is not one of the sessions",
        parent.display()
    );
    assert!(
        child.1.iter().any(|l| l
            .to_string()
            .contains("Continue from prior session summary.")),
        "the new session lacks the setup message: {:?}",
        child.1
    );
}

for_pi_and_omp!(
    handoff_starts_a_new_session =>
        pi_bridge_handoff_creates_a_session_whose_parent_is_the_old_one,
        omp_bridge_handoff_creates_a_session_whose_parent_is_the_old_one
);

// ---------------------------------------------------------------------------------------
// Failure: the server killed mid-session, the binary missing

/// The second prompt of [`dying_server_fails_each_event_by_its_rule`].
const SECOND_PROMPT: &str = "E2E-SECOND-PROMPT";

/// The server dies twice, each time between two calls of one model turn: killed by the tool
/// itself (after answering its `tool_call`, before its `tool_result`), then ending itself while
/// it handles a `context` (the e2e bundle's marker file). Each call fails by its event's rule:
/// the output is withheld, the model call is held; the next event starts the server again.
fn dying_server_fails_each_event_by_its_rule(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("kill -9 $HOOKS_SERVE_PID; cat secrets.env"),
        flavor.shell("rm -rf victim"),
        flavor.shell("mkdir -p .hooks && touch .hooks/e2e-exit-in-context && echo E2E-ARMED"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "killed", script);
    sb.write("victim/keep.txt", "precious\n");
    sb.write("secrets.env", format!("API_KEY={SECRET}-0123456789\n"));
    let run = run(&agent, &sb, &["--no-session"], &["go", SECOND_PROMPT], &[]);
    finish(&run, &server, &sb);
    let stderr = &run.finished.stderr;
    // The output of the tool whose server died is withheld, with the reason; the model never
    // gets the secret.
    let results = server.tool_results();
    let texts: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:?}\n{}", run.evidence());
    assert_eq!(
        texts[0],
        "[tool output withheld: hooks serve exited (signal SIGKILL)]",
        "{}",
        run.evidence()
    );
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model: {:?}\n{}",
        server.received(SECRET),
        run.evidence()
    );
    // The next event started it again, and its guard holds.
    assert!(stderr.contains("starting it again"), "{}", run.evidence());
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran\n{}",
        run.evidence()
    );
    assert_eq!(texts[1], GUARD_REASON, "{}", run.evidence());
    // The server ended itself in the `context` after the third tool: that model call was not
    // made (no request carries the third tool's output before the second prompt), and the
    // second prompt's was, with a new server.
    assert!(texts[2].contains("E2E-ARMED"), "{texts:?}");
    assert!(
        stderr.contains("context failed: hooks serve exited (status 3); the model call is held"),
        "{}",
        run.evidence()
    );
    let turns = server.model_turns();
    let armed: Vec<&crate::model::Request> = turns
        .iter()
        .filter(|r| r.body.to_string().contains("E2E-ARMED"))
        .collect();
    assert!(!armed.is_empty(), "{}", run.evidence());
    assert!(
        armed
            .iter()
            .all(|r| r.body.to_string().contains(SECOND_PROMPT)),
        "the held model call was made\n{}",
        run.evidence()
    );
    assert!(run.finished.success(), "{}", run.evidence());
}

for_pi_and_omp!(
    dying_server_fails_each_event_by_its_rule =>
        pi_bridge_withholds_the_output_and_holds_the_model_call_when_its_server_dies,
        omp_bridge_withholds_the_output_and_holds_the_model_call_when_its_server_dies
);

/// The server cannot answer `describe` at load (its first start fails, as a typo in its
/// configuration makes it: `HOOKS_MODE` is not a mode) and starts fine the next time: the
/// bridge asks again at the next event and then serves the bundle as if it had answered at
/// load: the output is redacted, the guard holds, the command runs.
fn describe_failing_at_load_is_asked_again(flavor: Flavor) {
    let script = Script::new(vec![
        read_secrets(flavor),
        flavor.shell("rm -rf victim"),
        Step::Text("first answer".into()),
        Step::Text("answer in the new session".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "describe", script);
    sb.write("victim/keep.txt", "precious\n");
    sb.write("secrets.env", format!("API_KEY={SECRET}-0123456789\n"));
    let marker = sb.root().join("hooks-started-once");
    let wrapper = sb.write(
        "hooks-flaky",
        format!(
            "#!/bin/sh\n\
             # The first start fails (an invalid configuration); the later ones are the binary's.\n\
             if [ ! -e '{marker}' ]; then : > '{marker}'; HOOKS_MODE=typo exec '{real}' \"$@\"; fi\n\
             exec '{real}' \"$@\"\n",
            marker = marker.display(),
            real = host_binary::e2e_bundle().display(),
        ),
    );
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod the wrapper");
    let sessions = sb.root().join("sessions");
    let dir = sessions.display().to_string();
    let run = run(
        &agent,
        &sb,
        &["--session-dir", &dir],
        &["go", "/handoff", "next"],
        &[("HOOKS_BIN", &wrapper.display().to_string())],
    );
    finish(&run, &server, &sb);
    let stderr = &run.finished.stderr;
    assert!(
        stderr.contains("invalid configuration: HOOKS_MODE=typo is not a mode"),
        "{}",
        run.evidence()
    );
    assert!(marker.exists(), "the wrapper never ran\n{}", run.evidence());
    let results = server.tool_results();
    let texts: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}\n{}", run.evidence());
    assert!(
        texts[0].contains("API_KEY=[REDACTED]"),
        "{texts:?}\n{}",
        run.evidence()
    );
    assert!(
        server.received(SECRET).is_empty(),
        "the secret reached the model: {:?}\n{}",
        server.received(SECRET),
        run.evidence()
    );
    assert_eq!(texts[1], GUARD_REASON, "{}", run.evidence());
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran\n{}",
        run.evidence()
    );
    // The bundle's command was registered once `describe` answered, and ran.
    let handed_off = session_files(&sessions).iter().any(|(_, lines)| {
        lines.iter().any(|l| {
            l.to_string()
                .contains("Continue from prior session summary.")
        })
    });
    assert!(handed_off, "/handoff did not run\n{}", run.evidence());
    assert!(
        server.received("/handoff").is_empty(),
        "/handoff reached the model as a prompt"
    );
    assert!(run.finished.success(), "{}", run.evidence());
}

for_pi_and_omp!(
    describe_failing_at_load_is_asked_again =>
        pi_bridge_asks_describe_again_after_it_failed_at_load,
        omp_bridge_asks_describe_again_after_it_failed_at_load
);

/// Without its binary the bundle is never known: every event fails by its rule, and the first
/// to stop the run is the prompt's (its `before_agent_start` holds its model call), so the
/// model is never called and no tool runs.
fn missing_binary_holds_every_model_call(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("echo E2E-HARMLESS"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "missing", script);
    let missing = sb.root().join("no-such-dir/hooks").display().to_string();
    let run = run(
        &agent,
        &sb,
        &["--no-session"],
        &["go"],
        &[("HOOKS_BIN", &missing)],
    );
    finish(&run, &server, &sb);
    let stderr = &run.finished.stderr;
    assert!(
        stderr.contains(&format!(
            "before_agent_start failed: cannot start {missing} serve --stdio"
        )) && stderr.contains("the model call of the prompt is held"),
        "{}",
        run.evidence()
    );
    assert!(
        server.model_turns().is_empty(),
        "the model was called\n{}",
        run.evidence()
    );
    assert!(
        !run.finished.stdout.contains("E2E-HARMLESS"),
        "{}",
        run.evidence()
    );
}

for_pi_and_omp!(
    missing_binary_holds_every_model_call =>
        pi_bridge_without_its_binary_holds_every_model_call_with_the_reason,
        omp_bridge_without_its_binary_holds_every_model_call_with_the_reason
);

fn hung_server_is_given_up_and_restarted(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("kill -STOP $HOOKS_SERVE_PID; echo E2E-STOPPED"),
        flavor.shell("rm -rf victim"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "hung", script);
    sb.write("victim/keep.txt", "precious\n");
    let run = run(
        &agent,
        &sb,
        &["--no-session"],
        &["go"],
        &[("HOOKS_BRIDGE_TIMEOUT_MS", "1500")],
    );
    finish(&run, &server, &sb);
    assert!(run.finished.success(), "{}", run.evidence());
    let stderr = &run.finished.stderr;
    assert!(
        stderr.contains(
            "tool_result withheld: hooks serve did not answer tool_result within 1500 ms"
        ),
        "{}",
        run.evidence()
    );
    let results = server.tool_results();
    assert_eq!(
        results.first().map(|(_, t)| t.as_str()),
        Some("[tool output withheld: hooks serve did not answer tool_result within 1500 ms]"),
        "{}",
        run.evidence()
    );
    assert!(stderr.contains("starting it again"), "{}", run.evidence());
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran\n{}",
        run.evidence()
    );
}

for_pi_and_omp!(
    hung_server_is_given_up_and_restarted =>
        pi_bridge_gives_up_on_a_hung_server_and_restarts_it,
        omp_bridge_gives_up_on_a_hung_server_and_restarts_it
);

// ---------------------------------------------------------------------------------------
// Compaction held by the examples' guard, with its notification

fn held_compaction_is_held_and_says_so(flavor: Flavor) {
    let mut script = Script::new(vec![
        Step::Text("first answer".into()),
        Step::Text("second answer".into()),
    ]);
    script.large_usage_at = Some(0);
    let (agent, sb, server) = setup(flavor, "compact-held", script);
    sb.write(".hooks/hold-compaction", "");
    let sessions = sb.root().join("sessions").display().to_string();
    let run = run(
        &agent,
        &sb,
        &["--session-dir", &sessions],
        &["hello", "again"],
        &[],
    );
    finish(&run, &server, &sb);
    assert!(run.finished.success(), "{}", run.evidence());
    let summaries = server
        .model_turns()
        .iter()
        .filter(|r| {
            let text = r.body.to_string();
            text.contains("context summarization assistant")
                || text.contains("Write a handoff document for another instance of yourself")
        })
        .count();
    assert_eq!(summaries, 0, "a compaction ran\n{}", run.evidence());
    assert!(
        run.finished.stderr.contains(
            "hooks: [warning] compaction held: remove .hooks/hold-compaction to allow it"
        ),
        "{}",
        run.evidence()
    );
}

for_pi_and_omp!(
    held_compaction_is_held_and_says_so =>
        pi_bridge_holds_a_compaction_and_notifies,
        omp_bridge_holds_a_compaction_and_notifies
);

// ---------------------------------------------------------------------------------------
// The bridge's cost: the same scripted run with and without it (a measurement, reported and
// not asserted: BENCHMARKS.md has the figures)

fn bridge_overhead(flavor: Flavor) {
    const RUNS: usize = 5;
    let script = || {
        Script::new(vec![
            flavor.shell("echo E2E-TIMED"),
            Step::Text("done".into()),
        ])
    };
    let (agent, with, _first) = setup(flavor, "timed", script());
    // The same agent with an extension that does nothing, and with none.
    let empty = Sandbox::new(&format!("bridge-{}-empty", flavor.name()));
    empty.write(
        &format!("{}/extensions/empty.ts", flavor.config_dir()),
        "export default function () {}\n",
    );
    let none = Sandbox::new(&format!("bridge-{}-none", flavor.name()));
    let mut times: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..RUNS {
        for (i, sb) in [&with, &empty, &none].into_iter().enumerate() {
            // A fresh model server per run: its script is used up by one run.
            let server = ModelServer::start(script());
            agent.configure(sb, &server, "");
            let run = run(&agent, sb, &["--no-session"], &["go"], &[]);
            assert!(run.finished.success(), "{}", run.evidence());
            times[i].push(run.finished.elapsed.as_secs_f64());
        }
    }
    let [a, b, c] = times.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    });
    crate::report(&format!(
        "{}: a print run with one tool call, median of {RUNS}: {a:.2} s with the bridge, {b:.2} s \
         with an empty extension ({:+.1}%), {c:.2} s with none ({:+.1}%)",
        flavor.name(),
        (a / b - 1.0) * 100.0,
        (a / c - 1.0) * 100.0
    ));
}

for_pi_and_omp!(
    #[ignore = "a measurement, not a check: cargo test -p tests --test e2e bridge_overhead -- --ignored"]
    bridge_overhead => pi_bridge_overhead, omp_bridge_overhead
);
