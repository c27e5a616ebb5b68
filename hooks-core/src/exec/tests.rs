//! Tests of `exec_command`, one per rule of SPEC-DETAILS section 8.

use super::*;
use std::time::{Duration, Instant};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

async fn sh(script: &str, options: ExecOptions) -> ExecResult {
    exec_command("sh", &args(&["-c", script]), Path::new("."), options)
        .await
        .expect("sh runs")
}

fn with_timeout(ms: u64) -> ExecOptions {
    ExecOptions {
        timeout: Some(Duration::from_millis(ms)),
        ..ExecOptions::default()
    }
}

/// Options whose token is cancelled once `ready` exists (the script has set its traps).
fn cancel_when_ready(ready: &Path) -> ExecOptions {
    let token = CancellationToken::new();
    let cancel = token.clone();
    let ready = ready.to_path_buf();
    tokio::spawn(async move {
        while !ready.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    });
    ExecOptions {
        cancel: Some(token),
        timeout: Some(Duration::from_secs(60)),
        ..ExecOptions::default()
    }
}

/// Whether a pid names a live (non-zombie) process.
#[cfg(target_os = "linux")]
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Waits up to two seconds for a pid to be gone.
#[cfg(target_os = "linux")]
async fn gone(pid: i32) -> bool {
    for _ in 0..40 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn exec_captures_stdout_and_stderr_separately() {
    let r = sh("echo out; echo err >&2", ExecOptions::default()).await;
    assert_eq!(
        r,
        ExecResult {
            stdout: "out\n".into(),
            stderr: "err\n".into(),
            code: 0,
            killed: false
        }
    );
}

#[tokio::test]
async fn exec_nonzero_exit_is_a_result_not_an_error() {
    let r = sh("echo partial; exit 7", ExecOptions::default()).await;
    assert_eq!(
        (r.code, r.killed, r.stdout.as_str()),
        (7, false, "partial\n")
    );
}

#[tokio::test]
async fn exec_passes_argv_without_shell_interpretation() {
    let r = exec_command(
        "echo",
        &args(&["$HOME", "a;b", "*", "`id`"]),
        Path::new("."),
        ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(r.stdout, "$HOME a;b * `id`\n");
}

#[tokio::test]
async fn exec_stdin_is_closed() {
    let started = Instant::now();
    let r = exec_command("cat", &[], Path::new("."), with_timeout(10_000))
        .await
        .unwrap();
    assert_eq!((r.stdout.as_str(), r.code, r.killed), ("", 0, false));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn exec_runs_in_the_given_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let r = exec_command("pwd", &[], dir.path(), ExecOptions::default())
        .await
        .unwrap();
    let printed = std::fs::canonicalize(r.stdout.trim_end()).unwrap();
    assert_eq!(printed, std::fs::canonicalize(dir.path()).unwrap());
}

#[tokio::test]
async fn exec_options_cwd_overrides_the_cwd_argument() {
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let options = ExecOptions {
        cwd: Some(other.path().to_path_buf()),
        ..ExecOptions::default()
    };
    let r = exec_command("pwd", &[], dir.path(), options).await.unwrap();
    let printed = std::fs::canonicalize(r.stdout.trim_end()).unwrap();
    assert_eq!(printed, std::fs::canonicalize(other.path()).unwrap());
}

#[tokio::test]
async fn exec_timeout_kills_the_child_and_resolves_killed() {
    let started = Instant::now();
    let r = exec_command("sleep", &args(&["30"]), Path::new("."), with_timeout(200))
        .await
        .unwrap();
    assert!(r.killed);
    assert_eq!(r.code, 0, "death by our signal reports code 0");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn exec_zero_timeout_means_no_timeout() {
    let r = sh("sleep 0.3; echo done", with_timeout(0)).await;
    assert_eq!((r.stdout.as_str(), r.killed), ("done\n", false));
}

#[tokio::test]
async fn exec_cancelled_before_the_call_starts_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let token = CancellationToken::new();
    token.cancel();
    let options = ExecOptions {
        cancel: Some(token),
        ..ExecOptions::default()
    };
    let r = exec_command(
        "sh",
        &args(&["-c", "touch ran; sleep 30"]),
        dir.path(),
        options,
    )
    .await
    .unwrap();
    assert!(r.killed);
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!dir.path().join("ran").exists(), "the command never ran");
}

#[tokio::test]
async fn exec_cancelled_during_the_run_kills_the_child() {
    let token = CancellationToken::new();
    let options = ExecOptions {
        cancel: Some(token.clone()),
        timeout: Some(Duration::from_secs(60)),
        ..ExecOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let running = dir.path().join("running");
    // Cancelled once the child has printed `before` and runs `sleep`, not after a guessed delay.
    {
        let running = running.clone();
        tokio::spawn(async move {
            for _ in 0..1000 {
                if running.exists() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            token.cancel();
        });
    }
    let started = Instant::now();
    let script = format!(
        "echo before; touch '{}'; sleep 30; echo after",
        running.display()
    );
    let r = sh(&script, options).await;
    assert!(r.killed);
    assert_eq!((r.code, r.stdout.as_str()), (0, "before\n"));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn exec_child_exiting_on_term_reports_its_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let script = format!(
        "trap 'exit 3' TERM; echo ready; touch '{}'; while :; do sleep 0.05; done",
        ready.display()
    );
    let r = sh(&script, cancel_when_ready(&ready)).await;
    assert_eq!((r.code, r.killed, r.stdout.as_str()), (3, true, "ready\n"));
}

#[tokio::test]
async fn exec_child_ignoring_term_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    // An ignored signal stays ignored across exec, so `sleep` ignores TERM too.
    let script = format!(
        "trap '' TERM; touch '{}'; while :; do sleep 0.05; done",
        ready.display()
    );
    let options = cancel_when_ready(&ready);
    let token = options.cancel.clone().unwrap();
    let run = tokio::spawn(async move { sh(&script, options).await });
    token.cancelled().await;
    let cancelled_at = Instant::now();
    let r = run.await.unwrap();
    let elapsed = cancelled_at.elapsed();
    assert_eq!((r.code, r.killed), (0, true));
    assert!(
        elapsed >= Duration::from_millis(900),
        "SIGKILL came too early: {elapsed:?}"
    );
    assert!(
        elapsed < Duration::from_secs(6),
        "SIGKILL came too late: {elapsed:?}"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_timeout_kills_grandchildren() {
    let r = sh("sleep 30 & echo $!; wait", with_timeout(300)).await;
    assert!(r.killed);
    let pid: i32 = r.stdout.trim().parse().unwrap();
    assert!(gone(pid).await, "grandchild {pid} survived");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_grandchild_ignoring_term_is_killed_after_its_parent_died() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let script = format!(
        "(trap '' TERM; touch '{}'; exec sleep 30) & echo $!; wait",
        ready.display()
    );
    let options = cancel_when_ready(&ready);
    let token = options.cancel.clone().unwrap();
    let run = tokio::spawn(async move { sh(&script, options).await });
    token.cancelled().await;
    let cancelled_at = Instant::now();
    let r = run.await.unwrap();
    assert!(r.killed);
    // The grandchild holds stdout open until the group's SIGKILL one second later.
    assert!(cancelled_at.elapsed() >= Duration::from_millis(900));
    assert!(cancelled_at.elapsed() < Duration::from_secs(6));
    let pid: i32 = r.stdout.trim().parse().unwrap();
    assert!(gone(pid).await, "grandchild {pid} survived");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_dropping_the_future_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let script = format!("sleep 30 & echo $! > '{}'; wait", pid_file.display());
    let argv = args(&["-c", &script]);
    let call = exec_command("sh", &argv, dir.path(), ExecOptions::default());
    let dropped = tokio::time::timeout(Duration::from_millis(500), call).await;
    assert!(dropped.is_err(), "the call should still have been running");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        gone(pid).await,
        "grandchild {pid} survived the dropped future"
    );
}

#[tokio::test]
async fn exec_signal_not_sent_by_us_reports_code_minus_one() {
    let r = sh("kill -9 $$", ExecOptions::default()).await;
    assert_eq!((r.code, r.killed), (-1, false));
}

#[tokio::test]
async fn exec_spawn_failure_is_an_error_naming_the_command() {
    let err = exec_command(
        "hooks-no-such-command-xyz",
        &[],
        Path::new("."),
        ExecOptions::default(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ExecError::Spawn { command, .. } if command == "hooks-no-such-command-xyz")
    );
    assert!(
        err.to_string().contains("hooks-no-such-command-xyz"),
        "{err}"
    );
}

#[tokio::test]
async fn exec_missing_cwd_is_a_spawn_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = exec_command(
        "pwd",
        &[],
        &dir.path().join("missing"),
        ExecOptions::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ExecError::Spawn { .. }), "{err:?}");
}

#[tokio::test]
async fn exec_stdout_at_the_limit_is_kept() {
    let r = exec_with_limit(
        "head",
        &args(&["-c", "1000", "/dev/zero"]),
        Path::new("."),
        ExecOptions::default(),
        1000,
    )
    .await
    .unwrap();
    assert_eq!(r.stdout.len(), 1000);
}

#[tokio::test]
async fn exec_stdout_over_the_limit_is_an_error_and_kills_the_child() {
    let started = Instant::now();
    let err = exec_with_limit(
        "sh",
        &args(&["-c", "head -c 5000 /dev/zero; sleep 30"]),
        Path::new("."),
        ExecOptions::default(),
        1000,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, ExecError::OutputTooLarge { limit: 1000 }),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn exec_stderr_over_the_limit_is_truncated_with_a_marker_line() {
    let r = exec_with_limit(
        "sh",
        &args(&["-c", "head -c 5000 /dev/zero | tr '\\0' e >&2; echo ok"]),
        Path::new("."),
        ExecOptions::default(),
        1000,
    )
    .await
    .unwrap();
    let expected = format!("{}\n…[stderr truncated at 1000 bytes]", "e".repeat(1000));
    assert_eq!(r.stderr, expected);
    assert_eq!((r.stdout.as_str(), r.code), ("ok\n", 0));
}

#[test]
fn exec_default_marker_names_fifty_mebibytes() {
    let text = decode_stderr(b"x\n", true, OUTPUT_LIMIT);
    assert_eq!(text, "x\n…[stderr truncated at 52428800 bytes]");
}

#[test]
fn exec_truncated_stderr_drops_a_cut_character() {
    // "é" is two bytes; the cut kept only its first byte.
    let text = decode_stderr(&[b'a', 0xC3], true, 2);
    assert_eq!(text, "a\n…[stderr truncated at 2 bytes]");
}

#[tokio::test]
async fn exec_invalid_utf8_is_decoded_lossily() {
    let r = sh("printf 'a\\377b'", ExecOptions::default()).await;
    assert_eq!(r.stdout, "a\u{FFFD}b");
}

#[tokio::test]
async fn exec_reads_stdout_and_stderr_concurrently() {
    // Far more than a pipe buffer on each stream: reading one after the other would deadlock.
    let r = sh(
        "head -c 1000000 /dev/zero >&2; head -c 1000000 /dev/zero; echo end >&2",
        with_timeout(30_000),
    )
    .await;
    assert!(!r.killed);
    assert_eq!((r.stdout.len(), r.stderr.len()), (1_000_000, 1_000_004));
}

#[test]
fn exec_result_uses_the_upstream_json_shape() {
    let r = ExecResult {
        stdout: "o".into(),
        stderr: "e".into(),
        code: 1,
        killed: false,
    };
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        serde_json::json!({"stdout": "o", "stderr": "e", "code": 1, "killed": false})
    );
}

/// Processes a test started in the background, named by the pid files they wrote: each one
/// still running `sleep` is SIGKILLed when this is dropped, so a failing test leaves nothing.
#[cfg(target_os = "linux")]
struct Sleepers(Vec<PathBuf>);

#[cfg(target_os = "linux")]
impl Sleepers {
    /// The pid written to `file` (waiting up to ten seconds for it).
    async fn pid(file: &Path) -> i32 {
        for _ in 0..200 {
            if let Ok(text) = std::fs::read_to_string(file)
                && let Ok(pid) = text.trim().parse()
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{} was never written", file.display());
    }
}

#[cfg(target_os = "linux")]
impl Drop for Sleepers {
    fn drop(&mut self) {
        for file in &self.0 {
            let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|text| text.trim().parse::<i32>().ok())
            else {
                continue;
            };
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline.starts_with(b"sleep\0") {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

/// A command running `sleep 30` through `launcher` (`setsid`, `env -i setsid`, or nothing) and a
/// shell that first writes its own pid to `file`: once `file` is written, the sleeper is where
/// the launcher put it (`setsid` does not fork when its caller leads no group).
#[cfg(target_os = "linux")]
fn sleeper(launcher: &str, file: &str) -> String {
    format!("{launcher} sh -c 'echo $$ > {file}; exec sleep 30'")
}

/// A shell loop that waits until `file` is written.
#[cfg(target_os = "linux")]
fn until_written(file: &str) -> String {
    format!("while [ ! -s {file} ]; do sleep 0.01; done")
}

/// Waits up to five seconds for a pid to be gone entirely: ended and reaped, not a zombie.
#[cfg(target_os = "linux")]
async fn reaped(pid: i32) -> bool {
    for _ in 0..100 {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Waits up to ten seconds until the subshell that started `pid` has ended: its parent is no
/// longer `sh`.
#[cfg(target_os = "linux")]
async fn orphaned(pid: i32) {
    for _ in 0..200 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .unwrap_or_default();
        let parent = std::fs::read_to_string(format!("/proc/{ppid}/comm")).unwrap_or_default();
        if !stat.is_empty() && parent.trim() != "sh" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the shell that started {pid} never ended");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_timeout_bounds_a_call_whose_child_escaped_the_group() {
    // The escaped child keeps stdout and stderr open, left its group, lost its parent and has
    // an empty environment: nothing can find it, and still the call ends.
    let dir = tempfile::tempdir().unwrap();
    let _sleepers = Sleepers(vec![dir.path().join("escaped.pid")]);
    let script = format!(
        "({} &); {}; echo started; sleep 30",
        sleeper("env -i setsid", "escaped.pid"),
        until_written("escaped.pid")
    );
    let started = Instant::now();
    let r = exec_command("sh", &args(&["-c", &script]), dir.path(), with_timeout(500))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(r.killed);
    assert_eq!(r.stdout, "started\n");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_returns_when_the_command_exits_though_an_escaped_child_holds_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let _sleepers = Sleepers(vec![dir.path().join("escaped.pid")]);
    let script = format!(
        "{} & {}; echo done",
        sleeper("env -i setsid", "escaped.pid"),
        until_written("escaped.pid")
    );
    let started = Instant::now();
    let r = exec_command(
        "sh",
        &args(&["-c", &script]),
        dir.path(),
        ExecOptions::default(),
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!((r.stdout.as_str(), r.code, r.killed), ("done\n", 0, false));
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_children_left_running_do_not_outlive_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let files = ["background.pid", "escaped.pid", "orphan.pid"].map(|f| dir.path().join(f));
    let _sleepers = Sleepers(files.to_vec());
    // In the group; out of it (setsid) with the shell as parent; out of it and orphaned.
    let script = format!(
        "{} >/dev/null 2>&1 & {}\n{} >/dev/null 2>&1 & {}\n({} >/dev/null 2>&1 &); {}",
        sleeper("", "background.pid"),
        until_written("background.pid"),
        sleeper("setsid", "escaped.pid"),
        until_written("escaped.pid"),
        sleeper("setsid", "orphan.pid"),
        until_written("orphan.pid"),
    );
    let r = exec_command(
        "sh",
        &args(&["-c", &script]),
        dir.path(),
        ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!((r.code, r.killed), (0, false));
    for file in &files {
        let pid = Sleepers::pid(file).await;
        assert!(
            reaped(pid).await,
            "{} ({pid}) outlived the call",
            file.display()
        );
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_timeout_kills_children_that_left_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let files = ["escaped.pid", "orphan.pid"].map(|f| dir.path().join(f));
    let _sleepers = Sleepers(files.to_vec());
    let script = format!(
        "{} >/dev/null 2>&1 & {}\n({} >/dev/null 2>&1 &); {}\nsleep 30",
        sleeper("setsid", "escaped.pid"),
        until_written("escaped.pid"),
        sleeper("setsid", "orphan.pid"),
        until_written("orphan.pid"),
    );
    let r = exec_command("sh", &args(&["-c", &script]), dir.path(), with_timeout(500))
        .await
        .unwrap();
    assert!(r.killed);
    for file in &files {
        let pid = Sleepers::pid(file).await;
        assert!(
            reaped(pid).await,
            "{} ({pid}) outlived the call",
            file.display()
        );
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_timeout_kills_a_child_that_ignored_the_sigterm_and_lost_its_parent() {
    // Out of the group, with an empty environment: found through its parent at the SIGTERM,
    // which it ignores; the parent dies of it, so only that sighting leads the SIGKILL to it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("escaped.pid");
    let _sleepers = Sleepers(vec![file.clone()]);
    let script = "setsid env -i sh -c 'trap \"\" TERM; echo $$ > escaped.pid; exec sleep 30' \
        >/dev/null 2>&1 &
        while [ ! -s escaped.pid ]; do sleep 0.01; done
        wait";
    let r = exec_command("sh", &args(&["-c", script]), dir.path(), with_timeout(500))
        .await
        .unwrap();
    assert!(r.killed);
    let pid = Sleepers::pid(&file).await;
    assert!(reaped(pid).await, "{pid} outlived the call");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_dropping_the_future_kills_children_that_left_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("orphan.pid");
    let _sleepers = Sleepers(vec![file.clone()]);
    let script = format!(
        "({} >/dev/null 2>&1 &); {}; sleep 30",
        sleeper("setsid", "orphan.pid"),
        until_written("orphan.pid")
    );
    let argv = args(&["-c", &script]);
    let call = exec_command("sh", &argv, dir.path(), ExecOptions::default());
    let pid = tokio::select! {
        r = call => panic!("the call ended on its own: {r:?}"),
        pid = async {
            let pid = Sleepers::pid(&file).await;
            orphaned(pid).await;
            pid
        } => pid,
    };
    assert!(reaped(pid).await, "{pid} survived the dropped future");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn exec_call_kills_only_the_processes_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let (mine, other) = (dir.path().join("mine.pid"), dir.path().join("other.pid"));
    let _sleepers = Sleepers(vec![mine.clone(), other.clone()]);
    // Another call, still running, whose escaped child has lost its parent too.
    let token = CancellationToken::new();
    let options = ExecOptions {
        cancel: Some(token.clone()),
        timeout: Some(Duration::from_secs(60)),
        ..ExecOptions::default()
    };
    let cwd = dir.path().to_path_buf();
    let running = tokio::spawn(async move {
        let script = format!(
            "({} >/dev/null 2>&1 &); {}; sleep 30",
            sleeper("setsid", "other.pid"),
            until_written("other.pid")
        );
        exec_command("sh", &args(&["-c", &script]), &cwd, options).await
    });
    let other_pid = Sleepers::pid(&other).await;
    orphaned(other_pid).await;

    let script = format!(
        "({} >/dev/null 2>&1 &); {}",
        sleeper("setsid", "mine.pid"),
        until_written("mine.pid")
    );
    let r = exec_command(
        "sh",
        &args(&["-c", &script]),
        dir.path(),
        ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(r.code, 0);
    let mine_pid = Sleepers::pid(&mine).await;
    assert!(reaped(mine_pid).await, "{mine_pid} outlived its call");
    assert!(
        alive(other_pid),
        "the other call's child {other_pid} was killed"
    );

    token.cancel();
    assert!(running.await.unwrap().unwrap().killed);
    assert!(reaped(other_pid).await, "{other_pid} outlived its call");
}
