//! Dispatch benchmarks of issue 6 (see `BENCHMARKS.md` for the numbers and the targets).
//!
//! ```text
//! cargo bench -p hooks-core --bench dispatch            # everything (about 2 minutes)
//! cargo bench -p hooks-core --bench dispatch -- floor   # one group, by name filter
//! ```
//!
//! Groups: `primitives_x10` (what the machine allows: ten empty handlers as plain calls, boxed
//! futures, inline futures), `context`, `emit_tool_call/{sync,async}/{1,10,100}`,
//! `floor/{sync,async}/{1,10,100}`, `no_handlers`, `emit_turn_start`,
//! `emit_context_100_messages`, `wrapper_execute` (raw tool, no handlers, 1+1 and 10+10
//! handlers) and `registry/build_10000`. The allocation counts are a test:
//! `cargo test -p hooks-core --test alloc_count -- --nocapture`.
//!
//! Handlers are written with `#[hook]`, exactly as an author writes them, so each benchmark
//! goes through the code the macro generates. A runner with N handlers gets N copies of the
//! same type-erased entry in one hook. Every handler here completes without awaiting, so each
//! emission is driven by polling its future once with a no-op waker: what is measured is the
//! dispatch, not an executor.
//!
//! The `floor/*` benchmarks call the same type-erased entries in a plain loop with a
//! prebuilt context (no ordering, combining, panic guard or context capture): the runner's
//! own cost is `emit_tool_call/*` minus `floor/*`.

use std::hint::black_box;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use hooks_core::__private;
use hooks_core::events::{
    ContextEvent, HookEvent, Message, ToolCallEvent, ToolCallEventResult, ToolInput,
    ToolResultEvent, TurnStartEvent,
};
use hooks_core::handler::HandlerInfo;
use hooks_core::handler::{Handler, HandlerEntry, HandlerResult};
use hooks_core::registry::{Registration, build_hooks_from};
use hooks_core::{HookApi, HookContext, HookToolWrapper, Tool, ToolError, ToolOutput};

#[path = "fixture/mod.rs"]
mod fixture;

use fixture::{CWD, Mode, add, bundle, input, now, runner, tool_call_event, tool_result_event};

/// Calls the entries in a plain loop: the work every dispatcher has to do at the least.
async fn floor<E: HookEvent>(
    entries: &[HandlerEntry<E>],
    event: &E,
    ctx: &HookContext,
) -> Option<E::Result> {
    let mut last = None;
    for entry in entries {
        let result: HandlerResult<E::Result> = match &entry.handler {
            Handler::SyncFn(f) => f(event, ctx),
            Handler::AsyncFn(f) => {
                // A `#[hook]` function builds its future in the slot it is given.
                let mut slot = pin!(None);
                f(event, ctx, slot.as_mut());
                match slot.as_pin_mut() {
                    Some(future) => future.await,
                    None => Ok(None),
                }
            }
            Handler::Sync(f) => f(event, ctx),
            Handler::AsyncInline(f) => f(event, ctx).await,
            Handler::Async(f) => f(event, ctx).await,
        };
        if let Ok(Some(result)) = result {
            last = Some(result);
        }
    }
    last
}

const COUNTS: [usize; 3] = [1, 10, 100];

// ---- benchmarks ----------------------------------------------------------------------------

fn emit_tool_call(c: &mut Criterion) {
    let bundle = bundle();
    let event = tool_call_event();
    let mut group = c.benchmark_group("emit_tool_call");
    for mode in Mode::ALL {
        for n in COUNTS {
            let runner = runner(|api| add::<ToolCallEvent>(api, &bundle, mode, n));
            group.bench_function(BenchmarkId::new(mode.as_str(), n), |b| {
                b.iter(|| now(runner.emit_tool_call(black_box(&event))));
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("floor");
    for mode in Mode::ALL {
        for n in COUNTS {
            let runner = runner(|api| add::<ToolCallEvent>(api, &bundle, mode, n));
            let entries = runner.hooks()[0].handlers.get::<ToolCallEvent>();
            let ctx = runner.create_context();
            group.bench_function(BenchmarkId::new(mode.as_str(), n), |b| {
                b.iter(|| now(floor(entries, black_box(&event), &ctx)));
            });
        }
    }
    group.finish();
}

fn no_handlers(c: &mut Criterion) {
    let bundle = bundle();
    // Handlers for another event only: the emitted ones find none.
    let runner = runner(|api| add::<TurnStartEvent>(api, &bundle, Mode::Sync, 1));
    let event = tool_call_event();
    let result_event = tool_result_event();
    let mut group = c.benchmark_group("no_handlers");
    group.bench_function("emit_tool_call", |b| {
        b.iter(|| now(runner.emit_tool_call(black_box(&event))));
    });
    group.bench_function("emit_tool_result", |b| {
        b.iter(|| now(runner.emit(black_box(&result_event))));
    });
    group.bench_function("has_handlers", |b| {
        b.iter(|| runner.has_handlers(black_box(hooks_core::EventKind::ToolCall)));
    });
    group.finish();
}

fn emit_turn_start(c: &mut Criterion) {
    let bundle = bundle();
    let event = TurnStartEvent {
        turn_index: 3,
        timestamp: 1_700_000_000_000,
    };
    let mut group = c.benchmark_group("emit_turn_start");
    for mode in Mode::ALL {
        let runner = runner(|api| add::<TurnStartEvent>(api, &bundle, mode, 10));
        group.bench_function(BenchmarkId::new(mode.as_str(), 10), |b| {
            b.iter(|| now(runner.emit(black_box(&event))));
        });
    }
    group.finish();
}

fn emit_context(c: &mut Criterion) {
    let bundle = bundle();
    let mut group = c.benchmark_group("emit_context_100_messages");
    for mode in Mode::ALL {
        let runner = runner(|api| add::<ContextEvent>(api, &bundle, mode, 10));
        let mut messages: Vec<Message> = (0..100)
            .map(|i| Message::user(format!("message {i}")))
            .collect();
        group.bench_function(BenchmarkId::new(mode.as_str(), 10), |b| {
            b.iter(|| {
                let taken = std::mem::take(&mut messages);
                messages = now(runner.emit_context(black_box(taken)));
            });
        });
        assert_eq!(messages.len(), 100);
    }
    group.finish();
}

/// A tool that does nothing and answers `ok`.
struct Noop {
    parameters: Value,
}

impl Tool for Noop {
    fn name(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    async fn execute(
        &self,
        _call_id: &str,
        _input: &ToolInput,
        _cancel: &CancellationToken,
        _on_update: Option<&hooks_core::tool::UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn noop() -> Noop {
    Noop {
        parameters: Value::Object(Map::new()),
    }
}

fn wrapper(c: &mut Criterion) {
    let bundle = bundle();
    let input = input();
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("wrapper_execute");

    let raw = noop();
    group.bench_function("raw_tool", |b| {
        b.iter(|| now(raw.execute("call-1", black_box(&input), &cancel, None)));
    });
    let bare = HookToolWrapper::new(noop(), Arc::new(runner(|_| {})));
    group.bench_function("no_handlers", |b| {
        b.iter(|| now(bare.execute("call-1", black_box(&input), &cancel, None)));
    });
    for mode in Mode::ALL {
        for n in [1, 10] {
            let runner = runner(|api| {
                add::<ToolCallEvent>(api, &bundle, mode, n);
                add::<ToolResultEvent>(api, &bundle, mode, n);
            });
            let wrapped = HookToolWrapper::new(noop(), Arc::new(runner));
            group.bench_function(BenchmarkId::new(mode.as_str(), format!("{n}+{n}")), |b| {
                b.iter(|| now(wrapped.execute("call-1", black_box(&input), &cancel, None)));
            });
        }
    }
    group.finish();

    // What a wrapped call with one sync handler of each event cannot avoid, each alone: the
    // cancellation check before the tool starts, the tool name and call id the events own, and
    // the two emissions. Their sum is the least `sync/1+1` can cost over `raw_tool`.
    let mut group = c.benchmark_group("wrapper_parts");
    group.bench_function("is_cancelled", |b| {
        b.iter(|| black_box(&cancel).is_cancelled());
    });
    group.bench_function("name_and_id", |b| {
        b.iter(|| (black_box("bash").to_owned(), black_box("call-1").to_owned()));
    });
    let runner = runner(|api| {
        add::<ToolCallEvent>(api, &bundle, Mode::Sync, 1);
        add::<ToolResultEvent>(api, &bundle, Mode::Sync, 1);
    });
    let call = tool_call_event();
    group.bench_function("emit_tool_call", |b| {
        b.iter(|| now(runner.emit_tool_call(black_box(&call))));
    });
    let result = tool_result_event();
    group.bench_function("emit_tool_result", |b| {
        b.iter(|| now(runner.emit_tool_result(black_box(&result))));
    });
    group.finish();
}

/// 10,000 registrations as `#[hook]`, `#[command]` and `#[renderer]` submit them: 100 hooks
/// of 90 handlers, 8 commands and 2 renderers each, spread over 5 files per hook, in a
/// scrambled order (inventory gives none).
fn registrations() -> Vec<&'static Registration> {
    fn install(api: &mut HookApi, info: HandlerInfo) {
        __private::install_sync::<ToolCallEvent>(api, info, allow);
    }
    fn allow(_: &ToolCallEvent, _: &HookContext) -> HandlerResult<ToolCallEventResult> {
        Ok(None)
    }
    fn run<'a>(
        _: &'a str,
        _: &'a hooks_core::CommandContext,
    ) -> hooks_core::handler::BoxFuture<'a, Result<(), hooks_core::HandlerError>> {
        __private::ready_command(Ok(()))
    }
    fn render(
        _: &hooks_core::events::CustomMessage,
        _: hooks_core::RenderOptions,
        _: &hooks_core::ui::Theme,
    ) -> Option<Vec<String>> {
        None
    }
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut regs = Vec::with_capacity(10_000);
    for h in 0..100 {
        let hook = leak(format!("my_bundle::hooks::guards::module_{h:03}"));
        for i in 0..100u32 {
            let file = leak(format!("src/hooks/guards/module_{h:03}/part_{}.rs", i % 5));
            let name = leak(format!("item_{i}"));
            let (line, column) = (10 + (i * 37) % 400, 1 + i % 9);
            let reg = match i {
                0..90 => {
                    __private::handler(name, "tool_call", hook, file, line, column, None, install)
                }
                90..98 => __private::command(
                    leak(format!("cmd-{i}")),
                    None,
                    name,
                    hook,
                    file,
                    line,
                    column,
                    run,
                ),
                _ => __private::renderer(
                    leak(format!("type-{i}")),
                    name,
                    hook,
                    file,
                    line,
                    column,
                    render,
                ),
            };
            regs.push(&*Box::leak(Box::new(reg)));
        }
    }
    // A fixed scramble (a linear congruential generator).
    let mut state = 0x2545_f491_u64;
    for i in (1..regs.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let j = usize::try_from(state >> 33).unwrap_or(0) % (i + 1);
        regs.swap(i, j);
    }
    regs
}

fn registry(c: &mut Criterion) {
    let regs = registrations();
    let cwd = Path::new(CWD);
    let hooks = build_hooks_from(&regs, cwd).expect("no duplicates");
    assert_eq!(hooks.len(), 100);
    let mut group = c.benchmark_group("registry");
    group.bench_function("build_10000", |b| {
        b.iter(|| build_hooks_from(black_box(&regs), cwd));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = primitives, emit_tool_call, no_handlers, emit_turn_start, emit_context, wrapper, registry
}
criterion_main!(benches);

/// What the hardware allows per handler (issue 6's reference figures): ten empty handlers
/// called through a function pointer, awaited as boxed futures, awaited as inline futures.
fn primitives(c: &mut Criterion) {
    type Sync = fn(&ToolCallEvent) -> Option<u32>;
    type Boxed = for<'a> fn(&'a ToolCallEvent) -> hooks_core::handler::BoxFuture<'a, Option<u32>>;
    type Inline = for<'a> fn(
        &'a ToolCallEvent,
    ) -> hooks_core::handler::HandlerFuture<'a, ToolCallEventResult>;
    fn sync(_: &ToolCallEvent) -> Option<u32> {
        None
    }
    fn boxed(_: &ToolCallEvent) -> hooks_core::handler::BoxFuture<'_, Option<u32>> {
        Box::pin(async { None })
    }
    fn inline(_: &ToolCallEvent) -> hooks_core::handler::HandlerFuture<'_, ToolCallEventResult> {
        hooks_core::handler::HandlerFuture::from_or_box(async { Ok(None) })
    }
    let syncs: Vec<Sync> = vec![sync; 10];
    let boxeds: Vec<Boxed> = vec![boxed; 10];
    let inlines: Vec<Inline> = vec![inline; 10];
    let event = tool_call_event();
    let mut group = c.benchmark_group("primitives_x10");
    group.bench_function("sync_call", |b| {
        b.iter(|| {
            let mut last = None;
            for f in &syncs {
                if let Some(r) = black_box(*f)(black_box(&event)) {
                    last = Some(r);
                }
            }
            last
        });
    });
    group.bench_function("boxed_future", |b| {
        b.iter(|| {
            now(async {
                let mut last = None;
                for f in &boxeds {
                    if let Some(r) = black_box(*f)(black_box(&event)).await {
                        last = Some(r);
                    }
                }
                last
            })
        });
    });
    group.bench_function("inline_future", |b| {
        b.iter(|| {
            now(async {
                let mut last = None;
                for f in &inlines {
                    if let Ok(Some(r)) = black_box(*f)(black_box(&event)).await {
                        last = Some(r);
                    }
                }
                last
            })
        });
    });
    group.finish();

    let runner = runner(|_| {});
    let mut group = c.benchmark_group("context");
    group.bench_function("create_context", |b| b.iter(|| runner.create_context()));
    group.finish();
}
