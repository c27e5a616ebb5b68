//! Running an agent process with a time bound, and leaving nothing of it behind.
//!
//! The agent starts in a process group of its own and with a marker variable
//! ([`RUN_MARKER`]) in its environment, which every process it starts inherits. When it exits,
//! or when the time is up (then it is killed), its group is killed, and so is every process
//! still carrying the marker (a background server that left the group), each by its pid.

use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The environment variable that marks every process of one run.
pub(crate) const RUN_MARKER: &str = "HOOKS_E2E_RUN";

/// What a bounded run did.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The exit status; `None` when it was killed for running too long.
    pub(crate) status: Option<ExitStatus>,
    /// Everything it printed on stdout.
    pub(crate) stdout: String,
    /// Everything it printed on stderr.
    pub(crate) stderr: String,
    /// How long it ran.
    pub(crate) elapsed: Duration,
    /// Processes of the run still alive after it ended (killed then), as `pid: command line`.
    pub(crate) leftovers: Vec<String>,
}

impl Finished {
    /// Whether it exited with status 0.
    pub(crate) fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// Its exit code (`None` when killed).
    pub(crate) fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// `exit STATUS after N s`, for assertion messages.
    pub(crate) fn summary(&self) -> String {
        format!(
            "exit {:?} after {:.1} s",
            self.status,
            self.elapsed.as_secs_f64()
        )
    }
}

/// What a bounded run gets on stdin.
pub(crate) enum Input<'a> {
    /// Nothing: stdin is closed.
    Closed,
    /// These bytes, then end of input.
    Bytes(&'a [u8]),
    /// These bytes, with stdin kept open until a line of stdout satisfies the predicate (a
    /// server that stops at the end of its input but answers only while it lasts).
    UntilAnswer(&'a [u8], &'a dyn Fn(&str) -> bool),
    /// A conversation: given all of stdout so far, the function returns all of the input so
    /// far (what it returned before, maybe with more after it; the new part is written), or
    /// `None` to end the input. It is asked again whenever stdout grew.
    Conversation(&'a dyn Fn(&str) -> Option<Vec<u8>>),
}

/// Runs `cmd` (stdin closed, output into `dir/NAME.stdout|stderr`) for at most `limit`.
pub(crate) fn run_bounded(cmd: Command, dir: &Path, name: &str, limit: Duration) -> Finished {
    run_bounded_with_input(cmd, &Input::Closed, dir, name, limit)
}

/// [`run_bounded`] with `input` on stdin.
pub(crate) fn run_bounded_with_input(
    mut cmd: Command,
    input: &Input<'_>,
    dir: &Path,
    name: &str,
    limit: Duration,
) -> Finished {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let marker = format!(
        "{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    let out_path = dir.join(format!("{name}.stdout"));
    let err_path = dir.join(format!("{name}.stderr"));
    let out = fs::File::create(&out_path).expect("stdout file");
    let err = fs::File::create(&err_path).expect("stderr file");
    let stdin = match input {
        Input::Closed => Stdio::null(),
        Input::Bytes(bytes) => {
            let path = dir.join(format!("{name}.stdin"));
            fs::write(&path, bytes).expect("stdin file");
            Stdio::from(fs::File::open(&path).expect("open stdin file"))
        }
        Input::UntilAnswer(..) | Input::Conversation(_) => Stdio::piped(),
    };
    cmd.env(RUN_MARKER, &marker)
        .stdin(stdin)
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let pgid = Pid::from_raw(i32::try_from(child.id()).expect("pid fits i32"));
    let mut open_stdin = child.stdin.take();
    if let (Some(pipe), Input::UntilAnswer(bytes, _)) = (open_stdin.as_mut(), input) {
        let _ = pipe.write_all(bytes);
        let _ = pipe.flush();
    }
    // Conversation: how much of the input is written, and the stdout it was computed from.
    let mut written = 0;
    let mut seen: Option<usize> = None;
    let status = loop {
        if let (Some(_), Input::UntilAnswer(_, answered)) = (&open_stdin, input) {
            let printed = fs::read_to_string(&out_path).unwrap_or_default();
            if printed.lines().any(answered) {
                open_stdin = None; // end of input
            }
        }
        if let (Some(pipe), Input::Conversation(next)) = (open_stdin.as_mut(), input) {
            let printed = fs::read_to_string(&out_path).unwrap_or_default();
            if seen != Some(printed.len()) {
                seen = Some(printed.len());
                match next(&printed) {
                    Some(all) => {
                        if let Some(new) = all.get(written..) {
                            let _ = pipe.write_all(new);
                            let _ = pipe.flush();
                        }
                        written = all.len();
                    }
                    None => open_stdin = None, // end of input
                }
            }
        }
        if let Some(status) = child.try_wait().expect("wait for the process") {
            break Some(status);
        }
        if started.elapsed() >= limit {
            let _ = killpg(pgid, Signal::SIGKILL);
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(open_stdin);
    let elapsed = started.elapsed();
    let _ = killpg(pgid, Signal::SIGKILL);
    let leftovers = kill_marked(&marker);
    Finished {
        status,
        stdout: fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: fs::read_to_string(&err_path).unwrap_or_default(),
        elapsed,
        leftovers,
    }
}

/// Kills every process whose environment holds `RUN_MARKER=marker`; returns what it killed.
fn kill_marked(marker: &str) -> Vec<String> {
    let needle = format!("{RUN_MARKER}={marker}");
    let mut killed = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return killed;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
                killed.push(format!("{pid}: {}", cmdline.trim_end()));
            }
        }
    }
    killed
}
