//! The processes of one call: the command leads a new process group, and the group is what a
//! sweep signals (see the [`crate::exec`] documentation, "What a call kills, and when").

#[cfg(unix)]
use nix::sys::signal::Signal;
#[cfg(unix)]
use nix::unistd::Pid;
use tokio::process::{Child, Command};

/// One call's processes. Dropping it before [`ProcessTree::kill`] kills them.
#[derive(Debug)]
pub(crate) struct ProcessTree {
    /// The command's pid, which is also its process group id.
    #[cfg(unix)]
    leader: Option<Pid>,
    /// Whether the command was reaped.
    reaped: bool,
    /// Whether the final SIGKILL went out.
    killed: bool,
}

impl ProcessTree {
    /// Prepares `command` to start a new tree: its own process group, killed if the handle is
    /// dropped.
    pub(crate) fn prepare(command: &mut Command) -> Self {
        command.kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        ProcessTree {
            #[cfg(unix)]
            leader: None,
            reaped: false,
            killed: false,
        }
    }

    /// The command was started as `child`.
    pub(crate) fn started(&mut self, child: &Child) {
        #[cfg(unix)]
        {
            self.leader = child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .map(Pid::from_raw);
        }
        #[cfg(not(unix))]
        let _ = child;
    }

    /// The command was reaped (its exit status is known).
    pub(crate) fn reaped(&mut self) {
        self.reaped = true;
    }

    /// Asks every process of the call to end (SIGTERM). Outside Unix: kills the command.
    pub(crate) fn terminate(&mut self, child: &mut Child) {
        #[cfg(unix)]
        {
            let _ = child;
            if !self.killed {
                self.signal(Signal::SIGTERM);
            }
        }
        #[cfg(not(unix))]
        if !self.reaped {
            let _ = child.start_kill();
        }
    }

    /// Kills every process of the call (SIGKILL). Later calls do nothing: the call is over,
    /// its process group id may name another group one day.
    pub(crate) fn kill(&mut self, child: &mut Child) {
        if !self.reaped {
            let _ = child.start_kill();
        }
        self.kill_all();
    }

    fn kill_all(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        #[cfg(unix)]
        self.signal(Signal::SIGKILL);
    }

    /// Sends `signal` to the process group (a group id is not reused while a member lives;
    /// ESRCH, an empty group, is expected).
    #[cfg(unix)]
    fn signal(&self, signal: Signal) {
        if let Some(leader) = self.leader {
            let _ = nix::sys::signal::killpg(leader, signal);
        }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        // The command itself is killed and reaped by tokio (`kill_on_drop`).
        self.kill_all();
    }
}
