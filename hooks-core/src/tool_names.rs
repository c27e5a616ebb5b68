//! Two-way tables between an agent CLI's tool names and ours (`bash`, `read`, `write`, `edit`,
//! `grep`, `find`, ...).
//!
//! One table per agent, read in both directions: [`ToolNames::ours`] for an agent's call
//! reaching our handlers, [`ToolNames::theirs`] for our call reaching a hook written for the
//! agent (a Claude-style hook file named `Bash.sh`). Claude Code's table is
//! [`CLAUDE_TOOL_NAMES`](crate::loader::claude::CLAUDE_TOOL_NAMES), beside the loader's Claude
//! protocol; the adapters in hookwright-cli hold the other agents' tables.

/// An agent's tool names that differ from ours, as `(theirs, ours)` pairs.
///
/// Several of their names may map onto one of ours (Codex's `exec_command` and `shell` are
/// both `bash`); the first pair with our name gives their name back.
///
/// ```
/// use hookwright::tool_names::ToolNames;
///
/// const NAMES: ToolNames = ToolNames::new(&[("Bash", "bash"), ("shell", "bash")]);
/// assert_eq!(NAMES.ours("shell"), "bash");
/// assert_eq!(NAMES.ours("WebFetch"), "webfetch");
/// assert_eq!(NAMES.theirs("bash"), "Bash");
/// assert_eq!(NAMES.theirs("webfetch"), "webfetch");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolNames {
    pairs: &'static [(&'static str, &'static str)],
}

impl ToolNames {
    /// The table of `pairs`, each `(theirs, ours)`.
    #[must_use]
    pub const fn new(pairs: &'static [(&'static str, &'static str)]) -> Self {
        ToolNames { pairs }
    }

    /// The `(theirs, ours)` pairs, in table order.
    #[must_use]
    pub const fn pairs(&self) -> &'static [(&'static str, &'static str)] {
        self.pairs
    }

    /// Our name for their tool `name`: the table's, else `name` lower-cased (`WebFetch` →
    /// `webfetch`, `mcp__fs__read` stays as it is).
    #[must_use]
    pub fn ours(&self, name: &str) -> String {
        self.pairs
            .iter()
            .find(|(theirs, _)| *theirs == name)
            .map_or_else(|| name.to_lowercase(), |(_, ours)| (*ours).to_owned())
    }

    /// Their name for our tool `name`: the table's (the first pair with it), else `name`
    /// unchanged.
    #[must_use]
    pub fn theirs<'a>(&self, name: &'a str) -> &'a str {
        self.pairs
            .iter()
            .find(|(_, ours)| *ours == name)
            .map_or(name, |(theirs, _)| theirs)
    }
}
