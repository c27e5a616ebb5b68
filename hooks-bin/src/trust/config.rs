//! Where the trust store lives: the config directory from `HOOKS_CONFIG_DIR`,
//! `XDG_CONFIG_HOME` or the home directory, and the store file in it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::error::TrustError;
use super::{CONFIG_DIR_ENV, TRUST_FILE};

/// The config directory from the given environment values: `hooks_config_dir` if non-empty
/// (it must be absolute), else `xdg_config_home/hooks` if it is absolute (a relative one is
/// ignored), else `home/.config/hooks` (`home` is absolute, see [`crate::home::home_from`]).
///
/// # Errors
/// [`TrustError::RelativeConfigDir`] for a relative `hooks_config_dir`;
/// [`TrustError::NoConfigDir`] when none of them names a directory.
pub fn config_dir_from(
    hooks_config_dir: Option<&OsStr>,
    xdg_config_home: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<PathBuf, TrustError> {
    if let Some(dir) = hooks_config_dir.filter(|d| !d.is_empty()).map(Path::new) {
        return if dir.is_absolute() {
            Ok(dir.to_path_buf())
        } else {
            Err(TrustError::RelativeConfigDir {
                value: dir.to_path_buf(),
            })
        };
    }
    if let Some(xdg) = xdg_config_home.map(Path::new).filter(|d| d.is_absolute()) {
        return Ok(xdg.join("hooks"));
    }
    home.filter(|h| h.is_absolute())
        .map(|home| home.join(".config").join("hooks"))
        .ok_or(TrustError::NoConfigDir)
}

/// The config directory of this process (see [`config_dir_from`]; the home directory is
/// [`crate::home::home_dir`]).
///
/// # Errors
/// See [`config_dir_from`].
pub fn config_dir() -> Result<PathBuf, TrustError> {
    config_dir_from(
        std::env::var_os(CONFIG_DIR_ENV).as_deref(),
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        crate::home::home_dir().as_deref(),
    )
}

/// The trust store of this process: `<config dir>/trusted.json`.
///
/// # Errors
/// See [`config_dir_from`].
pub fn store_path() -> Result<PathBuf, TrustError> {
    Ok(config_dir()?.join(TRUST_FILE))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Err(TrustError::RelativeConfigDir { .. })
        ));
        assert!(matches!(
            dir(None, Some("relative"), None),
            Err(TrustError::NoConfigDir)
        ));
        assert!(matches!(
            dir(None, None, Some(Path::new("rel"))),
            Err(TrustError::NoConfigDir)
        ));
        assert_eq!(TrustError::NoConfigDir.exit_code(), 2);
    }
}
