//! Shared helpers of the hooks-core integration tests: a tiny in-memory [`SessionManager`],
//! hook and runner builders, recorders for handler calls and [`HookError`]s, a host of closures for
//! `initialize`, and [`BashTool`], a real tool that runs `bash -c`.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test file uses a different subset of these helpers"
)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hooks_core::events::{CustomMessage, SessionEntry, ToolInput};
use hooks_core::handler::BoxFuture;
use hooks_core::tool::UpdateCallback;
use hooks_core::{
    HookApi, HookError, HookRunner, HookUi, Host, LoadedHook, Model, NavigateTreeOptions,
    NewSessionOptions, SendMessageOptions, SessionActionResult, SessionActions, SessionManager,
    Tool, ToolError, ToolOutput,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio_util::sync::CancellationToken;

/// A session kept in memory: a fixed id, cwd and entry list.
#[derive(Debug, Clone)]
pub struct TestSession {
    pub id: String,
    pub cwd: PathBuf,
    pub file: Option<PathBuf>,
    pub entries: Vec<SessionEntry>,
}

impl TestSession {
    pub fn new() -> Self {
        TestSession {
            id: "test-session".to_owned(),
            cwd: PathBuf::from("/work/project"),
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

/// The working directory every test runner is built with.
pub const CWD: &str = "/work/project";

/// A hook at `path`, built by `build`.
pub fn hook(path: &str, build: impl FnOnce(&mut HookApi)) -> LoadedHook {
    let mut api = HookApi::new(path, CWD);
    build(&mut api);
    api.finish()
}

/// A runner over `hooks` with an in-memory session.
pub fn runner(hooks: Vec<LoadedHook>) -> HookRunner {
    HookRunner::new(hooks, CWD, Arc::new(TestSession::new()))
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

/// Subscribes a recorder of every [`HookError`] the runner reports.
pub fn record_errors(runner: &HookRunner) -> Arc<Mutex<Vec<HookError>>> {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
    errors
}

/// The errors recorded so far.
pub fn errors_of(errors: &Arc<Mutex<Vec<HookError>>>) -> Vec<HookError> {
    errors.lock().unwrap().clone()
}

/// A `HookError` value, for comparisons.
pub fn hook_error(hook_path: &str, event: &str, error: &str) -> HookError {
    HookError {
        hook_path: hook_path.to_owned(),
        event: event.to_owned(),
        error: error.to_owned(),
    }
}

/// A message the host received: the message and its options.
pub type SentMessage = (
    hooks_core::events::CustomMessage,
    hooks_core::SendMessageOptions,
);
/// An entry the host received: the custom type and its data.
pub type AppendedEntry = (String, Option<Value>);

/// What the host received through `send_message` / `append_entry`.
#[derive(Debug, Clone, Default)]
pub struct HostInbox {
    pub messages: Arc<Mutex<Vec<SentMessage>>>,
    pub entries: Arc<Mutex<Vec<AppendedEntry>>>,
}

/// Sends a custom message for the host.
pub type SendMessageHandler = Arc<dyn Fn(CustomMessage, SendMessageOptions) + Send + Sync>;
/// Persists a custom entry for the host.
pub type AppendEntryHandler = Arc<dyn Fn(&str, Option<Value>) + Send + Sync>;
/// Starts a new session.
pub type NewSessionHandler =
    Arc<dyn Fn(NewSessionOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Branches from an entry.
pub type BranchHandler =
    Arc<dyn Fn(String) -> BoxFuture<'static, SessionActionResult> + Send + Sync>;
/// Navigates the session tree.
pub type NavigateTreeHandler = Arc<
    dyn Fn(String, NavigateTreeOptions) -> BoxFuture<'static, SessionActionResult> + Send + Sync,
>;
/// A `() -> bool` host query.
pub type BoolFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// A host made of closures, one per host function (`None`: the host does not have it).
#[derive(Clone)]
pub struct TestHost {
    pub get_model: Arc<dyn Fn() -> Option<Model> + Send + Sync>,
    pub send_message: SendMessageHandler,
    pub append_entry: AppendEntryHandler,
    pub new_session: Option<NewSessionHandler>,
    pub branch: Option<BranchHandler>,
    pub navigate_tree: Option<NavigateTreeHandler>,
    pub is_idle: Option<BoolFn>,
    pub wait_for_idle: Option<Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>>,
    pub abort: Option<Arc<dyn Fn() + Send + Sync>>,
    pub has_queued_messages: Option<BoolFn>,
    pub ui: Option<Arc<dyn HookUi>>,
    pub has_ui: Option<bool>,
}

#[async_trait]
impl Host for TestHost {
    fn model(&self) -> Option<Model> {
        (self.get_model)()
    }
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        (self.send_message)(message, options);
    }
    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        (self.append_entry)(custom_type, data);
    }
    fn is_idle(&self) -> bool {
        self.is_idle.as_ref().is_none_or(|f| f())
    }
    async fn wait_for_idle(&self) {
        if let Some(f) = &self.wait_for_idle {
            f().await;
        }
    }
    fn abort(&self) {
        if let Some(f) = &self.abort {
            f();
        }
    }
    fn has_queued_messages(&self) -> bool {
        self.has_queued_messages.as_ref().is_some_and(|f| f())
    }
    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        match &self.new_session {
            Some(f) => f(options).await,
            None => SessionActionResult::default(),
        }
    }
    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        match &self.branch {
            Some(f) => f(entry_id.to_owned()).await,
            None => SessionActionResult::default(),
        }
    }
    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        match &self.navigate_tree {
            Some(f) => f(target_id.to_owned(), options).await,
            None => SessionActionResult::default(),
        }
    }
    fn session_actions(&self) -> SessionActions {
        SessionActions {
            new_session: self.new_session.is_some(),
            branch: self.branch.is_some(),
            navigate_tree: self.navigate_tree.is_some(),
        }
    }
    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        self.ui.clone()
    }
    fn has_ui(&self) -> bool {
        self.has_ui.unwrap_or(false)
    }
}

/// A host whose send-message and append-entry handlers record into an inbox, and which has
/// no other host function.
pub fn test_host() -> (TestHost, HostInbox) {
    let inbox = HostInbox::default();
    let messages = Arc::clone(&inbox.messages);
    let entries = Arc::clone(&inbox.entries);
    let host = TestHost {
        get_model: Arc::new(|| None),
        send_message: Arc::new(move |m, o| messages.lock().unwrap().push((m, o))),
        append_entry: Arc::new(move |t: &str, d| entries.lock().unwrap().push((t.to_owned(), d))),
        new_session: None,
        branch: None,
        navigate_tree: None,
        is_idle: None,
        wait_for_idle: None,
        abort: None,
        has_queued_messages: None,
        ui: None,
        has_ui: None,
    };
    (host, inbox)
}

/// A model value.
pub fn model(id: &str) -> Model {
    Model {
        provider: "anthropic".to_owned(),
        id: id.to_owned(),
        extra: serde_json::Map::new(),
    }
}

/// A tool input object.
pub fn input(value: Value) -> ToolInput {
    match value {
        Value::Object(map) => map.into(),
        other => panic!("tool input must be an object, got {other}"),
    }
}

/// A real tool that runs `bash -c <command>`.
///
/// Input: `{ "command": string }`. Every stdout line is sent to the progress callback as it
/// arrives. Success: one text chunk with the whole stdout and `details: { "exitCode": 0 }`; when
/// stderr is not empty the output also carries `isWarning: true` (an extra field). A non-zero exit
/// is a failure `exit code N: <stderr>`. Cancellation kills the child.
pub struct BashTool {
    parameters: Value,
    cwd: PathBuf,
}

impl BashTool {
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        BashTool {
            parameters: json!({
                "type": "object",
                "properties": { "command": { "type": "string" } },
                "required": ["command"]
            }),
            cwd: cwd.into(),
        }
    }
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Runs a bash command"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
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
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ToolError::failed(format!("cannot start bash: {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");

        let run = async {
            let mut lines = BufReader::new(stdout).lines();
            let mut out = String::new();
            while let Some(line) = lines
                .next_line()
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?
            {
                if let Some(update) = on_update {
                    update(ToolOutput::text(line.clone()));
                }
                out.push_str(&line);
                out.push('\n');
            }
            let mut err = String::new();
            stderr
                .read_to_string(&mut err)
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?;
            let status = child
                .wait()
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?;
            Ok::<_, ToolError>((out, err, status))
        };

        let finished = tokio::select! {
            () = cancel.cancelled() => None,
            res = run => Some(res),
        };
        let Some(finished) = finished else {
            // Cancelled: kill the child now (not only when it is dropped).
            let _ = child.start_kill();
            return Err(ToolError::Cancelled);
        };
        let (out, err, status) = finished?;
        let code = status.code().unwrap_or(-1);
        if code != 0 {
            return Err(ToolError::failed(format!(
                "exit code {code}: {}",
                err.trim_end()
            )));
        }
        let mut output = ToolOutput::text(out);
        output.details = Some(json!({ "exitCode": code }));
        if !err.is_empty() {
            output
                .extra
                .insert("isWarning".to_owned(), Value::Bool(true));
        }
        Ok(output)
    }
}

/// A UI that records what handlers do; identified by its theme name.
#[derive(Debug)]
pub struct TestUi {
    pub name: String,
    pub confirm_answer: bool,
    pub status: Mutex<hooks_core::StatusLine>,
    pub notifications: Mutex<Vec<String>>,
    pub editor_text: Mutex<String>,
}

impl TestUi {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(TestUi {
            name: name.to_owned(),
            confirm_answer: true,
            status: Mutex::new(hooks_core::StatusLine::default()),
            notifications: Mutex::new(Vec::new()),
            editor_text: Mutex::new(String::new()),
        })
    }
}

#[async_trait]
impl hooks_core::HookUi for TestUi {
    async fn select(&self, _title: &str, options: &[String]) -> Option<String> {
        options.first().cloned()
    }
    async fn confirm(&self, _title: &str, _message: &str) -> bool {
        self.confirm_answer
    }
    async fn input(&self, _title: &str, _placeholder: Option<&str>) -> Option<String> {
        Some(format!("input from {}", self.name))
    }
    async fn editor(&self, _title: &str, prefill: Option<&str>) -> Option<String> {
        prefill.map(str::to_owned)
    }
    fn notify(&self, message: &str, _kind: hooks_core::ui::NotifyKind) {
        self.notifications.lock().unwrap().push(message.to_owned());
    }
    fn set_status(&self, key: &str, text: Option<&str>) {
        self.status.lock().unwrap().set(key, text);
    }
    async fn custom(&self, request: hooks_core::ui::CustomUiRequest) -> Option<Value> {
        Some(request.payload)
    }
    fn set_editor_text(&self, text: &str) {
        *self.editor_text.lock().unwrap() = text.to_owned();
    }
    fn get_editor_text(&self) -> String {
        self.editor_text.lock().unwrap().clone()
    }
    fn theme(&self) -> hooks_core::ui::Theme {
        hooks_core::ui::Theme {
            name: self.name.clone(),
            color: false,
        }
    }
}
