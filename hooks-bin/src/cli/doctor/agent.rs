//! Whether an agent is on this machine: its executable on `PATH` (and the version it prints)
//! and its config directories.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::agents::Agent;
use crate::install::{self, AgentVersion};

/// What is known about an agent's executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presence {
    /// The executable found on `PATH`.
    pub executable: Option<PathBuf>,
    /// The version it printed.
    pub version: Option<semver::Version>,
    /// Why the version could not be read.
    pub version_error: Option<String>,
    /// The agent's config directories that exist: the user's, then the project's.
    pub config_dirs: Vec<PathBuf>,
}

/// Looks for `agent`: its executable on `path_var` (asked `--version`, at most
/// [`install::VERSION_TIMEOUT`]), its user-level config directory (under `home`, or its
/// config-directory variable's) and its directory in `project`.
#[must_use]
pub fn look_for(
    agent: Agent,
    path_var: Option<&OsStr>,
    home: Option<&Path>,
    project: &Path,
) -> Presence {
    let (executable, version, version_error) =
        match AgentVersion::detect(agent.executable(), path_var) {
            AgentVersion::Found { path, version } => (Some(path), Some(version), None),
            AgentVersion::Unreadable { path, why } => (Some(path), None, Some(why)),
            AgentVersion::NotFound | AgentVersion::Stated(_) => (None, None, None),
        };
    let shape = agent.protocol().install();
    let user_dir = install::user_settings_path(
        agent,
        shape.dir_env.and_then(std::env::var_os).as_deref(),
        home.unwrap_or(Path::new("")),
    )
    .ok()
    .and_then(|file| config_dir_of(&file, shape.file));
    let project_dir = project.join(shape.dir);
    let config_dirs = user_dir
        .into_iter()
        .chain(std::iter::once(project_dir))
        .filter(|dir| dir.is_dir())
        .collect();
    Presence {
        executable,
        version,
        version_error,
        config_dirs,
    }
}

/// The config directory of the settings file `file`, whose path in it is `rel`
/// (`hooks/hooks.json`: two levels up).
fn config_dir_of(file: &Path, rel: &str) -> Option<PathBuf> {
    let levels = Path::new(rel).components().count();
    file.ancestors().nth(levels).map(Path::to_path_buf)
}
