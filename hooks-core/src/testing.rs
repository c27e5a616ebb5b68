//! A test kit for hook authors: a session over the hooks under test, with a recording host and
//! a scripted UI, and typed helpers to emit events into it.
//!
//! ```
//! use hookwright::prelude::*;
//! use hookwright::testing::TestSession;
//! use serde_json::json;
//!
//! #[hook(event = "tool_call")]
//! fn no_force_push(event: &ToolCallEvent) -> Option<ToolCallEventResult> {
//!     let command = event.input_str("command")?;
//!     command.contains("push --force").then(|| ToolCallEventResult::block("no force push"))
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let session = TestSession::linked(); // every hook linked into this test binary
//! let reason = session.block_reason("bash", json!({ "command": "git push --force" })).await;
//! assert_eq!(reason.as_deref(), Some("no force push"));
//! assert_eq!(session.block_reason("bash", json!({ "command": "git push" })).await, None);
//! # });
//! ```
//!
//! A session answers as the runner answers an agent: [`TestSession::tool_call`] is the
//! combined `tool_call` result (the first block wins, a failing handler is an error),
//! [`TestSession::tool_result`] the last override, [`TestSession::command`] a slash command's
//! run; [`TestSession::emit`] takes any event. What the hooks did on the way is recorded: the
//! questions they asked and the answers [`ScriptedUi`] gave, notifications, the status line,
//! the messages they sent and the entries they appended. How an agent would see the same call
//! (its exact stdout and exit code) is `hookwright_cli::testing`'s, on the adapters' own path.
//!
//! The module needs the `testing` feature (`hookwright = { ..., features = ["testing"] }` under
//! `[dev-dependencies]`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use serde_json::Value;

use crate::api::LoadedHook;
use crate::calls::SendMessageOptions;
use crate::events::combine::Output;
use crate::events::{
    Content, CustomMessage, HookEvent, ToolCallEvent, ToolCallEventResult, ToolInput,
    ToolResultEvent, ToolResultEventResult,
};
use crate::handler::HandlerError;
use crate::host::Host;
use crate::runner::{HookRunner, ToolCallHookError};
use crate::session::JsonlSessionStore;
use crate::ui::{HookUi, NotifyKind, StatusLine};

/// The call id every helper of [`TestSession`] gives its tool events.
pub const CALL_ID: &str = "test-call";

/// A session over the hooks under test: a [`HookRunner`] with a recording host and a
/// [`ScriptedUi`], its session in memory.
pub struct TestSession {
    runner: HookRunner,
    record: Arc<Record>,
    ui: Option<Arc<ScriptedUi>>,
}

/// What the host of a [`TestSession`] received from the hooks.
#[derive(Default)]
struct Record {
    sent: Mutex<Vec<(CustomMessage, SendMessageOptions)>>,
    entries: Mutex<Vec<(String, Option<Value>)>>,
}

/// The host of a [`TestSession`]: records, and hands out the UI when there is one.
struct RecordingHost {
    record: Arc<Record>,
    ui: Option<Arc<ScriptedUi>>,
}

impl Host for RecordingHost {
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        lock(&self.record.sent).push((message, options));
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        lock(&self.record.entries).push((custom_type.to_owned(), data));
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        self.ui.clone().map(|ui| ui as Arc<dyn HookUi>)
    }

    fn has_ui(&self) -> bool {
        self.ui.is_some()
    }
}

impl TestSession {
    /// A session over every hook linked into this binary (`#[hook]`, `#[command]`,
    /// `#[renderer]`), in dispatch order, with an interactive [`ScriptedUi`] and the current
    /// directory as the working directory.
    ///
    /// # Panics
    /// When the linked hooks do not build (a command or renderer registered twice), with the
    /// registry's error.
    #[must_use]
    pub fn linked() -> Self {
        Self::builder().linked().build()
    }

    /// A session over `hooks` alone (e.g. [`HookApi`](crate::HookApi)s finished by hand), with
    /// an interactive [`ScriptedUi`].
    #[must_use]
    pub fn with_hooks(hooks: Vec<LoadedHook>) -> Self {
        Self::builder().hooks(hooks).build()
    }

    /// A builder, for the working directory, the UI and the hooks.
    #[must_use]
    pub fn builder() -> TestSessionBuilder {
        TestSessionBuilder::default()
    }

    /// The runner, for what the helpers do not cover.
    #[must_use]
    pub fn runner(&self) -> &HookRunner {
        &self.runner
    }

    /// The scripted UI; `None` in a session built [`without_ui`](TestSessionBuilder::without_ui).
    #[must_use]
    pub fn ui(&self) -> Option<&ScriptedUi> {
        self.ui.as_deref()
    }

    /// Emits a `tool_call` of `tool` with `input` (a JSON object; anything else is an empty
    /// input): the combined result, as the tool wrapper and the adapters get it.
    pub async fn tool_call(
        &self,
        tool: &str,
        input: Value,
    ) -> Result<Option<ToolCallEventResult>, ToolCallHookError> {
        let event = tool_call_event(tool, input);
        self.runner.emit_tool_call(&event).await
    }

    /// Whether the hooks stop a `tool_call` of `tool` with `input`: the reason of a block
    /// (`DEFAULT_BLOCK_REASON` when it gave none), the error of a handler that failed (a
    /// failure stops the call too), or `None` when the call may run.
    pub async fn block_reason(&self, tool: &str, input: Value) -> Option<String> {
        match self.tool_call(tool, input).await {
            Ok(result) => result.and_then(ToolCallEventResult::into_block_reason),
            Err(error) => Some(error.to_string()),
        }
    }

    /// Emits a `tool_result` of `tool` with `input` whose output is the text `output`: the
    /// last override the hooks returned, or `None`.
    pub async fn tool_result(
        &self,
        tool: &str,
        input: Value,
        output: &str,
    ) -> Option<ToolResultEventResult> {
        let ToolCallEvent {
            tool_name,
            tool_call_id,
            input,
        } = tool_call_event(tool, input);
        let event = ToolResultEvent {
            tool_name,
            tool_call_id,
            input,
            content: vec![Content::text(output)],
            details: None,
            is_error: None,
            is_warning: None,
        };
        self.runner.emit_tool_result(&event).await
    }

    /// The text the model would see of a `tool_result` of `tool` whose output is `output`:
    /// the text of the hooks' override, or `output` as it was.
    pub async fn tool_output(&self, tool: &str, input: Value, output: &str) -> String {
        let result = self.tool_result(tool, input, output).await;
        match result.and_then(|result| result.content) {
            Some(content) => content
                .iter()
                .filter_map(Content::as_text)
                .collect::<Vec<_>>()
                .join(""),
            None => output.to_owned(),
        }
    }

    /// Runs the slash command `/name args`: `None` when no hook registered `name`, else
    /// whether its handler succeeded.
    pub async fn command(&self, name: &str, args: &str) -> Option<Result<(), HandlerError>> {
        self.runner.run_command(name, args).await
    }

    /// Emits any event, answered by its rule ([`HookRunner::emit`]).
    pub async fn emit<E: HookEvent>(&self, event: &E) -> Output<E> {
        self.runner.emit(event).await
    }

    /// The messages the hooks sent (`send_message`), in order, with their options.
    #[must_use]
    pub fn sent(&self) -> Vec<(CustomMessage, SendMessageOptions)> {
        lock(&self.record.sent).clone()
    }

    /// The entries the hooks appended (`append_entry`): custom type and data, in order.
    #[must_use]
    pub fn entries(&self) -> Vec<(String, Option<Value>)> {
        lock(&self.record.entries).clone()
    }
}

/// How a [`TestSession`] is made: [`TestSession::builder`].
#[derive(Default)]
pub struct TestSessionBuilder {
    hooks: Vec<LoadedHook>,
    linked: bool,
    cwd: Option<PathBuf>,
    ui: Option<ScriptedUi>,
    without_ui: bool,
}

impl TestSessionBuilder {
    /// Adds every hook linked into this binary (after the hooks given so far).
    #[must_use]
    pub fn linked(mut self) -> Self {
        self.linked = true;
        self
    }

    /// Adds `hooks`.
    #[must_use]
    pub fn hooks(mut self, hooks: Vec<LoadedHook>) -> Self {
        self.hooks.extend(hooks);
        self
    }

    /// The working directory the hooks see (`ctx.cwd()`) [default: the current directory].
    #[must_use]
    pub fn cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        self.cwd = Some(cwd.as_ref().to_path_buf());
        self
    }

    /// The UI the hooks get [default: a [`ScriptedUi::new`], interactive].
    #[must_use]
    pub fn ui(mut self, ui: ScriptedUi) -> Self {
        self.ui = Some(ui);
        self
    }

    /// No interactive UI: `ctx.has_ui()` is false and every UI call gets the no-op answer,
    /// as in an agent's command hook.
    #[must_use]
    pub fn without_ui(mut self) -> Self {
        self.without_ui = true;
        self
    }

    /// The session.
    ///
    /// # Panics
    /// With [`linked`](Self::linked), when the linked hooks do not build (the registry's
    /// error); without a working directory, when the current directory cannot be read.
    #[must_use]
    pub fn build(self) -> TestSession {
        let cwd = match self.cwd {
            Some(cwd) => cwd,
            None => std::env::current_dir().expect("the current directory, for a TestSession"),
        };
        let mut hooks = self.hooks;
        if self.linked {
            match crate::registry::compiled_hooks(&cwd) {
                Ok(linked) => hooks.extend(linked),
                Err(error) => panic!("the linked hooks do not build: {error}"),
            }
        }
        let ui = (!self.without_ui).then(|| Arc::new(self.ui.unwrap_or_default()));
        let runner = HookRunner::new(hooks, &cwd, Arc::new(JsonlSessionStore::in_memory(&cwd)));
        let record = Arc::new(Record::default());
        runner.initialize(RecordingHost {
            record: Arc::clone(&record),
            ui: ui.clone(),
        });
        TestSession { runner, record, ui }
    }
}

/// A UI whose answers are scripted and which records what the hooks asked and showed.
///
/// Each `confirm`, `select`, `input` and `editor` takes the next scripted answer of its kind;
/// with none left, `confirm` answers the default ([`ScriptedUi::confirming`], else `false`)
/// and the others `None`, the no-op UI's answers.
#[derive(Default)]
pub struct ScriptedUi {
    confirm_default: bool,
    confirms: Mutex<VecDeque<bool>>,
    choices: Mutex<VecDeque<Option<String>>>,
    inputs: Mutex<VecDeque<Option<String>>>,
    asked: Mutex<Vec<Asked>>,
    notes: Mutex<Vec<(String, NotifyKind)>>,
    status: Mutex<StatusLine>,
}

/// One question a hook asked a [`ScriptedUi`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// `confirm(title, message)`.
    Confirm {
        /// The title.
        title: String,
        /// The message.
        message: String,
    },
    /// `select(title, options)`.
    Select {
        /// The title.
        title: String,
        /// The options offered.
        options: Vec<String>,
    },
    /// `input(title, placeholder)` or `editor(title, prefill)`.
    Input {
        /// The title.
        title: String,
    },
}

impl ScriptedUi {
    /// A UI with nothing scripted: every `confirm` answers `false`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A UI whose `confirm` answers `answer` whenever nothing else is scripted.
    #[must_use]
    pub fn confirming(answer: bool) -> Self {
        ScriptedUi {
            confirm_default: answer,
            ..Self::default()
        }
    }

    /// Scripts the next `confirm` answers, in order.
    #[must_use]
    pub fn then_confirm(self, answers: impl IntoIterator<Item = bool>) -> Self {
        lock(&self.confirms).extend(answers);
        self
    }

    /// Scripts the next `select` answer (`None`: the user cancelled).
    #[must_use]
    pub fn then_select(self, choice: Option<&str>) -> Self {
        lock(&self.choices).push_back(choice.map(str::to_owned));
        self
    }

    /// Scripts the next `input` or `editor` answer (`None`: the user cancelled).
    #[must_use]
    pub fn then_input(self, text: Option<&str>) -> Self {
        lock(&self.inputs).push_back(text.map(str::to_owned));
        self
    }

    /// The questions asked so far, in order.
    #[must_use]
    pub fn asked(&self) -> Vec<Asked> {
        lock(&self.asked).clone()
    }

    /// The notifications shown so far (`notify`), in order.
    #[must_use]
    pub fn notifications(&self) -> Vec<(String, NotifyKind)> {
        lock(&self.notes).clone()
    }

    /// The status line's segment `key`, as the hooks last set it.
    #[must_use]
    pub fn status(&self, key: &str) -> Option<String> {
        lock(&self.status)
            .segments()
            .find(|(k, _)| *k == key)
            .map(|(_, text)| text.to_owned())
    }
}

#[async_trait]
impl HookUi for ScriptedUi {
    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        lock(&self.asked).push(Asked::Select {
            title: title.to_owned(),
            options: options.to_vec(),
        });
        lock(&self.choices).pop_front().flatten()
    }

    async fn confirm(&self, title: &str, message: &str) -> bool {
        lock(&self.asked).push(Asked::Confirm {
            title: title.to_owned(),
            message: message.to_owned(),
        });
        lock(&self.confirms)
            .pop_front()
            .unwrap_or(self.confirm_default)
    }

    async fn input(&self, title: &str, _placeholder: Option<&str>) -> Option<String> {
        lock(&self.asked).push(Asked::Input {
            title: title.to_owned(),
        });
        lock(&self.inputs).pop_front().flatten()
    }

    async fn editor(&self, title: &str, _prefill: Option<&str>) -> Option<String> {
        self.input(title, None).await
    }

    fn notify(&self, message: &str, kind: NotifyKind) {
        lock(&self.notes).push((message.to_owned(), kind));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        lock(&self.status).set(key, text);
    }
}

/// A `tool_call` event of `tool` with `input` (an object; anything else is an empty input).
fn tool_call_event(tool: &str, input: Value) -> ToolCallEvent {
    ToolCallEvent {
        tool_name: tool.to_owned(),
        tool_call_id: CALL_ID.to_owned(),
        input: ToolInput::try_from(input).unwrap_or_default(),
    }
}

/// `mutex`'s guard, poisoned or not: a hook that panicked while a test held a lock does not
/// hide what was recorded.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
