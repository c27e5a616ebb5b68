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
use std::sync::Arc;

use serde_json::Value;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio_util::sync::CancellationToken;

use hookwright::events::{
    ContextEvent, Message, ToolCallEvent, ToolInput, ToolResultEvent, TurnStartEvent,
};
use hookwright::{HookToolWrapper, Tool, ToolError, ToolOutput};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[path = "../benches/fixture/mod.rs"]
mod fixture;

use fixture::{Mode, add, bundle, input, now, runner};

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
        _on_update: Option<&hookwright::tool::UpdateCallback>,
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

    for mode in Mode::ALL {
        let label = mode.as_str();
        for n in [1, 10] {
            let r = runner(|api| add::<ToolCallEvent>(api, &bundle, mode, n));
            let count = allocations(|| now(r.emit_tool_call(&call)).unwrap());
            report.push((format!("emit_tool_call {label} x{n}"), count));

            let r = runner(|api| add::<TurnStartEvent>(api, &bundle, mode, n));
            let count = allocations(|| now(r.emit(&turn)));
            report.push((format!("emit turn_start {label} x{n}"), count));

            let r = runner(|api| add::<ContextEvent>(api, &bundle, mode, n));
            let mut messages: Vec<Message> =
                (0..100).map(|i| Message::user(format!("m{i}"))).collect();
            let count = allocations(|| {
                messages = now(r.emit_context(std::mem::take(&mut messages)));
            });
            assert_eq!(messages.len(), 100);
            report.push((format!("emit_context(100 messages) {label} x{n}"), count));

            let wrapped = HookToolWrapper::new(
                Noop(Value::Null),
                Arc::new(runner(|api| {
                    add::<ToolCallEvent>(api, &bundle, mode, n);
                    add::<ToolResultEvent>(api, &bundle, mode, n);
                })),
            );
            let cancel = CancellationToken::new();
            let input = input();
            let count =
                allocations(|| now(wrapped.execute("call-1", &input, &cancel, None)).unwrap());
            report.push((format!("wrapper execute {label} {n}+{n}"), count));
        }
    }

    // An event nobody handles: no context, no allocation.
    let r = runner(|api| add::<TurnStartEvent>(api, &bundle, Mode::Sync, 1));
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
