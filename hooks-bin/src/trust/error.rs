//! Why a trust command or check failed ([`TrustError`]), and how paths appear in its messages
//! ([`shown`]).

use std::io;
use std::path::{Path, PathBuf};

use crate::json::InputError;

use super::CONFIG_DIR_ENV;

/// Why the trust store could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// No config directory: none of `HOOKS_CONFIG_DIR`, an absolute `XDG_CONFIG_HOME`, an
    /// absolute `HOME` is set.
    #[error(
        "cannot find the config directory for the trust store (HOME is unset, empty or not an \
         absolute path): set {CONFIG_DIR_ENV}, XDG_CONFIG_HOME or HOME to an absolute path"
    )]
    NoConfigDir,
    /// `HOOKS_CONFIG_DIR` is a relative path (it would put the store under the working
    /// directory).
    #[error("{CONFIG_DIR_ENV} must be an absolute path, not {}", shown(value))]
    RelativeConfigDir {
        /// Its value.
        value: PathBuf,
    },
    /// The store exists but cannot be read.
    #[error("cannot read the trust store {}: {source}", shown(path))]
    Read {
        /// The store.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The store is not a valid version-1 trust store.
    #[error("{error} (the trust store is malformed: fix or delete it; hooks did not change it)")]
    Malformed {
        /// Where and what, as `file:line:column: message`.
        error: InputError,
    },
    /// The store cannot be written.
    #[error("cannot write the trust store {}: {source}", shown(path))]
    Write {
        /// The store (or its directory).
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A hook file cannot be hashed.
    #[error("cannot read {}: {source}", shown(path))]
    Hash {
        /// The hook file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl From<hookwright::dirs::ConfigDirError> for TrustError {
    fn from(e: hookwright::dirs::ConfigDirError) -> Self {
        match e {
            hookwright::dirs::ConfigDirError::Relative { value } => {
                TrustError::RelativeConfigDir { value }
            }
            _ => TrustError::NoConfigDir,
        }
    }
}

impl TrustError {
    /// The exit status of a trust command that failed with this error: 2 for a malformed
    /// store or no usable config directory (invalid input or environment), else 1.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            TrustError::Malformed { .. }
            | TrustError::NoConfigDir
            | TrustError::RelativeConfigDir { .. } => 2,
            _ => 1,
        }
    }
}

/// `path` for messages: control characters escaped (`\u{1b}`), so a file name cannot inject
/// terminal sequences.
#[must_use]
pub fn shown(path: &Path) -> String {
    let text = path.to_string_lossy();
    if !text.chars().any(char::is_control) {
        return text.into_owned();
    }
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}
