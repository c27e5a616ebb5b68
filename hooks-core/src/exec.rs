//! Running an external command for a hook (`pi.exec` / `execCommand`, SPEC-DETAILS section 8).
//!
//! The command is spawned directly with its argument vector (no shell), stdin closed, stdout and
//! stderr piped and read concurrently. A timeout or a cancellation ends the child gracefully
//! (SIGTERM to its process group, then SIGKILL to the whole group one second later) and the call
//! still resolves with `killed: true`. The child runs in its own process group, so grandchildren
//! are ended with it, also when the returned future is dropped half-way.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The most bytes of stdout (and of stderr) kept: 50 MiB.
pub const OUTPUT_LIMIT: usize = 50 * 1024 * 1024;

/// How long a child gets between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// Options of [`exec_command`].
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Cancels the command (`AbortSignal`): the child is terminated and the call resolves with
    /// `killed: true`. A token already cancelled at call time terminates the child at once.
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
/// the child's process group gets SIGTERM, then SIGKILL one second later, and the result has
/// `killed: true`. Dropping the returned future kills the child and its process group.
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
/// use hooks_core::exec::{exec_command, ExecOptions};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), hooks_core::exec::ExecError> {
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
    let mut cmd = Command::new(command);
    cmd.args(args)
        .current_dir(cwd_override.as_deref().unwrap_or(cwd))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn().map_err(|source| ExecError::Spawn {
        command: command.to_owned(),
        source,
    })?;
    // From here on, any early return (error, or the future being dropped) kills the group.
    let mut tree = ProcessTree::new(&child);

    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("child stdout was not captured"))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| io::Error::other("child stderr was not captured"))?;
    let mut stdout_fut = std::pin::pin!(read_capped(stdout, limit));
    let mut stderr_fut = std::pin::pin!(read_truncating(stderr, limit));
    let mut stop = std::pin::pin!(stop_requested(cancel, timeout.filter(|d| !d.is_zero())));

    let mut out: Option<Vec<u8>> = None;
    let mut err: Option<(Vec<u8>, bool)> = None;
    let mut status: Option<ExitStatus> = None;
    let mut killed = false;
    let mut kill_at: Option<Instant> = None;
    let mut sigkill_sent = false;

    while out.is_none() || err.is_none() || status.is_none() {
        tokio::select! {
            read = &mut stdout_fut, if out.is_none() => match read? {
                Some(bytes) => out = Some(bytes),
                None => {
                    tree.kill(&mut child, status.is_some());
                    // SIGKILL cannot be caught: reaping is quick.
                    let _ = child.wait().await;
                    tree.disarm();
                    return Err(ExecError::OutputTooLarge { limit });
                }
            },
            read = &mut stderr_fut, if err.is_none() => err = Some(read?),
            exited = child.wait(), if status.is_none() => status = Some(exited?),
            () = &mut stop, if !killed => {
                killed = true;
                tree.terminate(&mut child, status.is_some());
                kill_at = Some(Instant::now() + KILL_GRACE);
            },
            () = tokio::time::sleep_until(kill_at.unwrap_or_else(Instant::now)),
                if kill_at.is_some() && !sigkill_sent =>
            {
                sigkill_sent = true;
                tree.kill(&mut child, status.is_some());
            },
        }
    }

    if killed && !sigkill_sent {
        // The child is gone and the pipes are closed; leave no member of the tree behind.
        tree.kill(&mut child, true);
    }
    tree.disarm();

    let (stdout, (stderr, stderr_truncated), status) = match (out, err, status) {
        (Some(o), Some(e), Some(s)) => (o, e, s),
        _ => unreachable!("the loop ends only when all three are known"),
    };
    let code = match status.code() {
        Some(code) => code,
        None if killed => 0,
        None => -1,
    };
    Ok(ExecResult {
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: decode_stderr(&stderr, stderr_truncated, limit),
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

/// Reads everything; `None` when more than `limit` bytes arrive.
async fn read_capped<R: AsyncRead + Unpin>(
    mut reader: R,
    limit: usize,
) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let mut chunk = vec![0_u8; 64 * 1024];
    loop {
        let n = reader.read(&mut chunk).await?;
        if n == 0 {
            return Ok(Some(buf));
        }
        if buf.len() + n > limit {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads everything, keeping the first `limit` bytes; the flag tells whether more arrived.
async fn read_truncating<R: AsyncRead + Unpin>(
    mut reader: R,
    limit: usize,
) -> io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    let mut truncated = false;
    let mut chunk = vec![0_u8; 64 * 1024];
    loop {
        let n = reader.read(&mut chunk).await?;
        if n == 0 {
            return Ok((buf, truncated));
        }
        let room = limit - buf.len();
        if n > room {
            truncated = true;
        }
        // Past the limit the rest is drained and dropped, so the child never blocks on a full pipe.
        buf.extend_from_slice(&chunk[..n.min(room)]);
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

/// The child's process group. Signals go to the group (so grandchildren get them too) and to the
/// child itself (in case it left the group). While armed, dropping it SIGKILLs the group.
struct ProcessTree {
    #[cfg(unix)]
    pid: Option<nix::unistd::Pid>,
    armed: bool,
}

impl ProcessTree {
    fn new(child: &Child) -> Self {
        #[cfg(not(unix))]
        let _ = child;
        ProcessTree {
            #[cfg(unix)]
            pid: child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .map(nix::unistd::Pid::from_raw),
            armed: true,
        }
    }

    /// Asks the tree to end (SIGTERM).
    fn terminate(&self, child: &mut Child, reaped: bool) {
        self.send(child, reaped, false);
    }

    /// Ends the tree (SIGKILL).
    fn kill(&self, child: &mut Child, reaped: bool) {
        self.send(child, reaped, true);
    }

    #[cfg(unix)]
    fn send(&self, _child: &mut Child, reaped: bool, force: bool) {
        use nix::sys::signal::Signal;
        self.signal(
            if force {
                Signal::SIGKILL
            } else {
                Signal::SIGTERM
            },
            reaped,
        );
    }

    #[cfg(not(unix))]
    fn send(&self, child: &mut Child, reaped: bool, _force: bool) {
        if !reaped {
            let _ = child.start_kill();
        }
    }

    #[cfg(unix)]
    fn signal(&self, signal: nix::sys::signal::Signal, reaped: bool) {
        if let Some(pid) = self.pid {
            // A process group id is not reused while any member is alive; errors (ESRCH: the
            // group is empty) are expected and ignored.
            let _ = nix::sys::signal::killpg(pid, signal);
            if !reaped {
                let _ = nix::sys::signal::kill(pid, signal);
            }
        }
    }

    /// The call finished normally: dropping no longer kills anything.
    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        if self.armed {
            // The child itself is killed and reaped by tokio (`kill_on_drop`); this reaches the
            // rest of its group.
            #[cfg(unix)]
            if let Some(pid) = self.pid {
                let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}

#[cfg(test)]
mod tests;
