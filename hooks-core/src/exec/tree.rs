//! The processes of one call, found and signalled as the [`crate::exec`] documentation says
//! ("What a call kills, and when"): the command leads a new process group and carries
//! `HOOKS_PROCESS_TREE=<id>`; hooks is a child subreaper (Linux), so orphans are handed to it.
//!
//! A sweep reads every process from `/proc` once and takes the command (until it is reaped),
//! the members of its group, the children of hooks whose environment holds the entry, and the
//! processes an earlier sweep signalled (same pid, same start time), then their descendants in
//! that same table; only then does it signal them. A pid read there is signalled moments later:
//! it could name another process only if its own was reaped and the pid space wrapped around in
//! between, the window `kill(1)` and `pkill` live with. The group is signalled only while no
//! other process holds the command's pid (after the command was reaped, one that does means the
//! group ended and its id was reused). What a SIGKILL sweep hands to hooks is reaped on a thread
//! of its own, each zombie checked to be the process that was killed (same pid, same start time)
//! before `waitpid` takes it; tokio's own children (the command, other calls' commands) are
//! never among them.

#[cfg(unix)]
use nix::sys::signal::Signal;
#[cfg(unix)]
use nix::unistd::Pid;
use tokio::process::{Child, Command};

/// The environment variable naming the call a process belongs to.
const TREE_VAR: &str = "HOOKS_PROCESS_TREE";

/// At most this many SIGKILL sweeps, each finding the processes forked while the previous one
/// ran, until one finds none.
#[cfg(target_os = "linux")]
const KILL_SWEEPS: usize = 8;

/// How long hooks keeps trying to reap the processes a kill handed to it.
#[cfg(target_os = "linux")]
const REAP_FOR: std::time::Duration = std::time::Duration::from_secs(10);

/// One call's processes. Dropping it before [`ProcessTree::kill`] kills them.
#[derive(Debug)]
pub(crate) struct ProcessTree {
    /// The `HOOKS_PROCESS_TREE=<id>` entry of this call.
    #[cfg_attr(
        not(target_os = "linux"),
        allow(dead_code, reason = "found through /proc")
    )]
    entry: String,
    /// The command's pid, which is also its process group id.
    #[cfg(unix)]
    leader: Option<Pid>,
    /// Whether the command was reaped: its pid then names nothing of ours.
    reaped: bool,
    /// Every process a sweep signalled (pid and start time), the command excepted.
    #[cfg(target_os = "linux")]
    signalled: std::collections::HashMap<i32, u64>,
    /// Whether the final SIGKILL sweep ran.
    killed: bool,
}

impl ProcessTree {
    /// Prepares `command` to start a new tree: its own process group, this call's
    /// `HOOKS_PROCESS_TREE`, killed if the handle is dropped. Makes hooks a child subreaper.
    pub(crate) fn prepare(command: &mut Command) -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        #[cfg(target_os = "linux")]
        {
            static SUBREAPER: std::sync::Once = std::sync::Once::new();
            // Fails only on a kernel older than 3.4; orphans then go to init, out of reach.
            SUBREAPER.call_once(|| {
                let _unsupported = nix::sys::prctl::set_child_subreaper(true);
            });
        }
        let id = format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        command.env(TREE_VAR, &id).kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        ProcessTree {
            entry: format!("{TREE_VAR}={id}"),
            #[cfg(unix)]
            leader: None,
            reaped: false,
            #[cfg(target_os = "linux")]
            signalled: std::collections::HashMap::new(),
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
                self.sweep(Signal::SIGTERM);
            }
        }
        #[cfg(not(unix))]
        if !self.reaped {
            let _ = child.start_kill();
        }
    }

    /// Kills every process of the call (SIGKILL) and reaps those handed to hooks. Later calls
    /// do nothing: the call is over, its process group id may name another group one day.
    pub(crate) fn kill(&mut self, child: &mut Child) {
        // The sweep first: it finds the command's children while the command still holds them.
        self.kill_all();
        if !self.reaped {
            let _ = child.start_kill();
        }
    }

    fn kill_all(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        #[cfg(target_os = "linux")]
        {
            for _ in 0..KILL_SWEEPS {
                if self.sweep(Signal::SIGKILL) == 0 {
                    break;
                }
            }
            reap(std::mem::take(&mut self.signalled));
        }
        #[cfg(all(unix, not(target_os = "linux")))]
        self.sweep(Signal::SIGKILL);
    }

    /// Sends `signal` to every process of the call that can be found; returns how many of them
    /// no earlier sweep had signalled.
    #[cfg(target_os = "linux")]
    fn sweep(&mut self, signal: Signal) -> usize {
        use super::procfs::{self, Stat};
        let Some(leader) = self.leader else {
            return 0;
        };
        let me = i32::try_from(std::process::id()).unwrap_or_default();
        let table = procfs::processes();
        // While a member of the group lives, its id names no other process; a process with that
        // pid after the command was reaped means the group ended and the id was reused.
        let group_is_ours = !(self.reaped && table.iter().any(|p| p.pid == leader.as_raw()));
        let is_root = |p: &&Stat| {
            if p.pid == leader.as_raw() {
                !self.reaped
            } else {
                (group_is_ours && p.pgid == leader.as_raw())
                    || self.signalled.get(&p.pid) == Some(&p.start)
                    || (p.ppid == me && procfs::environ_has(p.pid, &self.entry))
            }
        };
        // Everything is found before anything is signalled: a process that dies hands its
        // children to hooks, where a walk from it no longer finds them.
        let mut stack: Vec<&Stat> = table.iter().filter(is_root).collect();
        let mut seen: std::collections::HashSet<i32> = stack.iter().map(|p| p.pid).collect();
        let mut found = Vec::new();
        while let Some(process) = stack.pop() {
            found.push(process);
            for child in table.iter().filter(|p| p.ppid == process.pid) {
                if seen.insert(child.pid) {
                    stack.push(child);
                }
            }
        }
        if group_is_ours {
            let _ = nix::sys::signal::killpg(leader, signal);
        }
        let mut new = 0;
        for process in found {
            if !process.zombie {
                let _ = nix::sys::signal::kill(Pid::from_raw(process.pid), signal);
            }
            if process.pid != leader.as_raw()
                && self.signalled.insert(process.pid, process.start).is_none()
            {
                new += 1;
            }
        }
        new
    }

    /// Sends `signal` to the process group.
    #[cfg(all(unix, not(target_os = "linux")))]
    fn sweep(&mut self, signal: Signal) -> usize {
        if let Some(leader) = self.leader {
            let _ = nix::sys::signal::killpg(leader, signal);
        }
        0
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        // The command itself is killed and reaped by tokio (`kill_on_drop`).
        self.kill_all();
    }
}

/// Reaps, on a thread of its own, the processes of `killed` that become zombie children of
/// hooks within [`REAP_FOR`]; the others are reaped by their own parents.
#[cfg(target_os = "linux")]
fn reap(mut killed: std::collections::HashMap<i32, u64>) {
    use super::procfs;
    use nix::sys::wait::{WaitPidFlag, waitpid};
    use std::time::{Duration, Instant};
    if killed.is_empty() {
        return;
    }
    let me = i32::try_from(std::process::id()).unwrap_or_default();
    let reaper = move || {
        let until = Instant::now() + REAP_FOR;
        while !killed.is_empty() && Instant::now() < until {
            killed.retain(|&pid, &mut start| match procfs::stat(pid) {
                // Gone (reaped by its parent), or the pid names another process now.
                None => false,
                Some(p) if p.start != start => false,
                // Not ours (yet), or still ending.
                Some(p) if p.ppid != me || !p.zombie => true,
                // Our zombie, the one we killed (a zombie keeps its pid): nobody else reaps it.
                Some(_) => {
                    let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
                    false
                }
            });
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    // Without a thread the zombies wait for hooks to exit; nothing else is lost.
    let _no_thread = std::thread::Builder::new()
        .name("hooks-reaper".to_owned())
        .spawn(reaper);
}
