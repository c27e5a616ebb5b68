//! One line of the decision log: what one call was, what each handler decided, what the agent
//! got, and (in audit mode) what enforce mode would have given; decisions, not content: every
//! result and answer is a [`summary`](super::summary) (its keys, decisions, reasons and tool
//! inputs cut and with credentials redacted, the sizes of everything else), the same for
//! every writer of the log.
//!
//! ```json
//! {"time":"2026-12-01T14:40:02.123456Z","agent":"claude","session":"s1",
//!  "event":{"agent":"PreToolUse","ours":"tool_call"},"tool":"bash",
//!  "input":{"command":"rm -rf victim"},"mode":"audit",
//!  "handlers":[{"hook":"guard","handler":"deny_rm","location":"examples/src/guard.rs:12",
//!   "event":"tool_call","outcome":"result","result":{"block":true,"reason":"..."},
//!   "error":null,"micros":41}],
//!  "answer":{"exit":0,"stdout":null,"stderr":""},"enforced":false,
//!  "would_have":{"exit":0,"stdout":{"hookSpecificOutput":{...}},"stderr":""},
//!  "duration_us":2210}
//! ```
//!
//! `answer.stdout` is the summary of the JSON value the agent read on stdout (`null`:
//! nothing; `{"bytes": N}` if it is not JSON); over HTTP it is the command adapter's answer,
//! which the server maps to its HTTP answer ([`crate::serve::HttpAnswer::from_outcome`]); over
//! `hooks serve --stdio` (agent `stdio`) it is an `emit`'s result (`{"result", "errors"}`) and
//! the exit is 0. The handlers are the records `hooks explain` shows
//! ([`crate::call::trace::HandlerRun`]), each result summarized.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::Mode;
use super::summary::{Schema, excerpt, summary};
use crate::agents::Decision;
use crate::call::trace::HandlerRun;
use crate::call::{Answered, Outcome};

/// One call, as logged.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// When the call began, RFC 3339 in UTC with microseconds.
    pub time: String,
    /// The agent (`claude`).
    pub agent: &'static str,
    /// The agent's session id, when its input had one.
    pub session: Option<String>,
    /// The event, as the agent names it and in our terms.
    pub event: EventNames,
    /// The tool, by its canonical name (tool events).
    pub tool: Option<String>,
    /// The tool call's input, summarized ([`Schema::ToolInput`]; tool events).
    pub input: Option<Value>,
    /// `enforce` or `audit`.
    pub mode: &'static str,
    /// Every handler that ran, in order, as logged: its result summarized
    /// ([`Schema::Ours`]), its error cut and with credentials redacted ([`excerpt`]).
    pub handlers: Vec<HandlerRun>,
    /// What the agent got.
    pub answer: AnswerJson,
    /// Whether the agent got what enforce mode gives.
    pub enforced: bool,
    /// In audit mode: what enforce mode would have given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_have: Option<AnswerJson>,
    /// How long the call took, in microseconds.
    pub duration_us: u64,
}

/// The event's two names.
#[derive(Debug, Clone, Serialize)]
pub struct EventNames {
    /// The agent's (`PreToolUse`).
    pub agent: String,
    /// Ours (`tool_call`), when the call emits one.
    pub ours: Option<&'static str>,
}

/// An answer: exit code, stdout (summarized), stderr (cut).
#[derive(Debug, Clone, Serialize)]
pub struct AnswerJson {
    /// The exit code.
    pub exit: u8,
    /// The summary of the stdout, parsed (`null` when empty; `{"bytes": N}` when it is not
    /// JSON).
    pub stdout: Value,
    /// The stderr line, cut and with credentials redacted ([`excerpt`]).
    pub stderr: String,
}

impl AnswerJson {
    /// `outcome`, as logged, its stdout an answer in `schema`.
    #[must_use]
    pub fn of(outcome: &Outcome, schema: Schema) -> AnswerJson {
        let out = outcome.stdout.trim_end();
        let stdout = if out.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(out).map_or_else(
                |_| serde_json::json!({ "bytes": out.len() }),
                |v| summary(&v, schema),
            )
        };
        AnswerJson {
            exit: outcome.code,
            stdout,
            stderr: excerpt(outcome.stderr.trim_end()),
        }
    }
}

/// Whether `decision` changes what the model is sent (a tool's output, the messages, added
/// context), which some agents' answers carry in their reason keys ([`Schema::Agent`]).
fn replaces_content(decision: Option<&Decision>) -> bool {
    matches!(
        decision,
        Some(
            Decision::ReplaceOutput { .. }
                | Decision::Context { .. }
                | Decision::ReplaceMessages { .. }
        )
    )
}

/// `start` as the record writes it: RFC 3339 in UTC with microseconds.
fn stamp(start: SystemTime) -> String {
    humantime::format_rfc3339_micros(start).to_string()
}

/// `runs`, as logged ([`Record::handlers`]).
fn lines(runs: Vec<HandlerRun>) -> Vec<HandlerRun> {
    let logged = |run: HandlerRun| HandlerRun {
        result: run.result.as_ref().map(|r| summary(r, Schema::Ours)),
        error: run.error.as_deref().map(excerpt),
        ..run
    };
    runs.into_iter().map(logged).collect()
}

fn micros(took: Duration) -> u64 {
    u64::try_from(took.as_micros()).unwrap_or(u64::MAX)
}

impl Record {
    /// The record of a call of `agent`'s `event_name` that began at `start` and took
    /// `took`, in `mode`, which gave `answered` (its handlers are moved into the record).
    #[must_use]
    pub fn new(
        agent: &'static str,
        event_name: &str,
        mode: Mode,
        (start, took): (SystemTime, Duration),
        answered: &mut Answered,
    ) -> Record {
        let enforced = answered.outcome == answered.enforced;
        let schema = Schema::Agent {
            reasons: !replaces_content(answered.decision.as_ref()),
        };
        Record {
            time: stamp(start),
            agent,
            session: answered.facts.session.clone(),
            event: EventNames {
                agent: crate::json::one_line(event_name, 60),
                ours: answered.facts.ours,
            },
            tool: answered.facts.tool.clone(),
            input: answered.facts.input.take(),
            mode: mode.as_str(),
            handlers: lines(std::mem::take(&mut answered.runs)),
            answer: AnswerJson::of(&answered.outcome, schema),
            enforced,
            would_have: (mode == Mode::Audit).then(|| AnswerJson::of(&answered.enforced, schema)),
            duration_us: micros(took),
        }
    }

    /// What the record of an `emit` whose payload is `payload` logs of its tool call's input:
    /// the summary of its `input` ([`Schema::ToolInput`]), if it has one.
    #[must_use]
    pub fn emitted_input(payload: &Value) -> Option<Value> {
        payload
            .get("input")
            .map(|input| summary(input, Schema::ToolInput))
    }

    /// The record of a `hooks serve --stdio` `emit` of `kind` on the session `session` (the
    /// agent is `stdio`, both event names ours) of `tool` with `input` (from
    /// [`Record::emitted_input`]), that began at `start` and took `took`, in `mode`;
    /// `handlers` ran; the client got `answer` (the `emit`'s result, summarized as
    /// `answer.stdout`), where enforce mode answers `enforced`.
    #[must_use]
    pub fn emit(
        session: &str,
        (kind, tool, input): (hookwright::EventKind, Option<String>, Option<Value>),
        mode: Mode,
        (start, took): (SystemTime, Duration),
        handlers: Vec<HandlerRun>,
        (answer, enforced): (&Value, &Value),
    ) -> Record {
        let json = |stdout: &Value| AnswerJson {
            exit: 0,
            stdout: summary(stdout, Schema::Ours),
            stderr: String::new(),
        };
        Record {
            time: stamp(start),
            agent: "stdio",
            session: Some(session.to_owned()),
            event: EventNames {
                agent: kind.as_str().to_owned(),
                ours: Some(kind.as_str()),
            },
            tool,
            input,
            mode: mode.as_str(),
            handlers: lines(handlers),
            answer: json(answer),
            enforced: answer == enforced,
            would_have: (mode == Mode::Audit).then(|| json(enforced)),
            duration_us: micros(took),
        }
    }

    /// The record as one line of JSON, with its newline.
    #[must_use]
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_else(|e| {
            serde_json::json!({ "time": self.time, "error": format!("unserializable record: {e}") })
                .to_string()
        });
        line.push('\n');
        line
    }
}
