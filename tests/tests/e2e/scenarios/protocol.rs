//! What the recorder scenarios of Gemini CLI, Qwen Code, Factory Droid and Copilot CLI
//! (`gemini`, `qwen`, `droid`, `copilot`) share: each pins the agent's own hook protocol with a
//! [`Recorder`] (or another command) as its hook and no hooks adapter, in a [`Case`]; the
//! scenarios that are the same for every agent (the model runs `rm -rf` with something on the
//! gate, a prompt is blocked) are written once here, generic over the agent ([`Recorded`]),
//! and each agent's file runs them with its own data and checks what its protocol made of it.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::agent::{AgentRun, Recorded, Sandbox};
use crate::fixtures::{self, Answer, Recorder};
use crate::model::{ModelServer, Script, Step};

/// One recorder scenario: the agent configured for a model server, a fresh sandbox and a
/// recorder (installed nowhere yet).
pub(super) struct Case<A> {
    /// The agent.
    pub(super) agent: A,
    /// Its sandbox.
    pub(super) sb: Sandbox,
    /// The recorder, under the sandbox's `recorder/`.
    pub(super) rec: Recorder,
    /// The model server.
    pub(super) server: ModelServer,
}

impl<A: Recorded> Case<A> {
    /// The agent in a fresh sandbox named `name`, configured for a model server running
    /// `script`, with a recorder.
    pub(super) fn new(name: &str, script: Script) -> Case<A> {
        let agent = A::for_suite();
        let sb = Sandbox::new(name);
        let server = ModelServer::start(script);
        A::configure(&sb, &server);
        let rec = Recorder::new(&sb.root().join("recorder"));
        Case {
            agent,
            sb,
            rec,
            server,
        }
    }

    /// The user's hook settings file ([`Recorded::user_hooks`]).
    pub(super) fn user_hooks(&self) -> PathBuf {
        A::user_hooks(&self.sb)
    }

    /// Installs the recorder on `events` in the user's hook settings.
    pub(super) fn record(&self, events: &[&str]) {
        A::record(&self.user_hooks(), &self.rec, events);
    }

    /// Installs the recorder on `events` in the project's hook settings.
    pub(super) fn record_in_the_project(&self, events: &[&str]) {
        A::record(&A::project_hooks(&self.sb), &self.rec, events);
    }

    /// Adds `handler` (in the agent's own form) to `event` in the user's hook settings.
    pub(super) fn hook(&self, event: &str, handler: Value) {
        A::add_hook(&self.user_hooks(), event, handler);
    }

    /// One run of `prompt` ([`Recorded::run_recorded`]).
    pub(super) fn run(&self, prompt: &str) -> A::Run {
        self.agent.run_recorded(&self.sb, &self.server, prompt)
    }

    /// Asserts that the first input the recorder got for each of `events` that fired has the
    /// shape of its fixture `tests/fixtures/agents/<fixture>/<event>.json` (see
    /// [`fixtures::check_agent_fixtures`]).
    pub(super) fn assert_inputs_match_fixtures(&self, fixture: &str, events: &[&str]) {
        let firsts: Vec<(&str, Value)> = events
            .iter()
            .filter_map(|e| self.rec.inputs(e).into_iter().next().map(|i| (*e, i)))
            .collect();
        let differences = fixtures::check_agent_fixtures(
            fixture,
            self.sb.root(),
            &firsts.iter().map(|(e, i)| (*e, i)).collect::<Vec<_>>(),
        );
        assert!(differences.is_empty(), "{differences:#?}");
    }
}

/// What a scenario puts on the agent's gate ([`Recorded::GATE`], in the user's settings).
pub(super) enum Gate<'a> {
    /// The recorder, answering every call with this.
    Answer(Answer),
    /// The recorder, answering the n-th call with the n-th of these (from the first).
    Calls(&'a [Answer]),
    /// This handler (in the agent's own form), not the recorder.
    Handler(Value),
}

/// The model runs `rm -rf NAME` for each of `victims` (each a directory holding `keep.txt`),
/// one call after the other, then says `done`, with `gate` on the gate; asserts which victims
/// survived (`survives`, in order). Returns the case and the run, for the checks of what the
/// agent's protocol made of it.
pub(super) fn rm_rf<A: Recorded>(
    name: &str,
    victims: &[&str],
    gate: Gate<'_>,
    survives: &[bool],
) -> (Case<A>, A::Run) {
    let commands: Vec<String> = victims.iter().map(|v| format!("rm -rf {v}")).collect();
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let case = Case::<A>::new(name, Script::shells_then(&commands, "done"));
    match gate {
        Gate::Answer(answer) => {
            case.record(&[A::GATE]);
            case.rec.answer(A::GATE, &answer);
        }
        Gate::Calls(answers) => {
            case.record(&[A::GATE]);
            for (i, answer) in answers.iter().enumerate() {
                case.rec.answer_call(A::GATE, i + 1, answer);
            }
        }
        Gate::Handler(handler) => case.hook(A::GATE, handler),
    }
    let kept = case.sb.victims(victims);
    let prompt = if victims.len() == 1 {
        "delete the victim"
    } else {
        "delete them"
    };
    let run = case.run(prompt);
    let survived: Vec<bool> = kept.iter().map(|k| k.exists()).collect();
    assert_eq!(
        survived,
        survives,
        "which of {victims:?} survived\ntool results: {:?}\n{}",
        case.server.tool_texts(),
        run.evidence()
    );
    (case, run)
}

/// [`rm_rf`] of `v1` to `v4`, the recorder on the gate answering exit 2, exit 1 and exit 3
/// (each with `e2e: exit N` on stderr), then output that is not JSON: `survives` says which
/// of them the agent let survive.
pub(super) fn exits_2_1_3_and_garbage<A: Recorded>(
    name: &str,
    survives: [bool; 4],
) -> (Case<A>, A::Run) {
    let answers = [exit(2), exit(1), exit(3), garbage()];
    rm_rf::<A>(
        name,
        &["v1", "v2", "v3", "v4"],
        Gate::Calls(&answers),
        &survives,
    )
}

/// The prompt `/handoff`, with the recorder on the prompt event `event` answering `answer`
/// (a block): the recorder saw the prompt, and the model is never asked. Returns the case and
/// the run, for the checks of what the user was shown.
pub(super) fn a_blocked_prompt<A: Recorded>(
    name: &str,
    event: &str,
    answer: &Answer,
) -> (Case<A>, A::Run) {
    let case = Case::<A>::new(name, Script::new(vec![Step::Text("unexpected".into())]));
    case.record(&[event]);
    case.rec.answer(event, answer);
    let run = case.run("/handoff");
    assert_eq!(case.rec.inputs(event)[0]["prompt"], "/handoff");
    assert!(
        case.server.model_turns().is_empty(),
        "the prompt reached the model\n{}",
        run.evidence()
    );
    (case, run)
}

/// Two model turns of `ls`, each answered `done`: two runs of a scenario.
pub(super) fn two_listings() -> Script {
    Script::new(vec![
        Step::Shell("ls".into()),
        Step::Text("done".into()),
        Step::Shell("ls".into()),
        Step::Text("done".into()),
    ])
}

/// `exit CODE` with `e2e: exit CODE` on stderr and nothing on stdout.
pub(super) fn exit(code: i32) -> Answer {
    Answer::exit(code, &format!("e2e: exit {code}"))
}

/// Output that is not JSON, with exit 0.
pub(super) fn garbage() -> Answer {
    Answer::text("this is not json {")
}

/// The model runs `ls` (as `ls`, with `listed-file.txt` in the project), then answers
/// `listed`, with the recorder on every one of `events`: the run ends well with that answer,
/// and the first input of each event that fired has the shape of its fixture in `fixture`
/// ([`Case::assert_inputs_match_fixtures`]). Returns the case and the run, for which events
/// fired with which inputs.
pub(super) fn a_listing_run<A: Recorded>(
    name: &str,
    ls: &str,
    events: &[&str],
    fixture: &str,
) -> (Case<A>, A::Run) {
    let case = Case::<A>::new(name, Script::shell_then(ls, "listed"));
    case.record(events);
    case.sb.write("listed-file.txt", "hello\n");
    let run = case.run("list the files");
    assert_success(&run);
    assert_eq!(
        run.answer().as_deref(),
        Some("listed"),
        "{}",
        run.evidence()
    );
    case.assert_inputs_match_fixtures(fixture, events);
    (case, run)
}

/// The prompt `prompt` and one model turn answering `hi`, with the recorder on `events`
/// answering each `(event, text)` of `contexts` with `text` as its `additionalContext`
/// (Claude's form): returns the case, the run and the body of the one model turn, for where
/// the agent put the texts.
pub(super) fn a_run_with_context<A: Recorded>(
    name: &str,
    events: &[&str],
    contexts: &[(&str, &str)],
    prompt: &str,
) -> (Case<A>, A::Run, Value) {
    let case = Case::<A>::new(name, Script::new(vec![Step::Text("hi".into())]));
    case.record(events);
    for (event, text) in contexts {
        case.rec.answer(
            event,
            &Answer::json(&json!({"hookSpecificOutput": {
                "hookEventName": event, "additionalContext": text,
            }})),
        );
    }
    let run = case.run(prompt);
    let turns = case.server.model_turns();
    assert_eq!(turns.len(), 1, "{}", run.evidence());
    let body = turns[0].body.clone();
    (case, run, body)
}

/// Asserts that `run` exited with status 0.
pub(super) fn assert_success(run: &impl AgentRun) {
    assert!(run.finished().success(), "{}", run.evidence());
}
