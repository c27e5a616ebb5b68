//! Issue 7, item 4: one runner serves many sessions at once. `HookRunner` and
//! `HookToolWrapper<T>` are `Send + Sync` (checked at compile time), and one `Arc<HookRunner>`
//! serves 1,000 concurrent wrapped tool calls on a multi-threaded runtime: every call sees its
//! own handlers in the defined order (hooks in load order, then registration order), no update
//! of shared state is lost, and nothing deadlocks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{hook, runner};
use hookwright::events::*;
use hookwright::tool::UpdateCallback;
use hookwright::{HookApi, HookContext, HookRunner, HookToolWrapper, Tool, ToolError, ToolOutput};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

// Compile-time checks: a runner and a wrapper can be shared across threads, and the futures
// of their methods can be spawned on a multi-threaded runtime.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<HookRunner>();
    send_sync::<Arc<HookRunner>>();
    send_sync::<HookToolWrapper<CountingTool>>();
    send_sync::<HookToolWrapper<Arc<dyn hookwright::tool::DynTool>>>();
};

#[allow(
    dead_code,
    reason = "only compiled, to check that these futures are Send"
)]
fn futures_are_send(runner: &HookRunner, wrapper: &HookToolWrapper<CountingTool>) {
    fn send<T: Send>(_: &T) {}
    let input = ToolInput::new();
    send(&runner.emit(&TurnStartEvent::default()));
    send(&runner.emit_tool_call(&ToolCallEvent {
        tool_name: String::new(),
        tool_call_id: String::new(),
        input: ToolInput::new(),
    }));
    send(&runner.emit_context(vec![]));
    send(&runner.emit_before_agent_start("", None));
    send(&runner.emit_custom("x", &Value::Null));
    send(&runner.run_command("x", ""));
    send(&wrapper.execute("id", &input, &CancellationToken::new(), None));
}

const CALLS: usize = 1_000;

/// Every `BLOCK_EVERY`-th call is blocked by hook 1's gate (`call-7`, `call-17`, ...).
fn is_blocked(i: usize) -> bool {
    i % 10 == 7
}

/// What the handlers and the tool write: per call, the ids of what ran, in order; per handler
/// id, a counter updated with a read-modify-write under the lock.
#[derive(Default)]
struct Shared {
    per_call: Mutex<HashMap<String, Vec<&'static str>>>,
    counts: Mutex<HashMap<&'static str, u64>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Shared {
    fn record(&self, call_id: &str, handler: &'static str) {
        self.per_call
            .lock()
            .unwrap()
            .entry(call_id.to_owned())
            .or_default()
            .push(handler);
        let mut counts = self.counts.lock().unwrap();
        let n = counts.get(handler).copied().unwrap_or(0);
        counts.insert(handler, n + 1);
    }
}

/// A pseudo-random delay of 0..3 ms derived from the call id, so calls interleave.
fn jitter(call_id: &str) -> Duration {
    let n: u64 = call_id.bytes().map(u64::from).sum();
    Duration::from_micros((n * 7919) % 3_000)
}

/// A sync handler of `E` that records `id`.
fn on_sync<E: HookEvent>(
    api: &mut HookApi,
    id: &'static str,
    shared: &Arc<Shared>,
    call_id: fn(&E) -> &str,
) {
    let shared = Arc::clone(shared);
    api.on(move |e: &E, _c: &HookContext| shared.record(call_id(e), id));
}

/// An async handler of `E` that yields or sleeps, then records `id`.
fn on_async<E: HookEvent>(
    api: &mut HookApi,
    id: &'static str,
    shared: &Arc<Shared>,
    call_id: fn(&E) -> &str,
) {
    let shared = Arc::clone(shared);
    api.on_async(move |e: &E, _c: &HookContext| {
        let shared = Arc::clone(&shared);
        let call = call_id(e).to_owned();
        Box::pin(async move {
            tokio::task::yield_now().await;
            tokio::time::sleep(jitter(&call)).await;
            shared.record(&call, id);
        })
    });
}

fn call_of(e: &ToolCallEvent) -> &str {
    &e.tool_call_id
}

fn result_of(e: &ToolResultEvent) -> &str {
    &e.tool_call_id
}

/// An in-memory tool: records itself, sleeps a little, echoes its input.
struct CountingTool {
    shared: Arc<Shared>,
    parameters: Value,
}

impl Tool for CountingTool {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "Echoes its input"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    async fn execute(
        &self,
        call_id: &str,
        input: &ToolInput,
        _cancel: &CancellationToken,
        _on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        let now = self.shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.shared.record(call_id, "tool");
        tokio::time::sleep(jitter(call_id)).await;
        self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        let text = input.get("text").and_then(Value::as_str).unwrap_or("");
        Ok(ToolOutput::text(text))
    }
}

/// Three hooks; per call the handlers run in this order.
const ALLOWED_ORDER: [&str; 9] = [
    "h0.call.sync",
    "h0.call.async",
    "h1.call.async",
    "h2.call.sync",
    "tool",
    "h0.result.async",
    "h1.result.sync",
    "h1.result.async",
    "h2.result.async",
];

/// A blocked call stops at hook 1's gate.
const BLOCKED_ORDER: [&str; 3] = ["h0.call.sync", "h0.call.async", "h1.call.async"];

fn hooks(shared: &Arc<Shared>) -> Vec<hookwright::LoadedHook> {
    vec![
        hook("hooks/h0.rs", |api| {
            on_sync::<ToolCallEvent>(api, "h0.call.sync", shared, call_of);
            on_async::<ToolCallEvent>(api, "h0.call.async", shared, call_of);
            on_async::<ToolResultEvent>(api, "h0.result.async", shared, result_of);
        }),
        hook("hooks/h1.rs", |api| {
            // The gate: records itself, then blocks some calls.
            let s = Arc::clone(shared);
            api.on_async(move |e: &ToolCallEvent, _c: &HookContext| {
                let s = Arc::clone(&s);
                let call = e.tool_call_id.clone();
                Box::pin(async move {
                    tokio::time::sleep(jitter(&call)).await;
                    s.record(&call, "h1.call.async");
                    let n: usize = call.trim_start_matches("call-").parse().unwrap();
                    is_blocked(n).then(|| ToolCallEventResult::block(format!("no {call}")))
                })
            });
            on_sync::<ToolResultEvent>(api, "h1.result.sync", shared, result_of);
            on_async::<ToolResultEvent>(api, "h1.result.async", shared, result_of);
        }),
        hook("hooks/h2.rs", |api| {
            on_sync::<ToolCallEvent>(api, "h2.call.sync", shared, call_of);
            // The last tool_result handler overrides the output with what it saw, so each
            // call's output proves its event was its own.
            let s = Arc::clone(shared);
            api.on_async(move |e: &ToolResultEvent, _c: &HookContext| {
                let s = Arc::clone(&s);
                let call = e.tool_call_id.clone();
                let seen = e.content.clone();
                let input = e.input.get("text").cloned();
                Box::pin(async move {
                    tokio::task::yield_now().await;
                    s.record(&call, "h2.result.async");
                    ToolResultEventResult {
                        content: Some(seen),
                        details: Some(json!({ "call": call, "input": input })),
                        ..ToolResultEventResult::default()
                    }
                })
            });
        }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_runner_serves_1000_concurrent_wrapped_calls() {
    let outcome = tokio::time::timeout(Duration::from_secs(60), async {
        let shared = Arc::new(Shared::default());
        let runner = Arc::new(runner(hooks(&shared)));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
        let wrapper = Arc::new(HookToolWrapper::new(
            CountingTool {
                shared: Arc::clone(&shared),
                parameters: json!({ "type": "object" }),
            },
            Arc::clone(&runner),
        ));

        let tasks: Vec<_> = (0..CALLS)
            .map(|i| {
                let wrapper = Arc::clone(&wrapper);
                tokio::spawn(async move {
                    let call = format!("call-{i}");
                    let input: ToolInput = [("text".to_owned(), json!(format!("payload {i}")))]
                        .into_iter()
                        .collect();
                    let out = wrapper
                        .execute(&call, &input, &CancellationToken::new(), None)
                        .await;
                    (i, out)
                })
            })
            .collect();
        let mut outcomes = Vec::with_capacity(CALLS);
        for task in tasks {
            outcomes.push(task.await.expect("no call panicked"));
        }

        // Each call's outcome is its own.
        for (i, out) in &outcomes {
            if is_blocked(*i) {
                assert_eq!(
                    out,
                    &Err(ToolError::Blocked {
                        reason: format!("no call-{i}")
                    })
                );
            } else {
                let out = out.as_ref().expect("an allowed call succeeds");
                assert_eq!(out.text_content(), format!("payload {i}"));
                assert_eq!(
                    out.details,
                    Some(json!({ "call": format!("call-{i}"), "input": format!("payload {i}") }))
                );
            }
        }

        // Each call saw exactly its own handlers, in the defined order.
        let per_call = shared.per_call.lock().unwrap();
        assert_eq!(per_call.len(), CALLS);
        for i in 0..CALLS {
            let seen = &per_call[&format!("call-{i}")];
            let expected: &[&str] = if is_blocked(i) {
                &BLOCKED_ORDER
            } else {
                &ALLOWED_ORDER
            };
            assert_eq!(seen, expected, "call-{i}");
        }

        // No update lost: exact counts per handler.
        let blocked = (0..CALLS).filter(|i| is_blocked(*i)).count() as u64;
        let allowed = CALLS as u64 - blocked;
        let counts = shared.counts.lock().unwrap();
        for id in ALLOWED_ORDER {
            let expected = if BLOCKED_ORDER.contains(&id) {
                CALLS as u64
            } else {
                allowed
            };
            assert_eq!(counts.get(id).copied(), Some(expected), "{id}");
        }
        assert_eq!(errors.lock().unwrap().len(), 0);
        assert_eq!(shared.in_flight.load(Ordering::SeqCst), 0);
        // The calls really overlapped (the runner does not serialize them).
        let overlap = shared.max_in_flight.load(Ordering::SeqCst);
        assert!(
            overlap > 1,
            "calls never overlapped (max in flight {overlap})"
        );
        overlap
    })
    .await;
    let overlap = outcome.expect("1,000 concurrent calls finished within 60 s (no deadlock)");
    assert!(overlap > 1);
}

/// Several tasks emitting different events on one runner at the same time, each with its
/// own error listener traffic: every emission gets its own combined result.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_emissions_of_different_events_do_not_mix_results() {
    let outcome = tokio::time::timeout(Duration::from_secs(60), async {
        let runner = Arc::new(runner(vec![hook("hooks/mixed.rs", |api| {
            api.on_async(|e: &ContextEvent, _c: &HookContext| {
                let n = e.messages.len();
                Box::pin(async move {
                    tokio::task::yield_now().await;
                    ContextEventResult {
                        messages: Some(vec![Message::user(format!("had {n}"))]),
                    }
                })
            });
            api.on_async(|e: &BeforeAgentStartEvent, _c: &HookContext| {
                let prompt = e.prompt.clone();
                Box::pin(async move {
                    tokio::task::yield_now().await;
                    BeforeAgentStartEventResult {
                        message: Some(InjectedMessage {
                            custom_type: "echo".to_owned(),
                            content: MessageContent::Text(prompt),
                            display: false,
                            details: None,
                            attribution: None,
                        }),
                    }
                })
            });
            api.on(|e: &TurnStartEvent, _c: &HookContext| {
                Err::<(), _>(format!("turn {}", e.turn_index))
            });
        })]));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.error.clone()));

        let mut tasks = Vec::new();
        for i in 0..300_u64 {
            let runner = Arc::clone(&runner);
            tasks.push(tokio::spawn(async move {
                let n = usize::try_from(i % 5).unwrap();
                let messages = vec![Message::user("m"); n];
                let out = runner.emit_context(messages).await;
                assert_eq!(out, [Message::user(format!("had {n}"))]);
                let prompt = format!("prompt {i}");
                let out = runner.emit_before_agent_start(&prompt, None).await;
                let message = out.and_then(|r| r.message).expect("a message");
                assert_eq!(message.content, MessageContent::Text(prompt));
                let _ = runner
                    .emit(&TurnStartEvent {
                        turn_index: i,
                        timestamp: 0,
                    })
                    .await;
            }));
        }
        for task in tasks {
            task.await.expect("no emission panicked");
        }
        let mut errors = errors.lock().unwrap().clone();
        errors.sort();
        let mut expected: Vec<String> = (0..300).map(|i| format!("turn {i}")).collect();
        expected.sort();
        assert_eq!(errors, expected, "every error reported exactly once");
    })
    .await;
    outcome.expect("finished within 60 s (no deadlock)");
}
