//! The contexts handlers receive: [`HookContext`] for event handlers and [`CommandContext`]
//! for command handlers (SPEC-DETAILS section 3). What they capture and what they ask at call
//! time comes from the runner's [`crate::Host`].

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::calls::{HookApiError, SendMessageOptions};
pub use crate::calls::{
    Model, NavigateTreeOptions, NewSessionOptions, SessionActionResult, SessionSetup,
};
use crate::events::CustomMessage;
use crate::exec::{ExecError, ExecOptions, ExecResult, exec_command};
use crate::runner::shared::{Installed, Shared};
use crate::session::SessionManager;
use crate::ui::HookUi;

/// The second argument of every event handler (`HookContext`).
///
/// `ui`, `has_ui` and `model` are captured when the context is built (once per emission, shared
/// by that emission's handlers); `agent`, `is_idle`, `abort` and `has_queued_messages` ask the
/// runner's host in force at call time.
#[derive(Clone)]
pub struct HookContext {
    ui: Arc<dyn HookUi>,
    has_ui: bool,
    model: Option<Arc<Model>>,
    shared: Arc<Shared>,
}

impl HookContext {
    /// A context of `installed`, a host of `shared`, with `model`.
    pub(crate) fn of(shared: &Arc<Shared>, installed: &Installed, model: Option<Model>) -> Self {
        HookContext {
            ui: Arc::clone(&installed.ui),
            has_ui: installed.has_ui,
            model: model.map(Arc::new),
            shared: Arc::clone(shared),
        }
    }

    /// A context of the host in force (asks its model).
    pub(crate) fn capture(shared: &Arc<Shared>) -> Self {
        let installed = shared.installed();
        HookContext::of(shared, installed, installed.host().model())
    }

    pub(crate) fn with_model(&self, model: Model) -> Self {
        HookContext {
            ui: Arc::clone(&self.ui),
            has_ui: self.has_ui,
            model: Some(Arc::new(model)),
            shared: Arc::clone(&self.shared),
        }
    }

    /// The UI captured when this context was built.
    #[must_use]
    pub fn ui(&self) -> &dyn HookUi {
        &*self.ui
    }

    /// Whether an interactive UI was available when this context was built.
    #[must_use]
    pub fn has_ui(&self) -> bool {
        self.has_ui
    }

    /// The working directory of the runner.
    #[must_use]
    pub fn cwd(&self) -> &Path {
        &self.shared.cwd
    }

    /// The value of type `T` that the runner keeps for its whole life, made with
    /// `T::default()` on first use: the place for what a hook remembers across calls (a
    /// counter, the files it has seen). A host builds one runner per agent session (`hooks
    /// serve` does), so such a value lives exactly as long as the session, as a hook module's
    /// variables do upstream; a `static` would be shared by every session the process serves.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use hookwright::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct ToolsRun(AtomicUsize);
    ///
    /// #[hook(event = "tool_result")]
    /// fn count(_event: &ToolResultEvent, ctx: &HookContext) {
    ///     let n = ctx.state::<ToolsRun>().0.fetch_add(1, Ordering::Relaxed) + 1;
    ///     ctx.ui().set_status("tools", Some(&format!("tools run: {n}")));
    /// }
    /// # fn main() {}
    /// ```
    #[must_use]
    pub fn state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.shared.state.get()
    }

    /// The session (read-only; writes go through [`HookContext::send_message`] and
    /// [`HookContext::append_entry`]).
    #[must_use]
    pub fn session_manager(&self) -> &dyn SessionManager {
        &*self.shared.session_manager
    }

    /// The model when this context was built.
    #[must_use]
    pub fn model(&self) -> Option<&Model> {
        self.model.as_deref()
    }

    /// The agent CLI the runner serves, as the `hooks` binary names it: `claude`, `codex`,
    /// `gemini`, `copilot`, `qwen`, `droid` or `cursor` in the adapters (`hooks AGENT EVENT`,
    /// `hooks serve`); `None` when the host does not say (`hooks run`, the pi and oh-my-pi
    /// bridge, a runner not initialized). Asked of the host in force at call time.
    ///
    /// The events are the same for every agent; this is for what one agent does outside them,
    /// which a hook can only work around where that agent runs (the example redactor answers
    /// Claude Code's reads of files holding a secret itself, since Claude Code shows such a
    /// file to the model again after a compaction without a hook).
    ///
    /// ```
    /// use hookwright::prelude::*;
    ///
    /// #[hook(event = "tool_call")]
    /// fn only_in_claude_code(event: &ToolCallEvent, ctx: &HookContext) -> Option<ToolCallEventResult> {
    ///     (ctx.agent() == Some("claude") && event.tool_name == "webfetch")
    ///         .then(|| ToolCallEventResult::block("no web fetches here"))
    /// }
    /// # fn main() {}
    /// ```
    #[must_use]
    pub fn agent(&self) -> Option<&str> {
        self.shared.installed().host().agent()
    }

    /// Whether the agent is idle (asked at call time).
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.shared.installed().host().is_idle()
    }

    /// Aborts the current agent run (fire-and-forget).
    pub fn abort(&self) {
        self.shared.installed().host().abort();
    }

    /// Whether messages are queued (asked at call time).
    #[must_use]
    pub fn has_queued_messages(&self) -> bool {
        self.shared.installed().host().has_queued_messages()
    }

    /// Sends a custom message that is shown and sent to the model (`pi.sendMessage`).
    ///
    /// # Errors
    /// `sendMessage handler not initialized` before the host initialized the runner.
    pub fn send_message(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
    ) -> Result<(), HookApiError> {
        self.shared.send_message(message, options)
    }

    /// Persists a custom entry that is not sent to the model (`pi.appendEntry`).
    ///
    /// # Errors
    /// `appendEntry handler not initialized` before the host initialized the runner.
    pub fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), HookApiError> {
        self.shared.append_entry(custom_type, data)
    }

    /// Runs a command in the runner's working directory (or `options.cwd`); see
    /// [`exec_command`].
    ///
    /// # Errors
    /// When the command cannot be started or its output is too large.
    pub async fn exec(
        &self,
        command: &str,
        args: &[String],
        options: ExecOptions,
    ) -> Result<ExecResult, ExecError> {
        exec_command(command, args, &self.shared.cwd, options).await
    }
}

/// The context of a command handler (`HookCommandContext`): everything of [`HookContext`]
/// plus session control, which only commands get (calling it from inside the agent loop could
/// deadlock). Each method uses the host function current at call time.
#[derive(Clone)]
pub struct CommandContext {
    ctx: HookContext,
}

impl Deref for CommandContext {
    type Target = HookContext;
    fn deref(&self) -> &HookContext {
        &self.ctx
    }
}

impl CommandContext {
    pub(crate) fn capture(shared: &Arc<Shared>) -> Self {
        CommandContext {
            ctx: HookContext::capture(shared),
        }
    }

    /// Waits until the agent is idle (resolves at once by default).
    pub async fn wait_for_idle(&self) {
        self.ctx.shared.installed().host().wait_for_idle().await;
    }

    /// Starts a new session (answers `{ cancelled: false }` when the host gave no handler).
    pub async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        let installed = self.ctx.shared.installed();
        installed.new_session().new_session(options).await
    }

    /// Branches from `entry_id` (answers `{ cancelled: false }` when the host gave no handler).
    pub async fn branch(&self, entry_id: &str) -> SessionActionResult {
        let installed = self.ctx.shared.installed();
        installed.branch().branch(entry_id).await
    }

    /// Navigates to `target_id` in the session tree (answers `{ cancelled: false }` when the
    /// host gave no handler).
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let installed = self.ctx.shared.installed();
        installed
            .navigate_tree()
            .navigate_tree(target_id, options)
            .await
    }

    /// The event-handler view of this context.
    #[must_use]
    pub fn hook_context(&self) -> &HookContext {
        &self.ctx
    }
}
