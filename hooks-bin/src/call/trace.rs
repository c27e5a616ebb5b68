//! Tracing the handlers of one call: each handler is wrapped,
//! before the runner is built, in one that calls it ([`HandlerEntry::call`](hookwright::handler::HandlerEntry::call), which turns a
//! panic or a timeout into its error) and records its hook, name, source position, outcome
//! and time. The wrapped handlers are what the runner dispatches, in its own order; nothing
//! is added to the runner, and a run without `hooks explain` is not touched.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::sync::Locked as _;
use hookwright::handler::Handler;
use hookwright::{HookEvent, LoadedHook};
use serde::Serialize;

/// What one handler did in the call, in the order the runner ran them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandlerRun {
    /// The hook's path or id, as loaded.
    pub hook: String,
    /// The handler's name.
    pub handler: String,
    /// Where it was written, `file:line`, when known.
    pub location: Option<String>,
    /// The event it handled: `tool_call`.
    pub event: &'static str,
    /// `no opinion`, `result`, or `error`.
    pub outcome: &'static str,
    /// The result it returned (`outcome: result`), as JSON.
    pub result: Option<serde_json::Value>,
    /// The error (`outcome: error`): its message, a panic's or a timeout's included.
    pub error: Option<String>,
    /// How long it ran, in microseconds.
    pub micros: u64,
}

/// The runs of a call, shared by the wrapped handlers.
pub type Runs = Arc<Mutex<Vec<HandlerRun>>>;

/// Wraps every handler of `hooks` (all 25 events) so that it records its run
/// in `runs`; `default_timeout` is the runner's (handed to the wrapped handler, as the runner
/// would).
pub fn trace(hooks: &mut [LoadedHook], runs: &Runs, default_timeout: Option<Duration>) {
    for hook in hooks {
        let path = hook.path.clone();
        macro_rules! wrap_each {
            ($(($kind:ident, $name:literal, $event:ident $($rest:tt)*))*) => {$(
                wrap::<hookwright::events::$event>(hook, &path, runs, default_timeout);
            )*};
        }
        hookwright::for_each_event!(wrap_each);
    }
}

fn wrap<E>(hook: &mut LoadedHook, path: &str, runs: &Runs, default_timeout: Option<Duration>)
where
    E: HookEvent,
    E::Result: Serialize,
{
    let Some(entries) = hook.handlers.get_mut::<E>() else {
        return;
    };
    for entry in entries.iter_mut() {
        let inner = entry.clone();
        let runs = Arc::clone(runs);
        let hook = path.to_owned();
        entry.handler = Handler::Async(Arc::new(move |event: &E, ctx| {
            let (inner, runs, hook) = (inner.clone(), Arc::clone(&runs), hook.clone());
            Box::pin(async move {
                let start = Instant::now();
                let outcome = inner.call(event, ctx, default_timeout).await;
                let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
                let (kind, result, error) = match &outcome {
                    Ok(None) => ("no opinion", None, None),
                    Ok(Some(r)) => ("result", serde_json::to_value(r).ok(), None),
                    Err(e) => ("error", None, Some(e.to_string())),
                };
                runs.locked().push(HandlerRun {
                    hook,
                    handler: inner.info.name.to_string(),
                    location: inner.info.location.map(|l| l.to_string()),
                    event: E::NAME,
                    outcome: kind,
                    result,
                    error,
                    micros,
                });
                outcome
            })
        }));
    }
}
