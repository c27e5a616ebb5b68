//! The examples bundle served through an agent's adapter, `hooks install AGENT` in place,
//! checked on what the model received: the scenarios every agent shares, written once over
//! [`Agent`] and run for each agent with its own data (Claude Code and Codex run theirs from
//! `claude` and `codex`; Gemini CLI, Qwen Code, Factory Droid and Copilot CLI from the modules
//! below).
//!
//! The guard blocks `rm -rf victim` and the model gets its reason; `ls` runs quietly; a read
//! of a file holding a secret reaches the model redacted (or, where the agent cannot replace
//! a tool's result, not at all); `/handoff` is answered without a model call; the installed
//! gate fed a truncated input blocks the call; an author's own binary, `hooks-e2e`
//! (tests/bundles/e2e-bundle), installed the same way, puts its `session_start` message in
//! front of the model.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::{self, Agent, AgentRun, HookFailures, Sandbox, assert_no_hook_failure};
use crate::fixtures::{self, REDACTED, SECRET, secret_line};
use crate::host_binary;
use crate::model::{self, ModelServer, Script, Step};

/// The guard's reason (examples/src/block_rm.rs).
pub(super) const GUARD_REASON: &str = "rm -rf blocked (no UI)";

/// The text `hooks-e2e` sends on `session_start` (tests/bundles/e2e-bundle).
const SESSION_CONTEXT: &str = "E2E-SESSION-START-CONTEXT";

/// The text `hooks-e2e`'s `context` handler replaces in user messages, and its replacement.
const REWRITE_ME: &str = "E2E-CONTEXT-REWRITE-ME";
/// See [`REWRITE_ME`].
const REWRITTEN: &str = "E2E-CONTEXT-REWRITTEN";

/// The file `ls` must show.
const LISTED: &str = "listed-file.txt";

/// Asserts that a tool result the model got is the guard's reason.
pub(super) fn assert_the_model_got_the_guard_s_reason(server: &ModelServer, evidence: &str) {
    let results = server.tool_results();
    assert!(
        results.iter().any(|(_, text)| text.contains(GUARD_REASON)),
        "the model did not get the guard's reason: {results:?}\n{evidence}"
    );
}

/// The model runs `rm -rf victim`: the guard blocks it, the model gets its reason, and the run
/// ends well.
pub(super) fn rm_rf_is_blocked_and_the_model_gets_the_reason<A: Agent>(name: &str) {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let (agent, sb) = agent::installed::<A>(name, &server);
    let kept = sb.victims(&["victim"]);
    let run = agent.run(&sb, &server, "delete the victim directory");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    assert_the_model_got_the_guard_s_reason(&server, &run.evidence());
    assert!(run.finished().success(), "{}", run.evidence());
}

/// The model runs `ls`, then answers `listed`: its one tool result lists the file and says no
/// word about hooks. Returns the run, the sandbox and the server, for what the agent itself
/// must not have shown.
pub(super) fn ls_runs_quietly<A: Agent>(name: &str) -> (A::Run, Sandbox, ModelServer) {
    let server = ModelServer::start(Script::shell_then("ls", "listed"));
    let (agent, sb) = agent::installed::<A>(name, &server);
    sb.write(LISTED, "hello\n");
    let run = agent.run(&sb, &server, "list the files");
    let results = server.tool_results();
    assert_eq!(results.len(), 1, "{results:?}\n{}", run.evidence());
    assert!(
        results[0].1.contains(LISTED) && !results[0].1.to_lowercase().contains("hook"),
        "the model received {:?}\n{}",
        results[0].1,
        run.evidence()
    );
    assert_eq!(
        run.answer().as_deref(),
        Some("listed"),
        "{}",
        run.evidence()
    );
    (run, sb, server)
}

/// The model runs `command`, which prints `secret.env` (`API_KEY=...`): the secret never
/// reaches it, and the one tool result it gets is the redacted output. Returns the run.
pub(super) fn a_secret_printed_by_a_command_is_redacted<A: Agent>(
    name: &str,
    command: &str,
) -> A::Run {
    let server = ModelServer::start(Script::shell_then(command, "read"));
    let (agent, sb) = agent::installed::<A>(name, &server);
    sb.write("secret.env", format!("{}\n", secret_line()));
    let run = agent.run(&sb, &server, "show secret.env");
    let results = server.tool_results();
    assert!(
        server.received(SECRET).is_empty(),
        "tool results: {results:?}\n{}",
        run.evidence()
    );
    assert!(
        results.len() == 1 && results[0].1.contains(REDACTED),
        "the redacted output did not reach the model: {results:?}\n{}",
        run.evidence()
    );
    run
}

/// The prompt `/handoff`, a command of the examples: the prompt never reaches the model.
/// Returns the run, for where the agent showed the command's answer.
pub(super) fn a_prompt_command_answers_without_a_model_call<A: Agent>(name: &str) -> A::Run {
    let server = ModelServer::start(Script::new(vec![Step::Text("unexpected".into())]));
    let (agent, sb) = agent::installed::<A>(name, &server);
    let run = agent.run(&sb, &server, "/handoff");
    assert!(
        server.model_turns().is_empty(),
        "the prompt reached the model:\n{}",
        run.evidence()
    );
    run
}

/// Asserts what the installed `SessionStart` command, run through a [`fixtures::tee`] in the
/// sandbox, was asked and answered: it succeeded every time, the calls' sources were
/// `sources` in order, and only the `startup` one ran the examples' `session_start` hook (its
/// `tools run: 0` status line): a resume is a `session_switch`, which no example handles, and
/// a compaction is no new session.
pub(super) fn assert_only_startup_starts_a_session(agent: &str, sb: &Sandbox, sources: &[&str]) {
    let calls: Vec<(String, String)> = fixtures::teed(sb.root())
        .into_iter()
        .map(|(input, output, code)| {
            assert_eq!(code, 0, "{input} -> {output}");
            (input["source"].as_str().unwrap_or("").to_owned(), output)
        })
        .collect();
    crate::report(&format!("{agent} SessionStart answers: {calls:?}"));
    let seen: Vec<&str> = calls.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(seen, sources, "{calls:?}");
    for (source, output) in &calls {
        let started = output.contains("status: tools run: 0");
        assert_eq!(started, source == "startup", "{source}: {output:?}");
    }
}

/// How an agent's guarded run goes ([`the_guard_blocks_ls_is_quiet_and_a_read_secret_is`]).
struct Guarded {
    /// The value of `API_KEY` in `secret.env` (one the agent does not mask by itself).
    secret: &'static str,
    /// `ls` as the model runs it.
    ls: &'static str,
    /// The agent's read tool and its path argument.
    read: (&'static str, &'static str),
    /// What the model gets of the read.
    the_read: TheRead,
}

/// What the model gets of a read of `secret.env`.
enum TheRead {
    /// A result with the redacted line, and the run goes on to its answer.
    Redacted,
    /// The file redacted and nothing else, and the run goes on to its answer.
    TheFileRedacted,
    /// Nothing: the agent cannot replace a tool's result, so the read ends the run.
    Withheld,
}

/// One guarded run: the model asks for `rm -rf victim`, then `ls`, then reads `secret.env`
/// (`name=demo`, `API_KEY=SECRET`), then answers `done`; `arrange` runs before the agent does.
/// The victim survives, the first tool result has the guard's reason, the second lists
/// [`LISTED`] without a word about hooks, the secret never reaches the model, the read
/// reaches it as [`Guarded::the_read`] says, and no hook fails. Returns the run, the sandbox
/// and what `arrange` returned, for the agent's own checks.
fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is<A, T>(
    name: &str,
    guarded: &Guarded,
    arrange: impl FnOnce(&Sandbox) -> T,
) -> (A::Run, Sandbox, T)
where
    A: Agent,
    A::Run: HookFailures,
{
    let agent = A::for_suite();
    let sb = Sandbox::new(name);
    sb.write("victim/keep.txt", "precious\n");
    sb.write(LISTED, "hello\n");
    let secret = sb.write(
        "secret.env",
        format!("name=demo\nAPI_KEY={}\n", guarded.secret),
    );
    let (tool, key) = guarded.read;
    let server = ModelServer::start(Script::new(vec![
        Step::Shell("rm -rf victim".into()),
        Step::Shell(guarded.ls.into()),
        Step::tool(tool, json!({ key: secret })),
        Step::Text("done".into()),
    ]));
    A::configure(&sb, &server);
    agent.install_hooks(&sb);
    let arranged = arrange(&sb);
    let run = agent.run(&sb, &server, "tidy up");
    let evidence = run.evidence();
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
    assert!(
        server.received(guarded.secret).is_empty(),
        "the secret reached the model: {:?}\n{evidence}",
        server.received(guarded.secret)
    );
    let read = results.get(2).map(|(_, r)| r.as_str());
    match guarded.the_read {
        TheRead::Redacted => assert!(
            read.is_some_and(|r| r.contains(REDACTED)),
            "the read did not reach the model redacted: {results:?}\n{evidence}"
        ),
        TheRead::TheFileRedacted => assert_eq!(
            read,
            Some(format!("name=demo\n{REDACTED}\n").as_str()),
            "{evidence}"
        ),
        TheRead::Withheld => assert_eq!(results.len(), 2, "{results:?}\n{evidence}"),
    }
    if !matches!(guarded.the_read, TheRead::Withheld) {
        assert_eq!(run.answer().as_deref(), Some("done"), "{evidence}");
    }
    assert_no_hook_failure(&run);
    (run, sb, arranged)
}

/// The installed gate's command (at `pointer` in [`Agent::installed_hooks`]) fed a truncated
/// JSON input instead of the agent's: `rm -rf victim` does not run, and the model's first tool
/// result is `reason` ([`Said`]).
fn a_malformed_input_to_the_tool_gate_blocks_the_call<A: Agent>(
    name: &str,
    pointer: &str,
    reason: Said<'_>,
) {
    let server = ModelServer::start(Script::shell_then("rm -rf victim", "done"));
    let (agent, sb) = agent::installed::<A>(name, &server);
    break_input(&A::installed_hooks(&sb), pointer);
    let kept = sb.victims(&["victim"]);
    let run = agent.run(&sb, &server, "delete victim");
    assert!(kept[0].exists(), "rm -rf ran:\n{}", run.evidence());
    let results = server.tool_results();
    assert!(
        results.first().is_some_and(|(_, r)| reason.is_in(r)),
        "the model did not get the adapter's reason {reason:?}: {results:?}\n{}",
        run.evidence()
    );
}

/// How a text must hold a reason.
#[derive(Debug)]
enum Said<'a> {
    /// Somewhere in it.
    Within(&'a str),
    /// At its start.
    First(&'a str),
}

impl Said<'_> {
    fn is_in(&self, text: &str) -> bool {
        match self {
            Said::Within(reason) => text.contains(reason),
            Said::First(reason) => text.starts_with(reason),
        }
    }
}

/// The command of the settings file `path` at `pointer` in it, fed a truncated JSON input
/// instead of the agent's.
fn break_input(path: &Path, pointer: &str) {
    let mut settings = fixtures::read_settings(path);
    let command = settings
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in {}", path.display()));
    let installed = command.as_str().expect("a shell-form command").to_owned();
    *command = Value::String(format!("printf '{{\"tool_name\": ' | {installed}"));
    fixtures::write_settings(path, &settings);
}

/// `hooks-e2e install AGENT --project` in the sandbox: an author's own binary.
fn install_e2e_bundle<A: Agent>(sb: &Sandbox) {
    sb.hooks_of(
        host_binary::e2e_bundle(),
        &["install", A::NAME, "--project"],
        &[],
    );
}

/// `hooks-e2e` installed ([`install_e2e_bundle`]), the prompt `hello`: the first model turn
/// carries [`SESSION_CONTEXT`], and no hook fails.
fn a_bundle_session_start_message_reaches_the_model<A>(name: &str)
where
    A: Agent,
    A::Run: HookFailures,
{
    let server = ModelServer::start(Script::new(vec![Step::Text("hi".into())]));
    let (agent, sb) = agent::setup::<A>(name, &server);
    install_e2e_bundle::<A>(&sb);
    let run = agent.run(&sb, &server, "hello");
    let turns = server.model_turns();
    assert!(
        turns.first().is_some_and(|turn| model::strings(&turn.body)
            .iter()
            .any(|s| s.contains(SESSION_CONTEXT))),
        "the session-start context is not in the first model turn (it reached: {:?})\n{}",
        server.received(SESSION_CONTEXT),
        run.evidence()
    );
    assert_no_hook_failure(&run);
}

/// The decision log's lines of a run (`~/.local/state/hooks/decisions.jsonl`).
pub(super) fn decisions(sb: &Sandbox) -> Vec<Value> {
    std::fs::read_to_string(decision_log(sb))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Where the decision log goes by default, under the sandbox's state directory.
pub(super) fn decision_log(sb: &Sandbox) -> PathBuf {
    sb.home.join(".local/state/hooks/decisions.jsonl")
}

/// Writes the user's hooks config file (`~/.config/hooks/config.toml`, where the hooks the
/// agent starts find it).
pub(super) fn hooks_config(sb: &Sandbox, toml: &str) {
    let config = sb.home.join(".config/hooks/config.toml");
    std::fs::create_dir_all(config.parent().expect("config directory")).expect("config dir");
    std::fs::write(&config, toml).expect("write the hooks config");
}

/// Gemini CLI 0.61.0 with `hooks install gemini --project` in place (a trusted folder).
mod gemini {
    use super::*;
    use crate::agent::gemini::Gemini;

    const GUARDED: Guarded = Guarded {
        secret: SECRET,
        ls: "ls",
        read: ("read_file", "file_path"),
        the_read: TheRead::Redacted,
    };

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
        // The decision log, a line per call of ours: which events Gemini CLI ran us for.
        let (run, sb, ()) = the_guard_blocks_ls_is_quiet_and_a_read_secret_is::<Gemini, _>(
            "gemini-bundle",
            &GUARDED,
            |sb| hooks_config(sb, "[log]\nenabled = true\n"),
        );
        let evidence = run.evidence();
        let called: Vec<String> = decisions(&sb)
            .iter()
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
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_prompt_command_answers_without_a_model_call() {
        let run =
            super::a_prompt_command_answers_without_a_model_call::<Gemini>("gemini-bundle-handoff");
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
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
        super::a_malformed_input_to_the_tool_gate_blocks_the_call::<Gemini>(
            "gemini-bundle-malformed",
            "/hooks/BeforeTool/0/hooks/0/command",
            Said::Within("hooks gemini BeforeTool: invalid input"),
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_bundle_session_start_message_reaches_the_model() {
        super::a_bundle_session_start_message_reaches_the_model::<Gemini>("gemini-bundle-session");
    }

    /// Gemini CLI's `BeforeModel` is our `context` event: a bundle handler's rewrite of a user
    /// message is what the model gets, in every model turn (the prompt's and, after a tool,
    /// the next one's), and the text it replaced never reaches the model.
    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_bundle_context_handler_rewrites_what_the_model_is_sent() {
        let server = ModelServer::start(Script::shell_then("echo E2E-TOOL-RAN", "done"));
        let (gemini, sb) = agent::setup::<Gemini>("gemini-bundle-context", &server);
        install_e2e_bundle::<Gemini>(&sb);
        let prompt = format!("please {REWRITE_ME} now");
        let run = gemini.run(&sb, &server, &prompt);
        let evidence = run.evidence();
        let turns = server.model_turns();
        assert_eq!(turns.len(), 2, "{evidence}");
        for turn in &turns {
            let texts = model::strings(&turn.body);
            assert!(
                texts
                    .iter()
                    .any(|t| t.contains(&format!("please {REWRITTEN} now"))),
                "the rewritten prompt is not in {}\n{evidence}",
                turn.body
            );
        }
        assert!(
            server.received(REWRITE_ME).is_empty(),
            "the replaced text reached the model: {:?}\n{evidence}",
            server.received(REWRITE_ME)
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
}

/// Qwen Code 0.24.4 with `hooks install qwen --project` in place.
mod qwen {
    use super::*;
    use crate::agent::qwen::Qwen;

    /// A fast command's output sometimes reaches Qwen's model empty; the sleep avoids it.
    const GUARDED: Guarded = Guarded {
        secret: SECRET,
        ls: "ls; sleep 0.3",
        read: ("read_file", "file_path"),
        the_read: TheRead::Redacted,
    };

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
        the_guard_blocks_ls_is_quiet_and_a_read_secret_is::<Qwen, _>(
            "qwen-bundle",
            &GUARDED,
            |_| (),
        );
    }

    /// Qwen Code shows a blocked prompt's reason nowhere (measured), so the command's answer
    /// is only seen by its effect: the model is not asked.
    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_prompt_command_answers_without_a_model_call() {
        let run =
            super::a_prompt_command_answers_without_a_model_call::<Qwen>("qwen-bundle-handoff");
        assert!(run.finished.success(), "{}", run.evidence());
        assert_no_hook_failure(&run);
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
        super::a_malformed_input_to_the_tool_gate_blocks_the_call::<Qwen>(
            "qwen-bundle-malformed",
            "/hooks/PreToolUse/0/hooks/0/command",
            Said::Within("hooks qwen PreToolUse: invalid input"),
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_bundle_session_start_message_reaches_the_model() {
        super::a_bundle_session_start_message_reaches_the_model::<Qwen>("qwen-bundle-session");
    }
}

/// Factory Droid 0.225.2 with `hooks install droid --project` in place.
///
/// Droid cannot replace a tool's result, so a read whose output a hook rewrites ends the run
/// before the model sees it. `droid exec` never fires `UserPromptSubmit`, so no prompt
/// command can answer there (a `/name` prompt goes to the model).
mod droid {
    use super::*;
    use crate::agent::droid::Droid;
    use crate::fixtures::Recorder;

    /// A secret value Droid does not mask by itself (it masks `sk-...` keys in tool output).
    const PLAIN_SECRET: &str = "e2e-plain-value";

    const GUARDED: Guarded = Guarded {
        secret: PLAIN_SECRET,
        ls: "ls",
        read: ("Read", "file_path"),
        the_read: TheRead::Withheld,
    };

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_withheld() {
        // A recorder next to the installed hook shows what Droid handed the hooks.
        let (run, _sb, recorder) = the_guard_blocks_ls_is_quiet_and_a_read_secret_is::<Droid, _>(
            "droid-bundle",
            &GUARDED,
            |sb| {
                let recorder = Recorder::new(&sb.root().join("recorder"));
                fixtures::add_group(
                    &Droid::user_settings(sb),
                    "PostToolUse",
                    json!({"hooks": [{"type": "command", "command": recorder.command("PostToolUse")}]}),
                );
                recorder
            },
        );
        assert!(
            recorder
                .inputs("PostToolUse")
                .iter()
                .any(|i| i["tool_response"].to_string().contains(PLAIN_SECRET)),
            "Droid masked the secret itself; the scenario proves nothing\n{}",
            run.evidence()
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
        super::a_malformed_input_to_the_tool_gate_blocks_the_call::<Droid>(
            "droid-bundle-malformed",
            "/hooks/PreToolUse/0/hooks/0/command",
            Said::Within("hooks droid PreToolUse: invalid input"),
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_bundle_session_start_message_reaches_the_model() {
        super::a_bundle_session_start_message_reaches_the_model::<Droid>("droid-bundle-session");
    }
}

/// Copilot CLI 1.0.102 with `hooks install copilot --project` in place (`--trust-folder`).
mod copilot {
    use super::*;
    use crate::agent::copilot::Copilot;

    const GUARDED: Guarded = Guarded {
        secret: SECRET,
        ls: "ls",
        read: ("view", "path"),
        the_read: TheRead::TheFileRedacted,
    };

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn the_guard_blocks_ls_is_quiet_and_a_read_secret_is_replaced() {
        the_guard_blocks_ls_is_quiet_and_a_read_secret_is::<Copilot, _>(
            "copilot-bundle",
            &GUARDED,
            |_| (),
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_prompt_command_answers_without_a_model_call() {
        let run = super::a_prompt_command_answers_without_a_model_call::<Copilot>(
            "copilot-bundle-handoff",
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

    /// Copilot CLI drops a hook's stderr on exit 2; the adapter's deny carries the reason.
    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_malformed_input_to_the_tool_gate_blocks_the_call() {
        super::a_malformed_input_to_the_tool_gate_blocks_the_call::<Copilot>(
            "copilot-bundle-malformed",
            "/hooks/preToolUse/0/bash",
            Said::First("Denied by preToolUse hook: hooks copilot preToolUse: invalid input"),
        );
    }

    #[test]
    #[ignore = "needs HOOKS_E2E=install (the real agents)"]
    fn a_bundle_session_start_message_reaches_the_model() {
        super::a_bundle_session_start_message_reaches_the_model::<Copilot>(
            "copilot-bundle-session",
        );
    }
}
