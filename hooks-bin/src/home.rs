//! The user's home directory, the one place where the host reads `HOME`: the user-level hook
//! directories, `~` in `--hook` paths, the default trust store (`~/.config/hooks`), the state
//! directory ([`state_dir`]) and `install --user` all come from [`home_dir`] (the facade's,
//! [`hookwright::dirs::home_dir`]).
//!
//! Only an absolute home counts. With `HOME` unset, empty or relative there is no home: no
//! user level (a relative home would put the "user-level" directories under the working
//! directory, that is in the project), and the commands say so ([`NO_HOME_WARNING`]).

use std::path::PathBuf;

use hookwright::loader::DiscoveryOptions;

/// What the commands that discover hook files say, once, when there is no home directory.
pub const NO_HOME_WARNING: &str = "no home directory (HOME is unset, empty or not an absolute \
     path): user-level hook files (~/.xcsh/agent/hooks, ~/.xcsh/hooks, ~/.claude/hooks, \
     ~/.codex/hooks) are not looked for";

pub use hookwright::dirs::{home_dir, home_from};

/// The state directory: `$XDG_STATE_HOME` if it is absolute, else `~/.local/state` with an
/// absolute home ([`home_dir`]); `None` without either.
#[must_use]
pub fn state_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| home_dir().map(|h| h.join(".local").join("state")))
}

/// The discovery options of this host: home from [`home_dir`]
/// ([`DiscoveryOptions::without_home`] when there is none).
#[must_use]
pub fn discovery_options() -> DiscoveryOptions {
    home_dir().map_or_else(DiscoveryOptions::without_home, DiscoveryOptions::new)
}
