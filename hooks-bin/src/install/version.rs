//! Which version of the agent is installed, and so whether its gating entries get the key that
//! makes it block a call when the hook fails ([`FailClosed`]).

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use semver::Version;
use wait_timeout::ChildExt;

use crate::adapters::FailClosed;

/// How long `AGENT --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// What is known about the installed agent's version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentVersion {
    /// Stated on the command line (`--claude-version`).
    Stated(Version),
    /// Asked from the executable found on `PATH`.
    Found {
        /// The executable.
        path: PathBuf,
        /// The version it printed.
        version: Version,
    },
    /// No such executable on `PATH`.
    NotFound,
    /// The executable was found, but its version could not be read.
    Unreadable {
        /// The executable.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl AgentVersion {
    /// The version of `executable` as found on `path_var` (a `PATH` value): the first
    /// executable file of that name, asked `--version`.
    #[must_use]
    pub fn detect(executable: &str, path_var: Option<&OsStr>) -> AgentVersion {
        AgentVersion::detect_within(executable, path_var, VERSION_TIMEOUT)
    }

    /// [`AgentVersion::detect`], with `--version` given at most `timeout` (then it is killed
    /// and the version is [`AgentVersion::Unreadable`]).
    #[must_use]
    pub fn detect_within(
        executable: &str,
        path_var: Option<&OsStr>,
        timeout: Duration,
    ) -> AgentVersion {
        let Some(path) = find_on_path(executable, path_var) else {
            return AgentVersion::NotFound;
        };
        match ask_version(&path, timeout) {
            Ok(version) => AgentVersion::Found { path, version },
            Err(why) => AgentVersion::Unreadable { path, why },
        }
    }

    /// The version, when known.
    #[must_use]
    pub fn version(&self) -> Option<&Version> {
        match self {
            AgentVersion::Stated(version) | AgentVersion::Found { version, .. } => Some(version),
            AgentVersion::NotFound | AgentVersion::Unreadable { .. } => None,
        }
    }
}

/// Whether the gating entries get `fail_closed`'s key for the agent version `version`, and the
/// line that says so (`agent` names the agent in it).
///
/// A known version decides: from [`FailClosed::since`] on the key is written, before it not
/// (and the line says that a hook that cannot start then lets the action through). An unknown
/// version (no executable on `PATH`, or one whose `--version` cannot be read) gets the key:
/// fail-closed is the safe default, and an older agent ignores a key it does not know (its
/// settings schema drops unknown keys of a hook entry).
#[must_use]
pub fn decide(fail_closed: &FailClosed, agent: &str, version: &AgentVersion) -> (bool, String) {
    let [major, minor, patch] = fail_closed.since;
    let since = Version::new(major, minor, patch);
    let setting = format!("\"{}\": {}", fail_closed.key, fail_closed.value);
    let executable = fail_closed.executable.unwrap_or(agent);
    match version.version() {
        Some(v) if *v >= since => (
            true,
            format!(
                "{agent} {v}{}: gating entries have {setting}, so a hook that cannot start, \
                 crashes or times out blocks the action.",
                found_at(version)
            ),
        ),
        Some(v) => (
            false,
            format!(
                "{agent} {v}{} is older than {since}, which is the first to read {setting}: \
                 no entry has it, so a hook that cannot start, crashes or times out lets the \
                 action run. Upgrade {agent} and install again.",
                found_at(version)
            ),
        ),
        None => {
            let why = match version {
                AgentVersion::Unreadable { path, why } => format!(
                    "the version of {} could not be read ({why})",
                    path.display()
                ),
                _ => format!("`{executable}` is not on PATH"),
            };
            (
                true,
                format!(
                    "{why}: gating entries have {setting} (read by {agent} {since} and later, \
                     ignored before); pass --{executable}-version VERSION to state the installed version."
                ),
            )
        }
    }
}

/// ` (/usr/bin/claude)` for a version asked from an executable, else nothing.
fn found_at(version: &AgentVersion) -> String {
    match version {
        AgentVersion::Found { path, .. } => format!(" ({})", path.display()),
        _ => String::new(),
    }
}

/// The first executable regular file named `name` in the directories of `path_var`.
fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Runs `path --version` (stdin closed, at most `timeout`, then killed) and reads the version
/// from what it prints ([`version_in`]).
fn ask_version(path: &Path, timeout: Duration) -> Result<Version, String> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "`--version` did not answer within {} s",
                timeout.as_secs()
            ));
        }
        Err(e) => return Err(format!("cannot wait for it: {e}")),
    };
    let mut printed = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout.take(4096).read_to_string(&mut printed);
    }
    if !status.success() {
        return Err(format!("`--version` exited with {status}"));
    }
    version_in(&printed)
        .ok_or_else(|| format!("`--version` printed no version: {:?}", printed.trim()))
}

/// The version at the start of `text`'s first line: `2.1.328 (Claude Code)` → `2.1.328`.
#[must_use]
pub fn parse_version(text: &str) -> Option<Version> {
    let word = text.lines().next()?.split_whitespace().next()?;
    Version::parse(word.trim_start_matches('v')).ok()
}

/// The first version among the words of `text`'s first line, as agents print it:
/// `2.1.328 (Claude Code)`, `codex-cli 0.169.0`, `omp/18.2.3` → the version.
#[must_use]
pub fn version_in(text: &str) -> Option<Version> {
    text.lines()
        .next()?
        .split(|c: char| c.is_whitespace() || c == '/')
        .find_map(|word| parse_version(word.trim_end_matches([',', ';', ')'])))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: FailClosed = FailClosed {
        key: "onFailure",
        value: crate::adapters::FailValue::Text("block"),
        executable: Some("claude"),
        since: [2, 1, 295],
    };

    #[test]
    fn versions_are_read_from_the_first_word() {
        assert_eq!(
            parse_version("2.1.328 (Claude Code)\n"),
            Some(Version::new(2, 1, 328))
        );
        assert_eq!(parse_version("v1.0.0"), Some(Version::new(1, 0, 0)));
        assert_eq!(parse_version("Claude Code 2.1.328"), None);
        assert_eq!(parse_version(""), None);
    }

    #[test]
    fn printed_versions_are_the_first_version_word_of_the_first_line() {
        assert_eq!(
            version_in("2.1.328 (Claude Code)\n"),
            Some(Version::new(2, 1, 328))
        );
        assert_eq!(
            version_in("codex-cli 0.169.0\n"),
            Some(Version::new(0, 169, 0))
        );
        assert_eq!(version_in("omp/18.2.3"), Some(Version::new(18, 2, 3)));
        assert_eq!(version_in("no version here\n1.2.3"), None);
    }

    #[test]
    fn fail_closed_key_is_written_from_its_first_version_on_and_when_unknown() {
        let at = |v: &str| {
            decide(
                &CLAUDE,
                "Claude Code",
                &AgentVersion::Stated(v.parse().unwrap()),
            )
        };
        assert!(at("2.1.295").0);
        assert!(at("2.1.328").0);
        assert!(at("3.0.0").0);
        let (write, line) = at("2.1.294");
        assert!(!write);
        assert!(line.contains("older than 2.1.295"), "{line}");
        let (write, line) = decide(&CLAUDE, "Claude Code", &AgentVersion::NotFound);
        assert!(write);
        assert!(
            line.contains("`claude` is not on PATH") && line.contains("--claude-version"),
            "{line}"
        );
    }
}
