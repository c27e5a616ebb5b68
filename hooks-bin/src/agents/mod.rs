//! The agents `hooks` serves, in one list ([`AgentKind::ALL`]): those whose hook protocol it
//! speaks, Claude Code ([`claude`]), Codex ([`codex`]), Gemini CLI ([`gemini`]), Copilot CLI
//! ([`copilot`]), Qwen Code ([`qwen`]), Factory Droid ([`droid`]) and Cursor ([`cursor`], from
//! its documentation, not verified against Cursor); and pi ([`pi`]) and oh-my-pi ([`omp`]),
//! which load the bridge extension ([`extension`]).
//!
//! # What an agent implements
//!
//! One file per agent. A command-hook agent has one unit struct implementing [`Protocol`]:
//! its [`Spec`] (its name, its events and what each is in our terms ([`AgentEvent`],
//! [`Mapping`]), its tool names (a two-way [`ToolNames`](hookwright::tool_names::ToolNames)
//! table), its command line ([`AgentCli`]) and where `hooks install` registers it
//! ([`InstallShape`])), how its input decodes into our events ([`Protocol::decode`]; the
//! shared hook JSON unless it says otherwise) and how our [`Decision`] is written in its
//! schema ([`Protocol::encode`]). An agent of the bridge has one `static` [`Extension`]: its
//! names, its configuration directory and the events it never delivers. One line of the list
//! (in this file) names it, as an [`Agent`] or an [`ExtensionAgent`]; the adapter
//! subcommands, `install`, `uninstall`, `doctor`, `list` and the help are made from the list.
//! What several agents share lives in [`hook_json`] (the hook JSON Claude Code defined and
//! Codex reuses) and [`tool_io`] (tool inputs and outputs), not in one agent's file. How one
//! call runs through a protocol, the same for every agent and transport, is [`crate::call`].
//!
//! # Mapping
//!
//! | agent event ([`Mapping`]) | our event(s) | answer |
//! | --- | --- | --- |
//! | `PreToolUse` (`ToolCall`) | `tool_call` | a block → `permissionDecision: "deny"` with the reason |
//! | `PostToolUse` (`ToolResult`) | `tool_result` | new content → the output replaced (per agent: [`claude`], [`codex`]) |
//! | `PostToolUseFailure` (`ToolFailure`; Claude) | `tool_result` with `isError: true` (result ignored, as upstream) | none |
//! | `UserPromptSubmit` (`Prompt`), prompt `/name args` with a registered command | the command, with a [`CommandContext`](hookwright::CommandContext) whose `notify` text, status line and messages are collected; its session actions (`new_session`, `branch`, `navigate_tree`) answer `cancelled` | `decision: "block"`, `reason` = the collected output, and for each session action `/name: ... is not available through the AGENT hook adapter (the agent owns its sessions); nothing was done.` |
//! | `UserPromptSubmit` (`Prompt`), other prompts | `before_agent_start` | its message → `additionalContext` |
//! | `SessionStart` (`SessionStart`), `source` `startup` (or none, or unknown) | `session_start` | messages sent with `send_message` → `additionalContext` |
//! | `SessionStart`, `source` `resume` / `clear` / `fork` (Codex) | `session_switch` with reason `resume` / `new` / `fork`, no `previousSessionFile` | the same |
//! | `SessionStart`, `source` `compact` | nothing (the session goes on; `session_compact` would need the compaction's summary, which the agent does not send) | none |
//! | `SessionEnd` (`SessionEnd`) | `session_shutdown` | none |
//! | `PreCompact` (`Compact`) | `session_before_compact` (`preparation.trigger` = the agent's trigger) | `cancel` → compaction blocked |
//! | `Stop` (`AgentEnd`) | `agent_end` (`last_assistant_message` as the one message) | none |
//! | `BeforeModel` (`Context`; Gemini CLI) | `context` over the request's text messages | changed messages → the request's text replaced |
//!
//! The table names Claude Code's events; each other agent's file has its own table with its
//! event names and answers.
//!
//! Tool inputs and outputs are translated by [`tool_io`]. There is no interactive UI:
//! handlers see `has_ui() == false`, `confirm` answers `false`, `select`/`input` answer `None`.
//! What hooks say to the user on any event — `notify` texts, the status line when they set it
//! (`status: SEGMENTS`), messages sent with `display: true` (rendered by their type's
//! renderer, plain theme) — is added to the answer for the user where the agent shows it and
//! never sends it to the model ([`Protocol::tell_user`]; Claude Code and Codex: top-level
//! `systemMessage`, not on `SessionEnd`), unless an answer already carries it (a command's
//! output, a cancelled compaction's reason).
//!

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod droid;
pub mod extension;
pub mod gemini;
pub mod hook_json;
mod llm_content;
pub mod omp;
pub mod pi;
mod protocol;
pub mod qwen;
mod terms;
pub mod tool_io;

use std::fmt;

use hookwright::EventKind;

pub use self::extension::Extension;

pub use self::protocol::{
    AgentCli, FailClosed, FailValue, Form, HooksSwitch, InstallShape, Layout, ProjectDir, Protocol,
    Spec,
};
pub use self::terms::{AgentEvent, Call, Decision, Mapping, OnFailure, Request, StartSource};

/// Exit code: success (an answer on stdout, or no opinion).
pub const EXIT_OK: u8 = 0;
/// Exit code: the adapter or a hook failed on an observational event (a non-blocking error).
pub const EXIT_ERROR: u8 = 1;
/// Exit code: the adapter or a hook failed on a gating event (the agent blocks the action).
pub const EXIT_BLOCK: u8 = 2;

/// The list of agents: one line per agent (its variant, the module and value that describe it,
/// and what it is), the command-hook agents first, then those served through the bridge
/// extension. It makes [`AgentKind`] and [`AgentKind::ALL`] (the whole list, in its order),
/// [`Agent`] with [`Agent::protocol`], and [`ExtensionAgent`] with [`ExtensionAgent::spec`].
macro_rules! agents {
    (
        command { $($(#[$doc:meta])* $variant:ident => $module:ident::$protocol:ident,)* }
        extension { $($(#[$edoc:meta])* $evariant:ident => $emodule:ident::$spec:ident,)* }
    ) => {
        /// An agent CLI whose hook protocol `hooks` speaks: the name of a [`Protocol`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Agent {
            $($(#[$doc])* $variant,)*
        }

        impl Agent {
            /// The command-hook agents of the list ([`AgentKind::ALL`]), in its order: what
            /// the adapter subcommands are made from.
            pub const ALL: &'static [Agent] = &[$(Agent::$variant),*];

            /// The agent's protocol.
            #[must_use]
            pub fn protocol(self) -> &'static dyn Protocol {
                match self {
                    $(Agent::$variant => &$module::$protocol,)*
                }
            }
        }

        /// An agent that loads the bridge extension in-process: the name of an [`Extension`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ExtensionAgent {
            $($(#[$edoc])* $evariant,)*
        }

        impl ExtensionAgent {
            /// What the agent is.
            #[must_use]
            pub fn spec(self) -> &'static Extension {
                match self {
                    $(ExtensionAgent::$evariant => &$emodule::$spec,)*
                }
            }
        }

        impl AgentKind {
            /// Every agent, in the order commands list them: the one list `install`,
            /// `uninstall`, `doctor`, `list` and the help take their agents from.
            pub const ALL: &'static [AgentKind] = &[
                $(AgentKind::Command(Agent::$variant),)*
                $(AgentKind::Extension(ExtensionAgent::$evariant),)*
            ];
        }
    };
}

agents! {
    command {
        /// Claude Code (`hooks claude EVENT`, [`claude::Claude`]).
        Claude => claude::Claude,
        /// Codex (`hooks codex EVENT`, [`codex::Codex`]).
        Codex => codex::Codex,
        /// Gemini CLI (`hooks gemini EVENT`, [`gemini::Gemini`]).
        Gemini => gemini::Gemini,
        /// Copilot CLI (`hooks copilot EVENT`, [`copilot::Copilot`]).
        Copilot => copilot::Copilot,
        /// Qwen Code (`hooks qwen EVENT`, [`qwen::Qwen`]).
        Qwen => qwen::Qwen,
        /// Factory Droid (`hooks droid EVENT`, [`droid::Droid`]).
        Droid => droid::Droid,
        /// Cursor (`hooks cursor EVENT`, [`cursor::Cursor`]; from its documentation, not verified).
        Cursor => cursor::Cursor,
    }
    extension {
        /// pi, under node ([`pi::PI`]).
        Pi => pi::PI,
        /// oh-my-pi, under bun ([`omp::OMP`]).
        Omp => omp::OMP,
    }
}

/// One agent of the list ([`AgentKind::ALL`]), by how `hooks` serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentKind {
    /// A command-hook agent: it runs `hooks AGENT EVENT` per call, in its own protocol.
    Command(Agent),
    /// An agent that loads the bridge extension, which runs the hooks in
    /// `hooks serve --stdio`.
    Extension(ExtensionAgent),
}

impl AgentKind {
    /// The agent's name, as the command line spells it: `claude`, `pi`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Command(agent) => agent.as_str(),
            AgentKind::Extension(agent) => agent.as_str(),
        }
    }

    /// The agent's own name, for messages: `Claude Code`, `oh-my-pi`.
    #[must_use]
    pub fn display_name(self) -> &'static str {
        match self {
            AgentKind::Command(agent) => agent.display_name(),
            AgentKind::Extension(agent) => agent.spec().display_name,
        }
    }
}

impl Agent {
    /// The agent's own name, for messages: `Claude Code` or `Codex` ([`AgentCli`]).
    #[must_use]
    pub fn display_name(self) -> &'static str {
        self.protocol().cli().display_name
    }

    /// The agent's executable on `PATH`: `claude` ([`AgentCli`]).
    #[must_use]
    pub fn executable(self) -> &'static str {
        self.protocol().cli().executable
    }

    /// The subcommand name: `claude` or `codex` ([`Protocol::name`]).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.protocol().name()
    }
}

impl ExtensionAgent {
    /// The agents of the bridge in the list ([`AgentKind::ALL`]), in its order.
    pub fn all() -> impl Iterator<Item = ExtensionAgent> {
        AgentKind::ALL.iter().filter_map(|agent| match agent {
            AgentKind::Extension(agent) => Some(*agent),
            AgentKind::Command(_) => None,
        })
    }

    /// `pi` or `omp` ([`Extension::name`]).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The events of ours the agent delivers to the bridge ([`Extension::delivers`]).
    #[must_use]
    pub fn delivers(self) -> Vec<EventKind> {
        self.spec().delivers()
    }
}

/// The agent of the list named `name` that `pick` takes, or why not: the names `pick` takes.
fn named<T>(name: &str, pick: impl Fn(AgentKind) -> Option<T>) -> Result<T, String> {
    let mut names = Vec::new();
    for &agent in AgentKind::ALL {
        if let Some(found) = pick(agent) {
            if agent.as_str() == name {
                return Ok(found);
            }
            names.push(agent.as_str());
        }
    }
    Err(format!(
        "unknown agent `{name}` (expected one of: {})",
        names.join(", ")
    ))
}

impl std::str::FromStr for AgentKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, Some)
    }
}

impl std::str::FromStr for Agent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, |a| match a {
            AgentKind::Command(agent) => Some(agent),
            AgentKind::Extension(_) => None,
        })
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for ExtensionAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gating_table() {
        let events = Agent::Claude.protocol().events();
        let gating: Vec<_> = events
            .iter()
            .filter(|e| e.mapping.is_gating())
            .map(|e| e.name)
            .collect();
        assert_eq!(
            gating,
            [
                "PreToolUse",
                "PostToolUse",
                "UserPromptSubmit",
                "PreCompact"
            ]
        );
        assert!(
            Agent::Codex
                .protocol()
                .event("PostToolUseFailure")
                .is_none()
        );
    }
}
