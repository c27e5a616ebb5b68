//! Issue 6: no heap allocation per handler on the emit paths.
//!
//! A counting global allocator (`stats_alloc`) counts the allocations of one emission with 1
//! and with 10 handlers, `#[hook]` handlers as authors write them, sync and `async fn`. The
//! emissions allocate nothing at all; the tool wrapper allocates the two strings its events
//! own (the tool name and the call id; the input is shared, not copied), the
//! same with 1 or 10 handlers.
//!
//! Everything runs in one test function, on this thread, polled with a no-op waker (every
//! handler here completes without waiting): the counters are global, and a second test running
//! in parallel would be counted too.

use std::alloc::System;
use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio_util::sync::CancellationToken;

use hooks_core::events::{
    ContextEvent, ContextEventResult, HookEvent, Message, ToolCallEvent, ToolCallEventResult,
    ToolInput, ToolResultEvent, ToolResultEventResult, TurnStartEvent,
};
use hooks_core::registry::compiled_hooks;
use hooks_core::{
    HookApi, HookContext, HookRunner, HookToolWrapper, InitializeOptions, JsonlSessionStore,
    LoadedHook, Tool, ToolError, ToolOutput, hook,
};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const CWD: &str = "/tmp";

#[hook(event = "tool_call", hook = "alloc_count")]
async fn allow_async(_event: &ToolCallEvent, _ctx: &HookContext) -> Option<ToolCallEventResult> {
    None
}

#[hook(event = "tool_call", hook = "alloc_count")]
fn allow_sync(_event: &ToolCallEvent, _ctx: &HookContext) -> Option<ToolCallEventResult> {
    None
}

#[hook(event = "tool_result", hook = "alloc_count")]
async fn keep_async(_event: &ToolResultEvent, _ctx: &HookContext) -> Option<ToolResultEventResult> {
    None
}

#[hook(event = "tool_result", hook = "alloc_count")]
fn keep_sync(_event: &ToolResultEvent) -> Option<ToolResultEventResult> {
    None
}

#[hook(event = "turn_start", hook = "alloc_count")]
async fn observe_async(_event: &TurnStartEvent) {}

#[hook(event = "turn_start", hook = "alloc_count")]
fn observe_sync(_event: &TurnStartEvent) {}

#[hook(event = "context", hook = "alloc_count")]
async fn context_async(_event: &ContextEvent) -> Option<ContextEventResult> {
    None
}

#[hook(event = "context", hook = "alloc_count")]
fn context_sync(_event: &ContextEvent) -> Option<ContextEventResult> {
    None
}

/// Polls `future` once: every future here completes without waiting.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future did not complete on its first poll"),
    }
}

/// How many allocations `f` makes (after one unmeasured call, which may initialize things
/// once).
fn allocations<T>(mut f: impl FnMut() -> T) -> usize {
    drop(f());
    let region = Region::new(GLOBAL);
    let out = f();
    let stats = region.change();
    drop(out);
    stats.allocations + stats.reallocations
}

fn bundle() -> LoadedHook {
    compiled_hooks(Path::new(CWD))
        .unwrap()
        .into_iter()
        .find(|h| h.path == "alloc_count")
        .unwrap()
}

/// `n` copies of the handler `name` of `E`.
fn add<E: HookEvent>(api: &mut HookApi, bundle: &LoadedHook, name: &str, n: usize) {
    let entry = bundle
        .handlers
        .get::<E>()
        .iter()
        .find(|e| e.info.name == name)
        .unwrap();
    for _ in 0..n {
        api.on_handler(entry.handler.clone(), entry.info.clone());
    }
}

fn runner(build: impl FnOnce(&mut HookApi)) -> HookRunner {
    let mut api = HookApi::new("alloc-count", CWD);
    build(&mut api);
    let runner = HookRunner::new(
        vec![api.finish()],
        CWD,
        Arc::new(JsonlSessionStore::in_memory(Path::new(CWD))),
    );
    runner.initialize(InitializeOptions::new(
        Arc::new(|_, _| {}),
        Arc::new(|_, _| {}),
    ));
    runner
}

fn input() -> ToolInput {
    let Value::Object(map) = json!({ "command": "ls -la" }) else {
        unreachable!()
    };
    map.into()
}

struct Noop(Value);

impl Tool for Noop {
    fn name(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn execute(
        &self,
        _call_id: &str,
        _input: &ToolInput,
        _cancel: &CancellationToken,
        _on_update: Option<&hooks_core::tool::UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::default())
    }
}

#[test]
fn emissions_allocate_nothing_per_handler() {
    let bundle = bundle();
    let call = ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "call-1".to_owned(),
        input: input(),
    };
    let turn = TurnStartEvent {
        turn_index: 1,
        timestamp: 0,
    };
    let mut report = Vec::new();

    for (mode, tool_call, tool_result, turn_start, context) in [
        (
            "sync",
            "allow_sync",
            "keep_sync",
            "observe_sync",
            "context_sync",
        ),
        (
            "async",
            "allow_async",
            "keep_async",
            "observe_async",
            "context_async",
        ),
    ] {
        for n in [1, 10] {
            let r = runner(|api| add::<ToolCallEvent>(api, &bundle, tool_call, n));
            let count = allocations(|| now(r.emit_tool_call(&call)).unwrap());
            report.push((format!("emit_tool_call {mode} x{n}"), count));

            let r = runner(|api| add::<TurnStartEvent>(api, &bundle, turn_start, n));
            let count = allocations(|| now(r.emit(&turn)));
            report.push((format!("emit turn_start {mode} x{n}"), count));

            let r = runner(|api| add::<ContextEvent>(api, &bundle, context, n));
            let mut messages: Vec<Message> =
                (0..100).map(|i| Message::user(format!("m{i}"))).collect();
            let count = allocations(|| {
                messages = now(r.emit_context(std::mem::take(&mut messages)));
            });
            assert_eq!(messages.len(), 100);
            report.push((format!("emit_context(100 messages) {mode} x{n}"), count));

            let wrapped = HookToolWrapper::new(
                Noop(Value::Null),
                Arc::new(runner(|api| {
                    add::<ToolCallEvent>(api, &bundle, tool_call, n);
                    add::<ToolResultEvent>(api, &bundle, tool_result, n);
                })),
            );
            let cancel = CancellationToken::new();
            let input = input();
            let count =
                allocations(|| now(wrapped.execute("call-1", &input, &cancel, None)).unwrap());
            report.push((format!("wrapper execute {mode} {n}+{n}"), count));
        }
    }

    // An event nobody handles: no context, no allocation.
    let r = runner(|api| add::<TurnStartEvent>(api, &bundle, "observe_sync", 1));
    report.push((
        "emit_tool_call, no handler".to_owned(),
        allocations(|| now(r.emit_tool_call(&call)).unwrap()),
    ));

    for (name, count) in &report {
        println!("{name}: {count} allocations");
    }
    for (name, count) in &report {
        if !name.starts_with("wrapper") {
            assert_eq!(*count, 0, "{name} allocated");
        }
    }
    // The wrapper allocates the tool name and call id its events own (its future is not
    // boxed, and the input is shared): the same with 1 or 10 handlers of each event.
    let wrapper: Vec<usize> = report
        .iter()
        .filter(|(name, _)| name.starts_with("wrapper"))
        .map(|(_, count)| *count)
        .collect();
    assert_eq!(wrapper, [2, 2, 2, 2], "{report:?}");
}
