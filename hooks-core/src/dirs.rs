//! The user's directories, as every host and hook finds them: the home directory
//! ([`home_dir`]) and the config directory ([`config_dir`]), where the `hooks` binary keeps its
//! trust store and `config.toml`, and where a hook keeps its own settings (the guards'
//! `guards.toml`).
//!
//! Only absolute locations count. With `HOME` unset, empty or relative there is no home: a
//! relative one would put "user-level" files under the working directory, that is in the
//! project, whose files are not trusted. The project's own directory is the runner's working
//! directory ([`HookContext::cwd`](crate::HookContext::cwd)), where project hook files are
//! looked for.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable naming the config directory (overrides the XDG rules).
pub const CONFIG_DIR_ENV: &str = "HOOKS_CONFIG_DIR";

/// The home directory from the given environment values: `home` (`HOME`) if set and
/// non-empty, else `userprofile` (`USERPROFILE`, Windows); `None` unless it is absolute.
#[must_use]
pub fn home_from(home: Option<&OsStr>, userprofile: Option<&OsStr>) -> Option<PathBuf> {
    home.filter(|h| !h.is_empty())
        .or(userprofile)
        .map(Path::new)
        .filter(|h| h.is_absolute())
        .map(Path::to_path_buf)
}

/// The user's home directory: `HOME` (`USERPROFILE` on Windows), if absolute
/// (see [`home_from`]).
#[must_use]
pub fn home_dir() -> Option<PathBuf> {
    home_from(
        std::env::var_os("HOME").as_deref(),
        std::env::var_os("USERPROFILE").as_deref(),
    )
}

/// Why there is no config directory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigDirError {
    /// None of `HOOKS_CONFIG_DIR`, an absolute `XDG_CONFIG_HOME`, an absolute `HOME` is set.
    #[error(
        "no config directory (HOME is unset, empty or not an absolute path): set \
         {CONFIG_DIR_ENV}, XDG_CONFIG_HOME or HOME to an absolute path"
    )]
    None,
    /// `HOOKS_CONFIG_DIR` is a relative path (it would put the directory under the working
    /// directory).
    #[error("{CONFIG_DIR_ENV} must be an absolute path, not {}", value.display())]
    Relative {
        /// Its value.
        value: PathBuf,
    },
}

/// The config directory from the given environment values: `hooks_config_dir`
/// (`HOOKS_CONFIG_DIR`) if non-empty (it must be absolute), else `xdg_config_home/hooks` if it
/// is absolute (a relative one is ignored, as the XDG spec says), else `home/.config/hooks`
/// (`home` is absolute, see [`home_from`]).
///
/// # Errors
/// [`ConfigDirError::Relative`] for a relative `hooks_config_dir`; [`ConfigDirError::None`]
/// when none of them names a directory.
pub fn config_dir_from(
    hooks_config_dir: Option<&OsStr>,
    xdg_config_home: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<PathBuf, ConfigDirError> {
    if let Some(dir) = hooks_config_dir.filter(|d| !d.is_empty()).map(Path::new) {
        return if dir.is_absolute() {
            Ok(dir.to_path_buf())
        } else {
            Err(ConfigDirError::Relative {
                value: dir.to_path_buf(),
            })
        };
    }
    if let Some(xdg) = xdg_config_home.map(Path::new).filter(|d| d.is_absolute()) {
        return Ok(xdg.join("hooks"));
    }
    home.filter(|h| h.is_absolute())
        .map(|home| home.join(".config").join("hooks"))
        .ok_or(ConfigDirError::None)
}

/// The config directory of this process, from its environment (see [`config_dir_from`]; the
/// home directory is [`home_dir`]).
///
/// # Errors
/// See [`config_dir_from`].
pub fn config_dir() -> Result<PathBuf, ConfigDirError> {
    config_dir_from(
        std::env::var_os(CONFIG_DIR_ENV).as_deref(),
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        home_dir().as_deref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_absolute_home_counts() {
        let home =
            |h: Option<&str>, p: Option<&str>| home_from(h.map(OsStr::new), p.map(OsStr::new));
        assert_eq!(home(Some("/home/u"), None), Some(PathBuf::from("/home/u")));
        assert_eq!(home(None, None), None);
        assert_eq!(home(Some(""), None), None);
        assert_eq!(home(Some("rel"), None), None);
        assert_eq!(
            home(Some("./home"), Some("/x")),
            None,
            "HOME wins, and is relative"
        );
        assert_eq!(home(Some(""), Some("/x")), Some(PathBuf::from("/x")));
    }

    #[test]
    fn config_dir_precedence_and_only_absolute_locations() {
        let home = Some(Path::new("/home/u"));
        let dir = |hooks: Option<&str>, xdg: Option<&str>, home| {
            config_dir_from(hooks.map(OsStr::new), xdg.map(OsStr::new), home)
        };
        assert_eq!(dir(Some("/c"), Some("/x"), home).unwrap(), Path::new("/c"));
        assert_eq!(
            dir(Some(""), Some("/x"), home).unwrap(),
            Path::new("/x/hooks")
        );
        assert_eq!(
            dir(None, Some("relative"), home).unwrap(),
            Path::new("/home/u/.config/hooks"),
            "a relative XDG_CONFIG_HOME is ignored"
        );
        assert!(matches!(
            dir(Some("rel/cfg"), Some("/x"), home),
            Err(ConfigDirError::Relative { .. })
        ));
        assert_eq!(dir(None, Some("relative"), None), Err(ConfigDirError::None));
        assert_eq!(
            dir(None, None, Some(Path::new("rel"))),
            Err(ConfigDirError::None)
        );
    }
}
