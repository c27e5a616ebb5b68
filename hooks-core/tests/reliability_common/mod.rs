//! Shared helpers of the reliability tests (issue 7): runners over real directories, error
//! recorders, a panic hook that hides expected panics, a real process tool that runs `bash -c`
//! in its own process group, and `/proc` probes that tell whether a process (group) is alive.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test file uses a different subset of these helpers"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use hooks_core::events::{SessionEntry, ToolInput};
use hooks_core::tool::UpdateCallback;
use hooks_core::{
    HookApi, HookError, HookRunner, LoadedHook, SessionManager, Tool, ToolError, ToolOutput,
};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

/// Every panic a test provokes on purpose carries this text, so the panic hook can hide it.
pub const PANIC_TAG: &str = "test-panic";

/// Installs (once per test binary) a panic hook that hides panics whose message contains
/// [`PANIC_TAG`] and reports every other panic (a failing assertion) as usual.
pub fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if message.is_some_and(|m| m.contains(PANIC_TAG)) || payload.is::<OpaquePayload>() {
                return;
            }
            default(info);
        }));
    });
}

/// A panic payload that is not a string (hidden by [`quiet_expected_panics`] too).
#[derive(Debug)]
pub struct OpaquePayload;

/// Panics with an [`OpaquePayload`].
pub fn boom_opaque() {
    std::panic::panic_any(OpaquePayload)
}

/// Panics with `message` (a function, so handler closures keep the `()` return type).
pub fn boom(message: &str) {
    panic!("{message}")
}

/// A session kept in memory.
#[derive(Debug, Clone)]
pub struct MemSession {
    pub cwd: PathBuf,
}

impl SessionManager for MemSession {
    fn session_file(&self) -> Option<PathBuf> {
        None
    }
    fn session_id(&self) -> String {
        "reliability".to_owned()
    }
    fn cwd(&self) -> PathBuf {
        self.cwd.clone()
    }
    fn entries(&self) -> Vec<SessionEntry> {
        Vec::new()
    }
    fn leaf_id(&self) -> Option<String> {
        None
    }
}

/// A hook at `path` (its id) whose `exec` runs in `cwd`, built by `build`.
pub fn hook_in(cwd: &Path, path: &str, build: impl FnOnce(&mut HookApi)) -> LoadedHook {
    let mut api = HookApi::new(path, cwd);
    build(&mut api);
    api.finish()
}

/// A hook at `path` in the temporary directory.
pub fn hook(path: &str, build: impl FnOnce(&mut HookApi)) -> LoadedHook {
    hook_in(&std::env::temp_dir(), path, build)
}

/// A runner over `hooks` whose contexts run `exec` in `cwd`.
pub fn runner_in(cwd: &Path, hooks: Vec<LoadedHook>) -> HookRunner {
    HookRunner::new(
        hooks,
        cwd,
        Arc::new(MemSession {
            cwd: cwd.to_path_buf(),
        }),
    )
}

/// A runner over `hooks` in the temporary directory.
pub fn runner(hooks: Vec<LoadedHook>) -> HookRunner {
    runner_in(&std::env::temp_dir(), hooks)
}

/// The [`HookError`]s a runner reported, in order.
#[derive(Debug, Clone, Default)]
pub struct Errors(Arc<Mutex<Vec<HookError>>>);

impl Errors {
    /// Subscribes a recorder to `runner`.
    pub fn record(runner: &HookRunner) -> Self {
        let errors = Errors::default();
        let sink = Arc::clone(&errors.0);
        let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
        errors
    }

    /// The errors so far.
    pub fn get(&self) -> Vec<HookError> {
        self.0.lock().unwrap().clone()
    }
}

/// A `HookError` value, for comparisons.
pub fn hook_error(hook_path: &str, event: &str, error: &str) -> HookError {
    HookError {
        hook_path: hook_path.to_owned(),
        event: event.to_owned(),
        error: error.to_owned(),
    }
}

/// A shared, ordered log of what handlers did.
#[derive(Debug, Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }
    pub fn get(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Sets its flag when dropped: proves a future was dropped (not merely abandoned).
#[derive(Debug)]
pub struct DropFlag(pub Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A tool input object.
pub fn input(value: Value) -> ToolInput {
    match value {
        Value::Object(map) => map.into(),
        other => panic!("tool input must be an object, got {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/// `(state, pgrp)` of a process from `/proc/<pid>/stat`, `None` when there is no such process.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Whether `pid` is a running process (a zombie, dead or missing process is not).
pub fn pid_alive(pid: i32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

/// The live (non-zombie) members of the process group `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| matches!(stat(*pid), Some((s, g)) if g == pgid && s != 'Z' && s != 'X'))
        .collect()
}

/// Polls `cond` every 20 ms until it holds or `limit` passes; returns whether it held.
pub async fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads a pid a script wrote to `file`, waiting for it up to `limit`.
pub async fn read_pid(file: &Path, limit: Duration) -> Option<i32> {
    let mut pid = None;
    eventually(limit, || {
        pid = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok());
        pid.is_some()
    })
    .await;
    pid
}

/// SIGKILLs the process group `pgid` (errors, e.g. an empty group, are ignored).
pub fn kill_group(pgid: i32) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// Kills a process group when dropped, unless disarmed.
struct GroupGuard {
    pgid: Option<i32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            kill_group(pgid);
        }
    }
}

/// A real tool that runs `bash -c <command>` in `cwd`, in its own process group.
///
/// Input `{ "command": string }`; output: stdout as one text chunk. A non-zero exit is a
/// failure. When the cancellation token fires (unless `watch_token` is false) the whole group is
/// killed and the tool returns [`ToolError::Cancelled`]; when the tool's future is dropped the
/// whole group is killed too (a tool that cleans up after itself). Records how many calls
/// started and the token each call received.
pub struct ProcessTool {
    parameters: Value,
    cwd: PathBuf,
    watch_token: bool,
    pub started: Arc<AtomicUsize>,
    pub tokens: Arc<Mutex<Vec<CancellationToken>>>,
}

impl ProcessTool {
    /// A tool running in `cwd` that watches its cancellation token.
    pub fn new(cwd: &Path) -> Self {
        ProcessTool {
            parameters: json!({
                "type": "object",
                "properties": { "command": { "type": "string" } },
                "required": ["command"]
            }),
            cwd: cwd.to_path_buf(),
            watch_token: true,
            started: Arc::default(),
            tokens: Arc::default(),
        }
    }

    /// A tool that never looks at its cancellation token (only dropping it stops it).
    pub fn ignoring_token(cwd: &Path) -> Self {
        ProcessTool {
            watch_token: false,
            ..ProcessTool::new(cwd)
        }
    }
}

impl Tool for ProcessTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Runs a bash command in its own process group"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        _on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        self.started.fetch_add(1, Ordering::SeqCst);
        self.tokens.lock().unwrap().push(cancel.clone());
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::failed("missing `command`"))?;
        let mut child = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .map_err(|e| ToolError::failed(format!("cannot start bash: {e}")))?;
        let mut guard = GroupGuard {
            pgid: child.id().and_then(|id| i32::try_from(id).ok()),
        };
        let mut stdout = child.stdout.take().expect("piped stdout");
        let run = async {
            let mut out = String::new();
            stdout
                .read_to_string(&mut out)
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?;
            let status = child
                .wait()
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?;
            Ok::<_, ToolError>((out, status))
        };
        let cancelled = async {
            if self.watch_token {
                cancel.cancelled().await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        let finished = tokio::select! {
            () = cancelled => None,
            res = run => Some(res),
        };
        let Some(finished) = finished else {
            // `guard` kills the group on the way out.
            return Err(ToolError::Cancelled);
        };
        let (out, status) = finished?;
        // The shell exited and was reaped: its pid (the group id) may be reused, so the guard
        // must not signal it any more.
        guard.pgid = None;
        match status.code() {
            Some(0) => Ok(ToolOutput::text(out)),
            code => Err(ToolError::failed(format!("exit status {code:?}"))),
        }
    }
}
