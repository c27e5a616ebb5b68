//! What an agent implements: its [`Protocol`], and the terms a protocol speaks in, which are
//! the same for every agent: its events ([`AgentEvent`]) and what each is in our terms
//! ([`Mapping`]), one call's input in our terms ([`Request`], [`Call`]), and what the hooks
//! decided ([`Decision`]).
//!
//! A protocol only translates: it never runs hooks, loads anything, or writes to a stream.
//! [`answer()`](super::answer()) runs a call through it for any transport (the command adapter of
//! [`command`](super::command), an HTTP server), so every transport gives the same answer.

use serde_json::Value;

use hookwright::HookRunner;
use hookwright::events::{
    AgentEndEvent, Content, ContextEvent, EventKind, Message, SessionBeforeCompactEvent,
    ToolCallEvent, ToolResultEvent,
};
use hookwright::tool_names::ToolNames;

use super::tool_io::ToolOutputView;
use crate::json::InputError;

/// An agent CLI's hook protocol. One unit struct per agent implements it, in the agent's own
/// file ([`Claude`](super::claude::Claude), [`Codex`](super::codex::Codex)), and
/// [`Agent`](super::Agent) names it.
pub trait Protocol: Send + Sync {
    /// What the agent is, besides how it translates ([`Spec`]).
    fn spec(&self) -> &'static Spec;

    /// One call's input (the bytes of the agent's JSON) for `event`, in our terms: tool names
    /// translated with [`Protocol::tool_names`], tool inputs and outputs read by
    /// [`super::tool_io`], the events to emit built. The default reads the hook JSON Claude
    /// Code defined ([`super::hook_json::decode`]).
    ///
    /// # Errors
    /// The input is not what the agent sends for `event`: see [`crate::json`] for the checks
    /// every input gets; a missing field the event needs is [`InputError::Invalid`].
    fn decode(&self, event: AgentEvent, input: &[u8]) -> Result<Request, InputError> {
        super::hook_json::decode(event, input, self.tool_names())
    }

    /// The answer to a call of `event` in the agent's schema: `decision`, or, when it is
    /// `None`, the agent's "no opinion" (for Claude Code and Codex nothing at all, never
    /// `allow`, which would override the user's own permission rules). `None` prints nothing.
    fn encode(&self, event: AgentEvent, decision: Option<&Decision>) -> Option<Value>;

    /// `answer` (what [`Protocol::encode`] made, `None` for nothing) with `text`, what the
    /// hooks said to the user in this call (notifications, the status line, displayed
    /// messages), added where the agent shows it to the user and not to the model. The
    /// default, for an agent without such a channel on `event`, drops `text`.
    fn tell_user(&self, event: AgentEvent, answer: Option<Value>, text: &str) -> Option<Value> {
        let _ = (event, text);
        answer
    }

    /// The answer that blocks the action of `event` after a failure (`line` is the failure's
    /// stderr line), for an event on which the agent ignores the failure exit code
    /// ([`Protocol::failure_code`]) and lets the action run: such a failure exits 0 with this
    /// answer instead. `None` (the default): the exit code blocks.
    fn failure_answer(&self, event: AgentEvent, line: &str) -> Option<Value> {
        let _ = (event, line);
        None
    }

    /// The JSON body of the answer (status 200) an HTTP hook of `hooks serve` gets for a call
    /// whose command hook exits 2 ([`Protocol::failure_code`], or a decision the agent reads
    /// from the exit code, [`Protocol::exit_reason`]), which must block there too: `answer` is
    /// what the command hook writes on stdout with that exit (`None`: nothing), `line` its
    /// stderr line (without the newline).
    ///
    /// The default is Claude Code's, which Qwen Code 0.24.4 reads the same way (its bundled
    /// JS: `decision: "block"` denies a tool call and blocks any other event) and Copilot CLI
    /// where it exits 2 (`userPromptSubmitted`; its failing tool events exit 0 with an
    /// answer, [`Protocol::failure_answer`]): `answer`'s object (or `{}`) with `"decision":
    /// "block"` and `line` as `"reason"`. A non-2xx status would not do: Qwen Code never
    /// blocks on one, Claude Code only with `"onFailure": "block"`.
    fn http_block(&self, answer: Option<Value>, line: &str) -> Value {
        let mut answer = match answer {
            Some(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        answer.insert("decision".into(), Value::from("block"));
        answer.insert("reason".into(), Value::from(line));
        Value::Object(answer)
    }

    /// The reason, when the agent reads `decision` on `event` from the exit code alone
    /// (Factory Droid's `PreCompact`, held by exit 2): the call then exits with
    /// [`Protocol::failure_code`] and this reason on its stderr line, and answers nothing.
    /// `None` (the default): the decision is [`Protocol::encode`]d.
    fn exit_reason(&self, event: AgentEvent, decision: &Decision) -> Option<String> {
        let _ = (event, decision);
        None
    }

    // The rest follows from the above, the same for every agent: not to be overridden.

    /// The agent's name ([`Spec::name`]): `claude`.
    #[must_use]
    fn name(&self) -> &'static str {
        self.spec().name
    }

    /// The events served ([`Spec::events`]).
    #[must_use]
    fn events(&self) -> &'static [AgentEvent] {
        self.spec().events
    }

    /// The agent's tool names and ours, both ways ([`Spec::tool_names`]).
    #[must_use]
    fn tool_names(&self) -> &'static ToolNames {
        self.spec().tool_names
    }

    /// The variable naming the project's root directory, if any ([`Spec::project_dir_env`]).
    #[must_use]
    fn project_dir_env(&self) -> Option<&'static str> {
        self.spec().project_dir_env
    }

    /// Where and how `hooks install` registers this binary with the agent ([`Spec::install`]).
    #[must_use]
    fn install(&self) -> &'static InstallShape {
        &self.spec().install
    }

    /// What the `hooks` command line and `hooks doctor` say and look for of the agent
    /// ([`Spec::cli`]).
    #[must_use]
    fn cli(&self) -> &'static AgentCli {
        &self.spec().cli
    }

    /// The event `name` (the agent's spelling) if this protocol serves it.
    #[must_use]
    fn event(&self, name: &str) -> Option<AgentEvent> {
        self.events().iter().copied().find(|e| e.name == name)
    }

    /// Whether a call for the event named `event_name` gates: the event gates
    /// ([`Mapping::is_gating`]), or it is not one this protocol serves.
    #[must_use]
    fn is_gating(&self, event_name: &str) -> bool {
        self.event(event_name).is_none_or(|e| e.mapping.is_gating())
    }

    /// The exit code of every failure of a call for `event_name`, whatever failed (the command
    /// line, stdin, stdout, the input, loading, a hook, the adapter itself):
    /// [`EXIT_BLOCK`](super::EXIT_BLOCK) on a gating call, else
    /// [`EXIT_ERROR`](super::EXIT_ERROR).
    #[must_use]
    fn failure_code(&self, event_name: &str) -> u8 {
        if self.is_gating(event_name) {
            super::EXIT_BLOCK
        } else {
            super::EXIT_ERROR
        }
    }
}

/// What an agent is, besides how its protocol translates: its names, events, tool names, where
/// it is installed and what the command line says of it ([`Protocol::spec`]; one `static` in
/// each agent's file).
#[derive(Debug)]
pub struct Spec {
    /// The agent's name, as `hooks` spells it on the command line (`hooks claude EVENT`) and
    /// in messages: `claude`.
    pub name: &'static str,
    /// The events served, each with what it is in our terms, in the order `hooks install`
    /// writes them.
    pub events: &'static [AgentEvent],
    /// The agent's tool names and ours, both ways.
    pub tool_names: &'static ToolNames,
    /// The environment variable in which the agent hands its hook commands the project's root
    /// directory (Claude Code's `CLAUDE_PROJECT_DIR`); `None` when it has none.
    pub project_dir_env: Option<&'static str>,
    /// What the `hooks` command line and `hooks doctor` say and look for of the agent: the one
    /// place besides the protocol where an agent is described.
    pub cli: AgentCli,
    /// Where and how `hooks install` registers this binary with the agent.
    pub install: InstallShape,
}

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

/// One call's input in our terms, as [`Protocol::decode`] makes it.
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

/// What the hooks decided, before [`Protocol::encode`] writes it in an agent's schema.
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

/// What `hooks` knows of an agent CLI besides its protocol: its name for people, its
/// executable, the help of its subcommand (`hooks AGENT EVENT`; the events are the protocol's,
/// [`Protocol::events`]) and the switch that turns all its hooks off ([`Protocol::cli`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentCli {
    /// Its own name, for messages: `Claude Code`.
    pub display_name: &'static str,
    /// Its executable, as its package installs it on `PATH`: `claude`.
    pub executable: &'static str,
    /// What is said of the subcommand after "Serve one DISPLAY NAME hook call": e.g. ` (its own
    /// format)`, or empty.
    pub about_note: &'static str,
    /// The subcommand's exit status, after its events in its help.
    pub exit_status: &'static str,
    /// The setting that switches every hook of the agent off, if it has one.
    pub switch: Option<HooksSwitch>,
}

/// A setting of an agent that runs no hook at all when it is off ([`AgentCli::switch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HooksSwitch {
    /// A key of its settings files (a JSON pointer) that switches the hooks off when it has the
    /// value `off`: Claude Code's `/disableAllHooks` `true`, Gemini CLI's
    /// `/hooksConfig/enabled` `false`.
    SettingsKey {
        /// The key.
        pointer: &'static str,
        /// The value that switches the hooks off.
        off: bool,
    },
    /// Codex's `[features] hooks = false` in its `config.toml`.
    CodexFeature,
}

/// Where and how `hooks install` registers this binary with one agent
/// ([`Protocol::install`]).
///
/// The file holds the agent's hooks under `hooks`, laid out as [`Layout`] says; the merge
/// keeps everything else in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstallShape {
    /// The agent's config directory under a project or home directory: `.claude`.
    pub dir: &'static str,
    /// The agent's config directory under the home directory, when it is not `dir` (Copilot
    /// CLI: `.github` in a project, `~/.copilot` for the user).
    pub user_dir: Option<&'static str>,
    /// The settings file in it: `settings.json` (a relative path: `hooks/hooks.json`).
    pub file: &'static str,
    /// The environment variable that names the user-level config directory instead of
    /// `~/DIR` when set (Codex's `CODEX_HOME`).
    pub dir_env: Option<&'static str>,
    /// How the entries added run this binary.
    pub form: Form,
    /// A line printed after the file was written (Codex: the hooks need the user's trust),
    /// unless the install did what it asks (`install codex --trust`).
    pub note: Option<&'static str>,
    /// How the file lists an event's entries.
    pub layout: Layout,
    /// The key of a shell-form entry that holds the command line: `command` (Copilot CLI:
    /// `bash`).
    pub command_key: &'static str,
    /// The `matcher` of the group an event's entry is added in, for the events whose calls
    /// are of use only for some of their matches (`(event, matcher)`; Gemini CLI's
    /// `PreCompress` for its `manual` trigger); the other events' groups have none, so they
    /// fire for every tool.
    pub matchers: &'static [(&'static str, &'static str)],
    /// The setting that makes the agent block an action when a hook on a gating event
    /// cannot start, crashes or times out (Claude Code's `"onFailure": "block"`, Cursor's
    /// `"failClosed": true`); `None` when the agent has none.
    pub fail_closed: Option<FailClosed>,
}

/// How a settings file lists an event's handler entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `{"hooks": {EVENT: [{"hooks": [ENTRY, ...]}, ...]}}`: matcher groups, each with a list
    /// of entries (Claude Code, Codex, Gemini CLI, Qwen Code, Factory Droid).
    Groups,
    /// `{"version": 1, "hooks": {EVENT: [ENTRY, ...]}}`: the entries straight under the event,
    /// in a versioned file (Copilot CLI, Cursor).
    Versioned,
}

/// A key on a handler entry that makes the agent block the action when the hook fails (it
/// cannot start, crashes, times out, answers garbage), and the agent versions that read it
/// ([`InstallShape::fail_closed`]). `hooks install` writes it on every gating entry
/// ([`Mapping::is_gating`]) when the installed agent reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailClosed {
    /// The key: `onFailure`.
    pub key: &'static str,
    /// Its value: `"block"`.
    pub value: FailValue,
    /// Whether the agent's executable ([`AgentCli::executable`]) is looked for on `PATH` and
    /// asked `--version`; `false` when every version reads the key (Cursor: none is asked, the
    /// key is always written).
    pub versioned: bool,
    /// The first version that reads the key, `[major, minor, patch]`: `[2, 1, 295]`.
    pub since: [u64; 3],
}

/// The value of a [`FailClosed`] key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailValue {
    /// A string: Claude Code's `"block"`.
    Text(&'static str),
    /// `true`: Cursor's `failClosed`.
    True,
}

impl FailValue {
    /// The value as JSON.
    #[must_use]
    pub fn json(self) -> Value {
        match self {
            FailValue::Text(text) => Value::String(text.to_owned()),
            FailValue::True => Value::Bool(true),
        }
    }
}

impl std::fmt::Display for FailValue {
    /// As JSON: `"block"`, `true`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.json())
    }
}

/// How a handler entry runs this binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// Exec form, no shell: `"command": PATH, "args": [TARGET, EVENT]`.
    Exec,
    /// Shell form: `"command": "PATH TARGET EVENT"`, `PATH` quoted for a POSIX shell.
    Shell,
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
