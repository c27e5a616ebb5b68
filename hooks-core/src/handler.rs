//! Handlers: what a handler returns ([`IntoHandlerResult`]), how handlers are stored
//! ([`Handler`], [`HandlerEntry`], [`HandlerTable`]) and how one is called (panics and timeouts
//! become [`HandlerError`]s).

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::Value;

use crate::context::HookContext;
use crate::events::{EventKind, HookEvent};
use crate::runner::plan::{PlanSlot, plan_in};

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a called handler produced: a result, no result, or a thrown error.
pub type HandlerResult<R> = Result<Option<R>, HandlerError>;

/// How a handler failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerErrorKind {
    /// The handler returned `Err`.
    Error,
    /// The handler panicked.
    Panic,
    /// The handler ran past its timeout.
    Timeout,
}

/// A thrown handler error: an `Err` returned by a handler, a panic, or a timeout. Its text is
/// the error's `Display` (for a panic, the panic message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    message: String,
    kind: HandlerErrorKind,
}

impl HandlerError {
    /// An error with `message` (what a handler's `Err` becomes).
    pub fn new(message: impl fmt::Display) -> Self {
        HandlerError {
            message: message.to_string(),
            kind: HandlerErrorKind::Error,
        }
    }

    /// The error a handler (or command) returned as `Err(error)`: its text with its causes
    /// (`{:#}`), so that an `anyhow::Error` built with `.context("reading config")` reads
    /// `reading config: No such file or directory (os error 2)`, not just `reading config`.
    /// For other error types `{:#}` is their usual text.
    pub fn returned(error: impl fmt::Display) -> Self {
        HandlerError::new(format_args!("{error:#}"))
    }

    /// The error of a handler that panicked with `payload`.
    #[must_use]
    pub fn from_panic(payload: &(dyn Any + Send)) -> Self {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "handler panicked".to_owned()
        };
        HandlerError {
            message,
            kind: HandlerErrorKind::Panic,
        }
    }

    /// The error of a handler that ran past `limit`.
    #[must_use]
    pub fn timeout(limit: Duration) -> Self {
        HandlerError {
            message: format!("handler timed out after {} ms", limit.as_millis()),
            kind: HandlerErrorKind::Timeout,
        }
    }

    /// The error text.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How the handler failed.
    #[must_use]
    pub fn kind(&self) -> HandlerErrorKind {
        self.kind
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HandlerError {}

/// Converts what a handler returns into a [`HandlerResult`].
///
/// Implemented for `()`, for each event's result type `R`, for `Option<R>`, and for
/// `Result<T, E>` of any of these where `E: Display` (an `Err` is a thrown handler error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a handler whose event result is `{R}`",
    label = "this return type does not fit the event",
    note = "a handler returns `()` or `Result<(), E>` with `E: Display`",
    note = "unless the event's results are ignored (its result type is then `NoResult`; this event's is `{R}`), it may also return `{R}`, `Option<{R}>`, or `Result<_, E>` of either"
)]
pub trait IntoHandlerResult<R> {
    /// Performs the conversion.
    fn into_handler_result(self) -> HandlerResult<R>;
}

impl<R> IntoHandlerResult<R> for () {
    fn into_handler_result(self) -> HandlerResult<R> {
        Ok(None)
    }
}

impl<R, T, E> IntoHandlerResult<R> for Result<T, E>
where
    T: IntoHandlerResult<R>,
    E: fmt::Display,
{
    fn into_handler_result(self) -> HandlerResult<R> {
        match self {
            Ok(t) => t.into_handler_result(),
            Err(e) => Err(HandlerError::returned(e)),
        }
    }
}

macro_rules! result_conversions {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoHandlerResult<$ty> for $ty {
            fn into_handler_result(self) -> HandlerResult<$ty> {
                Ok(Some(self))
            }
        }
        impl IntoHandlerResult<$ty> for Option<$ty> {
            fn into_handler_result(self) -> HandlerResult<$ty> {
                Ok(self)
            }
        }
    )*};
}

result_conversions!(
    crate::events::SessionBeforeSwitchResult,
    crate::events::SessionBeforeBranchResult,
    crate::events::SessionBeforeCompactResult,
    crate::events::SessionCompactingResult,
    crate::events::SessionBeforeTreeResult,
    crate::events::ContextEventResult,
    crate::events::BeforeAgentStartEventResult,
    crate::events::ToolCallEventResult,
    crate::events::ToolResultEventResult,
);

/// A synchronous handler of `E`.
pub type SyncHandlerFn<E> =
    dyn Fn(&E, &HookContext) -> HandlerResult<<E as HookEvent>::Result> + Send + Sync;

/// An asynchronous handler of `E`.
pub type AsyncHandlerFn<E> = dyn for<'a> Fn(&'a E, &'a HookContext) -> BoxFuture<'a, HandlerResult<<E as HookEvent>::Result>>
    + Send
    + Sync;

#[doc(hidden)]
/// How many bytes of an async handler's future a [`HandlerFuture`] stores inline; a larger
/// future is boxed.
pub const HANDLER_FUTURE_INLINE_BYTES: usize = 96;

#[doc(hidden)]
/// The future of an async handler, type-erased without a heap allocation: the future is stored
/// inline when it fits in [`HANDLER_FUTURE_INLINE_BYTES`], and boxed otherwise. A handler that
/// returns without awaiting takes about 40 bytes; `examples`' `block_rm_rf`, which awaits a
/// `confirm` on one branch, 88.
pub type HandlerFuture<'a, R> =
    stackfuture::StackFuture<'a, HandlerResult<R>, HANDLER_FUTURE_INLINE_BYTES>;

#[doc(hidden)]
/// A sync handler written as a plain function (what `#[hook]` generates for a `fn`).
pub type SyncHandlerFnPtr<E> = fn(&E, &HookContext) -> HandlerResult<<E as HookEvent>::Result>;

#[doc(hidden)]
/// An async handler written as a plain function that builds its [`HandlerFuture`] in the
/// slot it is given, where it is then polled (what `#[hook]` generates for an `async fn`).
pub type AsyncHandlerFnPtr<E> = for<'a, 's> fn(
    &'a E,
    &'a HookContext,
    Pin<&'s mut Option<HandlerFuture<'a, <E as HookEvent>::Result>>>,
);

#[doc(hidden)]
/// An async closure handler whose future is a [`HandlerFuture`].
pub type InlineAsyncHandlerFn<E> = dyn for<'a> Fn(&'a E, &'a HookContext) -> HandlerFuture<'a, <E as HookEvent>::Result>
    + Send
    + Sync;

/// A type-erased handler of `E`: called directly when sync, awaited when async.
///
/// `Sync` and `Async` are what hand-written handlers use; the hidden variants are the
/// allocation-free forms the `#[hook]` macro and [`Handler::boxed`] produce (a plain function
/// pointer is called without an `Arc` indirection, and an async handler's future is stored
/// inline instead of boxed).
pub enum Handler<E: HookEvent> {
    /// Called directly, without building a future.
    Sync(Arc<SyncHandlerFn<E>>),
    /// Awaited.
    Async(Arc<AsyncHandlerFn<E>>),
    /// A plain `fn`, called directly.
    #[doc(hidden)]
    SyncFn(SyncHandlerFnPtr<E>),
    /// A plain `fn` building an inline future in the slot it is given, awaited there.
    #[doc(hidden)]
    AsyncFn(AsyncHandlerFnPtr<E>),
    /// A closure returning an inline future, awaited.
    #[doc(hidden)]
    AsyncInline(Arc<InlineAsyncHandlerFn<E>>),
}

impl<E: HookEvent> Clone for Handler<E> {
    fn clone(&self) -> Self {
        match self {
            Handler::Sync(f) => Handler::Sync(Arc::clone(f)),
            Handler::Async(f) => Handler::Async(Arc::clone(f)),
            Handler::SyncFn(f) => Handler::SyncFn(*f),
            Handler::AsyncFn(f) => Handler::AsyncFn(*f),
            Handler::AsyncInline(f) => Handler::AsyncInline(Arc::clone(f)),
        }
    }
}

impl<E: HookEvent> Handler<E> {
    /// A sync handler from a closure or `fn` returning anything [`IntoHandlerResult`].
    pub fn sync<F, R>(f: F) -> Self
    where
        F: Fn(&E, &HookContext) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<E::Result>,
    {
        Handler::Sync(Arc::new(move |e, ctx| f(e, ctx).into_handler_result()))
    }

    /// An async handler from a closure returning a boxed future
    /// (`|e, ctx| Box::pin(async move { ... })`).
    pub fn boxed<F, R>(f: F) -> Self
    where
        F: for<'a> Fn(&'a E, &'a HookContext) -> BoxFuture<'a, R> + Send + Sync + 'static,
        R: IntoHandlerResult<E::Result> + 'static,
    {
        // The closure's own box is the only allocation: the conversion around it (a box
        // pointer and a state byte) is stored inline.
        Handler::AsyncInline(Arc::new(move |e, ctx| {
            let fut = f(e, ctx);
            HandlerFuture::from_or_box(async move { fut.await.into_handler_result() })
        }))
    }
}

/// Where a handler was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct SourceLocation {
    /// The source file (`file!()`).
    pub file: &'static str,
    /// The line (`line!()`).
    pub line: u32,
    /// The column (`column!()`).
    pub column: u32,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// What is known about a registered handler besides its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerInfo {
    /// The handler's name (the function name for `#[hook]`, `"<closure>"` for the builder
    /// unless named).
    pub name: Cow<'static, str>,
    /// Where it was written, when known.
    pub location: Option<SourceLocation>,
    /// Its own timeout, if any (otherwise the runner's default applies). Only async handlers
    /// can be timed out (their future is dropped at the limit); a sync handler runs to the
    /// end, so `#[hook]` rejects `timeout_ms` on a sync `fn` and the runner ignores this
    /// field for one.
    pub timeout: Option<Duration>,
}

impl HandlerInfo {
    /// Info with a name only.
    pub fn named(name: impl Into<Cow<'static, str>>) -> Self {
        HandlerInfo {
            name: name.into(),
            location: None,
            timeout: None,
        }
    }
}

/// A handler with its info.
pub struct HandlerEntry<E: HookEvent> {
    /// The code.
    pub handler: Handler<E>,
    /// The info.
    pub info: HandlerInfo,
}

impl<E: HookEvent> Clone for HandlerEntry<E> {
    fn clone(&self) -> Self {
        HandlerEntry {
            handler: self.handler.clone(),
            info: self.info.clone(),
        }
    }
}

impl<E: HookEvent> HandlerEntry<E> {
    /// Calls the handler; a panic (while building the future or while polling it) and a
    /// timeout become a [`HandlerError`].
    pub async fn call(
        &self,
        event: &E,
        ctx: &HookContext,
        default_timeout: Option<Duration>,
    ) -> HandlerResult<E::Result> {
        match self.call_sync(event, ctx) {
            Some(result) => result,
            None => self.call_async(event, ctx, default_timeout).await,
        }
    }

    /// Calls a sync handler (a panic becomes a [`HandlerError`]); `None` for an async one,
    /// which [`HandlerEntry::call_async`] runs. Called first wherever entries are run one at a
    /// time (the `context` chain, [`HandlerEntry::call`]), so that a sync handler costs a
    /// function call and no future.
    #[inline(always)]
    pub(crate) fn call_sync(
        &self,
        event: &E,
        ctx: &HookContext,
    ) -> Option<HandlerResult<E::Result>> {
        match &self.handler {
            Handler::SyncFn(f) => Some(call_sync(|| f(event, ctx))),
            Handler::Sync(f) => Some(call_sync(|| f(event, ctx))),
            Handler::AsyncFn(_) | Handler::AsyncInline(_) | Handler::Async(_) => None,
        }
    }

    /// Runs an async handler under its timeout (its own, else `default_timeout`); a panic
    /// while building or polling its future and a timeout become a [`HandlerError`].
    pub(crate) async fn call_async(
        &self,
        event: &E,
        ctx: &HookContext,
        default_timeout: Option<Duration>,
    ) -> HandlerResult<E::Result> {
        match self.timeout(default_timeout) {
            // Boxed: the timer is large and most handlers have no timeout.
            Some(limit) => Box::pin(tokio::time::timeout(limit, self.run_async(event, ctx)))
                .await
                .unwrap_or_else(|_| Err(HandlerError::timeout(limit))),
            None => self.run_async(event, ctx).await,
        }
    }

    /// The timeout that applies: the handler's own, else `default`; none when zero.
    #[inline(always)]
    pub(crate) fn timeout(&self, default: Option<Duration>) -> Option<Duration> {
        self.info
            .timeout
            .or(default)
            .filter(|limit| !limit.is_zero())
    }

    /// Runs an async handler, without a timeout.
    pub(crate) async fn run_async(&self, event: &E, ctx: &HookContext) -> HandlerResult<E::Result> {
        let mut slot = pin!(None);
        std::future::poll_fn(|cx| self.poll_async(&mut slot, event, ctx, cx)).await
    }

    /// Polls an async handler whose future lives in `slot` (empty before the first poll, which
    /// builds it there). Building and polling run under one panic guard, and the future is
    /// never moved once built.
    #[inline(always)]
    pub(crate) fn poll_async<'a>(
        &'a self,
        slot: &mut Pin<&mut Option<HandlerFuture<'a, E::Result>>>,
        event: &'a E,
        ctx: &'a HookContext,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<HandlerResult<E::Result>> {
        catch_unwind(AssertUnwindSafe(|| {
            if slot.is_none() {
                self.start(slot.as_mut(), event, ctx);
            }
            match slot.as_mut().as_pin_mut() {
                Some(future) => future.poll(cx),
                None => Poll::Ready(Ok(None)),
            }
        }))
        .unwrap_or_else(|p| Poll::Ready(Err(HandlerError::from_panic(&*p))))
    }

    /// Builds the handler's future in `slot` (a `#[hook]` function writes it there itself,
    /// so that it is not moved after it is built).
    #[inline(always)]
    fn start<'a>(
        &'a self,
        mut slot: Pin<&mut Option<HandlerFuture<'a, E::Result>>>,
        event: &'a E,
        ctx: &'a HookContext,
    ) {
        let future = match &self.handler {
            Handler::AsyncFn(f) => return f(event, ctx, slot),
            Handler::AsyncInline(f) => f(event, ctx),
            // A box pointer: stored inline.
            Handler::Async(f) => HandlerFuture::from(f(event, ctx)),
            // Not reached from the runner, which calls sync handlers directly.
            Handler::SyncFn(f) => HandlerFuture::from_or_box(std::future::ready(f(event, ctx))),
            Handler::Sync(f) => HandlerFuture::from_or_box(std::future::ready(f(event, ctx))),
        };
        slot.set(Some(future));
    }
}

/// Calls a sync handler; a panic becomes a [`HandlerError`].
#[inline(always)]
fn call_sync<R>(f: impl FnOnce() -> HandlerResult<R>) -> HandlerResult<R> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(HandlerError::from_panic(&*p)))
}

/// A handler of a custom (by-name) event: receives the JSON payload; its result is ignored.
pub type CustomHandlerFn = dyn for<'a> Fn(&'a Value, &'a HookContext) -> BoxFuture<'a, Result<(), HandlerError>>
    + Send
    + Sync;

/// Builds a future with `make` and awaits it; a panic while building or polling it becomes a
/// [`HandlerError`].
///
/// The future is built where it is polled (no move after it is built), and building it and
/// each poll run under one panic guard.
pub async fn guard_future<T, F>(make: impl FnOnce() -> F) -> Result<T, HandlerError>
where
    F: Future<Output = Result<T, HandlerError>>,
{
    let mut make = Some(make);
    let mut slot = pin!(None::<F>);
    std::future::poll_fn(move |cx| {
        catch_unwind(AssertUnwindSafe(|| {
            if let Some(make) = make.take() {
                slot.set(Some(make()));
            }
            match slot.as_mut().as_pin_mut() {
                Some(future) => future.poll(cx),
                None => Poll::Ready(Err(HandlerError::new("handler polled after it panicked"))),
            }
        }))
        .unwrap_or_else(|p| Poll::Ready(Err(HandlerError::from_panic(&*p))))
    })
    .await
}

/// A custom-event handler with its info.
#[derive(Clone)]
pub struct CustomHandlerEntry {
    /// The code.
    pub handler: Arc<CustomHandlerFn>,
    /// The info.
    pub info: HandlerInfo,
}

trait ErasedList: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn infos(&self) -> Vec<&HandlerInfo>;
    /// Appends these handlers of hook `hook` to the plan in `slot`.
    fn extend_plan(&self, hook: usize, slot: &mut PlanSlot);
}

impl<E: HookEvent> ErasedList for Vec<HandlerEntry<E>> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn infos(&self) -> Vec<&HandlerInfo> {
        self.iter().map(|e| &e.info).collect()
    }
    fn extend_plan(&self, hook: usize, slot: &mut PlanSlot) {
        if !self.is_empty() {
            plan_in::<E>(slot).extend(hook, self);
        }
    }
}

/// One hook's handlers, per event kind in registration order, plus custom events by name.
#[derive(Default)]
pub struct HandlerTable {
    slots: [Option<Box<dyn ErasedList>>; EventKind::COUNT],
    custom: IndexMap<String, Vec<CustomHandlerEntry>>,
}

impl HandlerTable {
    /// Appends a handler of `E` (no de-duplication: registering twice runs twice).
    pub fn push<E: HookEvent>(&mut self, entry: HandlerEntry<E>) {
        let slot = self.slots[E::KIND.index()]
            .get_or_insert_with(|| Box::new(Vec::<HandlerEntry<E>>::new()));
        slot.as_any_mut()
            .downcast_mut::<Vec<HandlerEntry<E>>>()
            .expect("slot type matches its event kind")
            .push(entry);
    }

    /// The handlers of `E`, in registration order.
    #[must_use]
    pub fn get<E: HookEvent>(&self) -> &[HandlerEntry<E>] {
        match &self.slots[E::KIND.index()] {
            Some(slot) => slot
                .as_any()
                .downcast_ref::<Vec<HandlerEntry<E>>>()
                .map_or(&[], Vec::as_slice),
            None => &[],
        }
    }

    /// The info of each handler of `kind`, in registration order.
    #[must_use]
    pub fn infos(&self, kind: EventKind) -> Vec<&HandlerInfo> {
        self.slots[kind.index()]
            .as_ref()
            .map(|s| s.infos())
            .unwrap_or_default()
    }

    /// Whether there is at least one handler of `kind`.
    #[must_use]
    pub fn has(&self, kind: EventKind) -> bool {
        !self.infos(kind).is_empty()
    }

    /// Appends this table's handlers (of hook `hook`) to the runner's plans, one per kind.
    pub(crate) fn extend_plans(&self, hook: usize, plans: &mut [PlanSlot; EventKind::COUNT]) {
        for (list, slot) in self.slots.iter().zip(plans.iter_mut()) {
            if let Some(list) = list {
                list.extend_plan(hook, slot);
            }
        }
    }

    /// Appends a handler of the custom event `name`.
    pub fn push_custom(&mut self, name: impl Into<String>, entry: CustomHandlerEntry) {
        self.custom.entry(name.into()).or_default().push(entry);
    }

    /// The handlers of the custom event `name`.
    #[must_use]
    pub fn custom(&self, name: &str) -> &[CustomHandlerEntry] {
        self.custom.get(name).map_or(&[], Vec::as_slice)
    }

    /// The names of the custom events with handlers, in first-registration order.
    pub fn custom_events(&self) -> impl Iterator<Item = &str> {
        self.custom.keys().map(String::as_str)
    }
}

impl fmt::Debug for HandlerTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for kind in EventKind::ALL {
            let infos = self.infos(*kind);
            if !infos.is_empty() {
                m.entry(&kind.as_str(), &infos);
            }
        }
        for (name, entries) in &self.custom {
            m.entry(name, &entries.len());
        }
        m.finish()
    }
}

// ---------------------------------------------------------------------------------------------
// Signature checks of the attribute macros.
//
// `#[hook]`, `#[command]` and `#[renderer]` pass each parameter of the author's function
// through one of these traits, at that parameter's span, so that a parameter of the wrong type
// is reported on that parameter with a message naming the expected form. They are sealed: the
// accepted shapes are exactly the implementations below.
// ---------------------------------------------------------------------------------------------

mod sealed {
    /// The parameter of each trait's hidden `sealed` method: public but unnameable outside
    /// this crate, so no other crate can implement the traits. (A supertrait would seal them
    /// too, but a wrong parameter would then get a second error about the supertrait.)
    #[derive(Debug)]
    pub struct Token;
}

/// The event parameter of a `#[hook]` handler of `E`: `&E`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the event parameter of a `{E}` handler",
    label = "expected `&{E}`",
    note = "a `#[hook]` handler takes its event by reference as the first parameter: `event: &{E}`"
)]
pub trait EventArg<'a, E: HookEvent> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_event(event: &'a E) -> Self;
}

impl<'a, E: HookEvent> EventArg<'a, E> for &'a E {
    fn sealed(_: sealed::Token) {}
    fn from_event(event: &'a E) -> Self {
        event
    }
}

/// The optional second parameter of a `#[hook]` handler: `&HookContext`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler context",
    label = "expected `&HookContext`",
    note = "the optional second parameter of a `#[hook]` handler is `ctx: &HookContext`"
)]
pub trait ContextArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_context(ctx: &'a HookContext) -> Self;
}

impl<'a> ContextArg<'a> for &'a HookContext {
    fn sealed(_: sealed::Token) {}
    fn from_context(ctx: &'a HookContext) -> Self {
        ctx
    }
}

/// The first parameter of a `#[command]`: the text after `/name `, `&str`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the arguments parameter of a command",
    label = "expected `&str`",
    note = "a `#[command]` function takes the text after `/name ` as `args: &str`"
)]
pub trait CommandArgsArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_args(args: &'a str) -> Self;
}

impl<'a> CommandArgsArg<'a> for &'a str {
    fn sealed(_: sealed::Token) {}
    fn from_args(args: &'a str) -> Self {
        args
    }
}

/// The optional second parameter of a `#[command]`: `&CommandContext`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a command context",
    label = "expected `&CommandContext`",
    note = "the optional second parameter of a `#[command]` function is `ctx: &CommandContext`"
)]
pub trait CommandContextArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_context(ctx: &'a crate::context::CommandContext) -> Self;
}

impl<'a> CommandContextArg<'a> for &'a crate::context::CommandContext {
    fn sealed(_: sealed::Token) {}
    fn from_context(ctx: &'a crate::context::CommandContext) -> Self {
        ctx
    }
}

/// What a `#[command]` returns: `()` or `Result<(), E>` with `E: Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a command",
    label = "expected `()` or `Result<(), E>`",
    note = "a `#[command]` function returns `()` or `Result<(), E>` with `E: Display` (an `Err` is the command's error)"
)]
pub trait IntoCommandResult {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// Performs the conversion.
    fn into_command_result(self) -> Result<(), HandlerError>;
}

impl IntoCommandResult for () {
    fn sealed(_: sealed::Token) {}
    fn into_command_result(self) -> Result<(), HandlerError> {
        Ok(())
    }
}

impl<E: fmt::Display> IntoCommandResult for Result<(), E> {
    fn sealed(_: sealed::Token) {}
    fn into_command_result(self) -> Result<(), HandlerError> {
        self.map_err(HandlerError::returned)
    }
}

/// The first parameter of a `#[renderer]`: `&CustomMessage`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the message parameter of a renderer",
    label = "expected `&CustomMessage`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderMessageArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_message(message: &'a crate::events::CustomMessage) -> Self;
}

impl<'a> RenderMessageArg<'a> for &'a crate::events::CustomMessage {
    fn sealed(_: sealed::Token) {}
    fn from_message(message: &'a crate::events::CustomMessage) -> Self {
        message
    }
}

/// The second parameter of a `#[renderer]`: `RenderOptions`, by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the options parameter of a renderer",
    label = "expected `RenderOptions`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderOptionsArg {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_options(options: crate::api::RenderOptions) -> Self;
}

impl RenderOptionsArg for crate::api::RenderOptions {
    fn sealed(_: sealed::Token) {}
    fn from_options(options: crate::api::RenderOptions) -> Self {
        options
    }
}

/// The third parameter of a `#[renderer]`: `&Theme`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the theme parameter of a renderer",
    label = "expected `&Theme`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderThemeArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_theme(theme: &'a crate::ui::Theme) -> Self;
}

impl<'a> RenderThemeArg<'a> for &'a crate::ui::Theme {
    fn sealed(_: sealed::Token) {}
    fn from_theme(theme: &'a crate::ui::Theme) -> Self {
        theme
    }
}

/// What a `#[renderer]` returns: `Option<Vec<String>>` (`None` = the default rendering).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a renderer",
    label = "expected `Option<Vec<String>>`",
    note = "a `#[renderer]` returns the rendered lines, or `None` for the default rendering"
)]
pub trait IntoRenderOutput {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// Performs the conversion.
    fn into_render_output(self) -> Option<Vec<String>>;
}

impl IntoRenderOutput for Option<Vec<String>> {
    fn sealed(_: sealed::Token) {}
    fn into_render_output(self) -> Option<Vec<String>> {
        self
    }
}
