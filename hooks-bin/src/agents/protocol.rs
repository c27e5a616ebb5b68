//! What an agent implements: its [`Protocol`] and what it is besides ([`Spec`]: its names,
//! events, tool names, command line and install shape), in the terms of [`super::terms`].
//!
//! A protocol only translates: it never runs hooks, loads anything, or writes to a stream.
//! [`crate::call`] runs a call through it for any transport (the command adapter, an HTTP
//! server, the socket hand-over), so every transport gives the same answer.

use serde_json::Value;

use hookwright::tool_names::ToolNames;

use super::terms::{AgentEvent, Decision, Request};
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

    /// The variable naming the project's root directory, if any ([`Spec::project_dir`]).
    #[must_use]
    fn project_dir_env(&self) -> Option<&'static str> {
        self.spec().project_dir.map(|dir| dir.var)
    }

    /// The project-directory variable and how a hook's command spells it
    /// ([`Spec::project_dir`]).
    #[must_use]
    fn project_dir(&self) -> Option<ProjectDir> {
        self.spec().project_dir
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
    /// ([`Mapping::is_gating`](super::Mapping::is_gating)), or it is not one this protocol serves.
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
    /// The variable in which the agent hands its hook commands the project's root directory
    /// (Claude Code's `CLAUDE_PROJECT_DIR`), and how an entry's command spells it; `None` when
    /// it has none that works in a hook's command.
    pub project_dir: Option<ProjectDir>,
    /// What the `hooks` command line and `hooks doctor` say and look for of the agent: the one
    /// place besides the protocol where an agent is described.
    pub cli: AgentCli,
    /// Where and how `hooks install` registers this binary with the agent.
    pub install: InstallShape,
}

/// The project-directory variable of an agent that works in its hook's command
/// ([`Spec::project_dir`]), by which a project install names a binary inside the project.
/// Started in a subdirectory of a git project, the agents that have one (Claude Code, Gemini
/// CLI, Qwen Code, Factory Droid, Copilot CLI) ran none of the project's hooks (measured), so
/// the variable names the directory holding the settings file ([the command an entry
/// runs](crate::install#the-command-an-entry-runs)). Each agent's file says how its agent spells it, as measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProjectDir {
    /// The variable.
    pub var: &'static str,
    /// How an entry spells it before `/REL`: what the agent (or the shell it runs the
    /// command with) turns into the project directory, whatever characters it holds.
    pub spelled: &'static str,
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
    /// Whether `install --http` writes HTTP hooks to `hooks serve` for the agent (Claude
    /// Code; the others have command hooks only).
    pub http: bool,
    /// Whether the agent runs an entry only once the user trusted it in its own config
    /// (Codex's `config.toml`): `install --trust` trusts the entries it writes, and
    /// `doctor` checks that they are trusted.
    pub trusts_entries: bool,
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
/// ([`Mapping::is_gating`](super::Mapping::is_gating)) when the installed agent reads it.
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
