//! What building a runner for a bundle costs: the resident host builds one per agent session
//! (issue 13's target: at most 20 µs for the `examples` bundle).
//!
//! ```text
//! cargo bench -p examples --bench runner_build
//! ```
//!
//! `runner_build/examples_bundle` is the whole of it: the bundle's hooks built from the
//! link-time registry (sorted once per process, as in a real host), the runner over them (its
//! dispatch plans) and `initialize` with a host that has a UI. `runner_build/new_and_initialize`
//! is the runner and `initialize` alone, given the hooks.

use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hookwright::events::CustomMessage;
use hookwright::ui::NotifyKind;
use hookwright::{
    HookRunner, HookUi, Host, JsonlSessionStore, LoadedHook, SendMessageOptions, SessionManager,
};

/// Keeps the `examples` bundle linked in (its registrations are collected at link time).
use hookwright_examples as _;

const CWD: &str = "/tmp";

/// A UI that collects notifications.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

impl HookUi for Notes {
    fn notify(&self, message: &str, _kind: NotifyKind) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(message.to_owned());
    }
}

/// A host like an adapter call's: messages collected, a UI that collects notifications.
struct BenchHost {
    messages: Arc<Mutex<Vec<CustomMessage>>>,
    ui: Arc<Notes>,
}

impl Host for BenchHost {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.messages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(message);
    }
    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::clone(&self.ui) as Arc<dyn HookUi>)
    }
}

fn hooks() -> Vec<LoadedHook> {
    hookwright::registry::compiled_hooks(Path::new(CWD)).expect("the registry builds")
}

fn build(hooks: Vec<LoadedHook>, session: &Arc<dyn SessionManager>) -> HookRunner {
    let runner = HookRunner::new(hooks, CWD, Arc::clone(session));
    runner.initialize(BenchHost {
        messages: Arc::default(),
        ui: Arc::default(),
    });
    runner
}

fn runner_build(c: &mut Criterion) {
    let session: Arc<dyn SessionManager> = Arc::new(JsonlSessionStore::in_memory(Path::new(CWD)));
    let bundle = hooks();
    assert!(
        bundle.len() >= 5 && bundle.iter().all(|h| !h.path.is_empty()),
        "the examples bundle is linked: {:?}",
        bundle.iter().map(|h| &h.path).collect::<Vec<_>>()
    );
    let mut group = c.benchmark_group("runner_build");
    group.bench_function("examples_bundle", |b| {
        b.iter(|| build(hooks(), black_box(&session)));
    });
    group.bench_function("new_and_initialize", |b| {
        b.iter_batched(hooks, |hooks| build(hooks, &session), BatchSize::SmallInput);
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
    targets = runner_build
}
criterion_main!(benches);
