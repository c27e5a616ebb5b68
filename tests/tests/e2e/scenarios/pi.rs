//! pi 0.73.1 and oh-my-pi 18.2.3: what an extension really gets and what its results do, as
//! the groundwork of the bridge (issue 16). Each scenario runs one agent in print mode with
//! the stand-in extension (`agent/pi_probe.ts`) and checks its log, the model's requests and
//! the session files. /work/notes/pi-facts.md has the findings in prose.
//!
//! Payloads of the events seen are pinned as fixtures in `tests/fixtures/agents/<pi|omp>/`:
//! a run compares the shape of each payload (keys, nesting, value types) with its fixture;
//! `HOOKS_E2E_FIXTURES=write` rewrites them from the run (scratch paths scrubbed).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::Sandbox;
use crate::agent::pi::{Flavor, PiAgent, PiRun, Place, Probe, deliveries, notes, order};
use crate::fixtures;
use crate::model::{ModelServer, Script, Step};

/// Our 25 events (SPEC.md §3).
const OURS: [&str; 25] = [
    "session_start",
    "session_before_switch",
    "session_switch",
    "session_before_branch",
    "session_branch",
    "session_before_compact",
    "session.compacting",
    "session_compact",
    "session_before_tree",
    "session_tree",
    "session_shutdown",
    "context",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "auto_compaction_start",
    "auto_compaction_end",
    "auto_retry_start",
    "auto_retry_end",
    "ttsr_triggered",
    "todo_reminder",
    "tool_call",
    "tool_result",
];

/// pi's own events the bridge maps ours from, logged beside them.
const PI_EXTRAS: [&str; 5] = [
    "session_before_fork",
    "input",
    "resources_discover",
    "tool_execution_start",
    "tool_execution_end",
];

/// Every event the probe subscribes to.
fn all_events() -> Vec<&'static str> {
    OURS.iter().chain(PI_EXTRAS.iter()).copied().collect()
}

/// A scenario for the probe: every event logged, `on` answering some.
fn scenario(on: Value, commands: Value) -> Value {
    json!({ "events": all_events(), "on": on, "commands": commands })
}

/// The agent, a sandbox and a model server for `script`, configured.
fn setup(
    flavor: Flavor,
    name: &str,
    script: Script,
    settings: &str,
) -> (PiAgent, Sandbox, ModelServer) {
    let agent = PiAgent::for_suite(flavor);
    let sandbox = Sandbox::new(&format!("{}-{name}", flavor.name()));
    let server = ModelServer::start(script);
    agent.configure(&sandbox, &server, settings);
    (agent, sandbox, server)
}

/// `-e PATH` for a probe put at [`Place::Flag`].
fn flag(agent: &PiAgent, sandbox: &Sandbox, probe: &Probe) -> String {
    probe
        .install(agent, sandbox, Place::Flag, "flag")
        .display()
        .to_string()
}

/// Keeps the server log with the sandbox and checks that the agent left nothing running
/// (unless `leftovers_expected`).
fn finish(run: &PiRun, server: &ModelServer, sandbox: &Sandbox, leftovers_expected: bool) {
    server.save_log(sandbox.root());
    if !leftovers_expected {
        assert!(
            run.finished.leftovers.is_empty(),
            "the agent left processes running: {:?}",
            run.finished.leftovers
        );
    }
}

fn log_text(probe: &Probe) -> String {
    fs::read_to_string(&probe.log).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// Fixtures

fn fixture_path(flavor: Flavor, event: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/agents")
        .join(flavor.name())
        .join(format!("{event}.json"))
}

/// `line` (a delivery logged by the probe) without its run-specific parts: `keys`,
/// `dropped` and `payload`, with the sandbox and the model server's address replaced.
fn scrubbed(line: &Value, sandbox: &Sandbox, server: &ModelServer) -> Value {
    let fixture = json!({
        "event": line["event"], "keys": line["keys"], "dropped": line["dropped"], "payload": line["payload"],
    });
    let root = sandbox.root().display().to_string();
    let text = fixture
        .to_string()
        .replace(&root, "$SANDBOX")
        .replace(&server.url(), "$MODEL_SERVER")
        .replace(&crate::install::cache_dir().display().to_string(), "$CACHE");
    serde_json::from_str(&text).expect("scrubbed JSON")
}

/// Compares the first delivery of each of `events` in `log` with its fixture (by shape), or
/// writes the fixture when `HOOKS_E2E_FIXTURES=write`.
fn check_fixtures(
    flavor: Flavor,
    log: &[Value],
    events: &[&str],
    sandbox: &Sandbox,
    server: &ModelServer,
) {
    let write = std::env::var("HOOKS_E2E_FIXTURES").as_deref() == Ok("write");
    for event in events {
        let Some(line) = deliveries(log, event).first().copied() else {
            panic!("{event} was not delivered, so its fixture cannot be checked");
        };
        let live = scrubbed(line, sandbox, server);
        let path = fixture_path(flavor, event);
        if write {
            fs::create_dir_all(path.parent().expect("fixture dir")).expect("fixture dir");
            let text = serde_json::to_string_pretty(&live).expect("fixture JSON") + "\n";
            fs::write(&path, text).expect("write fixture");
            continue;
        }
        let pinned: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "no fixture {} ({e}): run with HOOKS_E2E_FIXTURES=write",
                path.display()
            )
        }))
        .expect("fixture is JSON");
        assert_eq!(
            fixtures::shape(&live),
            fixtures::shape(&pinned),
            "{event} as {} delivers it no longer has the shape of {}\nlive: {live}",
            flavor.name(),
            path.display()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Where extensions load from

fn extensions_load_from_project_user_and_flag(flavor: Flavor) {
    let (agent, sb, server) = setup(flavor, "places", Script::default(), "");
    let probe = Probe::new(&sb, &scenario(json!({}), json!({})));
    probe.install(&agent, &sb, Place::Project, "project");
    probe.install(&agent, &sb, Place::User, "user");
    let flagged = flag(&agent, &sb, &probe);
    let run = agent.run(&sb, &probe, &["--no-session", "-e", &flagged], &["hello"]);
    finish(&run, &server, &sb, false);
    let log = probe.lines();
    let loaded: Vec<&str> = log
        .iter()
        .filter(|l| l["what"] == "loaded")
        .filter_map(|l| l["probe"].as_str())
        .collect();
    let mut sorted = loaded.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["flag", "project", "user"],
        "copies loaded: {loaded:?}\n{}",
        run.evidence()
    );
    let runtime = log
        .iter()
        .find(|l| l["what"] == "loaded")
        .map(|l| l["data"]["runtime"].clone());
    let expected = if flavor == Flavor::Pi { "node" } else { "bun" };
    assert_eq!(runtime, Some(json!(expected)));
    crate::report(&format!(
        "{}: extensions loaded in the order {loaded:?}; run took {:.1} s, the first extension loaded after {:?}",
        flavor.name(),
        run.finished.elapsed.as_secs_f64(),
        run.time_to_extension(&log)
    ));
    assert!(run.finished.success(), "{}", run.evidence());
}

for_pi_and_omp!(
    extensions_load_from_project_user_and_flag =>
        pi_loads_extensions_from_project_user_and_flag,
        omp_loads_extensions_from_project_user_and_flag
);

// ---------------------------------------------------------------------------------------
// Which of our events a print run delivers, in which order, with which payloads

fn print_run_delivers_its_events_in_order(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("echo e2e-ordinary"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "order", script, "");
    let probe = Probe::new(&sb, &scenario(json!({}), json!({})));
    let flagged = flag(&agent, &sb, &probe);
    let run = agent.run(&sb, &probe, &["--no-session", "-e", &flagged], &["run it"]);
    finish(&run, &server, &sb, false);
    assert!(run.finished.success(), "{}", run.evidence());
    let log = probe.lines();
    let expected: &[&str] = match flavor {
        // pi: turn 1 has turn_start before context, turn 2 context before turn_start.
        Flavor::Pi => &[
            "session_start",
            "before_agent_start",
            "agent_start",
            "turn_start",
            "context",
            "tool_call",
            "tool_result",
            "turn_end",
            "context",
            "turn_start",
            "turn_end",
            "agent_end",
            "session_shutdown",
        ],
        // oh-my-pi: context before turn_start in every turn.
        Flavor::Omp => &[
            "session_start",
            "before_agent_start",
            "agent_start",
            "context",
            "turn_start",
            "tool_call",
            "tool_result",
            "turn_end",
            "context",
            "turn_start",
            "turn_end",
            "agent_end",
            "session_shutdown",
        ],
    };
    assert_eq!(order(&log, &OURS), expected, "{}", log_text(&probe));
    check_fixtures(
        flavor,
        &log,
        &[
            "session_start",
            "before_agent_start",
            "agent_start",
            "turn_start",
            "context",
            "tool_call",
            "tool_result",
            "turn_end",
            "agent_end",
            "session_shutdown",
        ],
        &sb,
        &server,
    );
}

for_pi_and_omp!(
    print_run_delivers_its_events_in_order =>
        pi_print_run_delivers_its_events_in_order,
        omp_print_run_delivers_its_events_in_order
);

// ---------------------------------------------------------------------------------------
// What the results of tool_call, tool_result, context and before_agent_start do

/// The reason the probe blocks `rm -rf` with.
const BLOCK_REASON: &str = "e2e: rm -rf blocked by the probe";

fn results_reach_the_model(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("rm -rf victim"),
        flavor.shell("echo E2E-ORIGINAL-OUTPUT"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "results", script, "");
    sb.write("victim/keep.txt", "precious\n");
    // pi's systemPrompt is one string (chained), oh-my-pi's a list of strings replacing it.
    let system_prompt = match flavor {
        Flavor::Pi => "event.systemPrompt + '\\nE2E-SYSTEM-PROMPT'",
        Flavor::Omp => "['E2E-SYSTEM-PROMPT']",
    };
    let on = json!({
        "tool_call": format!("if (String(event.input.command).includes('rm -rf')) return {{block: true, reason: '{BLOCK_REASON}'}};"),
        "tool_result": "if (JSON.stringify(event.content).includes('E2E-ORIGINAL-OUTPUT')) return {content: [{type: 'text', text: 'E2E-REWRITTEN'}]};",
        "before_agent_start": format!("return {{message: {{customType: 'debug-only', content: 'E2E-DEBUG-ONLY', display: true}}, systemPrompt: {system_prompt}}};"),
        // The first model request keeps the injected message, later ones drop it.
        "context": "globalThis.__e2eContexts = (globalThis.__e2eContexts ?? 0) + 1; if (globalThis.__e2eContexts === 1) return undefined; const kept = event.messages.filter(m => !(m.role === 'custom' && m.customType === 'debug-only')); probe.log('context filter', {before: event.messages.length, after: kept.length}); return {messages: kept};",
    });
    let probe = Probe::new(&sb, &scenario(on, json!({})));
    let flagged = flag(&agent, &sb, &probe);
    let run = agent.run(&sb, &probe, &["--no-session", "-e", &flagged], &["go"]);
    finish(&run, &server, &sb, false);
    assert!(
        sb.project.join("victim/keep.txt").exists(),
        "rm -rf ran\n{}",
        run.evidence()
    );
    let results = server.tool_results();
    let texts: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    // The reason reaches the model verbatim, as the tool's (error) result; the rewrite
    // replaces the whole output.
    assert_eq!(texts, [BLOCK_REASON, "E2E-REWRITTEN"], "{}", run.evidence());
    let turns = server.model_turns();
    assert!(turns.len() >= 3, "{} model turns", turns.len());
    for (i, turn) in turns.iter().enumerate() {
        assert!(
            turn.body["system"]
                .to_string()
                .contains("E2E-SYSTEM-PROMPT"),
            "request {i} lacks the system prompt from before_agent_start"
        );
        let has_debug = turn.body["messages"].to_string().contains("E2E-DEBUG-ONLY");
        assert_eq!(
            has_debug,
            i == 0,
            "request {i}: the injected message is {}",
            if has_debug { "there" } else { "missing" }
        );
    }
    // The injected custom message reaches the model as a user message of its own, after
    // the prompt.
    let first = turns[0].body["messages"].as_array().expect("messages");
    let injected = first
        .iter()
        .find(|m| m.to_string().contains("E2E-DEBUG-ONLY"))
        .expect("injected message");
    assert_eq!(injected["role"], "user", "{injected}");
    crate::report(&format!(
        "{}: the before_agent_start message reached the model as {injected}",
        flavor.name()
    ));
    if flavor == Flavor::Omp {
        // oh-my-pi's list replaces the whole system prompt (only its Claude Code preamble
        // blocks remain).
        assert!(
            !turns[0].body["system"]
                .to_string()
                .contains("<conventions>"),
            "{}",
            turns[0].body["system"]
        );
    }
}

for_pi_and_omp!(
    results_reach_the_model =>
        pi_block_rewrite_context_and_injection_reach_the_model,
        omp_block_rewrite_context_and_injection_reach_the_model
);

// ---------------------------------------------------------------------------------------
// Commands and the UI in print mode

/// Calls every ctx.ui method the bridge answers and logs what each returned.
const UI_CALLS: &str = "
const r = {};
const t = async (k, f) => { try { const v = await f(); r[k] = v === undefined ? '<undefined>' : v; } catch (e) { r[k] = 'threw: ' + e.message; } };
await t('notify', () => ctx.ui.notify('E2E-NOTIFY', 'info'));
await t('notifyError', () => ctx.ui.notify('E2E-NOTIFY-ERROR', 'error'));
await t('setStatus', () => ctx.ui.setStatus('probe', 'E2E-STATUS'));
await t('setWidget', () => ctx.ui.setWidget('probe', ['E2E-WIDGET']));
await t('setTitle', () => ctx.ui.setTitle('E2E-TITLE'));
await t('confirm', () => ctx.ui.confirm('E2E-CONFIRM', 'allow?'));
await t('select', () => ctx.ui.select('E2E-SELECT', ['a', 'b']));
await t('input', () => ctx.ui.input('E2E-INPUT', 'placeholder'));
await t('editor', () => ctx.ui.editor('E2E-EDITOR', 'prefill'));
await t('getEditorText', () => ctx.ui.getEditorText());
await t('hasUI', () => ctx.hasUI);
probe.log('ui', r);
await t('sendMessage', () => pi.sendMessage({customType: 'e2e-sent', content: 'E2E-SENT-MESSAGE', display: true}));
await t('appendEntry', () => pi.appendEntry('e2e-entry', {n: 1}));
probe.log('sent', r);
";

fn print_prompt_runs_a_command_and_the_ui_is_inert(flavor: Flavor) {
    let (agent, sb, server) = setup(flavor, "command", Script::default(), "");
    let commands = json!({"e2e-cmd": {"description": "E2E command", "body": UI_CALLS}});
    let probe = Probe::new(&sb, &scenario(json!({}), commands));
    let flagged = flag(&agent, &sb, &probe);
    let sessions = sb.root().join("sessions");
    let sessions = sessions.display().to_string();
    let run = agent.run(
        &sb,
        &probe,
        &["--session-dir", &sessions, "--mode", "json", "-e", &flagged],
        &["/e2e-cmd alpha  beta"],
    );
    finish(&run, &server, &sb, false);
    assert!(run.finished.success(), "{}", run.evidence());
    let log = probe.lines();
    let calls: Vec<&Value> = log
        .iter()
        .filter(|l| l["event"] == "command" && l.get("phase").is_none())
        .collect();
    assert_eq!(calls.len(), 1, "{}", log_text(&probe));
    assert_eq!(calls[0]["args"], "alpha  beta", "the arguments, as typed");
    assert!(
        server.model_turns().is_empty(),
        "a command prompt reached the model"
    );
    let ui = notes(&log, "ui");
    let ui = ui.first().expect("ui results");
    let undefined = json!("<undefined>");
    for (k, v) in [
        ("notify", &undefined),
        ("setStatus", &undefined),
        ("confirm", &json!(false)),
        ("select", &undefined),
        ("input", &undefined),
        ("editor", &undefined),
        ("getEditorText", &json!("")),
        ("hasUI", &json!(false)),
    ] {
        assert_eq!(&ui[k], v, "ctx.ui.{k} in print mode: {ui}");
    }
    for marker in ["E2E-NOTIFY", "E2E-STATUS", "E2E-WIDGET", "E2E-TITLE"] {
        assert!(
            !run.finished.stdout.contains(marker) && !run.finished.stderr.contains(marker),
            "{marker} appeared in the output:\n{}",
            run.evidence()
        );
    }
    // sendMessage without triggerTurn starts no turn.
    assert!(server.model_turns().is_empty());
}

for_pi_and_omp!(
    print_prompt_runs_a_command_and_the_ui_is_inert =>
        pi_print_prompt_runs_a_command_and_the_ui_is_inert,
        omp_print_prompt_runs_a_command_and_the_ui_is_inert
);

// ---------------------------------------------------------------------------------------
// Session events: tree navigation, a new session (handoff), a fork/branch, a switch back

/// The probe's session commands: `/e2e-tree`, `/e2e-handoff` (SPEC.md's canonical example:
/// a new session whose parent is the current file, seeded with a user message),
/// `/e2e-branch` (pi's `fork`, oh-my-pi's `branch`) and `/e2e-switch` (back to the parent).
fn session_commands() -> Value {
    json!({
        "e2e-tree": {"description": "tree", "body": "
const first = ctx.sessionManager.getEntries().find(e => e.type === 'message');
return {target: first.id, result: await ctx.navigateTree(first.id, {summarize: false})};"},
        "e2e-handoff": {"description": "Create a new session with setup message", "body": "
await ctx.waitForIdle();
const parent = ctx.sessionManager.getSessionFile();
globalThis.__e2eParent = parent;
const result = await ctx.newSession({parentSession: parent, setup: async sm => {
  sm.appendMessage({role: 'user', content: [{type: 'text', text: 'Continue from prior session summary.'}], timestamp: Date.now()});
}, withSession: async c => probe.log('withSession', {file: c.sessionManager.getSessionFile()})});
let after; try { after = ctx.sessionManager.getSessionFile(); } catch (e) { after = 'threw: ' + e.message; }
return {parent, result, after};"},
        "e2e-branch": {"description": "branch", "body": "
const user = ctx.sessionManager.getEntries().find(e => e.type === 'message' && e.message.role === 'user');
const result = typeof ctx.fork === 'function' ? await ctx.fork(user.id) : await ctx.branch(user.id);
return {entry: user.id, result};"},
        "e2e-switch": {"description": "switch", "body": "
    return {target: globalThis.__e2eParent, result: await ctx.switchSession(globalThis.__e2eParent)};"},
    })
}

/// The session files in `dir` with their header line (`type: session`).
fn session_headers(dir: &Path) -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        if let Some(header) = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|l| l["type"] == "session")
        {
            out.push((entry.path(), header));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn session_commands_fire_the_session_events(flavor: Flavor) {
    let script = Script::new(vec![
        Step::Text("first answer".into()),
        Step::Text("answer in the new session".into()),
    ]);
    let (agent, sb, server) = setup(flavor, "sessions", script, "");
    let probe = Probe::new(&sb, &scenario(json!({}), session_commands()));
    let flagged = flag(&agent, &sb, &probe);
    let dir = sb.root().join("sessions");
    let dir_arg = dir.display().to_string();
    let run = agent.run(
        &sb,
        &probe,
        &["--session-dir", &dir_arg, "-e", &flagged],
        &[
            "hello",
            "/e2e-tree",
            "/e2e-handoff",
            "after the handoff",
            "/e2e-branch",
            "/e2e-switch",
        ],
    );
    finish(&run, &server, &sb, false);
    assert!(run.finished.success(), "{}", run.evidence());
    let log = probe.lines();
    let threw: Vec<&Value> = log.iter().filter(|l| l["phase"] == "threw").collect();
    assert!(threw.is_empty(), "{threw:?}");
    let session_events: Vec<&str> = OURS
        .iter()
        .chain(PI_EXTRAS.iter())
        .copied()
        .filter(|e| e.starts_with("session"))
        .collect();
    let seen = order(&log, &session_events);
    let reasons = |event: &str| -> Vec<Value> {
        deliveries(&log, event)
            .iter()
            .map(|l| l["payload"]["reason"].clone())
            .collect()
    };
    match flavor {
        Flavor::Pi => {
            assert_eq!(
                seen,
                [
                    "session_start",
                    "session_before_tree",
                    "session_tree",
                    "session_before_switch",
                    "session_shutdown",
                    "session_start",
                    "session_before_fork",
                    "session_shutdown",
                    "session_start",
                    "session_before_switch",
                    "session_shutdown",
                    "session_start",
                    "session_shutdown",
                ],
                "{}",
                log_text(&probe)
            );
            assert_eq!(
                reasons("session_start"),
                ["startup", "new", "fork", "resume"]
            );
            assert_eq!(
                reasons("session_shutdown"),
                ["new", "fork", "resume", "quit"]
            );
            assert_eq!(reasons("session_before_switch"), ["new", "resume"]);
        }
        Flavor::Omp => {
            assert_eq!(
                seen,
                [
                    "session_start",
                    "session_before_tree",
                    "session_tree",
                    "session_before_switch",
                    "session_switch",
                    "session_before_branch",
                    "session_branch",
                    "session_before_switch",
                    "session_switch",
                    "session_shutdown",
                ],
                "{}",
                log_text(&probe)
            );
            assert_eq!(reasons("session_switch"), ["new", "resume"]);
        }
    }
    // The handoff's session file names its parent and holds the seeded message.
    let parent = notes(&log, "withSession");
    let headers = session_headers(&dir);
    let handoff = log
        .iter()
        .find(|l| l["event"] == "command" && l["name"] == "e2e-handoff" && l["phase"] == "returned")
        .expect("handoff returned");
    let parent_file = handoff["result"]["parent"].as_str().expect("parent file");
    let child = headers
        .iter()
        .find(|(_, h)| h["parentSession"] == parent_file)
        .unwrap_or_else(|| panic!("no session file has parentSession {parent_file}: {headers:?}"));
    let text = fs::read_to_string(&child.0).expect("handoff session file");
    assert!(
        text.contains("Continue from prior session summary."),
        "{text}"
    );
    crate::report(&format!(
        "{}: session files {:?}; withSession saw {parent:?}; ctx after newSession: {}",
        flavor.name(),
        headers
            .iter()
            .map(|(p, h)| (
                p.file_name().unwrap_or_default().to_owned(),
                h["parentSession"].clone()
            ))
            .collect::<Vec<_>>(),
        handoff["result"]["after"]
    ));
    let pinned: &[&str] = match flavor {
        Flavor::Pi => &[
            "session_before_tree",
            "session_tree",
            "session_before_switch",
            "session_before_fork",
        ],
        Flavor::Omp => &[
            "session_before_tree",
            "session_tree",
            "session_before_switch",
            "session_switch",
            "session_before_branch",
            "session_branch",
        ],
    };
    check_fixtures(flavor, &log, pinned, &sb, &server);
}

for_pi_and_omp!(
    session_commands_fire_the_session_events =>
        pi_session_commands_fire_the_session_events,
        omp_session_commands_fire_the_session_events
);

// ---------------------------------------------------------------------------------------
// Compaction in a print run: the model reports a context beyond the window

fn compaction(flavor: Flavor, hold: bool) -> (Vec<Value>, PiRun, ModelServer) {
    let mut script = Script::new(vec![
        Step::Text("first answer".into()),
        Step::Text("second answer".into()),
    ]);
    script.large_usage_at = Some(0);
    let name = if hold { "compact-held" } else { "compact" };
    let (agent, sb, server) = setup(flavor, name, script, "");
    let on = if hold {
        json!({"session_before_compact": "return {cancel: true};"})
    } else {
        json!({})
    };
    let probe = Probe::new(&sb, &scenario(on, json!({})));
    let flagged = flag(&agent, &sb, &probe);
    let dir = sb.root().join("sessions").display().to_string();
    let run = agent.run(
        &sb,
        &probe,
        &["--session-dir", &dir, "--mode", "json", "-e", &flagged],
        &["hello", "again"],
    );
    finish(&run, &server, &sb, false);
    assert!(run.finished.success(), "{}", run.evidence());
    let log = probe.lines();
    if !hold {
        let pinned: &[&str] = match flavor {
            Flavor::Pi => &["session_before_compact", "session_compact"],
            Flavor::Omp => &[
                "auto_compaction_start",
                "session_before_compact",
                "session.compacting",
                "session_compact",
                "auto_compaction_end",
            ],
        };
        check_fixtures(flavor, &log, pinned, &sb, &server);
    }
    (log, run, server)
}

/// Whether a request asked the model for a summary (pi's and oh-my-pi's prompts).
fn summary_requests(server: &ModelServer) -> usize {
    server
        .model_turns()
        .iter()
        .filter(|r| {
            let text = r.body.to_string();
            text.contains("context summarization assistant")
                || text.contains("Write a handoff document for another instance of yourself")
        })
        .count()
}

fn overflow_compaction_fires_the_compact_events(flavor: Flavor) {
    let (log, run, server) = compaction(flavor, false);
    let session_events = [
        "session_before_compact",
        "session.compacting",
        "session_compact",
    ];
    let seen = order(&log, &session_events);
    match flavor {
        // pi compacts after agent_end, finishing while the next prompt already runs; its
        // compaction_start/end exist only in the json output.
        Flavor::Pi => {
            assert_eq!(
                seen,
                ["session_before_compact", "session_compact"],
                "{seen:?}"
            );
            assert!(
                run.finished
                    .stdout
                    .contains(r#"{"type":"compaction_start","reason":"overflow"}"#),
                "{}",
                run.evidence()
            );
        }
        // oh-my-pi tries its methods in turn: "shake" and "context-full" are skipped
        // (auto_compaction_end {skipped: true}), "handoff" compacts.
        Flavor::Omp => {
            assert_eq!(seen, session_events, "{seen:?}");
            let actions: Vec<(Value, Value)> = deliveries(&log, "auto_compaction_end")
                .iter()
                .map(|l| {
                    (
                        l["payload"]["action"].clone(),
                        l["payload"]["skipped"].clone(),
                    )
                })
                .collect();
            assert_eq!(
                actions,
                [
                    (json!("shake"), json!(true)),
                    (json!("context-full"), json!(true)),
                    (json!("handoff"), Value::Null),
                ],
                "{}",
                run.evidence()
            );
        }
    }
    assert!(summary_requests(&server) >= 1, "no summary request");
}

for_pi_and_omp!(
    overflow_compaction_fires_the_compact_events =>
        pi_overflow_compaction_fires_the_compact_events,
        omp_overflow_compaction_fires_the_compact_events
);

fn cancelled_compaction_is_held(flavor: Flavor) {
    let (log, run, server) = compaction(flavor, true);
    assert!(
        !deliveries(&log, "session_before_compact").is_empty(),
        "{}",
        run.evidence()
    );
    assert!(deliveries(&log, "session_compact").is_empty());
    assert_eq!(
        summary_requests(&server),
        0,
        "the model was asked for a summary"
    );
}

for_pi_and_omp!(
    cancelled_compaction_is_held =>
        pi_cancelled_compaction_is_held,
        omp_cancelled_compaction_is_held
);

// ---------------------------------------------------------------------------------------
// A handler that throws or hangs

fn failing_handlers(flavor: Flavor) {
    let script = Script::new(vec![
        flavor.shell("echo E2E-THROW"),
        flavor.shell("echo E2E-HANG"),
        flavor.shell("echo E2E-RESULT-THROW"),
        Step::Text("done".into()),
    ]);
    // oh-my-pi's tool_call budget is a setting (default 30 s); the others are fixed.
    let settings = "extensionHandlers:\n  toolCallTimeoutMs: 1500\n";
    let (agent, sb, server) = setup(flavor, "failures", script, settings);
    let on = json!({
        "tool_call": "const c = String(event.input.command);
if (c.includes('E2E-THROW')) throw new Error('e2e: tool_call threw');
if (c.includes('E2E-HANG')) { await probe.sleep(3000); probe.log('hang over'); }",
        "tool_result": "if (JSON.stringify(event.content).includes('E2E-RESULT-THROW')) throw new Error('e2e: tool_result threw');",
        "before_agent_start": "throw new Error('e2e: before_agent_start threw');",
        "session_shutdown": "await probe.sleep(3000); probe.log('shutdown hang over');",
    });
    let probe = Probe::new(&sb, &scenario(on, json!({})));
    let path = probe.install(&agent, &sb, Place::Flag, "flag");
    let path = path.display().to_string();
    let run = agent.run(&sb, &probe, &["--no-session", "-e", &path], &["go"]);
    finish(&run, &server, &sb, false);
    assert!(run.finished.success(), "{}", run.evidence());
    let log = probe.lines();
    let texts: Vec<String> = server.tool_results().into_iter().map(|(_, t)| t).collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    let stderr = &run.finished.stderr;
    for reported in ["before_agent_start threw", "tool_result threw"] {
        assert!(
            stderr.contains(&format!("Extension error ({path}): e2e: {reported}")),
            "{stderr}"
        );
    }
    // A throwing tool_result handler leaves the output as it was.
    assert!(texts[2].starts_with("E2E-RESULT-THROW\n"), "{texts:?}");
    let shutdown_done = !notes(&log, "shutdown hang over").is_empty();
    match flavor {
        Flavor::Pi => {
            // The error's message alone is the blocked call's result; no handler budget.
            assert_eq!(texts[0], "e2e: tool_call threw");
            assert!(!stderr.contains("tool_call threw"), "{stderr}");
            assert_eq!(
                texts[1], "E2E-HANG\n",
                "the 3 s tool_call handler was waited for"
            );
            assert!(
                shutdown_done,
                "pi did not wait for the 3 s session_shutdown handler"
            );
        }
        Flavor::Omp => {
            assert_eq!(
                texts[0],
                format!("Extension {path} failed: e2e: tool_call threw")
            );
            assert_eq!(texts[1], format!("Extension {path} timed out after 1500ms"));
            assert!(
                stderr.contains(&format!(
                    "Extension error ({path}): handler timed out after 2000ms"
                )),
                "{stderr}"
            );
            assert!(
                !shutdown_done,
                "oh-my-pi waited past its 2 s session_shutdown budget"
            );
        }
    }
}

for_pi_and_omp!(
    failing_handlers =>
        pi_failing_handlers_block_or_are_reported_and_none_times_out,
        omp_failing_handlers_block_or_are_reported_within_their_budgets
);

// ---------------------------------------------------------------------------------------
// A child process behind the extension, answering JSON lines over its stdio (the bridge's
// shape)

/// The child: answers each JSON line on stdin with one on stdout (blocks `rm -rf`, rewrites
/// every result), records its start, end of input and signals in $CHILD_LOG, and exits at
/// the end of its input unless $CHILD_MODE is `stubborn`. Runs under node and bun alike.
const CHILD_JS: &str = r#"
const fs = require("fs");
const note = (what) => fs.appendFileSync(process.env.CHILD_LOG, JSON.stringify({ pid: process.pid, ppid: process.ppid, what }) + "\n");
const stubborn = process.env.CHILD_MODE === "stubborn";
note("start");
for (const s of ["SIGTERM", "SIGHUP", "SIGINT", "SIGPIPE"]) process.on(s, () => { note("signal " + s); if (!stubborn) process.exit(0); });
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    let a = {};
    if (m.event === "tool_call" && String(m.input.command).includes("rm -rf")) a = { block: true, reason: `e2e child ${process.pid} blocks rm -rf` };
    if (m.event === "tool_result") a = { content: [{ type: "text", text: `e2e child ${process.pid} rewrote the output` }] };
    process.stdout.write(JSON.stringify(a) + "\n");
  }
});
process.stdin.on("end", () => { note("stdin eof"); if (!stubborn) process.exit(0); setInterval(() => {}, 1000); });
"#;

/// How the child is run and let go.
struct ChildCase {
    name: &'static str,
    mode: &'static str,
    /// Whether session_shutdown ends the child's stdin (and unrefs it).
    close_at_shutdown: bool,
    /// Whether the child starts a session of its own (`detached`), out of the agent's
    /// process group, which the harness kills the moment the agent exits.
    detached: bool,
    limit: std::time::Duration,
}

fn child_run(flavor: Flavor, case: &ChildCase) -> (PiRun, Vec<Value>, ModelServer, Sandbox) {
    let script = Script::new(vec![
        flavor.shell("rm -rf victim"),
        flavor.shell("echo E2E-CHILD"),
        Step::Text("done".into()),
    ]);
    let (agent, sb, server) = setup(flavor, case.name, script, "");
    sb.write("victim/keep.txt", "precious\n");
    let child = sb.root().join("child.js");
    fs::write(&child, CHILD_JS).expect("write the child");
    let child_log = sb.root().join("child.jsonl");
    let shutdown = if case.close_at_shutdown {
        "const c = probe.child(); c.stdin.end(); c.unref(); c.stdout.unref?.();"
    } else {
        ""
    };
    let on = json!({
        "session_start": format!(
            "probe.log('spawned', {{pid: probe.spawnChild(process.execPath, [{:?}], {{detached: {}}}), runtime: process.execPath}});",
            child.display().to_string(),
            case.detached
        ),
        "tool_call": "const a = await probe.ask({event: 'tool_call', input: event.input}); return a.block ? {block: true, reason: a.reason} : undefined;",
        "tool_result": "const a = await probe.ask({event: 'tool_result', content: event.content}); return {content: a.content};",
        "session_shutdown": shutdown,
    });
    let probe = Probe::new(&sb, &scenario(on, json!({})));
    let flagged = flag(&agent, &sb, &probe);
    let log_env = child_log.display().to_string();
    let run = agent.run_with_env(
        &sb,
        &probe,
        &["--no-session", "-e", &flagged],
        &["go"],
        &[("CHILD_LOG", &log_env), ("CHILD_MODE", case.mode)],
        case.limit,
    );
    server.save_log(sb.root());
    let notes_of_child = fs::read_to_string(&child_log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (run, notes_of_child, server, sb)
}

fn child_answers_and_ends_with_its_input(flavor: Flavor) {
    let case = ChildCase {
        name: "child",
        mode: "polite",
        close_at_shutdown: true,
        detached: false,
        limit: crate::agent::RUN_LIMIT,
    };
    let (run, child, server, sb) = child_run(flavor, &case);
    assert!(run.finished.success(), "{}", run.evidence());
    assert!(sb.project.join("victim/keep.txt").exists(), "rm -rf ran");
    let pid = child
        .first()
        .and_then(|n| n["pid"].as_i64())
        .expect("the child started");
    let texts: Vec<String> = server.tool_results().into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        texts,
        [
            format!("e2e child {pid} blocks rm -rf"),
            format!("e2e child {pid} rewrote the output"),
        ]
    );
    assert!(
        child.iter().any(|n| n["what"] == "stdin eof"),
        "the child saw no end of input: {child:?}"
    );
    assert!(
        run.finished.leftovers.is_empty(),
        "{:?}",
        run.finished.leftovers
    );
}

for_pi_and_omp!(
    child_answers_and_ends_with_its_input =>
        pi_child_answers_over_json_lines_and_ends_with_its_input,
        omp_child_answers_over_json_lines_and_ends_with_its_input
);

fn child_that_ignores_end_of_input_outlives_the_agent(flavor: Flavor) {
    let case = ChildCase {
        name: "child-stubborn",
        mode: "stubborn",
        close_at_shutdown: true,
        detached: true,
        limit: crate::agent::RUN_LIMIT,
    };
    let (run, child, _server, _sb) = child_run(flavor, &case);
    assert!(run.finished.success(), "{}", run.evidence());
    // Nothing signals it: the agent exits, the child stays (the harness kills it by its
    // marker and lists it here). A child left in the agent's process group stays the same
    // way, until something kills the group (a terminal's hangup does).
    assert!(
        !child
            .iter()
            .any(|n| n["what"].as_str().is_some_and(|w| w.starts_with("signal"))),
        "{child:?}"
    );
    assert!(
        run.finished
            .leftovers
            .iter()
            .any(|l| l.contains("child.js")),
        "the child did not outlive the agent: {:?}",
        run.finished.leftovers
    );
}

for_pi_and_omp!(
    child_that_ignores_end_of_input_outlives_the_agent =>
        pi_child_that_ignores_end_of_input_outlives_the_agent,
        omp_child_that_ignores_end_of_input_outlives_the_agent
);

/// pi returns from print mode and waits for node's event loop to drain: a child whose pipes
/// stay open keeps it running for good. oh-my-pi exits (process.exit) all the same.
fn open_child_pipes_at_exit(flavor: Flavor) {
    let case = ChildCase {
        name: "child-open",
        mode: "polite",
        close_at_shutdown: false,
        detached: false,
        limit: std::time::Duration::from_secs(20),
    };
    let (run, _child, server, _sb) = child_run(flavor, &case);
    assert_eq!(server.tool_results().len(), 2, "{}", run.evidence());
    match flavor {
        Flavor::Pi => assert!(
            run.finished.status.is_none(),
            "pi exited although a child's pipes were open: {}",
            run.evidence()
        ),
        Flavor::Omp => assert!(run.finished.success(), "{}", run.evidence()),
    }
}

for_pi_and_omp!(
    open_child_pipes_at_exit =>
        pi_print_run_never_exits_while_a_child_holds_its_pipes,
        omp_print_run_exits_although_a_child_holds_its_pipes
);
