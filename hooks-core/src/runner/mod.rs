//! [`HookRunner`]: dispatches events to the loaded hooks in order and combines their results
//! by each event's [`Combine`] rule (SPEC.md section 5, SPEC-DETAILS section 5).

use std::fmt;
use std::future::Future;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, Weak};
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;

use crate::api::{LoadedHook, MessageRenderer, RegisteredCommand};
use crate::context::{
    AbortFn, AppendEntryHandler, Bindings, BoolFn, BranchHandler, CommandContext, EmissionContext,
    GetModelFn, HookContext, LentContexts, NavigateTreeHandler, NewSessionHandler,
    SendMessageHandler, Shared, WaitFn, default_abort, default_has_queued_messages,
    default_is_idle, default_wait_for_idle,
};
use crate::events::{
    BeforeAgentStartEvent, BeforeAgentStartEventResult, Combine, ContextEvent, EventKind,
    HookEvent, ImageContent, Message, ToolCallEvent, ToolCallEventResult, ToolResultEvent,
    ToolResultEventResult,
};
use crate::handler::{HandlerError, HandlerErrorKind, HandlerResult, guard_future};
use crate::session::SessionManager;

use emission::{Emission, OutOfLine};
use plan::{Plan, Plans, Step};

mod emission;
pub(crate) mod plan;
use crate::ui::HookUi;

/// Calls a handler entry: a sync handler directly (no future is built); an async one
/// without a timeout polled in place, its future stored in the emission's own state; an async
/// one with a timeout under `tokio::time::timeout`.
macro_rules! call {
    ($entry:expr, $event:expr, $ctx:expr, $timeout:expr) => {{
        let entry = $entry;
        match entry.call_sync($event, $ctx) {
            Some(outcome) => outcome,
            None => match entry.timeout($timeout) {
                None => {
                    let mut slot = ::std::pin::pin!(None);
                    ::std::future::poll_fn(|cx| entry.poll_async(&mut slot, $event, $ctx, cx)).await
                }
                Some(_) => entry.call_async($event, $ctx, $timeout).await,
            },
        }
    }};
}

/// Hands a sync handler's outcome to the emission's combine step. Not inlined on purpose: the
/// outcome is then read where the handler wrote it, instead of being split into registers and
/// stack slots (copying its padding costs a store-forwarding stall per handler on x86).
#[inline(never)]
fn hand_over<S, H, R, T>(
    on_outcome: &mut impl FnMut(&mut S, H, R) -> ControlFlow<T>,
    state: &mut S,
    hook: H,
    outcome: R,
) -> ControlFlow<T> {
    on_outcome(state, hook, outcome)
}

/// How a run of sync handlers ended.
enum Batch<T> {
    /// Every handler ran.
    Done,
    /// `on_outcome` stopped the emission.
    Stop(T),
    /// The handler at this index of the plan is async.
    Async(usize),
}

/// A handler error reported to the error listeners (`HookError`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookError {
    /// The hook's path, as given to the loader.
    pub hook_path: String,
    /// The event name.
    pub event: String,
    /// The error text (for a panic, its message).
    pub error: String,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hook {} failed on {}: {}",
            self.hook_path, self.event, self.error
        )
    }
}

impl std::error::Error for HookError {}

/// The error of a `tool_call` handler, which propagates instead of being reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallHookError {
    /// The hook whose handler failed.
    pub hook_path: String,
    /// What it threw.
    pub error: HandlerError,
}

impl fmt::Display for ToolCallHookError {
    /// A returned `Err` is shown as is (upstream rethrows the same error); a panic or a timeout
    /// names the hook.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error.kind() {
            HandlerErrorKind::Panic => {
                write!(f, "hook {} panicked: {}", self.hook_path, self.error)
            }
            HandlerErrorKind::Timeout => write!(f, "hook {}: {}", self.hook_path, self.error),
            _ => f.write_str(self.error.message()),
        }
    }
}

impl std::error::Error for ToolCallHookError {}

/// A listener for [`HookError`]s.
pub type ErrorListener = Arc<dyn Fn(&HookError) + Send + Sync>;

type Listeners = RwLock<Vec<(u64, ErrorListener)>>;

/// Returned by [`HookRunner::on_error`]; [`ErrorSubscription::unsubscribe`] removes the
/// listener. Dropping it keeps the listener subscribed.
#[derive(Debug)]
pub struct ErrorSubscription {
    listeners: Weak<Listeners>,
    id: u64,
}

impl ErrorSubscription {
    /// Removes the listener.
    pub fn unsubscribe(self) {
        if let Some(listeners) = self.listeners.upgrade() {
            listeners
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .retain(|(id, _)| *id != self.id);
        }
    }
}

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
        self.hooks
            .iter()
            .any(|h| !h.handlers.custom(name).is_empty())
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

    /// Runs the sync handlers of `entries` from `*next` up to the next async one, under one
    /// panic guard. A handler that allows (`Ok(None)`) costs its call and a test; a result or
    /// an error goes to `on_outcome`, which may stop the run. A panic of a handler is that
    /// handler's error and the run goes on after it; a panic of `on_outcome` itself (an error
    /// listener's, say) goes on unwinding.
    #[inline(always)]
    fn run_sync<'a, E, S, T>(
        &'a self,
        plan: &'a Plan<E>,
        next: &mut usize,
        event: &E,
        ctx: &HookContext,
        state: &mut S,
        on_outcome: &mut impl FnMut(&mut S, &'a LoadedHook, HandlerResult<E::Result>) -> ControlFlow<T>,
    ) -> Batch<T>
    where
        E: HookEvent,
    {
        loop {
            let mut calling = false;
            let batch = catch_unwind(AssertUnwindSafe(|| {
                while let Some(step) = plan.steps.get(*next) {
                    calling = true;
                    let outcome = match step {
                        Step::Fn(f) => f(event, ctx),
                        Step::Closure(f) => f(event, ctx),
                        Step::Async => return Batch::Async(*next),
                    };
                    calling = false;
                    *next += 1;
                    if !matches!(outcome, Ok(None))
                        && let ControlFlow::Break(value) = hand_over(
                            on_outcome,
                            state,
                            &self.hooks[plan.entries[*next - 1].0],
                            outcome,
                        )
                    {
                        return Batch::Stop(value);
                    }
                }
                Batch::Done
            }));
            match batch {
                Ok(batch) => return batch,
                Err(payload) if calling => {
                    // The handler at `next` panicked; the run goes on after it.
                    let hook = &self.hooks[plan.entries[*next].0];
                    *next += 1;
                    let error = Err(HandlerError::from_panic(&*payload));
                    if let ControlFlow::Break(value) = on_outcome(state, hook, error) {
                        return Batch::Stop(value);
                    }
                }
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
    }

    /// Runs every handler of `plan` in order (hooks in load order, a hook's handlers in
    /// registration order) with one context for the emission, and hands each result or error
    /// to `on_outcome` with `state` (a handler that returns nothing is skipped);
    /// `on_outcome` may stop the emission. Returns the state and the `Break` value (`None`
    /// when every handler ran).
    ///
    /// When every handler is sync the whole emission runs on the first poll, without polling
    /// any other future. Otherwise one future serves the emission: runs of sync handlers go
    /// through [`HookRunner::run_sync`]; an async handler's future is built in place (in
    /// `slot`) and polled there until it completes, under its timeout when it has one;
    /// building it and each poll run under a panic guard.
    async fn dispatch<'a, E, S, T>(
        &'a self,
        plan: &'a Plan<E>,
        event: &'a E,
        mut state: S,
        mut on_outcome: impl FnMut(&mut S, &'a LoadedHook, HandlerResult<E::Result>) -> ControlFlow<T>
        + 'a,
    ) -> (S, Option<T>)
    where
        E: HookEvent,
    {
        if plan.sync_only {
            let ctx = self.emission_context();
            let stop = match self.run_sync(plan, &mut 0, event, &ctx, &mut state, &mut on_outcome) {
                Batch::Stop(value) => Some(value),
                Batch::Done | Batch::Async(_) => None,
            };
            return (state, stop);
        }
        OutOfLine::new(self.dispatch_mixed(plan, event, state, on_outcome)).await
    }

    /// [`HookRunner::dispatch`] of a plan with async handlers.
    async fn dispatch_mixed<'a, E, S, T>(
        &'a self,
        plan: &'a Plan<E>,
        event: &'a E,
        mut state: S,
        mut on_outcome: impl FnMut(&mut S, &'a LoadedHook, HandlerResult<E::Result>) -> ControlFlow<T>
        + 'a,
    ) -> (S, Option<T>)
    where
        E: HookEvent,
    {
        let ctx = self.emission_context();
        let ctx: &HookContext = &ctx;
        let entries = plan.entries.as_slice();
        let mut next = 0;
        let mut running: Option<(usize, Option<Duration>)> = None;
        let mut slot = pin!(None);
        // Boxed: only handlers with a timeout pay for it, and the emission's future stays
        // small for the rest.
        let mut sleep: Option<Pin<Box<tokio::time::Sleep>>> = None;
        let stop = std::future::poll_fn(|cx| {
            loop {
                if let Some((index, limit)) = running {
                    let (hook, entry) = &entries[index];
                    let outcome = match entry.poll_async(&mut slot, event, ctx, cx) {
                        Poll::Ready(outcome) => outcome,
                        Poll::Pending => {
                            let expired = sleep
                                .as_mut()
                                .is_some_and(|sleep| sleep.as_mut().poll(cx).is_ready());
                            match limit {
                                Some(limit) if expired => Err(HandlerError::timeout(limit)),
                                _ => return Poll::Pending,
                            }
                        }
                    };
                    running = None;
                    slot.set(None);
                    if limit.is_some() {
                        sleep = None;
                    }
                    // As in `run_sync`: an allow is skipped, anything else is handed over
                    // where it lies.
                    if !matches!(outcome, Ok(None))
                        && let ControlFlow::Break(value) =
                            hand_over(&mut on_outcome, &mut state, &self.hooks[*hook], outcome)
                    {
                        return Poll::Ready(Some(value));
                    }
                    continue;
                }
                let batch = match plan.steps.get(next) {
                    None => Batch::Done,
                    Some(Step::Async) => Batch::Async(next),
                    Some(_) => {
                        self.run_sync(plan, &mut next, event, ctx, &mut state, &mut on_outcome)
                    }
                };
                match batch {
                    Batch::Done => return Poll::Ready(None),
                    Batch::Stop(value) => return Poll::Ready(Some(value)),
                    Batch::Async(index) => {
                        next = index + 1;
                        let limit = entries[index].1.timeout(self.default_timeout);
                        if let Some(limit) = limit {
                            sleep = Some(Box::pin(tokio::time::sleep(limit)));
                        }
                        running = Some((index, limit));
                    }
                }
            }
        })
        .await;
        (state, stop)
    }

    /// The generic dispatcher: runs every handler of `E` and combines results by
    /// `E::COMBINE`. Errors are reported and dispatch goes on.
    ///
    /// For `tool_call`, `context` and `before_agent_start` this runs the handlers but ignores
    /// their results, as upstream; use the dedicated methods.
    #[inline]
    pub fn emit<'a, E: HookEvent>(
        &'a self,
        event: &'a E,
    ) -> impl Future<Output = Option<E::Result>> + 'a {
        match self.plans.get::<E>() {
            Some(plan) => Emission::running(self.emit_handled(plan, event)),
            None => Emission::done(|| None),
        }
    }

    async fn emit_handled<'a, E: HookEvent>(
        &'a self,
        plan: &'a Plan<E>,
        event: &'a E,
    ) -> Option<E::Result> {
        self.dispatch(plan, event, None, |current, hook, outcome| {
            match outcome {
                Ok(Some(result)) => match E::COMBINE {
                    Combine::LastWins => *current = Some(result),
                    Combine::LastWinsUntilCancel => {
                        let stop = E::short_circuits(&result);
                        *current = Some(result);
                        if stop {
                            return ControlFlow::Break(());
                        }
                    }
                    _ => {}
                },
                Ok(None) => {}
                Err(error) => self.report(hook, E::NAME, &error),
            }
            ControlFlow::Continue(())
        })
        .await
        .0
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
        match self.plans.get::<ToolCallEvent>() {
            Some(plan) => Emission::running(self.emit_tool_call_handled(plan, event)),
            None => Emission::done(|| Ok(None)),
        }
    }

    async fn emit_tool_call_handled<'a>(
        &'a self,
        plan: &'a Plan<ToolCallEvent>,
        event: &'a ToolCallEvent,
    ) -> Result<Option<ToolCallEventResult>, ToolCallHookError> {
        let (current, failed) = self
            .dispatch(plan, event, None, |current, hook, outcome| match outcome {
                Ok(Some(result)) => {
                    let stop = ToolCallEvent::short_circuits(&result);
                    *current = Some(result);
                    if stop {
                        ControlFlow::Break(None)
                    } else {
                        ControlFlow::Continue(())
                    }
                }
                Ok(None) => ControlFlow::Continue(()),
                Err(error) => ControlFlow::Break(Some(ToolCallHookError {
                    hook_path: hook.path.clone(),
                    error,
                })),
            })
            .await;
        match failed {
            Some(Some(error)) => Err(error),
            _ => Ok(current),
        }
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
    /// are reported and the chain goes on with the previous messages.
    #[inline]
    pub fn emit_context(&self, messages: Vec<Message>) -> impl Future<Output = Vec<Message>> + '_ {
        match self.plans.get::<ContextEvent>() {
            Some(plan) => Emission::running(self.emit_context_handled(plan, messages)),
            None => Emission::done(|| messages),
        }
    }

    async fn emit_context_handled(
        &self,
        plan: &Plan<ContextEvent>,
        messages: Vec<Message>,
    ) -> Vec<Message> {
        let ctx = self.emission_context();
        let ctx: &HookContext = &ctx;
        let mut event = ContextEvent { messages };
        for (hook, entry) in &plan.entries {
            match call!(entry, &event, ctx, self.default_timeout) {
                Ok(Some(result)) => {
                    if let Some(messages) = result.messages {
                        event.messages = messages;
                    }
                }
                Ok(None) => {}
                Err(error) => self.report(&self.hooks[*hook], ContextEvent::NAME, &error),
            }
        }
        event.messages
    }

    /// `before_agent_start`: the first result carrying a message is returned whole; later
    /// handlers still run, their messages ignored. Errors are reported.
    pub async fn emit_before_agent_start(
        &self,
        prompt: &str,
        images: Option<Vec<ImageContent>>,
    ) -> Option<BeforeAgentStartEventResult> {
        let plan = self.plans.get::<BeforeAgentStartEvent>()?;
        let event = BeforeAgentStartEvent {
            prompt: prompt.to_owned(),
            images,
        };
        self.dispatch(plan, &event, None, |first, hook, outcome| {
            match outcome {
                Ok(Some(result)) => {
                    if first.is_none() && result.message.is_some() {
                        *first = Some(result);
                    }
                }
                Ok(None) => {}
                Err(error) => self.report(hook, BeforeAgentStartEvent::NAME, &error),
            }
            ControlFlow::<()>::Continue(())
        })
        .await
        .0
    }

    /// A custom event by name: runs every handler of `name` with `payload`; results are
    /// ignored, errors (a panic, a timeout) reported.
    pub async fn emit_custom(&self, name: &str, payload: &Value) {
        if !self.has_custom_handlers(name) {
            return;
        }
        let ctx = self.emission_context();
        let ctx: &HookContext = &ctx;
        for hook in &self.hooks {
            for entry in hook.handlers.custom(name) {
                let handler = &entry.handler;
                let guarded = guard_future(|| handler(payload, ctx));
                // The same timeout rule as typed handlers: their own, else the runner's default.
                let outcome = match entry.info.timeout.or(self.default_timeout) {
                    Some(limit) if !limit.is_zero() => tokio::time::timeout(limit, guarded)
                        .await
                        .unwrap_or_else(|_| Err(HandlerError::timeout(limit))),
                    _ => guarded.await,
                };
                if let Err(error) = outcome {
                    self.report(hook, name, &error);
                }
            }
        }
    }
}
