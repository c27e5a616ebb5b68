//! How a handler is stored ([`Handler`], [`HandlerEntry`], with its [`HandlerInfo`]) and
//! called: a sync one directly, an async one with its future built in place; a panic or a
//! timeout becomes a [`HandlerError`].

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;

use super::{BoxFuture, HandlerError, HandlerResult, IntoHandlerResult};
use crate::context::HookContext;
use crate::events::{CustomEvent, Event};

/// A synchronous handler of `E`.
pub type SyncHandlerFn<E> =
    dyn Fn(&E, &HookContext) -> HandlerResult<<E as Event>::Result> + Send + Sync;

/// An asynchronous handler of `E`.
pub type AsyncHandlerFn<E> = dyn for<'a> Fn(&'a E, &'a HookContext) -> BoxFuture<'a, HandlerResult<<E as Event>::Result>>
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
pub type SyncHandlerFnPtr<E> = fn(&E, &HookContext) -> HandlerResult<<E as Event>::Result>;

#[doc(hidden)]
/// An async handler written as a plain function that builds its [`HandlerFuture`] in the
/// slot it is given, where it is then polled (what `#[hook]` generates for an `async fn`).
pub type AsyncHandlerFnPtr<E> = for<'a, 's> fn(
    &'a E,
    &'a HookContext,
    Pin<&'s mut Option<HandlerFuture<'a, <E as Event>::Result>>>,
);

#[doc(hidden)]
/// An async closure handler whose future is a [`HandlerFuture`].
pub type InlineAsyncHandlerFn<E> =
    dyn for<'a> Fn(&'a E, &'a HookContext) -> HandlerFuture<'a, <E as Event>::Result> + Send + Sync;

/// A type-erased handler of `E`: called directly when sync, awaited when async.
///
/// `Sync` and `Async` are what hand-written handlers use; the hidden variants are the
/// allocation-free forms the `#[hook]` macro and [`Handler::boxed`] produce (a plain function
/// pointer is called without an `Arc` indirection, and an async handler's future is stored
/// inline instead of boxed).
pub enum Handler<E: Event> {
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

impl<E: Event> Clone for Handler<E> {
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

impl<E: Event> Handler<E> {
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
pub struct HandlerEntry<E: Event> {
    /// The code.
    pub handler: Handler<E>,
    /// The info.
    pub info: HandlerInfo,
}

impl<E: Event> Clone for HandlerEntry<E> {
    fn clone(&self) -> Self {
        HandlerEntry {
            handler: self.handler.clone(),
            info: self.info.clone(),
        }
    }
}

impl<E: Event> HandlerEntry<E> {
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

impl HandlerEntry<CustomEvent> {
    /// A handler of a custom event, from a closure that receives the JSON payload; its
    /// result is ignored.
    pub fn custom<F>(handler: F, info: HandlerInfo) -> Self
    where
        F: for<'a> Fn(&'a Value, &'a HookContext) -> BoxFuture<'a, Result<(), HandlerError>>
            + Send
            + Sync
            + 'static,
    {
        // The closure's box is the only allocation, as for `Handler::boxed`.
        let handler = Handler::AsyncInline(Arc::new(move |event: &CustomEvent, ctx| {
            let future = handler(&event.payload, ctx);
            HandlerFuture::from_or_box(async move { future.await.map(|()| None) })
        }));
        HandlerEntry { handler, info }
    }
}
