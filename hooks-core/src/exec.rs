//! Running an external command for a hook (`pi.exec` / `execCommand`, SPEC-DETAILS section 8).
//!
//! The command is spawned directly with its argument vector (no shell), stdin closed, stdout and
//! stderr piped and read concurrently. Hook files and the `bash` tool of `hooks run` run the
//! same way.
//!
//! # What a call kills, and when
//!
//! The call ends when the command exits, when its timeout or cancellation stops it, or when the
//! returned future is dropped; then every process of the call that can be found is killed:
//!
//! - **exits:** what it left running gets SIGKILL at once, and output is read until both pipes
//!   are closed, for half a second at most: a process that escaped holding a pipe open does not
//!   keep the call going;
//! - **timeout or cancellation:** SIGTERM, and one second later SIGKILL (sooner when the command
//!   has exited and both pipes are closed); output is read for half a second more at most, and
//!   the call resolves with `killed: true`. So a call with a timeout takes at most the timeout
//!   plus one and a half seconds, whatever its processes do;
//! - **dropped:** SIGKILL at once.
//!
//! The processes of a call are found as follows. The command leads a new process group and has
//! `HOOKS_PROCESS_TREE=<id of the call>` in its environment, which what it starts inherits. On
//! Linux the hooks process makes itself a child subreaper (`PR_SET_CHILD_SUBREAPER`) before it
//! starts its first command, so that a process whose parent ends is handed to hooks rather than
//! to init. Signalled are: the command; every member of its process group; every child of hooks
//! whose environment holds the call's `HOOKS_PROCESS_TREE`; after a SIGTERM, every process it
//! reached; and every descendant of those. Not found, and left running: a process that left the
//! group (`setsid`), lost its parent *and* was started with an environment without that entry
//! (`env -i`) before the call's first signal — with any descendants of it that are not found on
//! their own. Processes of another call running at the same time are not touched. Outside Linux
//! only the process group is signalled.
//!
//! The killed processes that were handed to hooks are reaped by hooks. As a subreaper hooks also
//! receives the orphans of processes that other code in it starts (a hook's own
//! `std::process::Command`); those are neither killed nor reaped, so when they end they remain
//! zombies until hooks exits.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

#[cfg(target_os = "linux")]
mod procfs;
pub(crate) mod run;
mod tree;

use run::{Capture, RunError, Spec, run};

/// The most bytes of stdout (and of stderr) kept: 50 MiB.
pub const OUTPUT_LIMIT: usize = 50 * 1024 * 1024;

/// How long a child gets between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// Options of [`exec_command`].
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Cancels the command (`AbortSignal`): the child is terminated and the call resolves with
    /// `killed: true`. With a token already cancelled at call time no process is started and
    /// the call resolves at once with `killed: true` and no output.
    pub cancel: Option<CancellationToken>,
    /// Terminates the child after this long. `None` or zero means no timeout.
    pub timeout: Option<Duration>,
    /// Working directory; overrides the `cwd` argument of [`exec_command`].
    pub cwd: Option<PathBuf>,
}

/// What a finished command produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecResult {
    /// Everything the child wrote to stdout, decoded as UTF-8 (invalid bytes replaced).
    pub stdout: String,
    /// Everything the child wrote to stderr, decoded as UTF-8 (invalid bytes replaced); past
    /// 50 MiB it is cut and the line `…[stderr truncated at 52428800 bytes]` is appended.
    pub stderr: String,
    /// The exit status. When `killed` is true: the status if the child exited on its own after
    /// SIGTERM, else `0`. When `killed` is false and the child died of a signal: `-1`.
    pub code: i32,
    /// Whether the child was terminated because of the timeout or the cancellation token.
    pub killed: bool,
}

/// Why [`exec_command`] failed. A non-zero exit, a timeout and a cancellation are not errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The command could not be started (for example, it does not exist).
    #[error("failed to spawn `{command}`: {source}")]
    Spawn {
        /// The command that was to be run.
        command: String,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The child wrote more than `limit` bytes to stdout; it was killed.
    #[error("command output too large: stdout exceeded {limit} bytes")]
    OutputTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Reading the child's output or waiting for it failed.
    #[error("I/O error while running a command: {0}")]
    Io(#[from] io::Error),
}

/// Runs `command` with `args` (no shell) in `cwd` (or `options.cwd`) and collects its output.
///
/// A non-zero exit status is a normal result (`code`), not an error. On timeout or cancellation
/// the call's processes get SIGTERM, then SIGKILL one second later, and the result has
/// `killed: true`. When the command exits, and when the returned future is dropped, what it
/// left running is killed. The [module documentation](self) says which processes are found.
///
/// # Errors
///
/// [`ExecError::Spawn`] if the command cannot be started, [`ExecError::OutputTooLarge`] if it
/// writes more than [`OUTPUT_LIMIT`] bytes to stdout (the child is killed), [`ExecError::Io`] if
/// reading its output fails.
///
/// # Example
///
/// ```
/// use hookwright::exec::{exec_command, ExecOptions};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), hookwright::exec::ExecError> {
/// let options = ExecOptions { timeout: Some(Duration::from_secs(10)), ..Default::default() };
/// let result = exec_command("echo", &["hello".to_string()], ".".as_ref(), options).await?;
/// assert_eq!(result.stdout, "hello\n");
/// assert_eq!(result.code, 0);
/// assert!(!result.killed);
/// # Ok(())
/// # }
/// ```
pub async fn exec_command(
    command: &str,
    args: &[String],
    cwd: &Path,
    options: ExecOptions,
) -> Result<ExecResult, ExecError> {
    exec_with_limit(command, args, cwd, options, OUTPUT_LIMIT).await
}

/// [`exec_command`] with a configurable output limit (tests use a small one).
async fn exec_with_limit(
    command: &str,
    args: &[String],
    cwd: &Path,
    options: ExecOptions,
    limit: usize,
) -> Result<ExecResult, ExecError> {
    let ExecOptions {
        cancel,
        timeout,
        cwd: cwd_override,
    } = options;
    if cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
        return Ok(ExecResult {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
            killed: true,
        });
    }
    let mut cmd = Command::new(command);
    cmd.args(args)
        .current_dir(cwd_override.as_deref().unwrap_or(cwd));
    let spec = Spec {
        stdin: None,
        stdout: Capture {
            limit,
            stop_past_limit: true,
        },
        stderr: Capture {
            limit,
            stop_past_limit: false,
        },
        term_grace: Some(KILL_GRACE),
    };
    let stop = stop_requested(cancel, timeout.filter(|d| !d.is_zero()));
    let finished = run(cmd, spec, stop).await.map_err(|e| match e {
        RunError::Spawn(source) => ExecError::Spawn {
            command: command.to_owned(),
            source,
        },
        RunError::Io(e) => ExecError::Io(e),
    })?;
    if finished.stdout.truncated {
        return Err(ExecError::OutputTooLarge { limit });
    }
    let killed = finished.stopped;
    let code = match finished.status.and_then(|s| s.code()) {
        Some(code) => code,
        None if killed => 0,
        None => -1,
    };
    Ok(ExecResult {
        stdout: String::from_utf8_lossy(&finished.stdout.bytes).into_owned(),
        stderr: decode_stderr(&finished.stderr.bytes, finished.stderr.truncated, limit),
        code,
        killed,
    })
}

/// Resolves when the token is cancelled or the timeout expires; never if neither is given.
async fn stop_requested(cancel: Option<CancellationToken>, timeout: Option<Duration>) {
    let cancelled = async {
        match &cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let expired = async {
        match timeout {
            Some(after) => tokio::time::sleep(after).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = cancelled => {},
        () = expired => {},
    }
}

/// Decodes stderr; a truncated stderr loses a trailing partial character and gets the marker line.
fn decode_stderr(bytes: &[u8], truncated: bool, limit: usize) -> String {
    if !truncated {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let bytes = match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    };
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("…[stderr truncated at {limit} bytes]"));
    text
}

#[cfg(test)]
mod tests;
