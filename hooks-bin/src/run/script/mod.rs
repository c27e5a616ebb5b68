//! Session scripts: parsing and validation.
//!
//! A script is a JSON Lines file. Each line is one action; blank lines and lines whose first
//! non-blank character is `#` are skipped. The whole file is checked before anything runs,
//! `command` lines against the registered commands too; every problem is reported as
//! `FILE:LINE:COLUMN: message`, the message saying what was expected.
//!
//! | action | line |
//! | --- | --- |
//! | prompt | `{"prompt": "text", "reply"?: "assistant text"}`, or just `"text"` |
//! | tool call | `{"tool": "bash", "input"?: {...}, "id"?: "call-1"}` |
//! | slash command | `{"command": "/handoff some args"}` (a prompt starting with `/name` of a registered command runs it too) |
//! | compaction | `{"compact": {"customInstructions"?: "...", "summary"?: "..."}}` |
//! | session switch | `{"switch": {"reason": "new" \| "resume" \| "fork", "session"?: "file.jsonl"}}` |
//! | branch | `{"branch": {"entry": "<entry id>" \| INDEX}}` |
//! | tree navigation | `{"tree": {"target": "<entry id>" \| INDEX, "summarize"?: true}}` |
//!
//! An `INDEX` picks an entry of the current session by its position in the session file (every
//! branch, in the order written): `0` is the first entry, `-1` the last, `-2` the one before it.
//!
//! A `branch` starts a new session file holding the path before the chosen entry (the entry
//! itself is left out, as upstream); a `tree` navigation moves the current session's leaf to the
//! target, so later entries continue from there and the model sees only that branch.
//!
//! The types of a script are here; [`load`] and [`parse_bytes`] read one (`parse`), with the
//! column of each error found by `position`.

use std::fmt;
use std::path::PathBuf;

use hookwright::events::{SwitchReason, ToolInput};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

mod parse;
mod position;
#[cfg(test)]
mod tests;

pub use parse::{load, parse_bytes, split_command};

/// The largest script accepted, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// The action keys, in the order the docs list them.
pub const ACTION_KEYS: [&str; 7] = [
    "prompt", "tool", "command", "compact", "switch", "branch", "tree",
];

/// A parsed, validated script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The file it was read from.
    pub path: PathBuf,
    /// The actions, in order.
    pub steps: Vec<Step>,
}

/// One action and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column of the action's value (for errors found while it runs).
    pub column: usize,
    /// What to do.
    pub action: Action,
}

/// What one script line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A user prompt: one agent run.
    Prompt {
        /// The prompt text.
        text: String,
        /// The assistant's scripted final answer.
        reply: Option<String>,
    },
    /// A tool call inside the current agent run.
    Tool {
        /// The tool name.
        name: String,
        /// Its input.
        input: ToolInput,
        /// The tool call id (default `call_<line>`).
        id: Option<String>,
    },
    /// A slash command.
    Command {
        /// The name without `/`.
        name: String,
        /// The text after the name.
        args: String,
    },
    /// A compaction.
    Compact(CompactSpec),
    /// A session switch.
    Switch(SwitchSpec),
    /// A branch into a new session file.
    Branch(BranchSpec),
    /// A navigation in the session tree.
    Tree(TreeSpec),
}

impl Action {
    /// The action's key, e.g. `tool`.
    #[must_use]
    pub fn key(&self) -> &'static str {
        match self {
            Action::Prompt { .. } => "prompt",
            Action::Tool { .. } => "tool",
            Action::Command { .. } => "command",
            Action::Compact(_) => "compact",
            Action::Switch(_) => "switch",
            Action::Branch(_) => "branch",
            Action::Tree(_) => "tree",
        }
    }
}

/// `{"compact": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "an object: {\"summary\"?: \"...\", \"customInstructions\"?: \"...\"}"
)]
pub struct CompactSpec {
    /// Instructions for the summary (passed to `session_before_compact`).
    pub custom_instructions: Option<String>,
    /// The summary the built-in (model-less) compaction writes.
    pub summary: Option<String>,
}

/// `{"switch": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"reason\": \"new\" | \"resume\" | \"fork\", \"session\"?: \"file.jsonl\"}"
)]
pub struct SwitchSpec {
    /// `new`, `resume` or `fork`.
    pub reason: SwitchReason,
    /// For `resume`: the session file (relative to the session directory, or absolute).
    pub session: Option<String>,
}

/// `{"branch": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"entry\": an entry id or index}"
)]
pub struct BranchSpec {
    /// The entry to branch from.
    pub entry: EntryRef,
}

/// `{"tree": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object: {\"target\": an entry id or index, \"summarize\"?: true}"
)]
pub struct TreeSpec {
    /// The entry to navigate to.
    pub target: EntryRef,
    /// Whether to summarize the branch left behind.
    #[serde(default)]
    pub summarize: bool,
}

/// An entry of the current session: by id, or by index (negative counts from the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryRef {
    /// An entry id.
    Id(String),
    /// A position: `0` first, `-1` last.
    Index(i64),
}

impl<'de> Deserialize<'de> for EntryRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = EntryRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an entry id (a string) or an entry index (an integer, -1 = last)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EntryRef, E> {
                Ok(EntryRef::Id(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EntryRef, E> {
                Ok(EntryRef::Index(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EntryRef, E> {
                i64::try_from(v)
                    .map(EntryRef::Index)
                    .map_err(|_| E::custom("entry index too large"))
            }
        }
        d.deserialize_any(V)
    }
}

/// One problem in a script, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line (0 when the file as a whole is wrong).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

impl std::error::Error for ScriptError {}
