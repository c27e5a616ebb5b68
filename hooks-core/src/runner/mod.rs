//! [`HookRunner`]: dispatches events to the loaded hooks in order and combines their results
//! by each event's combine rule (SPEC.md section 5, SPEC-DETAILS section 5): the rule is a type
//! beside the event ([`crate::events::combine`]), the one emission path is in `dispatch`.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;

use crate::api::{LoadedHook, MessageRenderer, RegisteredCommand};
use crate::context::{
    AbortFn, AppendEntryHandler, Bindings, BoolFn, BranchHandler, CommandContext, EmissionContext,
    GetModelFn, HookContext, LentContexts, NavigateTreeHandler, NewSessionHandler,
    SendMessageHandler, Shared, WaitFn, default_abort, default_has_queued_messages,
    default_is_idle, default_wait_for_idle,
};
use crate::events::Combiner;
use crate::events::combine::{Ignore, Output};
use crate::events::{
    BeforeAgentStartEvent, BeforeAgentStartEventResult, ContextEvent, CustomEvent, EventKind,
    HookEvent, ImageContent, Message, ToolCallEvent, ToolCallEventResult, ToolResultEvent,
    ToolResultEventResult,
};
use crate::handler::{HandlerError, guard_future};
use crate::session::SessionManager;
use crate::ui::HookUi;

use emission::Emission;
use plan::Plans;

pub use crate::events::combine::ToolCallHookError;
use errors::Listeners;
pub use errors::{ErrorListener, ErrorSubscription, HookError};

mod dispatch;
mod emission;
mod errors;
pub(crate) mod plan;

/// What a host gives [`HookRunner::initialize`].
///
/// `is_idle`, `wait_for_idle`, `abort`, `has_queued_messages` left `None` are reset to their
/// defaults; `new_session`, `branch`, `navigate_tree` left `None` keep the previous handler;
/// `ui` left `None` becomes a new no-op UI and `has_ui` left `None` becomes `false`.
#[derive(Clone)]
pub struct InitializeOptions {
    /// Returns the current model.
    pub get_model: GetModelFn,
    /// Sends a custom message.
    pub send_message: SendMessageHandler,
    /// Persists a custom entry.
    pub append_entry: AppendEntryHandler,
    /// Starts a new session.
    pub new_session: Option<NewSessionHandler>,
    /// Branches.
    pub branch: Option<BranchHandler>,
    /// Navigates the tree.
    pub navigate_tree: Option<NavigateTreeHandler>,
    /// Whether the agent is idle.
    pub is_idle: Option<BoolFn>,
    /// Waits until idle.
    pub wait_for_idle: Option<WaitFn>,
    /// Aborts the current run.
    pub abort: Option<AbortFn>,
    /// Whether messages are queued.
    pub has_queued_messages: Option<BoolFn>,
    /// The UI.
    pub ui: Option<Arc<dyn HookUi>>,
    /// Whether the UI is interactive.
    pub has_ui: Option<bool>,
}

impl InitializeOptions {
    /// Options with the required handlers and every optional one left out.
    pub fn new(send_message: SendMessageHandler, append_entry: AppendEntryHandler) -> Self {
        InitializeOptions {
            get_model: Arc::new(|| None),
            send_message,
            append_entry,
            new_session: None,
            branch: None,
            navigate_tree: None,
            is_idle: None,
            wait_for_idle: None,
            abort: None,
            has_queued_messages: None,
            ui: None,
            has_ui: None,
        }
    }
}

/// Runs the loaded hooks' handlers.
///
/// Dispatch is sequential: hooks in load order, inside a hook its handlers for the event in
/// registration order, each awaited before the next starts. A handler that returns `Err` or
/// panics is a thrown error: reported as a [`HookError`] on every path except `tool_call`,
/// where it propagates. A panic never escapes the runner.
pub struct HookRunner {
    hooks: Vec<LoadedHook>,
    shared: Arc<Shared>,
    lent: LentContexts,
    listeners: Arc<Listeners>,
    next_listener: AtomicU64,
    plans: Plans,
    default_timeout: Option<Duration>,
}

impl fmt::Debug for HookRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookRunner")
            .field("hooks", &self.hooks)
            .field("cwd", &self.shared.cwd)
            .finish_non_exhaustive()
    }
}

impl HookRunner {
    /// A runner over `hooks` (in load order) for a session in `cwd`.
    pub fn new(
        hooks: Vec<LoadedHook>,
        cwd: impl Into<PathBuf>,
        session_manager: Arc<dyn SessionManager>,
    ) -> Self {
        let shared = Arc::new(Shared {
            bindings: RwLock::new(Bindings::default()),
            cwd: cwd.into(),
            session_manager,
        });
        HookRunner {
            plans: Plans::new(&hooks),
            hooks,
            lent: LentContexts::new(&shared),
            shared,
            listeners: Arc::default(),
            next_listener: AtomicU64::new(0),
            default_timeout: None,
        }
    }

    /// Sets a timeout for every async handler without its own (`None`, the default, is no
    /// timeout, as upstream).
    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Installs the host's functions and UI (see [`InitializeOptions`] for what is replaced,
    /// reset or kept).
    pub fn initialize(&self, options: InitializeOptions) {
        let mut b = self
            .shared
            .bindings
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        b.get_model = options.get_model;
        b.is_idle = options.is_idle.unwrap_or_else(default_is_idle);
        b.wait_for_idle = options.wait_for_idle.unwrap_or_else(default_wait_for_idle);
        b.abort = options.abort.unwrap_or_else(default_abort);
        b.has_queued_messages = options
            .has_queued_messages
            .unwrap_or_else(default_has_queued_messages);
        if let Some(h) = options.new_session {
            b.new_session = h;
        }
        if let Some(h) = options.branch {
            b.branch = h;
        }
        if let Some(h) = options.navigate_tree {
            b.navigate_tree = h;
        }
        for hook in &self.hooks {
            hook.set_send_message_handler(Arc::clone(&options.send_message));
            hook.set_append_entry_handler(Arc::clone(&options.append_entry));
        }
        b.send_message = Some(options.send_message);
        b.append_entry = Some(options.append_entry);
        b.ui = options.ui.unwrap_or_else(|| Arc::new(crate::ui::NoUi));
        b.has_ui = options.has_ui.unwrap_or(false);
        self.lent.publish(&self.shared, &b);
    }

    /// The loaded hooks, in load order.
    #[must_use]
    pub fn hooks(&self) -> &[LoadedHook] {
        &self.hooks
    }

    /// Each hook's path as given to the loader, in order.
    #[must_use]
    pub fn hook_paths(&self) -> Vec<&str> {
        self.hooks.iter().map(|h| h.path.as_str()).collect()
    }

    /// The runner's current UI.
    #[must_use]
    pub fn ui_context(&self) -> Arc<dyn HookUi> {
        self.shared.bindings().ui
    }

    /// Whether the runner's current UI is interactive.
    #[must_use]
    pub fn has_ui(&self) -> bool {
        self.shared.bindings().has_ui
    }

    /// Adds an error listener; the returned handle removes it.
    pub fn on_error(
        &self,
        listener: impl Fn(&HookError) + Send + Sync + 'static,
    ) -> ErrorSubscription {
        let id = self.next_listener.fetch_add(1, Ordering::Relaxed);
        self.listeners
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((id, Arc::new(listener)));
        ErrorSubscription {
            listeners: Arc::downgrade(&self.listeners),
            id,
        }
    }

    /// Sends `error` to every listener, in subscription order.
    pub fn emit_error(&self, error: &HookError) {
        let listeners: Vec<ErrorListener> = self
            .listeners
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(_, l)| Arc::clone(l))
            .collect();
        for listener in listeners {
            listener(error);
        }
    }

    fn report(&self, hook: &LoadedHook, event: &str, error: &HandlerError) {
        self.emit_error(&HookError {
            hook_path: hook.path.clone(),
            event: event.to_owned(),
            error: error.message().to_owned(),
        });
    }

    /// Whether at least one hook has a handler of `kind`.
    #[must_use]
    pub fn has_handlers(&self, kind: EventKind) -> bool {
        self.plans.has(kind)
    }

    /// Whether at least one hook has a handler of the custom event `name`.
    #[must_use]
    pub fn has_custom_handlers(&self, name: &str) -> bool {
        self.plans.custom(name).is_some()
    }

    /// The first hook's renderer for `custom_type`.
    #[must_use]
    pub fn get_message_renderer(&self, custom_type: &str) -> Option<&MessageRenderer> {
        self.hooks.iter().find_map(|h| h.renderers.get(custom_type))
    }

    /// Every command of every hook, hooks in order, without de-duplication.
    #[must_use]
    pub fn get_registered_commands(&self) -> Vec<&RegisteredCommand> {
        self.hooks
            .iter()
            .flat_map(|h| h.commands.values())
            .collect()
    }

    /// The first hook's command `name`.
    #[must_use]
    pub fn get_command(&self, name: &str) -> Option<&RegisteredCommand> {
        self.hooks.iter().find_map(|h| h.commands.get(name))
    }

    /// A fresh context for an event handler (what each emission builds once).
    #[must_use]
    pub fn create_context(&self) -> HookContext {
        HookContext::capture(&self.shared)
    }

    /// The context of an emission starting now: lent by the runner when it can be (see
    /// [`LentContexts`]), built otherwise. Either way the host's `get_model` is called once.
    #[inline]
    fn emission_context(&self) -> EmissionContext<'_> {
        self.lent.context(&self.shared)
    }

    /// A fresh context for a command handler.
    #[must_use]
    pub fn create_command_context(&self) -> CommandContext {
        CommandContext::capture(&self.shared)
    }

    /// Runs a command the way a host does: looks it up and calls it with a fresh
    /// [`CommandContext`]. `None` when no hook has the command.
    pub async fn run_command(&self, name: &str, args: &str) -> Option<Result<(), HandlerError>> {
        let command = self.get_command(name)?;
        let ctx = self.create_command_context();
        let handler = &command.handler;
        Some(guard_future(|| handler(args, &ctx)).await)
    }

    /// Emits `event`: runs its handlers and answers what its combine rule
    /// ([`HookEvent::Rule`]) makes of their outcomes. Every emission of an event goes through
    /// here, so it answers the same whichever method emits it: `emit(&tool_call)` is
    /// [`HookRunner::emit_tool_call`]. An event without handlers answers at once, without a
    /// context.
    #[inline]
    pub fn emit<'a, E: HookEvent>(&'a self, event: &'a E) -> impl Future<Output = Output<E>> + 'a {
        match self.plans.get::<E>() {
            Some(plan) => Emission::running(self.dispatch::<E, E::Rule>(plan, event)),
            None => Emission::done(|| E::Rule::default().finish()),
        }
    }

    /// `tool_call`, strict: the last returned result wins unless a handler blocks (the first
    /// block returns at once). A handler's error or panic stops the emission and is returned;
    /// no [`HookError`] is reported.
    ///
    /// # Errors
    /// The first handler error, with the hook that threw it.
    #[inline]
    pub fn emit_tool_call<'a>(
        &'a self,
        event: &'a ToolCallEvent,
    ) -> impl Future<Output = Result<Option<ToolCallEventResult>, ToolCallHookError>> + 'a {
        self.emit(event)
    }

    /// `tool_result`: the last returned override wins; errors are reported.
    #[inline]
    pub fn emit_tool_result<'a>(
        &'a self,
        event: &'a ToolResultEvent,
    ) -> impl Future<Output = Option<ToolResultEventResult>> + 'a {
        self.emit(event)
    }

    /// `context`, chained: each handler sees the messages output by the previous one;
    /// `Some(messages)` replaces them (an empty list empties them), `None` keeps them. Errors
    /// are reported and the chain goes on with the previous messages. Answers `messages`
    /// itself when no handler replaced them.
    pub async fn emit_context(&self, messages: Vec<Message>) -> Vec<Message> {
        let event = ContextEvent { messages };
        let replaced = self.emit(&event).await;
        replaced.unwrap_or(event.messages)
    }

    /// `before_agent_start`: the first result carrying a message is returned whole; later
    /// handlers still run, their messages ignored. Errors are reported.
    pub async fn emit_before_agent_start(
        &self,
        prompt: &str,
        images: Option<Vec<ImageContent>>,
    ) -> Option<BeforeAgentStartEventResult> {
        if !self.has_handlers(EventKind::BeforeAgentStart) {
            return None;
        }
        let event = BeforeAgentStartEvent {
            prompt: prompt.to_owned(),
            images,
        };
        self.emit(&event).await
    }

    /// A custom event by name: runs every handler of `name` with `payload`, through the same
    /// path as the typed events (the same timeout rule, panic guard and context); results are
    /// ignored, errors (a panic, a timeout) reported.
    pub async fn emit_custom(&self, name: &str, payload: &Value) {
        let Some(plan) = self.plans.custom(name) else {
            return;
        };
        let event = CustomEvent {
            name: name.to_owned(),
            payload: payload.clone(),
        };
        self.dispatch::<CustomEvent, Ignore>(plan, &event).await;
    }
}
