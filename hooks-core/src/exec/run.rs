//! The one way hooks runs a process for a call: [`exec_command`](super::exec_command) (and so
//! the `bash` tool of `hooks run`) and hook files go through [`run`], which implements what the
//! [`crate::exec`] documentation says ("What a call kills, and when").
//!
//! The call ends when the command exits (everything else is then SIGKILLed at once), when the
//! stop future resolves first (SIGTERM and SIGKILL after `term_grace`, or SIGKILL at once),
//! when reading fails or a stopping output limit is passed, or when the future is dropped. Once
//! everything was SIGKILLed, output is read and the command awaited for [`DRAIN_GRACE`] at
//! most, so a call takes at most the stop's delay, plus `term_grace`, plus [`DRAIN_GRACE`],
//! whatever its processes do.

use std::future::Future;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::time::Instant;

use super::tree::ProcessTree;

/// How long output is still read once every process of the call was killed.
pub(crate) const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// How much of a stream is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capture {
    /// The most bytes kept.
    pub(crate) limit: usize,
    /// Whether passing the limit ends the call (else the rest is read and dropped).
    pub(crate) stop_past_limit: bool,
}

/// How to run a command.
#[derive(Debug)]
pub(crate) struct Spec {
    /// Bytes written to stdin, which is then closed; `None`: stdin is closed from the start.
    pub(crate) stdin: Option<Vec<u8>>,
    /// How much stdout is kept.
    pub(crate) stdout: Capture,
    /// How much stderr is kept.
    pub(crate) stderr: Capture,
    /// The time between SIGTERM and SIGKILL when the call is stopped; `None`: SIGKILL at once.
    pub(crate) term_grace: Option<Duration>,
}

/// What a stream produced.
#[derive(Debug, Default)]
pub(crate) struct Output {
    /// The bytes kept.
    pub(crate) bytes: Vec<u8>,
    /// Whether more arrived than was kept.
    pub(crate) truncated: bool,
}

/// How a call ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The command's exit status; `None` if it did not end within [`DRAIN_GRACE`] of its
    /// SIGKILL, or the call ended on an output limit first.
    pub(crate) status: Option<ExitStatus>,
    /// Its stdout.
    pub(crate) stdout: Output,
    /// Its stderr.
    pub(crate) stderr: Output,
    /// Whether the stop future resolved before the command exited.
    pub(crate) stopped: bool,
}

/// Why [`run`] failed.
#[derive(Debug)]
pub(crate) enum RunError {
    /// The command could not be started.
    Spawn(io::Error),
    /// Reading its output or waiting for it failed.
    Io(io::Error),
}

/// A pipe being read, and what it produced.
struct Stream<R> {
    pipe: Option<R>,
    capture: Capture,
    output: Output,
    chunk: Box<[u8]>,
}

impl<R: AsyncRead + Unpin> Stream<R> {
    fn new(pipe: Option<R>, capture: Capture) -> Self {
        Stream {
            pipe,
            capture,
            output: Output::default(),
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
        }
    }

    /// Reads into the chunk (cancel-safe); never resolves once the pipe is closed.
    async fn read(pipe: &mut Option<R>, chunk: &mut [u8]) -> io::Result<usize> {
        match pipe {
            Some(pipe) => pipe.read(chunk).await,
            None => std::future::pending().await,
        }
    }

    /// Keeps what was read (`n` bytes; 0 closes the pipe); `false` when the call must end.
    fn keep(&mut self, n: usize) -> bool {
        if n == 0 {
            self.pipe = None;
            return true;
        }
        let room = self.capture.limit - self.output.bytes.len();
        if n > room {
            self.output.truncated = true;
            if self.capture.stop_past_limit {
                self.pipe = None;
                return false;
            }
        }
        // Past the limit the rest is drained and dropped, so the child never blocks on a pipe.
        self.output
            .bytes
            .extend_from_slice(&self.chunk[..n.min(room)]);
        true
    }
}

/// Runs `command` (whose program, arguments, directory and environment are set) as `spec`
/// says, until the moments of the module documentation; `stop` stops it.
pub(crate) async fn run(
    mut command: Command,
    spec: Spec,
    stop: impl Future<Output = ()>,
) -> Result<Finished, RunError> {
    let mut tree = ProcessTree::prepare(&mut command);
    command
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(RunError::Spawn)?;
    tree.started(&child);

    let stdin = child.stdin.take();
    let mut out = Stream::new(child.stdout.take(), spec.stdout);
    let mut err = Stream::new(child.stderr.take(), spec.stderr);
    let data = spec.stdin;
    let mut feed = std::pin::pin!(async move {
        if let (Some(mut pipe), Some(data)) = (stdin, data) {
            // A command that does not read its input closes the pipe early; that is fine.
            let _ignored = pipe.write_all(&data).await;
        }
        // The pipe is dropped here: the command sees the end of its input.
    });
    let mut fed = false;
    let mut stop = std::pin::pin!(stop);

    let mut status: Option<ExitStatus> = None;
    let mut stopped = false;
    // When the SIGKILL is due (a stop's `term_grace` is running).
    let mut kill_at: Option<Instant> = None;
    // When reading stops (everything was killed).
    let mut read_until: Option<Instant> = None;

    while status.is_none() || out.pipe.is_some() || err.pipe.is_some() {
        // Reads first: what the pipes hold is taken before a deadline ends the call.
        tokio::select! {
            biased;
            read = Stream::read(&mut out.pipe, &mut out.chunk) => {
                if !out.keep(read.map_err(RunError::Io)?) {
                    break;
                }
            },
            read = Stream::read(&mut err.pipe, &mut err.chunk) => {
                if !err.keep(read.map_err(RunError::Io)?) {
                    break;
                }
            },
            exited = child.wait(), if status.is_none() => {
                status = Some(exited.map_err(RunError::Io)?);
                tree.reaped();
                if kill_at.is_none() && read_until.is_none() {
                    // The command is done, so is the call.
                    tree.kill(&mut child);
                    read_until = Some(Instant::now() + DRAIN_GRACE);
                }
            },
            () = &mut feed, if !fed => fed = true,
            () = &mut stop, if !stopped && status.is_none() => {
                stopped = true;
                match spec.term_grace {
                    Some(grace) => {
                        tree.terminate(&mut child);
                        kill_at = Some(Instant::now() + grace);
                    }
                    None => {
                        tree.kill(&mut child);
                        read_until = Some(Instant::now() + DRAIN_GRACE);
                    }
                }
            },
            () = tokio::time::sleep_until(kill_at.unwrap_or_else(Instant::now)),
                if kill_at.is_some() =>
            {
                kill_at = None;
                tree.kill(&mut child);
                read_until = Some(Instant::now() + DRAIN_GRACE);
            },
            () = tokio::time::sleep_until(read_until.unwrap_or_else(Instant::now)),
                if read_until.is_some() => break,
        }
    }
    // Whatever way the loop ended, nothing the call started outlives it.
    tree.kill(&mut child);

    Ok(Finished {
        status,
        stdout: out.output,
        stderr: err.output,
        stopped,
    })
}
