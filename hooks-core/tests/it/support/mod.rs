//! What the hookwright integration tests share: an in-memory [`SessionManager`], hook and
//! runner builders, recorders of what handlers did and of [`HookError`]s, a host of closures
//! ([`host`]), the one real tool, [`BashTool`] ([`bash`]), process probes ([`process`]) and
//! provoked panics ([`panics`]).

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test module uses a different subset of these helpers"
)]

pub mod bash;
pub mod host;
pub mod panics;
pub mod process;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use bash::BashTool;
pub use host::*;
pub use panics::*;
pub use process::*;

use hookwright::events::{SessionEntry, ToolInput};
use hookwright::{HookApi, HookError, HookRunner, LoadedHook, SessionManager};
use serde_json::Value;

/// The working directory of every runner and hook not given one: a directory that exists, so
/// that `exec` can run in it.
pub fn cwd() -> PathBuf {
    std::env::temp_dir()
}

/// A session kept in memory: a fixed id, cwd, session file name and entry list.
#[derive(Debug, Clone)]
pub struct TestSession {
    pub id: String,
    pub cwd: PathBuf,
    pub file: Option<PathBuf>,
    pub entries: Vec<SessionEntry>,
}

impl TestSession {
    /// A session in [`cwd`].
    pub fn new() -> Self {
        TestSession::in_dir(&cwd())
    }

    /// A session in `cwd`.
    pub fn in_dir(cwd: &Path) -> Self {
        TestSession {
            id: "test-session".to_owned(),
            cwd: cwd.to_path_buf(),
            file: Some(PathBuf::from("/sessions/test-session.jsonl")),
            entries: Vec::new(),
        }
    }
}

impl SessionManager for TestSession {
    fn session_file(&self) -> Option<PathBuf> {
        self.file.clone()
    }
    fn session_id(&self) -> String {
        self.id.clone()
    }
    fn cwd(&self) -> PathBuf {
        self.cwd.clone()
    }
    fn entries(&self) -> Vec<SessionEntry> {
        self.entries.clone()
    }
    fn leaf_id(&self) -> Option<String> {
        self.entries.last().map(|e| e.id.clone())
    }
}

/// A hook at `path` (its id) whose `exec` runs in `cwd`, built by `build`.
pub fn hook_in(cwd: &Path, path: &str, build: impl FnOnce(&mut HookApi)) -> LoadedHook {
    let mut api = HookApi::new(path, cwd);
    build(&mut api);
    api.finish()
}

/// A hook at `path` in [`cwd`], built by `build`.
pub fn hook(path: &str, build: impl FnOnce(&mut HookApi)) -> LoadedHook {
    hook_in(&cwd(), path, build)
}

/// A runner over `hooks` whose contexts run `exec` in `cwd`, with an in-memory session there.
pub fn runner_in(cwd: &Path, hooks: Vec<LoadedHook>) -> HookRunner {
    HookRunner::new(hooks, cwd, Arc::new(TestSession::in_dir(cwd)))
}

/// A runner over `hooks` in [`cwd`].
pub fn runner(hooks: Vec<LoadedHook>) -> HookRunner {
    runner_in(&cwd(), hooks)
}

/// A shared, ordered log of what handlers did.
#[derive(Debug, Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn new() -> Self {
        Log::default()
    }
    pub fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }
    pub fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// A shared counter.
#[derive(Debug, Clone, Default)]
pub struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub fn new() -> Self {
        Counter::default()
    }
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
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
