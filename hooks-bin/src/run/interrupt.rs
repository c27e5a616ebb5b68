//! Ctrl-C (SIGINT) during `hooks run`.
//!
//! - The **first** Ctrl-C cancels the tool call that is running, through the cancellation token
//!   given to the tool: a `bash` command's processes are stopped (SIGTERM, then SIGKILL a
//!   second later; [`hookwright::exec`] says which), a `read`, `ls`, `grep` or `find` is abandoned (file tools run off the
//!   runtime thread, so they never hold up this handling), a `write` or `edit` completes its
//!   change first. The call ends with the status `cancelled` (its tool result, an error
//!   `tool call cancelled`, is written to the session like any other) and **the script goes
//!   on** with its next action; the exit status is unaffected. When no tool call is running,
//!   the first Ctrl-C instead stops the script cleanly: the current action finishes, the
//!   remaining ones are skipped, the open agent run is closed, `session_shutdown` is emitted and
//!   `hooks run` exits with status 130.
//! - **Any later** Ctrl-C exits at once with status 130: the action in progress is abandoned
//!   (a running tool's processes are killed), no further events are emitted.
//!
//! The session file is intact either way: every entry is one complete line written with a
//! single write, so an abandoned action leaves the entries written before it and nothing
//! half-written.
//!
//! Ctrl-C typed at an interactive prompt of a hook is a key press read by the prompt (it
//! answers "cancelled"), not a signal.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use super::transcript::Transcript;
use crate::sync::Locked as _;

/// The exit status after an interruption (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

/// What one Ctrl-C did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interrupted {
    /// The running tool call (named) was cancelled; the script goes on.
    CancelledTool(String),
    /// No tool call was running: the script stops after the current action.
    Stopping,
    /// A second Ctrl-C: exit now.
    Exiting,
}

/// The Ctrl-C state of one run, shared by the signal listener and the driver.
#[derive(Debug, Default)]
pub struct Interrupts {
    count: AtomicUsize,
    /// The running tool call: its label and its cancellation token.
    tool: Mutex<Option<(String, CancellationToken)>>,
    stop: AtomicBool,
    exit: CancellationToken,
}

/// Marks a tool call as running until dropped (see [`Interrupts::tool_running`]).
#[derive(Debug)]
pub struct RunningTool<'a> {
    interrupts: &'a Interrupts,
}

impl Drop for RunningTool<'_> {
    fn drop(&mut self) {
        *self.interrupts.tool.locked() = None;
    }
}

impl Interrupts {
    /// No Ctrl-C yet.
    #[must_use]
    pub fn new() -> Arc<Self> {
        Arc::new(Interrupts::default())
    }

    /// Records that the tool call `label` runs with `cancel` until the returned guard is
    /// dropped: a first Ctrl-C meanwhile cancels `cancel`.
    #[must_use = "the call counts as running only while the guard lives"]
    pub fn tool_running(&self, label: String, cancel: CancellationToken) -> RunningTool<'_> {
        *self.tool.locked() = Some((label, cancel));
        RunningTool { interrupts: self }
    }

    /// Handles one Ctrl-C and says what it did.
    pub fn interrupt(&self) -> Interrupted {
        if self.count.fetch_add(1, Ordering::SeqCst) > 0 {
            self.exit.cancel();
            return Interrupted::Exiting;
        }
        match self.tool.locked().as_ref() {
            Some((label, cancel)) => {
                cancel.cancel();
                Interrupted::CancelledTool(label.clone())
            }
            None => {
                self.stop.store(true, Ordering::SeqCst);
                Interrupted::Stopping
            }
        }
    }

    /// Whether the script should stop before its next action (a Ctrl-C came while no tool
    /// call was running).
    #[must_use]
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Completes at a second Ctrl-C.
    pub fn exit_requested(&self) -> WaitForCancellationFuture<'_> {
        self.exit.cancelled()
    }
}

/// Installs the SIGINT handler (from now on Ctrl-C no longer kills the process) and spawns the
/// task that handles each Ctrl-C, recording it in the transcript. Must be called inside the
/// Tokio runtime.
///
/// # Errors
///
/// The handler could not be installed.
pub fn listen(interrupts: Arc<Interrupts>, out: Arc<Transcript>) -> std::io::Result<()> {
    // Registered now, not at the first poll, so a Ctrl-C right after the start is caught.
    let mut signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    tokio::spawn(
        async move { while signal.recv().await.is_some() && handle(&interrupts, &out) {} },
    );
    Ok(())
}

/// Handles one Ctrl-C; `false` once the run is exiting (nothing more to listen for).
fn handle(interrupts: &Interrupts, out: &Transcript) -> bool {
    match interrupts.interrupt() {
        Interrupted::CancelledTool(label) => {
            out.interrupt(
                "cancel",
                &format!("Ctrl-C: cancelling {label} (press Ctrl-C again to exit)"),
            );
            true
        }
        Interrupted::Stopping => {
            out.interrupt(
                "stop",
                "Ctrl-C: stopping after the current action (press Ctrl-C again to exit now)",
            );
            true
        }
        Interrupted::Exiting => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_ctrl_c_cancels_the_running_tool_and_a_second_exits() {
        let interrupts = Interrupts::new();
        let cancel = CancellationToken::new();
        let guard = interrupts.tool_running("bash call_1".to_owned(), cancel.clone());
        assert_eq!(
            interrupts.interrupt(),
            Interrupted::CancelledTool("bash call_1".to_owned())
        );
        assert!(cancel.is_cancelled());
        assert!(!interrupts.stop_requested());
        drop(guard);
        assert_eq!(interrupts.interrupt(), Interrupted::Exiting);
        assert!(interrupts.exit.is_cancelled());
    }

    #[test]
    fn first_ctrl_c_without_a_tool_stops_the_script() {
        let interrupts = Interrupts::new();
        drop(interrupts.tool_running("x".to_owned(), CancellationToken::new()));
        assert_eq!(interrupts.interrupt(), Interrupted::Stopping);
        assert!(interrupts.stop_requested());
        assert!(!interrupts.exit.is_cancelled());
    }
}
