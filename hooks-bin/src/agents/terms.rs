//! The terms every agent's protocol speaks in, the same for every agent: its events
//! ([`AgentEvent`]) and what each is in our terms ([`Mapping`]), what a call of ours comes to
//! when its hooks cannot answer ([`OnFailure`]), one call's input in our terms ([`Request`],
//! [`Call`]), and what the hooks decided ([`Decision`]). The [`Protocol`](super::Protocol)
//! trait translates between an agent's JSON and these.

use serde_json::Value;

use hookwright::HookRunner;
use hookwright::events::{
    AgentEndEvent, Content, ContextEvent, EventKind, Message, SessionBeforeCompactEvent,
    ToolCallEvent, ToolResultEvent,
};

use super::tool_io::ToolOutputView;
use crate::json::InputError;

/// One of an agent's hook events: its name and what it is in our terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AgentEvent {
    /// The agent's name for it, e.g. `PreToolUse`.
    pub name: &'static str,
    /// What it is in our terms.
    pub mapping: Mapping,
}

impl AgentEvent {
    /// The event `name`, which is `mapping` in our terms.
    #[must_use]
    pub const fn new(name: &'static str, mapping: Mapping) -> Self {
        AgentEvent { name, mapping }
    }

    /// The agent's name for the event.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        self.name
    }
}

/// Input on stdin that decodes but is not what an agent's event needs, saying why.
pub(super) fn invalid(message: String) -> InputError {
    InputError::Invalid {
        name: "stdin".to_owned(),
        message,
    }
}

/// The object the input's field `field` holds (`value`): an object, or a JSON string holding
/// one (decoded with the same bounds as stdin); `None` when the field is missing or null.
pub(super) fn object_or_json(
    value: Option<&Value>,
    field: &str,
) -> Result<Option<serde_json::Map<String, Value>>, InputError> {
    match value {
        Some(Value::Object(map)) => Ok(Some(map.clone())),
        Some(Value::String(text)) => crate::json::decode_object(text.as_bytes(), field).map(Some),
        Some(Value::Null) | None => Ok(None),
        Some(other) => Err(invalid(format!(
            "{field} must be an object or a JSON string, found {}",
            crate::text::json_kind(other)
        ))),
    }
}

/// Input without the field `field` that `event` needs.
pub(super) fn missing(field: &str, event: AgentEvent) -> InputError {
    invalid(format!("missing field `{field}` (required for {event})"))
}

impl std::fmt::Display for AgentEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// What an agent event is in our terms: the event(s) it emits and what its answer can say (the
/// [mapping table](super#mapping)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mapping {
    /// Before a tool runs: `tool_call`; a block denies the call.
    ToolCall,
    /// After a tool ran: `tool_result`; new content replaces the tool's output.
    ToolResult,
    /// After a tool failed: `tool_result` with `isError: true` (its result ignored, as
    /// upstream).
    ToolFailure,
    /// A prompt: the registered command `/name args` when there is one (its output answers the
    /// prompt), else `before_agent_start` (its message becomes context).
    Prompt,
    /// A session started, by its source ([`StartSource`]): `session_start`, or
    /// `session_switch` for a resumed, cleared or forked one, or nothing after a compaction;
    /// messages sent become context.
    SessionStart,
    /// A session ended: `session_shutdown`.
    SessionEnd,
    /// Before a compaction: `session_before_compact`; `cancel` blocks it.
    Compact,
    /// The agent finished responding: `agent_end`.
    AgentEnd,
    /// Before a model call: `context` over the messages the agent lets a hook see; new
    /// messages replace them in the request (Gemini CLI's `BeforeModel`).
    Context,
}

impl Mapping {
    /// Whether the hooks decide here what the agent may do or what the model sees: one of the
    /// events it emits gates ([`OnFailure::gates`]; `ToolCall`, `ToolResult`, `Prompt`,
    /// `Compact`, `Context`), except on `ToolFailure`, whose result is ignored. A failure then
    /// exits 2, which the agents read as a block. Elsewhere exit 2 means something else (on
    /// `Stop` it makes the agent go on), so a failure exits 1.
    #[must_use]
    pub const fn is_gating(self) -> bool {
        if matches!(self, Mapping::ToolFailure) {
            return false;
        }
        let kinds = self.kinds();
        let mut i = 0;
        while i < kinds.len() {
            if OnFailure::of(kinds[i]).gates() {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The events of ours this emits (a [`Mapping::Prompt`] also runs the registered
    /// commands: [`Mapping::runs_commands`]).
    #[must_use]
    pub const fn kinds(self) -> &'static [EventKind] {
        match self {
            Mapping::ToolCall => &[EventKind::ToolCall],
            Mapping::ToolResult | Mapping::ToolFailure => &[EventKind::ToolResult],
            Mapping::Prompt => &[EventKind::BeforeAgentStart],
            Mapping::SessionStart => &[EventKind::SessionStart, EventKind::SessionSwitch],
            Mapping::SessionEnd => &[EventKind::SessionShutdown],
            Mapping::Compact => &[EventKind::SessionBeforeCompact],
            Mapping::AgentEnd => &[EventKind::AgentEnd],
            Mapping::Context => &[EventKind::Context],
        }
    }

    /// Whether this runs the registered commands (`/name args`): [`Mapping::Prompt`].
    #[must_use]
    pub const fn runs_commands(self) -> bool {
        matches!(self, Mapping::Prompt)
    }

    /// Whether this emits `tool_call` or `tool_result`, the only events a discovered hook
    /// file handles (it runs as a `PreToolUse`/`PostToolUse` script): the adapter looks for
    /// hook files only for these.
    #[must_use]
    pub const fn is_tool_event(self) -> bool {
        matches!(
            self,
            Mapping::ToolCall | Mapping::ToolResult | Mapping::ToolFailure
        )
    }

    /// Whether the hooks of `runner` handle what this emits, so that an agent event of this
    /// mapping is worth installing.
    #[must_use]
    pub fn is_handled_by(self, runner: &HookRunner) -> bool {
        (self.runs_commands() && !runner.get_registered_commands().is_empty())
            || self.kinds().iter().any(|&kind| runner.has_handlers(kind))
    }
}

/// What a call of one of our events comes to when its hooks cannot answer: a handler failed, or
/// they did not load, or (in a bridge) the process serving them died, hung or answered garbage.
/// One rule per event, whatever the agent: a guard that cannot decide blocks, a redaction that
/// cannot be applied withholds what it was to redact; an event that decides nothing is reported
/// and the agent goes on.
///
/// The command adapters fail a call whose events gate ([`OnFailure::gates`],
/// [`Mapping::is_gating`]) with exit 2 and, where the agent needs one, an answer, so that each
/// agent comes as close to the outcome below as it can (see each agent's file). The pi and
/// oh-my-pi bridge (`hooks-bin/bridges/pi/hooks.ts`), which must apply the rule when the server
/// is down, holds a copy of this table, `ON_FAILURE`; `hooks-bin/tests/it/bridge_source.rs`
/// checks that the two agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OnFailure {
    /// The tool call is blocked, with the failure as its reason (`tool_call`).
    Block,
    /// The tool's output is replaced by a `[tool output withheld: REASON]` notice
    /// (`tool_result`).
    Withhold,
    /// The model call is not made, so the messages it would carry never reach the model
    /// (`context`: they were to be filtered; `before_agent_start`: the prompt is not sent
    /// without what its hooks were to add).
    Hold,
    /// The session action is cancelled (`session_before_compact`, `session_before_switch`,
    /// `session_before_branch`, `session_before_tree`).
    Cancel,
    /// Reported (a line on stderr); the agent goes on as if no hook had answered (every other
    /// event).
    Report,
}

impl OnFailure {
    /// The rule of the event `kind`.
    #[must_use]
    pub const fn of(kind: EventKind) -> OnFailure {
        match kind {
            EventKind::ToolCall => OnFailure::Block,
            EventKind::ToolResult => OnFailure::Withhold,
            EventKind::Context | EventKind::BeforeAgentStart => OnFailure::Hold,
            EventKind::SessionBeforeCompact
            | EventKind::SessionBeforeSwitch
            | EventKind::SessionBeforeBranch
            | EventKind::SessionBeforeTree => OnFailure::Cancel,
            _ => OnFailure::Report,
        }
    }

    /// Whether the failure stops something: anything but [`OnFailure::Report`].
    #[must_use]
    pub const fn gates(self) -> bool {
        !matches!(self, OnFailure::Report)
    }

    /// Its name in the bridge's table: `block`, `withhold`, `hold`, `cancel`, `report`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            OnFailure::Block => "block",
            OnFailure::Withhold => "withhold",
            OnFailure::Hold => "hold",
            OnFailure::Cancel => "cancel",
            OnFailure::Report => "report",
        }
    }
}

/// One call's input in our terms, as [`Protocol::decode`](super::Protocol::decode) makes it.
#[derive(Debug)]
pub struct Request {
    /// The agent's session id, when it sent one as a string.
    pub session_id: Option<String>,
    /// The working directory the agent reported, when it did.
    pub cwd: Option<String>,
    /// The event(s) to emit.
    pub call: Call,
}

/// The event(s) one call emits, one variant per [`Mapping`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Call {
    /// [`Mapping::ToolCall`].
    ToolCall(ToolCallEvent),
    /// [`Mapping::ToolResult`].
    ToolResult {
        /// The event, with the output's content and, as `details`, the output as received.
        event: ToolResultEvent,
        /// The output, to rewrite in its own shape.
        output: ToolOutputView,
    },
    /// [`Mapping::ToolFailure`]: the event has `isError: true` and the error as its content.
    ToolFailure(ToolResultEvent),
    /// [`Mapping::Prompt`]: the prompt.
    Prompt(String),
    /// [`Mapping::SessionStart`], with how the session began.
    SessionStart(StartSource),
    /// [`Mapping::SessionEnd`].
    SessionEnd,
    /// [`Mapping::Compact`].
    Compact(SessionBeforeCompactEvent),
    /// [`Mapping::AgentEnd`].
    AgentEnd(AgentEndEvent),
    /// [`Mapping::Context`]: the messages as the agent showed them.
    Context(ContextEvent),
    /// Nothing to emit: the agent's call is not one of ours (Qwen Code's `UserPromptSubmit`
    /// for a tool result, which has no submitted prompt); no opinion.
    None,
}

/// How the session of a `SessionStart` call began: its `source` (Claude Code sends `startup`,
/// `resume`, `clear` and `compact`; Codex also `fork`), and the event that is in our terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartSource {
    /// `startup` (and a missing or unknown source): a new session → `session_start`.
    Startup,
    /// `resume`: a session resumed → `session_switch` with reason `resume`.
    Resume,
    /// `clear`: the conversation cleared, a new session in its place → `session_switch` with
    /// reason `new`.
    Clear,
    /// `fork`: a session forked from another → `session_switch` with reason `fork`.
    Fork,
    /// `compact`: the same session, compacted; nothing is emitted (`session_compact` needs the
    /// compaction entry, its summary above all, which the agent does not send).
    Compact,
}

impl StartSource {
    /// The source named `source` (the agent's spelling); [`StartSource::Startup`] for `None`
    /// and for a value this adapter does not know.
    #[must_use]
    pub fn from_agent(source: Option<&str>) -> Self {
        match source {
            Some("resume") => StartSource::Resume,
            Some("clear") => StartSource::Clear,
            Some("fork") => StartSource::Fork,
            Some("compact") => StartSource::Compact,
            _ => StartSource::Startup,
        }
    }
}

/// What the hooks decided, before [`Protocol::encode`](super::Protocol::encode) writes it in an agent's schema.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Decision {
    /// Block the tool call.
    Deny {
        /// Why ([`ToolCallEventResult::into_block_reason`](hookwright::events::ToolCallEventResult::into_block_reason)).
        reason: String,
    },
    /// Replace the tool's output with `content`.
    ReplaceOutput {
        /// The output as received.
        output: ToolOutputView,
        /// The new content.
        content: Vec<Content>,
    },
    /// Withhold the tool's output because a hook failed (only with a failure).
    WithholdOutput {
        /// The output as received.
        output: ToolOutputView,
        /// The failure, on one line.
        reason: String,
    },
    /// Add context for the model.
    Context {
        /// The text.
        text: String,
    },
    /// Block the prompt.
    BlockPrompt {
        /// What the user is shown (a command's output).
        reason: String,
    },
    /// Cancel the compaction.
    CancelCompact {
        /// Why.
        reason: String,
    },
    /// Replace the messages the model is sent ([`Mapping::Context`]).
    ReplaceMessages {
        /// The messages as received.
        received: Vec<Message>,
        /// The messages, as the `context` handlers left them.
        messages: Vec<Message>,
    },
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gating_mappings_are_those_whose_events_gate_but_a_failed_tool() {
        let all = [
            Mapping::ToolCall,
            Mapping::ToolResult,
            Mapping::ToolFailure,
            Mapping::Prompt,
            Mapping::SessionStart,
            Mapping::SessionEnd,
            Mapping::Compact,
            Mapping::AgentEnd,
            Mapping::Context,
        ];
        let gating: Vec<Mapping> = all.into_iter().filter(|m| m.is_gating()).collect();
        assert_eq!(
            gating,
            [
                Mapping::ToolCall,
                Mapping::ToolResult,
                Mapping::Prompt,
                Mapping::Compact,
                Mapping::Context
            ]
        );
    }

    #[test]
    fn every_event_has_a_rule_and_only_the_deciding_ones_gate() {
        let gating: Vec<&str> = EventKind::ALL
            .iter()
            .filter(|k| OnFailure::of(**k).gates())
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            gating,
            [
                "session_before_switch",
                "session_before_branch",
                "session_before_compact",
                "session_before_tree",
                "context",
                "before_agent_start",
                "tool_call",
                "tool_result"
            ]
        );
    }
}
