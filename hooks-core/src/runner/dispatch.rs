//! The one emission path: runs an event's handlers in dispatch order (hooks in load order, a
//! hook's handlers in registration order, each finished before the next starts) with one
//! context for the emission, and hands each outcome to the event's combine rule
//! ([`Combiner`]), which may end the emission and makes its answer.
//!
//! When every handler is sync the whole emission runs on its first poll, without a future of
//! its own: the handlers are called directly, from the plan's compact array, under one panic
//! guard. Otherwise one future serves the emission: a sync handler is called directly, and an
//! async handler's future is built in place and polled there, under its timeout when it has
//! one.

use std::future::Future;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::HookRunner;
use super::emission::OutOfLine;
use super::plan::{Plan, Step};
use crate::context::HookContext;
use crate::events::{Combiner, Event};
use crate::handler::{HandlerEntry, HandlerError, HandlerFuture, HandlerResult};

/// Calls a handler entry: a sync handler directly (no future is built); an async one
/// without a timeout polled in place, its future stored in the emission's own state; an async
/// one with a timeout under `tokio::time::timeout`. `None` when the handler allowed
/// (`Ok(None)`): the common answer is then a tag, not a whole outcome to copy.
macro_rules! call {
    ($entry:expr, $event:expr, $ctx:expr, $timeout:expr) => {{
        let entry = $entry;
        let event = $event;
        match entry.call_sync(event, $ctx) {
            Some(outcome) => given(outcome),
            None => match entry.timeout($timeout) {
                None => {
                    InPlace {
                        entry,
                        slot: ::std::pin::pin!(None),
                        event,
                        ctx: $ctx,
                    }
                    .await
                }
                Some(_) => given(entry.call_async(event, $ctx, $timeout).await),
            },
        }
    }};
}

/// `outcome` unless the handler allowed.
#[inline(always)]
fn given<R>(outcome: HandlerResult<R>) -> Option<HandlerResult<R>> {
    if matches!(outcome, Ok(None)) {
        // `Ok(None)` owns nothing: forgetting it spares a call of the drop glue of the whole
        // result type, which the compiler does not always see is a no-op here.
        std::mem::forget(outcome);
        None
    } else {
        Some(outcome)
    }
}

/// An async handler's future, built in `slot` and polled there: a `poll_fn` that is always
/// inlined, and that answers `None` when the handler allowed, so that the handler's outcome
/// is not copied out of a call (a copy of it, read wider than it was written, stalls on store
/// forwarding on x86).
struct InPlace<'s, 'a, E: Event> {
    entry: &'a HandlerEntry<E>,
    slot: Pin<&'s mut Option<HandlerFuture<'a, E::Result>>>,
    event: &'a E,
    ctx: &'a HookContext,
}

impl<E: Event> Future for InPlace<'_, '_, E> {
    type Output = Option<HandlerResult<E::Result>>;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match this
            .entry
            .poll_async(&mut this.slot, this.event, this.ctx, cx)
        {
            Poll::Pending => Poll::Pending,
            Poll::Ready(outcome) => {
                // Dropped before the outcome is read: by then the handler's writes of it have
                // left the store buffer.
                this.slot.set(None);
                Poll::Ready(given(outcome))
            }
        }
    }
}

impl HookRunner {
    /// The emission of `event` to the handlers of `plan`, combined by `C`.
    pub(super) async fn dispatch<'a, E: Event, C: Combiner<E>>(
        &'a self,
        plan: &'a Plan<E>,
        event: &'a E,
    ) -> C::Output {
        let mut rule = C::default();
        if plan.sync_only {
            let ctx = self.emission_context();
            self.run_sync(plan, event, &ctx, &mut rule);
            return rule.finish();
        }
        OutOfLine::new(self.dispatch_mixed(plan, event, rule)).await
    }

    /// [`HookRunner::dispatch`] of a plan with async handlers: each handler in turn, a sync
    /// one called directly (under its own panic guard), an async one built in place and
    /// polled there.
    async fn dispatch_mixed<'a, E: Event, C: Combiner<E>>(
        &'a self,
        plan: &'a Plan<E>,
        event: &'a E,
        mut rule: C,
    ) -> C::Output {
        let ctx = self.emission_context();
        let ctx: &HookContext = &ctx;
        for (hook, entry) in &plan.entries {
            // As in `run_sync`: an allow is skipped, anything else is handed over.
            if let Some(outcome) = call!(entry, rule.event(event), ctx, self.default_timeout)
                && self.hand_over(&mut rule, *hook, event, outcome).is_break()
            {
                break;
            }
        }
        rule.finish()
    }

    /// Runs the handlers of a plan whose handlers are all sync, under one panic guard. A
    /// handler that allows (`Ok(None)`) costs its call and a test; a result or an error goes
    /// to the rule, which may end the emission. A panic of a handler is that handler's error
    /// and the run goes on after it; a panic of the rule or of an error listener goes on
    /// unwinding.
    #[inline(always)]
    fn run_sync<E: Event, C: Combiner<E>>(
        &self,
        plan: &Plan<E>,
        event: &E,
        ctx: &HookContext,
        rule: &mut C,
    ) {
        let mut next = 0;
        loop {
            let mut calling = false;
            let stopped = catch_unwind(AssertUnwindSafe(|| {
                while let Some(step) = plan.steps.get(next) {
                    calling = true;
                    let fed = rule.event(event);
                    let outcome = match step {
                        Step::Fn(f) => f(fed, ctx),
                        Step::Closure(f) => f(fed, ctx),
                        Step::Async => unreachable!("a sync plan has no async handler"),
                    };
                    calling = false;
                    next += 1;
                    if let Some(outcome) = given(outcome)
                        && self
                            .hand_over(rule, plan.entries[next - 1].0, event, outcome)
                            .is_break()
                    {
                        return true;
                    }
                }
                false
            }));
            match stopped {
                Ok(_) => return,
                Err(payload) if calling => {
                    // The handler at `next` panicked; the run goes on after it.
                    let hook = plan.entries[next].0;
                    next += 1;
                    let error = Err(HandlerError::from_panic(&*payload));
                    if self.hand_over(rule, hook, event, error).is_break() {
                        return;
                    }
                }
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
    }

    /// Hands the outcome of a handler of hook `hook` to the rule; an error the rule does not
    /// keep is reported. Not inlined on purpose: the outcome is then read where the handler
    /// wrote it, instead of being split into registers and stack slots (copying its padding
    /// costs a store-forwarding stall per handler on x86).
    #[inline(never)]
    fn hand_over<E: Event, C: Combiner<E>>(
        &self,
        rule: &mut C,
        hook: usize,
        event: &E,
        outcome: HandlerResult<E::Result>,
    ) -> ControlFlow<()> {
        match outcome {
            Ok(Some(result)) => rule.result(result),
            Ok(None) => ControlFlow::Continue(()),
            Err(error) => {
                let hook = &self.hooks()[hook];
                let error = rule.error(&hook.path, error)?;
                self.report(hook, event.name(), &error);
                ControlFlow::Continue(())
            }
        }
    }
}
