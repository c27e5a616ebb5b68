//! Where the trust store lives: the config directory from `HOOKS_CONFIG_DIR`,
//! `XDG_CONFIG_HOME` or the home directory ([`hookwright::dirs`]), and the store file in it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use hookwright::dirs;

use super::TRUST_FILE;
use super::error::TrustError;

/// The config directory from the given environment values
/// ([`hookwright::dirs::config_dir_from`], the one rule), its error as the trust store's.
///
/// # Errors
/// [`TrustError::RelativeConfigDir`] for a relative `hooks_config_dir`;
/// [`TrustError::NoConfigDir`] when none of them names a directory.
pub fn config_dir_from(
    hooks_config_dir: Option<&OsStr>,
    xdg_config_home: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<PathBuf, TrustError> {
    dirs::config_dir_from(hooks_config_dir, xdg_config_home, home).map_err(TrustError::from)
}

/// The config directory of this process ([`hookwright::dirs::config_dir`]).
///
/// # Errors
/// See [`config_dir_from`].
pub fn config_dir() -> Result<PathBuf, TrustError> {
    dirs::config_dir().map_err(TrustError::from)
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
    fn config_dir_errors_are_the_trust_stores() {
        assert!(matches!(
            config_dir_from(Some(OsStr::new("rel/cfg")), None, None),
            Err(TrustError::RelativeConfigDir { .. })
        ));
        assert!(matches!(
            config_dir_from(None, Some(OsStr::new("relative")), None),
            Err(TrustError::NoConfigDir)
        ));
        assert_eq!(TrustError::NoConfigDir.exit_code(), 2);
    }
}
