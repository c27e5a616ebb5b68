//! What one call gives the agent: its [`Outcome`] (exit code, stdout, stderr), the same bytes
//! for every transport; what the call gave besides ([`Answered`], [`CallFacts`]); and how a
//! reply of the hooks, a failure, audit mode and "no opinion" become an outcome.

use std::path::PathBuf;

use super::emit::Reply;
use super::trace::{HandlerRun, Runs};
use super::{AdapterOptions, MAX_REASON_CHARS};
use crate::agents::{AgentEvent, Call, Decision, EXIT_OK, Protocol, Request, StartSource};
use crate::json::one_line;
use crate::sync::Locked as _;

/// What one call gives the agent (as JSON, `{"code", "stdout", "stderr"}`, the answer of
/// `hooks serve`'s unix socket: [`crate::serve::socket`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The exit code: [`EXIT_OK`], else the call's
    /// [`failure_code`](Protocol::failure_code).
    pub code: u8,
    /// The answer: one JSON value on one line (with its newline), or empty for no opinion.
    pub stdout: String,
    /// Empty on success (but for the line of the kill switch, [`super::disabled_outcome`]);
    /// on a failure one line (with its newline) naming the agent, the event
    /// and the reason: `hooks claude PreToolUse: blocked: hook guard panicked: boom`.
    pub stderr: String,
}

impl Outcome {
    /// The outcome of a call for `event_name` that failed for `reason`: its line (cut to 2000
    /// characters) on stderr, exit [`Protocol::failure_code`] and no answer; or, where that
    /// exit code would not block the action ([`Protocol::failure_answer`], Codex's
    /// `PreCompact`), exit 0 with the answer that does, holding the line.
    #[must_use]
    pub fn failure(protocol: &dyn Protocol, event_name: &str, reason: &str) -> Outcome {
        let failed = Outcome::exit_failure(protocol, event_name, reason);
        let answer = protocol
            .event(event_name)
            .and_then(|event| protocol.failure_answer(event, failed.stderr.trim_end()));
        match answer {
            Some(answer) => Outcome {
                code: EXIT_OK,
                stdout: format!("{answer}\n"),
                ..failed
            },
            None => failed,
        }
    }

    /// The outcome of a call for `event_name` that failed for `reason` where no answer can
    /// reach the agent (its stdout is unusable): the line on stderr and exit
    /// [`Protocol::failure_code`], which is all the agent can still read.
    #[must_use]
    pub fn exit_failure(protocol: &dyn Protocol, event_name: &str, reason: &str) -> Outcome {
        let mut stderr = one_line(
            &format!(
                "hooks {} {}: {reason}",
                protocol.name(),
                one_line(event_name, 60)
            ),
            MAX_REASON_CHARS,
        );
        stderr.push('\n');
        Outcome {
            code: protocol.failure_code(event_name),
            stdout: String::new(),
            stderr,
        }
    }
}

/// Everything one call gave: what the agent gets, what enforce mode gives (the same but in
/// audit mode, [`audited`]), the decision, what the call was about, and the
/// handlers that ran (when [`AdapterOptions::runs`] traces them).
#[derive(Debug)]
pub struct Answered {
    /// What the agent gets.
    pub outcome: Outcome,
    /// What enforce mode gives.
    pub enforced: Outcome,
    /// The hooks' combined decision (`None`: no opinion, or the call failed first).
    pub decision: Option<Decision>,
    /// The call's session, tool and event in our terms, as far as its input was decoded.
    pub facts: CallFacts,
    /// The handlers that ran, in order (empty unless traced).
    pub runs: Vec<HandlerRun>,
}

impl Answered {
    /// The call answered `enforced` in enforce mode; in `mode` the agent gets
    /// [`audited`] of it. The traced handlers are taken from `runs`.
    pub(super) fn new(
        protocol: &dyn Protocol,
        event_name: &str,
        enforced: Outcome,
        decision: Option<Decision>,
        facts: CallFacts,
        (mode, runs): (crate::call::audit::Mode, Option<&Runs>),
    ) -> Answered {
        let outcome = audited(mode, protocol, event_name, &enforced, decision.as_ref());
        let runs = runs.map_or_else(Vec::new, |runs| std::mem::take(&mut *runs.locked()));
        Answered {
            outcome,
            enforced,
            decision,
            facts,
            runs,
        }
    }

    /// A call that failed with `failed` before or outside its hooks (nothing traced), in
    /// `mode`.
    #[must_use]
    pub fn failed(
        protocol: &dyn Protocol,
        event_name: &str,
        failed: Outcome,
        facts: CallFacts,
        mode: crate::call::audit::Mode,
    ) -> Answered {
        Answered::new(protocol, event_name, failed, None, facts, (mode, None))
    }
}

/// What one call was about, from its decoded input: for the decision log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFacts {
    /// The agent's session id.
    pub session: Option<String>,
    /// The tool, by its canonical name (tool events only).
    pub tool: Option<String>,
    /// The event in our terms (`tool_call`), when the call emits one.
    pub ours: Option<&'static str>,
    /// The tool call's input, summarized for the log ([`crate::call::audit::summary`]; tool
    /// events, and only when the log is written).
    pub input: Option<serde_json::Value>,
}

impl CallFacts {
    /// The facts of `request`; with `logged` (the decision log is written), the tool call's
    /// input summarized too.
    pub(super) fn of(request: &Request, logged: bool) -> CallFacts {
        use crate::call::audit::summary::{Schema, object_summary};
        use hookwright::HookEvent as _;
        use hookwright::events::{
            AgentEndEvent, BeforeAgentStartEvent, ContextEvent, SessionBeforeCompactEvent,
            SessionShutdownEvent, SessionStartEvent, SessionSwitchEvent, ToolCallEvent,
            ToolResultEvent,
        };
        let summarized = |input: &hookwright::events::ToolInput| {
            logged.then(|| object_summary(input, Schema::ToolInput))
        };
        let mut input = None;
        let (tool, ours) = match &request.call {
            Call::ToolCall(e) => {
                input = summarized(&e.input);
                (Some(e.tool_name.clone()), Some(ToolCallEvent::NAME))
            }
            Call::ToolResult { event: e, .. } | Call::ToolFailure(e) => {
                input = summarized(&e.input);
                (Some(e.tool_name.clone()), Some(ToolResultEvent::NAME))
            }
            Call::Prompt(_) => (None, Some(BeforeAgentStartEvent::NAME)),
            Call::SessionStart(StartSource::Startup) => (None, Some(SessionStartEvent::NAME)),
            Call::SessionStart(StartSource::Compact) => (None, None),
            Call::SessionStart(_) => (None, Some(SessionSwitchEvent::NAME)),
            Call::SessionEnd => (None, Some(SessionShutdownEvent::NAME)),
            Call::Compact(_) => (None, Some(SessionBeforeCompactEvent::NAME)),
            Call::AgentEnd(_) => (None, Some(AgentEndEvent::NAME)),
            Call::Context(_) => (None, Some(ContextEvent::NAME)),
            Call::None => (None, None),
        };
        CallFacts {
            session: request.session_id.clone().filter(|id| !id.is_empty()),
            tool,
            ours,
            input,
        }
    }
}

/// The outcome of a call of `event` whose hooks gave `reply`: the decision encoded in the
/// agent's schema (with what the hooks told the user), or, where the agent reads it from the
/// exit code ([`Protocol::exit_reason`]), as the exit code and stderr line of a failure; the
/// failure as the stderr line and exit code.
pub(super) fn outcome(
    protocol: &dyn Protocol,
    event: AgentEvent,
    event_name: &str,
    reply: Reply,
) -> Outcome {
    if reply.failure.is_none()
        && let Some(reason) = reply
            .decision
            .as_ref()
            .and_then(|decision| protocol.exit_reason(event, decision))
    {
        return Outcome::exit_failure(protocol, event_name, &reason);
    }
    // A failure without a decision encodes nothing: never the agent's "no opinion" (Cursor's
    // `{}`), which would let the action run.
    let encoded = if reply.failure.is_some() && reply.decision.is_none() {
        None
    } else {
        protocol.encode(event, reply.decision.as_ref())
    };
    let stdout = protocol
        .tell_user(event, encoded, &reply.notice.join("\n"))
        .map(|json| {
            let mut line = json.to_string();
            line.push('\n');
            line
        })
        .unwrap_or_default();
    match reply.failure {
        Some(failure) => {
            let failed = Outcome::failure(protocol, event_name, &failure);
            if failed.stdout.is_empty() {
                Outcome { stdout, ..failed }
            } else {
                failed
            }
        }
        None => Outcome {
            code: EXIT_OK,
            stdout,
            stderr: String::new(),
        },
    }
}

pub(super) fn unknown_event(protocol: &dyn Protocol, name: &str) -> String {
    let known: Vec<&str> = protocol.events().iter().map(|e| e.name).collect();
    format!(
        "unknown event `{}` (expected one of: {})",
        one_line(name, 60),
        known.join(", ")
    )
}

/// The directory the hooks are loaded for: `--cwd`, else the project directory, else the
/// input's `cwd`, else the process's (a relative one is taken from the process's). It must be
/// a directory: hooks loaded for a missing one would silently lack the project's hook files.
pub(super) fn working_dir(opts: &AdapterOptions, request: &Request) -> Result<PathBuf, String> {
    let given = opts
        .cwd
        .clone()
        .or_else(|| opts.project_dir.clone())
        .or_else(|| {
            request
                .cwd
                .as_deref()
                .filter(|c| !c.is_empty())
                .map(PathBuf::from)
        });
    let dir = match given {
        Some(dir) if dir.is_absolute() => dir,
        other => {
            let here = std::env::current_dir()
                .map_err(|e| format!("cannot determine the working directory: {e}"))?;
            other.map_or_else(|| here.clone(), |rel| here.join(rel))
        }
    };
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "the working directory {} is not a directory",
            dir.display()
        ))
    }
}

/// What the agent gets in `mode` for a call of `event_name` whose hooks gave `enforced`
/// (with `decision`): in enforce mode `enforced`; in audit mode "no opinion" in the agent's
/// schema (exit 0, [`Protocol::encode`] of no decision, nothing on stderr), except for a
/// prompt command's answer, which is kept.
#[must_use]
pub fn audited(
    mode: crate::call::audit::Mode,
    protocol: &dyn Protocol,
    event_name: &str,
    enforced: &Outcome,
    decision: Option<&Decision>,
) -> Outcome {
    let command_answer =
        enforced.code == EXIT_OK && matches!(decision, Some(Decision::BlockPrompt { .. }));
    if mode == crate::call::audit::Mode::Enforce || command_answer {
        return enforced.clone();
    }
    no_opinion(protocol, event_name)
}

/// "No opinion" for `event_name` in `protocol`'s schema: exit 0, its empty answer.
#[must_use]
pub fn no_opinion(protocol: &dyn Protocol, event_name: &str) -> Outcome {
    let stdout = protocol
        .event(event_name)
        .and_then(|event| protocol.encode(event, None))
        .map(|json| format!("{json}\n"))
        .unwrap_or_default();
    Outcome {
        code: EXIT_OK,
        stdout,
        stderr: String::new(),
    }
}
