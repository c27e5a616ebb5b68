//! Why an install failed.

use std::io;
use std::path::PathBuf;

use super::Target;
use crate::json::InputError;

/// Why an install failed. Nothing was written when it fails.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The settings file could not be decoded (`file:line:column: message`).
    #[error("{0}")]
    Input(#[from] InputError),
    /// The settings file is valid JSON but a key we must extend has the wrong type.
    #[error("{}: {message}; fix or move the file and try again", path.display())]
    Shape {
        /// The settings file.
        path: PathBuf,
        /// Which key, and what it should be.
        message: String,
    },
    /// The working directory does not exist or is not a directory.
    #[error("cannot use {} as the working directory: {source}", path.display())]
    WorkingDir {
        /// The directory given.
        path: PathBuf,
        /// Why it cannot be used.
        #[source]
        source: io::Error,
    },
    /// A user-level install without a usable home directory: the variables to set, e.g.
    /// `HOME` or `CODEX_HOME or HOME`.
    #[error(
        "cannot find the user's {target} config directory (no absolute HOME): set {vars} to an \
         absolute path, or install with --project"
    )]
    NoHome {
        /// The agent.
        target: Target,
        /// The environment variables that would name the directory.
        vars: String,
    },
    /// An environment variable naming a config directory holds a relative path.
    #[error("{var} must be an absolute path, not `{}`", value.display())]
    RelativeDir {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: PathBuf,
    },
    /// A user-level install of a bridge without a usable home directory.
    #[error(
        "cannot find the user's {agent} agent directory (no absolute HOME): set HOME or \
         PI_CODING_AGENT_DIR to an absolute path, or install with --project"
    )]
    NoExtensionHome {
        /// The agent.
        agent: super::extension::ExtensionAgent,
    },
    /// The extension file exists and is not a bridge this tool installed for this binary.
    #[error(
        "{} exists and is not a hooks bridge this binary installed; move it away and try again",
        .0.display()
    )]
    NotOurs(PathBuf),
    /// The settings path (or a directory on the way to it) is a symlink whose target does not
    /// exist.
    #[error(
        "{} is a symlink to {}, which does not exist; create the target or remove the link, \
         then try again",
        link.display(),
        target.display()
    )]
    DanglingSymlink {
        /// The symlink.
        link: PathBuf,
        /// Where it points (resolved against the link's directory).
        target: PathBuf,
    },
    /// Reading the settings file failed.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// Writing the settings file, its backup or its directory failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The binary's path cannot be written into a settings file.
    #[error("the binary path {} is not valid UTF-8", .0.display())]
    BinaryPath(PathBuf),
    /// The hooks to install for could not be loaded.
    #[error("cannot load hooks: {0}")]
    Load(String),
    /// `--claude-version` is not a version.
    #[error("--{}-version: `{given}` is not a version such as 2.1.328", target.as_str())]
    Version {
        /// The agent.
        target: Target,
        /// What was given.
        given: String,
    },
    /// A version was stated for an agent whose install does not depend on it.
    #[error("a version can only be stated for claude; {target} entries do not depend on it")]
    NoVersionCheck {
        /// The agent.
        target: Target,
    },
    /// `--trust` for an agent without a trust step.
    #[error(
        "--trust is for codex only: {target} runs the hooks in its settings without a trust step"
    )]
    NoTrustStep {
        /// The agent.
        target: Target,
    },
    /// A file that would hold the secret of `hooks serve` (or its backup) is tracked by git:
    /// the secret would be committed with it ([`git::keep_out`](super::git::keep_out)).
    #[error(
        "{} is tracked by git, so the secret of `hooks serve` would be committed with it; \
         nothing was written. Stop tracking it and commit that: `{fix}`; then install again",
        path.display()
    )]
    SecretTracked {
        /// The tracked file.
        path: PathBuf,
        /// The commands that stop tracking it.
        fix: String,
    },
    /// Git could not say that a file that would hold the secret of `hooks serve` is ignored,
    /// or still does not ignore it ([`git::keep_out`](super::git::keep_out)).
    #[error(
        "{}: {why}; nothing was written (the secret of `hooks serve` goes into it only once git \
         is known to ignore it)",
        path.display()
    )]
    SecretUnguarded {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// `--command NAME` cannot be written: not this binary's name, another file on `PATH`,
    /// or not on `PATH` without `--allow-missing` ([`choose`](super::command::choose)).
    #[error("{why}; nothing was written")]
    Command {
        /// Why.
        why: String,
    },
    /// Writing the report failed.
    #[error("cannot write output: {0}")]
    Output(#[source] io::Error),
}

impl InstallError {
    /// The exit status of `hooks install` failing with this error: 2 for invalid usage (a
    /// working directory that does not exist), else 1.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            InstallError::WorkingDir { .. }
            | InstallError::Version { .. }
            | InstallError::NoVersionCheck { .. }
            | InstallError::NoTrustStep { .. } => 2,
            _ => 1,
        }
    }
}
