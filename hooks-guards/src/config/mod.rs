//! The guards' configuration, without recompiling: `guards.toml` in the user's config directory
//! ([`hookwright::dirs::config_dir`]) and `.hooks/guards.toml` in the project (the runner's
//! working directory).
//!
//! ```toml
//! [packs]
//! disable = ["inline.php"]                     # every rule of these packs is off
//! enable = []                                  # on again (see the precedence below)
//!
//! [rules]
//! disable = ["core.git:branch-force-delete"]   # these rules are off
//! enable = []                                  # these are on, whatever their pack says
//!
//! [allow]
//! programs = ["mkfs.ext4"]                     # a tool by name: never judged
//! commands = ["git clean -fdx"]                # one exact simple command: never judged
//! paths = ["~/scratch", "/srv/ci/work"]        # `rm -rf` / `find -delete` fine inside
//! ```
//!
//! Every key is optional; an unknown key, a value of the wrong type, an unknown pack or rule id,
//! an `allow` entry that cannot be matched, or the same id both enabled and disabled in one file
//! is an error naming `file:line:column` ([`ConfigError`]). A missing file is no configuration.
//!
//! **The project file may only tighten**: it may `enable` packs and rules (turning back on what
//! the user's file turned off), never `disable` or `allow`; a project file that tries is an
//! error, like a malformed one. A repository's files are not trusted until the user trusts
//! them by content (docs/trust.md); a file that can only block more needs no trust, so the
//! guards read it as it is instead of asking the user to review it on every change.
//!
//! **Precedence**, for a rule `pack:rule`, over both files: on if some `rules.enable` lists it;
//! else off if a `rules.disable` does; else on if some `packs.enable` lists its pack; else off if
//! a `packs.disable` does; else on. The `guard` rules (`guard:unreadable`, `guard:config`) are
//! always on: a guard that cannot decide blocks.

mod file;
mod load;

use std::fmt;
use std::path::PathBuf;

use crate::Block;
use crate::shell::Word;

pub use load::{PROJECT_FILE, USER_FILE, load, load_with};

/// The largest configuration file read, in bytes: a configuration is a few lines; a larger file
/// (a repository's `.hooks/guards.toml` is anyone's: a huge one, or a link to one) is an error,
/// never read into memory.
pub const MAX_BYTES: usize = 256 * 1024;

/// Where a configuration entry was written: `file:line:column` (1-based; the column in bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file.
    pub file: PathBuf,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in bytes.
    pub column: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// Why a configuration file cannot be used: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: PathBuf,
    /// The line and column (1-based) of what is wrong; `None` when the file could not be read.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, column)) => write!(
                f,
                "{}:{line}:{column}: {}",
                self.file.display(),
                self.message
            ),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// What the guard decided about one command under a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Decision {
    /// Why the command may not run; `None` when it may.
    pub block: Option<Block>,
    /// What the configuration let through that a rule would have blocked, in the order met.
    pub allowed: Vec<Allowed>,
}

/// A command part that a rule would have blocked, let through by the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// The rule that would have blocked (`pack:rule`).
    pub rule: &'static str,
    /// The key that let it through: `rules.disable`, `packs.disable`, `allow.programs`,
    /// `allow.commands` or `allow.paths`.
    pub key: &'static str,
    /// Where that entry is written.
    pub by: Origin,
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] would block, allowed by {} at {}",
            self.rule, self.key, self.by
        )
    }
}

/// Which file a configuration comes from: what it may say depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The user's own file: every key.
    User,
    /// The project's file: only `enable` (it may only tighten).
    Project,
}

/// A list entry of a configuration file, where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<T> {
    pub(crate) value: T,
    pub(crate) origin: Origin,
}

/// The configuration the guard judges with: the user's file and the project's, merged. The
/// default is no file: every rule on, nothing allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub(crate) enable_packs: Vec<Entry<String>>,
    pub(crate) disable_packs: Vec<Entry<String>>,
    pub(crate) enable_rules: Vec<Entry<String>>,
    pub(crate) disable_rules: Vec<Entry<String>>,
    pub(crate) programs: Vec<Entry<String>>,
    pub(crate) commands: Vec<Entry<Vec<Word>>>,
    /// Absolute, without a trailing `/`.
    pub(crate) paths: Vec<Entry<String>>,
    /// The home directory `~` stood for when the files were read.
    pub(crate) home: Option<PathBuf>,
}

impl Config {
    /// Parses the text of the configuration file at `path` (named in errors), written at
    /// `level`; `~` in `allow.paths` is `home` (no home: such an entry is an error).
    ///
    /// # Errors
    /// See the [module docs](self): what is wrong, at `file:line:column`.
    pub fn parse(
        path: &std::path::Path,
        text: &str,
        level: Level,
        home: Option<&std::path::Path>,
    ) -> Result<Config, ConfigError> {
        file::parse(path, text, level, home)
    }

    /// `self` with `other`'s entries added (the user's file, then the project's).
    #[must_use]
    pub fn merged(mut self, other: Config) -> Config {
        self.enable_packs.extend(other.enable_packs);
        self.disable_packs.extend(other.disable_packs);
        self.enable_rules.extend(other.enable_rules);
        self.disable_rules.extend(other.disable_rules);
        self.programs.extend(other.programs);
        self.commands.extend(other.commands);
        self.paths.extend(other.paths);
        self.home = self.home.or(other.home);
        self
    }

    /// Which key turns the rule `rule` (`pack:rule`) off (`rules.disable` or `packs.disable`)
    /// and where, or `None` when it is on (the precedence of the [module docs](self)).
    #[must_use]
    pub fn disabled_by(&self, rule: &str) -> Option<(&'static str, &Origin)> {
        let listed = |list: &[Entry<String>], id: &str| list.iter().any(|e| e.value == id);
        if rule.starts_with("guard:") || listed(&self.enable_rules, rule) {
            return None;
        }
        if let Some(e) = self.disable_rules.iter().find(|e| e.value == rule) {
            return Some(("rules.disable", &e.origin));
        }
        let pack = rule.split_once(':').map_or(rule, |(pack, _)| pack);
        if listed(&self.enable_packs, pack) {
            return None;
        }
        self.disable_packs
            .iter()
            .find(|e| e.value == pack)
            .map(|e| ("packs.disable", &e.origin))
    }

    /// Where the program `name` (a command name without its directory) is allowed.
    #[must_use]
    pub fn program_allowed(&self, name: &str) -> Option<&Origin> {
        self.programs
            .iter()
            .find(|e| e.value == name)
            .map(|e| &e.origin)
    }

    /// Where the simple command `words` is allowed, word for word.
    #[must_use]
    pub fn command_allowed(&self, words: &[Word]) -> Option<&Origin> {
        if self.commands.is_empty() {
            return None;
        }
        self.commands
            .iter()
            .find(|e| e.value == words)
            .map(|e| &e.origin)
    }

    /// Where the path `target` (as written in the command) is allowed: it is one of
    /// `allow.paths` or inside one. Only an absolute target counts (or one under `~`, `$HOME`
    /// or `${HOME}`, the home directory when the files were read): the guard does not know which
    /// directory a relative one is in (a `cd` before it). A `..`, a `$` or a backquote in it
    /// never matches.
    #[must_use]
    pub fn path_allowed(&self, target: &str) -> Option<&Origin> {
        if self.paths.is_empty() {
            return None;
        }
        let target = file::expand_home(target, self.home.as_deref())?;
        if !file::is_plain_absolute(&target) {
            return None;
        }
        let target = target.trim_end_matches('/');
        self.paths
            .iter()
            .find(|e| {
                target == e.value
                    || target
                        .strip_prefix(e.value.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .map(|e| &e.origin)
    }
}
