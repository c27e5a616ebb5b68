//! [`HookRunner`]: dispatches events to the loaded hooks in order and combines their results
//! by each event's combine rule (SPEC.md section 5, SPEC-DETAILS section 5): the rule is a type
//! beside the event ([`crate::events::combine`]), the one emission path is in `dispatch`.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::api::{LoadedHook, MessageRenderer, RegisteredCommand};
use crate::context::{CommandContext, HookContext};
use crate::events::Combiner;
use crate::events::combine::{Ignore, Output};
use crate::events::{
    BeforeAgentStartEvent, BeforeAgentStartEventResult, ContextEvent, CustomEvent, EventKind,
    HookEvent, ImageContent, Message, ToolCallEvent, ToolCallEventResult, ToolResultEvent,
    ToolResultEventResult,
};
use crate::handler::{HandlerError, guard_future};
use crate::host::Host;
use crate::session::SessionManager;
use crate::ui::HookUi;

use emission::Emission;
use lent::{EmissionContext, Lending};
use shared::Shared;

pub use crate::events::combine::ToolCallHookError;
use errors::Listeners;
pub use errors::{ErrorListener, ErrorSubscription, HookError};
pub use hook_table::{HookTable, TableInUse};

mod dispatch;
mod emission;
mod errors;
mod hook_table;
mod lent;
mod plan;
pub(crate) mod shared;

/// Runs the loaded hooks' handlers, for one [`Host`] (given by [`HookRunner::initialize`]).
///
/// Dispatch is sequential: hooks in load order, inside a hook its handlers for the event in
/// registration order, each awaited before the next starts. A handler that returns `Err` or
/// panics is a thrown error: reported as a [`HookError`] on every path except `tool_call`,
/// where it propagates. A panic never escapes the runner.
pub struct HookRunner {
    table: HookTable,
    shared: Arc<Shared>,
    lending: Lending,
    listeners: Arc<Listeners>,
    next_listener: AtomicU64,
    default_timeout: Option<Duration>,
}

impl fmt::Debug for HookRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookRunner")
            .field("hooks", &self.hooks())
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
        Self::from_table(&HookTable::new(hooks), cwd, session_manager)
            .expect("a new table serves its first runner")
    }

    /// A runner over the hooks of `table` for a session in `cwd`: the table is shared (not
    /// copied), and what the runner keeps of its own (host, contexts, `ctx.state::<T>()`,
    /// error listeners) is its own, as with [`HookRunner::new`].
    ///
    /// # Errors
    /// The table serves a runner already and one of its hooks is bound to it (it handed out
    /// a [`HookSender`](crate::HookSender)): see [`HookTable::is_shareable`].
    pub fn from_table(
        table: &HookTable,
        cwd: impl Into<PathBuf>,
        session_manager: Arc<dyn SessionManager>,
    ) -> Result<Self, TableInUse> {
        let shared = Arc::new(Shared::new(cwd.into(), session_manager));
        table.attach(&shared)?;
        Ok(HookRunner {
            table: table.clone(),
            lending: Lending::new(&shared),
            shared,
            listeners: Arc::default(),
            next_listener: AtomicU64::new(0),
            default_timeout: None,
        })
    }

    /// Sets a timeout for every async handler without its own (`None`, the default, is no
    /// timeout, as upstream).
    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Installs `host`, the agent's side of this runner (SPEC-DETAILS 5.2): it replaces the
    /// previous host, for every hook too (their `send_message` and `append_entry` go to it),
    /// except for the session actions it does not carry out ([`Host::session_actions`]).
    /// Contexts already built keep what they captured.
    pub fn initialize(&self, host: impl Host) {
        self.shared.install(Arc::new(host), |index| {
            self.lending.publish(&self.shared, index);
        });
    }

    /// The loaded hooks, in load order.
    #[must_use]
    pub fn hooks(&self) -> &[LoadedHook] {
        self.table.hooks()
    }

    /// The table of the loaded hooks (to build another runner over the same hooks with
    /// [`HookRunner::from_table`]).
    #[must_use]
    pub fn table(&self) -> &HookTable {
        &self.table
    }

    /// Each hook's path as given to the loader, in order.
    #[must_use]
    pub fn hook_paths(&self) -> Vec<&str> {
        self.hooks().iter().map(|h| h.path.as_str()).collect()
    }

    /// The runner's current UI.
    #[must_use]
    pub fn ui_context(&self) -> Arc<dyn HookUi> {
        Arc::clone(&self.shared.installed().ui)
    }

    /// Whether the runner's current UI is interactive.
    #[must_use]
    pub fn has_ui(&self) -> bool {
        self.shared.installed().has_ui
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
        self.table.plans().has(kind)
    }

    /// Whether at least one hook has a handler of the custom event `name`.
    #[must_use]
    pub fn has_custom_handlers(&self, name: &str) -> bool {
        self.table.plans().custom(name).is_some()
    }

    /// The first hook's renderer for `custom_type`.
    #[must_use]
    pub fn get_message_renderer(&self, custom_type: &str) -> Option<&MessageRenderer> {
        self.hooks()
            .iter()
            .find_map(|h| h.renderers.get(custom_type))
    }

    /// Every command of every hook, hooks in order, without de-duplication.
    #[must_use]
    pub fn get_registered_commands(&self) -> Vec<&RegisteredCommand> {
        self.hooks()
            .iter()
            .flat_map(|h| h.commands.values())
            .collect()
    }

    /// The first hook's command `name`.
    #[must_use]
    pub fn get_command(&self, name: &str) -> Option<&RegisteredCommand> {
        self.hooks().iter().find_map(|h| h.commands.get(name))
    }

    /// A fresh context for an event handler (what each emission builds once).
    #[must_use]
    pub fn create_context(&self) -> HookContext {
        HookContext::capture(&self.shared)
    }

    /// The context of an emission starting now: lent by the runner when it can be (see
    /// `lent`), built otherwise. Either way the host's `model` is asked once.
    #[inline]
    fn emission_context(&self) -> EmissionContext<'_> {
        self.lending.context(&self.shared)
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
        match self.table.plans().get::<E>() {
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
        let Some(plan) = self.table.plans().custom(name) else {
            return;
        };
        let event = CustomEvent {
            name: name.to_owned(),
            payload: payload.clone(),
        };
        self.dispatch::<CustomEvent, Ignore>(plan, &event).await;
    }
}
