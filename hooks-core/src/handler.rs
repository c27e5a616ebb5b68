//! Handlers: what a handler returns ([`IntoHandlerResult`]), how handlers are stored
//! ([`Handler`], [`HandlerEntry`], [`HandlerTable`]) and how one is called (panics and timeouts
//! become [`HandlerError`]s).

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt as _;
use indexmap::IndexMap;
use serde_json::Value;

use crate::context::HookContext;
use crate::events::{EventKind, HookEvent};

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
    note = "a handler returns `()`, `{R}`, `Option<{R}>`, or `Result<_, E>` of one of these (with `E: Display`)",
    note = "the handlers of an event whose results are ignored (`NoResult`) return `()` or `Result<(), E>`"
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
            Err(e) => Err(HandlerError::new(e)),
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

/// A type-erased handler of `E`: called directly when sync, awaited when async.
pub enum Handler<E: HookEvent> {
    /// Called directly, without building a future.
    Sync(Arc<SyncHandlerFn<E>>),
    /// Awaited.
    Async(Arc<AsyncHandlerFn<E>>),
}

impl<E: HookEvent> Clone for Handler<E> {
    fn clone(&self) -> Self {
        match self {
            Handler::Sync(f) => Handler::Sync(Arc::clone(f)),
            Handler::Async(f) => Handler::Async(Arc::clone(f)),
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
        Handler::Async(Arc::new(move |e, ctx| {
            let fut = f(e, ctx);
            Box::pin(async move { fut.await.into_handler_result() })
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
    /// Its own timeout, if any (otherwise the runner's default applies).
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

impl<E: HookEvent> HandlerEntry<E> {
    /// Calls the handler; a panic (while building the future or while polling it) and a
    /// timeout become a [`HandlerError`].
    pub async fn call(
        &self,
        event: &E,
        ctx: &HookContext,
        default_timeout: Option<Duration>,
    ) -> HandlerResult<E::Result> {
        match &self.handler {
            Handler::Sync(f) => catch_unwind(AssertUnwindSafe(|| f(event, ctx)))
                .unwrap_or_else(|p| Err(HandlerError::from_panic(&*p))),
            Handler::Async(f) => {
                let guarded = guard_future(|| f(event, ctx));
                match self.info.timeout.or(default_timeout) {
                    Some(limit) if !limit.is_zero() => tokio::time::timeout(limit, guarded)
                        .await
                        .unwrap_or_else(|_| Err(HandlerError::timeout(limit))),
                    _ => guarded.await,
                }
            }
        }
    }
}

/// A handler of a custom (by-name) event: receives the JSON payload; its result is ignored.
pub type CustomHandlerFn = dyn for<'a> Fn(&'a Value, &'a HookContext) -> BoxFuture<'a, Result<(), HandlerError>>
    + Send
    + Sync;

/// Builds a future with `make` and awaits it; a panic while building or polling it becomes a
/// [`HandlerError`].
pub async fn guard_future<'a, T>(
    make: impl FnOnce() -> BoxFuture<'a, Result<T, HandlerError>>,
) -> Result<T, HandlerError> {
    match catch_unwind(AssertUnwindSafe(make)) {
        Ok(fut) => AssertUnwindSafe(fut)
            .catch_unwind()
            .await
            .unwrap_or_else(|p| Err(HandlerError::from_panic(&*p))),
        Err(p) => Err(HandlerError::from_panic(&*p)),
    }
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
    pub trait Sealed {}
}

impl<E: HookEvent> sealed::Sealed for &E {}
impl sealed::Sealed for &HookContext {}
impl sealed::Sealed for &str {}
impl sealed::Sealed for &crate::context::CommandContext {}
impl sealed::Sealed for &crate::events::CustomMessage {}
impl sealed::Sealed for crate::api::RenderOptions {}
impl sealed::Sealed for &crate::ui::Theme {}
impl sealed::Sealed for Option<Vec<String>> {}
impl sealed::Sealed for () {}
impl<E: fmt::Display> sealed::Sealed for Result<(), E> {}

/// The event parameter of a `#[hook]` handler of `E`: `&E`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the event parameter of a `{E}` handler",
    label = "expected `&{E}`",
    note = "a `#[hook]` handler takes its event by reference as the first parameter: `event: &{E}`"
)]
pub trait EventArg<'a, E: HookEvent>: sealed::Sealed {
    /// The parameter value.
    fn from_event(event: &'a E) -> Self;
}

impl<'a, E: HookEvent> EventArg<'a, E> for &'a E {
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
pub trait ContextArg<'a>: sealed::Sealed {
    /// The parameter value.
    fn from_context(ctx: &'a HookContext) -> Self;
}

impl<'a> ContextArg<'a> for &'a HookContext {
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
pub trait CommandArgsArg<'a>: sealed::Sealed {
    /// The parameter value.
    fn from_args(args: &'a str) -> Self;
}

impl<'a> CommandArgsArg<'a> for &'a str {
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
pub trait CommandContextArg<'a>: sealed::Sealed {
    /// The parameter value.
    fn from_context(ctx: &'a crate::context::CommandContext) -> Self;
}

impl<'a> CommandContextArg<'a> for &'a crate::context::CommandContext {
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
pub trait IntoCommandResult: sealed::Sealed {
    /// Performs the conversion.
    fn into_command_result(self) -> Result<(), HandlerError>;
}

impl IntoCommandResult for () {
    fn into_command_result(self) -> Result<(), HandlerError> {
        Ok(())
    }
}

impl<E: fmt::Display> IntoCommandResult for Result<(), E> {
    fn into_command_result(self) -> Result<(), HandlerError> {
        self.map_err(HandlerError::new)
    }
}

/// The first parameter of a `#[renderer]`: `&CustomMessage`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the message parameter of a renderer",
    label = "expected `&CustomMessage`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderMessageArg<'a>: sealed::Sealed {
    /// The parameter value.
    fn from_message(message: &'a crate::events::CustomMessage) -> Self;
}

impl<'a> RenderMessageArg<'a> for &'a crate::events::CustomMessage {
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
pub trait RenderOptionsArg: sealed::Sealed {
    /// The parameter value.
    fn from_options(options: crate::api::RenderOptions) -> Self;
}

impl RenderOptionsArg for crate::api::RenderOptions {
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
pub trait RenderThemeArg<'a>: sealed::Sealed {
    /// The parameter value.
    fn from_theme(theme: &'a crate::ui::Theme) -> Self;
}

impl<'a> RenderThemeArg<'a> for &'a crate::ui::Theme {
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
pub trait IntoRenderOutput: sealed::Sealed {
    /// Performs the conversion.
    fn into_render_output(self) -> Option<Vec<String>>;
}

impl IntoRenderOutput for Option<Vec<String>> {
    fn into_render_output(self) -> Option<Vec<String>> {
        self
    }
}
