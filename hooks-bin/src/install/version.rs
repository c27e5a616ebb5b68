//! Which version of the agent is installed, and so whether its gating entries get the key that
//! makes it block a call when the hook fails ([`FailClosed`]).

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use semver::Version;
use wait_timeout::ChildExt;

use crate::agents::{AgentCli, FailClosed};

/// How long `AGENT --version` may take, reading what it prints and waiting for it, before its
/// process group is killed (`install` and `doctor` alike; docs/agents.md says 5 s).
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// executable file of that name, asked `--version`, given at most [`VERSION_TIMEOUT`]
    /// (then it is killed and the version is [`AgentVersion::Unreadable`]).
    #[must_use]
    pub fn detect(executable: &str, path_var: Option<&OsStr>) -> AgentVersion {
        let Some(path) = find_on_path(executable, path_var) else {
            return AgentVersion::NotFound;
        };
        match ask_version(&path, VERSION_TIMEOUT) {
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
pub fn decide(fail_closed: &FailClosed, cli: &AgentCli, version: &AgentVersion) -> (bool, String) {
    let (agent, executable) = (cli.display_name, cli.executable);
    let [major, minor, patch] = fail_closed.since;
    let since = Version::new(major, minor, patch);
    let setting = format!("\"{}\": {}", fail_closed.key, fail_closed.value);
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

/// At most this much of what `--version` prints is read.
const PRINTED_MAX: usize = 4096;

/// Runs `path --version` in a process group of its own (stdin closed, stderr discarded) and
/// reads the version from what it prints ([`version_in`]). `timeout` bounds the whole probe,
/// reading and waiting: stdout is read until end of file (or [`PRINTED_MAX`] bytes) or the
/// deadline, whichever comes first, then the process is waited for until the deadline. At the
/// deadline the whole group is killed (SIGKILL), so that neither a hanging `--version` nor a
/// background child of it that holds stdout open keeps the caller waiting. A version printed
/// by a process that exited successfully is read even when the group had to be killed for a
/// child left behind; a process still running at the deadline has no version.
fn ask_version(path: &Path, timeout: Duration) -> Result<Version, String> {
    use std::os::unix::process::CommandExt as _;
    let deadline = Instant::now() + timeout;
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let late = || format!("`--version` did not answer within {} s", timeout.as_secs());
    let mut printed = Vec::new();
    let mut reached_deadline = match child.stdout.take() {
        Some(mut stdout) => read_until(&mut stdout, deadline, &mut printed),
        None => false,
    };
    let mut status = None;
    if !reached_deadline {
        match child.wait_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Some(exited)) => status = Some(exited),
            Ok(None) => reached_deadline = true,
            Err(e) => {
                kill_group(&child);
                let _ = child.wait();
                return Err(format!("cannot wait for it: {e}"));
            }
        }
    }
    if reached_deadline {
        // Not reaped yet, so the group's id is still the child's own pid.
        kill_group(&child);
        status = child.wait().ok();
    }
    let status = match status {
        Some(status) if status.signal().is_some() && reached_deadline => return Err(late()),
        Some(status) => status,
        None => return Err(late()),
    };
    if !status.success() {
        return Err(format!("`--version` exited with {status}"));
    }
    let printed = String::from_utf8_lossy(&printed);
    version_in(&printed)
        .ok_or_else(|| format!("`--version` printed no version: {:?}", printed.trim()))
}

/// Reads `pipe` into `into` until end of file or [`PRINTED_MAX`] bytes, or until `deadline`;
/// whether the deadline came first. A read error ends the reading as end of file does.
fn read_until(pipe: &mut std::process::ChildStdout, deadline: Instant, into: &mut Vec<u8>) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut buf = [0u8; 1024];
    while into.len() < PRINTED_MAX {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        let timeout = Timespec::try_from(left).unwrap_or(Timespec {
            tv_sec: i64::MAX,
            tv_nsec: 0,
        });
        let mut fds = [PollFd::new(&*pipe, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return false,
        }
        // Readable (or hung up): this read does not block.
        match pipe.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => into.extend_from_slice(&buf[..n.min(PRINTED_MAX - into.len())]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    false
}

/// SIGKILL to the process group `child` leads (its pid), while `child` is not reaped.
fn kill_group(child: &std::process::Child) {
    if let Some(pid) = rustix::process::Pid::from_raw(child.id().cast_signed()) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
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
        value: crate::agents::FailValue::Text("block"),
        versioned: true,
        since: [2, 1, 295],
    };

    fn claude() -> &'static AgentCli {
        crate::agents::Agent::Claude.protocol().cli()
    }

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
    fn a_background_child_holding_stdout_is_killed_with_the_group_at_the_deadline() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("child.pid");
        let claude = dir.path().join("claude");
        std::fs::write(
            &claude,
            format!(
                "#!/bin/sh\necho '2.1.328 (Claude Code)'\n/bin/sleep 30 &\necho $! > '{}'\n",
                pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        let started = Instant::now();
        let version = AgentVersion::detect("claude", Some(dir.path().as_os_str()));
        let took = started.elapsed();
        // The deadline is 5 s; the child would hold stdout for 30 s.
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert_eq!(
            version.version(),
            Some(&Version::new(2, 1, 328)),
            "{version:?}"
        );
        let stat = format!(
            "/proc/{}/stat",
            std::fs::read_to_string(&pid_file).unwrap().trim()
        );
        let until = Instant::now() + Duration::from_secs(2);
        let ended = loop {
            // Gone, or a zombie (state after the last `)`) whoever adopted it did not reap.
            let ended = std::fs::read_to_string(&stat).map_or(true, |s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
            });
            if ended || Instant::now() >= until {
                break ended;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(ended, "the background child was killed with the group");
    }

    #[test]
    fn fail_closed_key_is_written_from_its_first_version_on_and_when_unknown() {
        let at = |v: &str| decide(&CLAUDE, claude(), &AgentVersion::Stated(v.parse().unwrap()));
        assert!(at("2.1.295").0);
        assert!(at("2.1.328").0);
        assert!(at("3.0.0").0);
        let (write, line) = at("2.1.294");
        assert!(!write);
        assert!(line.contains("older than 2.1.295"), "{line}");
        let (write, line) = decide(&CLAUDE, claude(), &AgentVersion::NotFound);
        assert!(write);
        assert!(
            line.contains("`claude` is not on PATH") && line.contains("--claude-version"),
            "{line}"
        );
    }
}
