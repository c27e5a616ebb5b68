//! Dispatch benchmarks of issue 6 (see `BENCHMARKS.md` for the numbers and the targets).
//!
//! ```text
//! cargo bench -p hookwright --bench dispatch            # everything (about 2 minutes)
//! cargo bench -p hookwright --bench dispatch -- floor   # one group, by name filter
//! HOOKS_BENCH_ROW=floor/sync/100 HOOKS_BENCH_ITERATIONS=10000 \
//!   valgrind --tool=cachegrind target/release/deps/dispatch-HASH   # one row, a fixed count
//! ```
//!
//! With `HOOKS_BENCH_ROW` set, every group's setup still runs, but only the named row's body,
//! exactly `HOOKS_BENCH_ITERATIONS` times, and nothing is timed: two counts' instruction totals
//! differ by that many iterations' instructions, whatever the code's layout.
//!
//! Groups: `primitives_x10` (what the machine allows: ten empty handlers as plain calls, boxed
//! futures, inline futures), `context`, `emit_tool_call/{sync,async}/{1,10,100}`,
//! `floor/{sync,async}/{1,10,100}`, `no_handlers`, `emit_turn_start`,
//! `emit_context_100_messages`, `wrapper_execute` (raw tool, no handlers, 1+1 and 10+10
//! handlers) and `registry/build_10000`. The allocation counts are a test:
//! `cargo test -p hookwright --test alloc_count -- --nocapture`.
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

use std::fmt::Display;
use std::hint::black_box;
use std::path::Path;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use hookwright::__private;
use hookwright::events::{
    ContextEvent, HookEvent, Message, ToolCallEvent, ToolCallEventResult, ToolInput,
    ToolResultEvent, TurnStartEvent,
};
use hookwright::handler::HandlerInfo;
use hookwright::handler::{Handler, HandlerEntry, HandlerResult};
use hookwright::registry::{Registration, build_hooks_from};
use hookwright::{HookApi, HookContext, HookToolWrapper, Tool, ToolError, ToolOutput};

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

// ---- rows: measured by criterion, or run a fixed number of times -----------------------------

/// `HOOKS_BENCH_ROW` and `HOOKS_BENCH_ITERATIONS`: the one row to run and how many times,
/// instead of criterion's timing (for counting its instructions under valgrind).
struct Fixed {
    row: String,
    iterations: u64,
    ran: AtomicBool,
}

/// The fixed run asked for in the environment, if any; exits naming the bad variable if its
/// value is not one.
fn fixed() -> Option<&'static Fixed> {
    static FIXED: OnceLock<Option<Fixed>> = OnceLock::new();
    FIXED
        .get_or_init(|| {
            let row = std::env::var("HOOKS_BENCH_ROW").ok()?;
            let iterations = std::env::var("HOOKS_BENCH_ITERATIONS").unwrap_or_default();
            let Ok(iterations) = iterations.parse() else {
                eprintln!(
                    "HOOKS_BENCH_ROW is set, so HOOKS_BENCH_ITERATIONS must be a count, \
                     not {iterations:?}"
                );
                std::process::exit(2);
            };
            Some(Fixed {
                row,
                iterations,
                ran: AtomicBool::new(false),
            })
        })
        .as_ref()
}

/// A criterion benchmark group whose rows run a fixed number of times instead when
/// [`fixed`] names one of them.
struct Group<'a> {
    name: &'static str,
    group: BenchmarkGroup<'a, WallTime>,
}

impl<'a> Group<'a> {
    fn new(c: &'a mut Criterion, name: &'static str) -> Self {
        Group {
            name,
            group: c.benchmark_group(name),
        }
    }

    /// The row `name` of this group, timing `body`.
    fn row<O>(&mut self, name: &str, body: impl FnMut() -> O) {
        self.run(name, None, body);
    }

    /// The row `function/parameter` of this group, timing `body`.
    fn row_of<O>(&mut self, function: &str, parameter: impl Display, body: impl FnMut() -> O) {
        let name = format!("{function}/{parameter}");
        self.run(&name, Some(BenchmarkId::new(function, parameter)), body);
    }

    /// Times `body` as the row `name` (criterion's `id` if it has parameters), or runs it the
    /// fixed number of times if it is the fixed row.
    fn run<O>(&mut self, name: &str, id: Option<BenchmarkId>, mut body: impl FnMut() -> O) {
        match (fixed(), id) {
            (Some(fixed), _) => {
                if fixed.row == format!("{}/{name}", self.name) {
                    fixed.ran.store(true, Ordering::Relaxed);
                    for _ in 0..fixed.iterations {
                        black_box(body());
                    }
                }
            }
            (None, Some(id)) => {
                self.group.bench_function(id, |b| b.iter(&mut body));
            }
            (None, None) => {
                self.group.bench_function(name, |b| b.iter(&mut body));
            }
        }
    }

    fn finish(self) {
        self.group.finish();
    }
}

// ---- benchmarks ----------------------------------------------------------------------------

fn emit_tool_call(c: &mut Criterion) {
    let bundle = bundle();
    let event = tool_call_event();
    let mut group = Group::new(c, "emit_tool_call");
    for mode in Mode::ALL {
        for n in COUNTS {
            let runner = runner(|api| add::<ToolCallEvent>(api, &bundle, mode, n));
            group.row_of(mode.as_str(), n, || {
                now(runner.emit_tool_call(black_box(&event)))
            });
        }
    }
    group.finish();

    let mut group = Group::new(c, "floor");
    for mode in Mode::ALL {
        for n in COUNTS {
            let runner = runner(|api| add::<ToolCallEvent>(api, &bundle, mode, n));
            let entries = runner.hooks()[0].handlers.get::<ToolCallEvent>();
            let ctx = runner.create_context();
            group.row_of(mode.as_str(), n, || {
                now(floor(entries, black_box(&event), &ctx))
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
    let mut group = Group::new(c, "no_handlers");
    group.row("emit_tool_call", || {
        now(runner.emit_tool_call(black_box(&event)))
    });
    group.row("emit_tool_result", || {
        now(runner.emit(black_box(&result_event)))
    });
    group.row("has_handlers", || {
        runner.has_handlers(black_box(hookwright::EventKind::ToolCall))
    });
    group.finish();
}

fn emit_turn_start(c: &mut Criterion) {
    let bundle = bundle();
    let event = TurnStartEvent {
        turn_index: 3,
        timestamp: 1_700_000_000_000,
    };
    let mut group = Group::new(c, "emit_turn_start");
    for mode in Mode::ALL {
        let runner = runner(|api| add::<TurnStartEvent>(api, &bundle, mode, 10));
        group.row_of(mode.as_str(), 10, || now(runner.emit(black_box(&event))));
    }
    group.finish();
}

fn emit_context(c: &mut Criterion) {
    let bundle = bundle();
    let mut group = Group::new(c, "emit_context_100_messages");
    for mode in Mode::ALL {
        let runner = runner(|api| add::<ContextEvent>(api, &bundle, mode, 10));
        let mut messages: Vec<Message> = (0..100)
            .map(|i| Message::user(format!("message {i}")))
            .collect();
        group.row_of(mode.as_str(), 10, || {
            let taken = std::mem::take(&mut messages);
            messages = now(runner.emit_context(black_box(taken)));
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
        _on_update: Option<&hookwright::tool::UpdateCallback>,
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
    let mut group = Group::new(c, "wrapper_execute");

    let raw = noop();
    group.row("raw_tool", || {
        now(raw.execute("call-1", black_box(&input), &cancel, None))
    });
    let bare = HookToolWrapper::new(noop(), Arc::new(runner(|_| {})));
    group.row("no_handlers", || {
        now(bare.execute("call-1", black_box(&input), &cancel, None))
    });
    for mode in Mode::ALL {
        for n in [1, 10] {
            let runner = runner(|api| {
                add::<ToolCallEvent>(api, &bundle, mode, n);
                add::<ToolResultEvent>(api, &bundle, mode, n);
            });
            let wrapped = HookToolWrapper::new(noop(), Arc::new(runner));
            group.row_of(mode.as_str(), format!("{n}+{n}"), || {
                now(wrapped.execute("call-1", black_box(&input), &cancel, None))
            });
        }
    }
    group.finish();

    // What a wrapped call with one sync handler of each event cannot avoid, each alone: the
    // cancellation check before the tool starts, the tool name and call id the events own, and
    // the two emissions. Their sum is the least `sync/1+1` can cost over `raw_tool`.
    let mut group = Group::new(c, "wrapper_parts");
    group.row("is_cancelled", || black_box(&cancel).is_cancelled());
    group.row("name_and_id", || {
        (black_box("bash").to_owned(), black_box("call-1").to_owned())
    });
    let runner = runner(|api| {
        add::<ToolCallEvent>(api, &bundle, Mode::Sync, 1);
        add::<ToolResultEvent>(api, &bundle, Mode::Sync, 1);
    });
    let call = tool_call_event();
    group.row("emit_tool_call", || {
        now(runner.emit_tool_call(black_box(&call)))
    });
    let result = tool_result_event();
    group.row("emit_tool_result", || {
        now(runner.emit_tool_result(black_box(&result)))
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
        _: &'a hookwright::CommandContext,
    ) -> hookwright::handler::BoxFuture<'a, Result<(), hookwright::HandlerError>> {
        __private::ready_command(Ok(()))
    }
    fn render(
        _: &hookwright::events::CustomMessage,
        _: hookwright::RenderOptions,
        _: &hookwright::ui::Theme,
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
    let mut group = Group::new(c, "registry");
    group.row("build_10000", || build_hooks_from(black_box(&regs), cwd));
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

fn main() {
    benches();
    match fixed() {
        Some(fixed) if !fixed.ran.load(Ordering::Relaxed) => {
            eprintln!("HOOKS_BENCH_ROW={}: no such row", fixed.row);
            std::process::exit(2);
        }
        Some(_) => {}
        None => Criterion::default().configure_from_args().final_summary(),
    }
}

/// What the hardware allows per handler (issue 6's reference figures): ten empty handlers
/// called through a function pointer, awaited as boxed futures, awaited as inline futures.
fn primitives(c: &mut Criterion) {
    type Sync = fn(&ToolCallEvent) -> Option<u32>;
    type Boxed = for<'a> fn(&'a ToolCallEvent) -> hookwright::handler::BoxFuture<'a, Option<u32>>;
    type Inline = for<'a> fn(
        &'a ToolCallEvent,
    ) -> hookwright::handler::HandlerFuture<'a, ToolCallEventResult>;
    fn sync(_: &ToolCallEvent) -> Option<u32> {
        None
    }
    fn boxed(_: &ToolCallEvent) -> hookwright::handler::BoxFuture<'_, Option<u32>> {
        Box::pin(async { None })
    }
    fn inline(_: &ToolCallEvent) -> hookwright::handler::HandlerFuture<'_, ToolCallEventResult> {
        hookwright::handler::HandlerFuture::from_or_box(async { Ok(None) })
    }
    let syncs: Vec<Sync> = vec![sync; 10];
    let boxeds: Vec<Boxed> = vec![boxed; 10];
    let inlines: Vec<Inline> = vec![inline; 10];
    let event = tool_call_event();
    let mut group = Group::new(c, "primitives_x10");
    group.row("sync_call", || {
        let mut last = None;
        for f in &syncs {
            if let Some(r) = black_box(*f)(black_box(&event)) {
                last = Some(r);
            }
        }
        last
    });
    group.row("boxed_future", || {
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
    group.row("inline_future", || {
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
    group.finish();

    let runner = runner(|_| {});
    let mut group = Group::new(c, "context");
    group.row("create_context", || runner.create_context());
    group.finish();
}
