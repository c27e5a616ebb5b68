//! Issue 7, item 2: timeouts are opt-in and fail closed.
//!
//! No timeout by default (as upstream). A per-handler timeout (`HandlerInfo::timeout`, what
//! `#[hook(timeout_ms = ..)]` sets) and a runner-wide default (`with_default_timeout`); the
//! handler's own value wins. A timed-out `tool_call` handler blocks the wrapped call with a
//! reason naming the hook and the limit; on other events it is a `HookError` and dispatch goes
//! on. The timed-out handler's future is dropped, and a process it started with `exec` is
//! killed.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::{
    BashTool, DropFlag, Errors, Log, eventually, group_members, hook, hook_error, hook_in, input,
    read_pid, runner, runner_in,
};
use hookwright::events::*;
use hookwright::exec::ExecOptions;
use hookwright::handler::{BoxFuture, Handler, HandlerErrorKind, HandlerInfo, HandlerResult};
use hookwright::{HookApi, HookContext, HookRunner, HookToolWrapper, Tool, ToolError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Every test here ends well within this; a protection that is missing makes the test fail
/// (handlers sleep 30 s) instead of hanging.
const TEST_LIMIT: Duration = Duration::from_secs(20);

async fn bounded<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(TEST_LIMIT, fut)
        .await
        .expect("the test ran past its limit: a handler was not timed out")
}

fn info(name: &'static str, timeout: Option<Duration>) -> HandlerInfo {
    HandlerInfo {
        name: name.into(),
        location: None,
        timeout,
    }
}

/// An async handler from a closure (the closure's signature is inferred from this bound).
fn async_handler<E: HookEvent, F>(f: F) -> Handler<E>
where
    F: for<'a> Fn(&'a E, &'a HookContext) -> BoxFuture<'a, HandlerResult<E::Result>>
        + Send
        + Sync
        + 'static,
{
    Handler::Async(Arc::new(f))
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Registers an async handler of `E` that sleeps `sleep`, then logs `label` and returns
/// `result`; `dropped` flips when its future is dropped (finished or not).
fn on_slow<E: HookEvent>(
    api: &mut HookApi,
    label: &'static str,
    sleep: Duration,
    timeout: Option<Duration>,
    result: Option<E::Result>,
    log: &Log,
    dropped: &Arc<AtomicBool>,
) {
    let log = log.clone();
    let dropped = Arc::clone(dropped);
    api.on_handler(
        async_handler(move |_e: &E, _c: &HookContext| {
            let log = log.clone();
            let result = result.clone();
            let guard = DropFlag(Arc::clone(&dropped));
            Box::pin(async move {
                let _guard = guard;
                tokio::time::sleep(sleep).await;
                log.push(label);
                Ok(result)
            })
        }),
        info(label, timeout),
    );
}

/// Registers a sync handler of `E` that logs `label`.
fn on_logging<E: HookEvent>(api: &mut HookApi, label: &'static str, log: &Log) {
    let log = log.clone();
    api.on(move |_e: &E, _c: &HookContext| log.push(label));
}

fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

fn switch_event() -> SessionBeforeSwitchEvent {
    SessionBeforeSwitchEvent {
        reason: SwitchReason::New,
        target_session_file: None,
    }
}

fn timed_out(limit_ms: u64) -> String {
    format!("handler timed out after {limit_ms} ms")
}

#[tokio::test]
async fn there_is_no_timeout_by_default_a_slow_handler_completes() {
    bounded(async {
        let log = Log::default();
        let dropped = flag();
        let cancel = Some(SessionBeforeSwitchResult { cancel: Some(true) });
        let build = |timeout| {
            vec![hook("hooks/slow.rs", |api| {
                on_slow::<SessionBeforeSwitchEvent>(
                    api,
                    "slow",
                    ms(200),
                    timeout,
                    cancel.clone(),
                    &log,
                    &dropped,
                );
            })]
        };
        // No default, no per-handler timeout; an explicit `None` default; a zero per-handler
        // timeout (which means "none").
        let runners = [
            runner(build(None)),
            runner(build(None)).with_default_timeout(None),
            runner(build(Some(Duration::ZERO))),
        ];
        for (i, runner) in runners.iter().enumerate() {
            let errors = Errors::record(runner);
            let result = runner.emit(&switch_event()).await;
            assert_eq!(result, cancel, "runner {i}");
            assert_eq!(errors.get(), [], "runner {i}");
        }
        assert_eq!(log.entries(), ["slow", "slow", "slow"]);
    })
    .await;
}

#[tokio::test]
async fn a_per_handler_timeout_ends_the_handler_reports_it_and_dispatch_goes_on() {
    bounded(async {
        let log = Log::default();
        let dropped = flag();
        let runner = runner(vec![
            hook("hooks/slow.rs", |api| {
                on_slow::<TurnStartEvent>(
                    api,
                    "slow",
                    ms(30_000),
                    Some(ms(100)),
                    None,
                    &log,
                    &dropped,
                );
                on_logging::<TurnStartEvent>(api, "same hook, next handler", &log);
            }),
            hook("hooks/next.rs", |api| {
                on_logging::<TurnStartEvent>(api, "next hook", &log)
            }),
        ]);
        let errors = Errors::record(&runner);
        let start = Instant::now();
        let _ = runner.emit(&TurnStartEvent::default()).await;
        assert!(start.elapsed() < ms(5_000), "took {:?}", start.elapsed());
        assert_eq!(log.entries(), ["same hook, next handler", "next hook"]);
        assert_eq!(
            errors.get(),
            [hook_error("hooks/slow.rs", "turn_start", &timed_out(100))]
        );
        assert!(
            dropped.load(Ordering::SeqCst),
            "the timed-out handler's future was dropped"
        );
    })
    .await;
}

#[tokio::test]
async fn the_runner_default_timeout_applies_to_handlers_without_their_own() {
    bounded(async {
        let log = Log::default();
        let dropped = flag();
        let runner = runner(vec![
            hook("hooks/slow.rs", |api| {
                on_slow::<AgentStartEvent>(api, "slow", ms(30_000), None, None, &log, &dropped);
            }),
            hook("hooks/next.rs", |api| {
                on_logging::<AgentStartEvent>(api, "next", &log)
            }),
        ])
        .with_default_timeout(Some(ms(150)));
        let errors = Errors::record(&runner);
        let _ = runner.emit(&AgentStartEvent::default()).await;
        assert_eq!(log.entries(), ["next"]);
        assert_eq!(
            errors.get(),
            [hook_error("hooks/slow.rs", "agent_start", &timed_out(150))]
        );
        assert!(dropped.load(Ordering::SeqCst));
    })
    .await;
}

#[tokio::test]
async fn the_per_handler_timeout_wins_over_the_runner_default() {
    bounded(async {
        let log = Log::default();
        let dropped = flag();
        let cancel = SessionBeforeSwitchResult { cancel: Some(true) };

        // Longer than the default: the handler's own 5 s applies, so a 300 ms handler completes.
        let patient = runner(vec![hook("hooks/patient.rs", |api| {
            on_slow::<SessionBeforeSwitchEvent>(
                api,
                "patient",
                ms(300),
                Some(ms(5_000)),
                Some(cancel.clone()),
                &log,
                &dropped,
            );
        })])
        .with_default_timeout(Some(ms(50)));
        let errors = Errors::record(&patient);
        assert_eq!(patient.emit(&switch_event()).await, Some(cancel.clone()));
        assert_eq!(errors.get(), []);

        // Shorter than the default: the handler's own 100 ms applies, not the default 10 s.
        let strict = runner(vec![hook("hooks/strict.rs", |api| {
            on_slow::<SessionBeforeSwitchEvent>(
                api,
                "strict",
                ms(30_000),
                Some(ms(100)),
                Some(cancel.clone()),
                &log,
                &dropped,
            );
        })])
        .with_default_timeout(Some(ms(10_000)));
        let errors = Errors::record(&strict);
        let start = Instant::now();
        assert_eq!(strict.emit(&switch_event()).await, None);
        assert!(start.elapsed() < ms(5_000), "took {:?}", start.elapsed());
        assert_eq!(
            errors.get(),
            [hook_error(
                "hooks/strict.rs",
                "session_before_switch",
                &timed_out(100)
            )]
        );
        assert_eq!(log.entries(), ["patient"]);
    })
    .await;
}

/// A wrapped call whose `tool_call` gate times out, with the limit set per handler or as the
/// runner default.
async fn check_timed_out_gate_blocks_the_call(per_handler: bool) {
    let dir = tempfile::tempdir().unwrap();
    let log = Log::default();
    let dropped = flag();
    let results = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&results);
    let limit = ms(250);
    let hooks = vec![
        hook_in(dir.path(), "hooks/allow.rs", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult {
                block: Some(false),
                reason: None,
            });
        }),
        hook_in(dir.path(), "hooks/slow-gate.rs", |api| {
            // Would allow the call, if it ever finished.
            on_slow::<ToolCallEvent>(
                api,
                "gate",
                ms(30_000),
                per_handler.then_some(limit),
                Some(ToolCallEventResult::default()),
                &log,
                &dropped,
            );
            api.on(move |_e: &ToolResultEvent, _c: &HookContext| {
                r.fetch_add(1, Ordering::SeqCst);
            });
        }),
    ];
    let mut runner = runner_in(dir.path(), hooks);
    if !per_handler {
        runner = runner.with_default_timeout(Some(limit));
    }
    let errors = Errors::record(&runner);
    let tool = BashTool::new(dir.path());
    let started = Arc::clone(&tool.started);
    let wrapper = HookToolWrapper::new(tool, Arc::new(runner));

    let start = Instant::now();
    let outcome = wrapper
        .execute(
            "call-1",
            &input(json!({ "command": "touch ran" })),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(start.elapsed() < ms(5_000), "took {:?}", start.elapsed());
    let Err(ToolError::Hook(error)) = &outcome else {
        panic!("expected the call to be blocked by the timeout, got {outcome:?}");
    };
    assert_eq!(error.hook_path, "hooks/slow-gate.rs");
    assert_eq!(error.error.kind(), HandlerErrorKind::Timeout);
    let reason = outcome.as_ref().unwrap_err().to_string();
    assert!(
        reason.contains("hooks/slow-gate.rs") && reason.contains("250 ms"),
        "the reason names the hook and the limit: {reason}"
    );
    assert_eq!(started.load(Ordering::SeqCst), 0, "the tool must not run");
    assert!(!dir.path().join("ran").exists());
    assert_eq!(
        results.load(Ordering::SeqCst),
        0,
        "no tool_result after a block"
    );
    assert_eq!(
        errors.get(),
        [],
        "a tool_call timeout is returned, not reported"
    );
    assert!(dropped.load(Ordering::SeqCst));
    assert_eq!(log.entries(), Vec::<String>::new());
}

#[tokio::test]
async fn a_timed_out_tool_call_handler_blocks_the_wrapped_call() {
    bounded(check_timed_out_gate_blocks_the_call(true)).await;
}

#[tokio::test]
async fn a_tool_call_handler_past_the_runner_default_blocks_the_wrapped_call() {
    bounded(check_timed_out_gate_blocks_the_call(false)).await;
}

#[tokio::test]
async fn timeouts_on_other_events_are_hook_errors_and_dispatch_goes_on() {
    bounded(async {
        let log = Log::default();
        let dropped = flag();
        let limit = Some(ms(100));
        let injected = BeforeAgentStartEventResult {
            message: Some(InjectedMessage {
                custom_type: "note".to_owned(),
                content: MessageContent::Text("from the fast hook".to_owned()),
                display: false,
                details: None,
                attribution: None,
            }),
        };
        let compacting = SessionCompactingResult {
            prompt: Some("fast".to_owned()),
            ..SessionCompactingResult::default()
        };
        let overridden = ToolResultEventResult {
            content: Some(vec![Content::text("fast")]),
            ..ToolResultEventResult::default()
        };
        let (i, c, o) = (injected.clone(), compacting.clone(), overridden.clone());
        let runner = runner(vec![
            hook("hooks/slow.rs", |api| {
                on_slow::<ContextEvent>(
                    api,
                    "slow context",
                    ms(30_000),
                    limit,
                    Some(ContextEventResult {
                        messages: Some(vec![]),
                    }),
                    &log,
                    &dropped,
                );
                on_slow::<BeforeAgentStartEvent>(
                    api,
                    "slow before_agent_start",
                    ms(30_000),
                    limit,
                    Some(BeforeAgentStartEventResult {
                        message: Some(InjectedMessage {
                            custom_type: "slow".to_owned(),
                            content: MessageContent::Text("too late".to_owned()),
                            display: false,
                            details: None,
                            attribution: None,
                        }),
                    }),
                    &log,
                    &dropped,
                );
                on_slow::<SessionCompactingEvent>(
                    api,
                    "slow compacting",
                    ms(30_000),
                    limit,
                    None,
                    &log,
                    &dropped,
                );
                on_slow::<ToolResultEvent>(
                    api,
                    "slow tool_result",
                    ms(30_000),
                    limit,
                    None,
                    &log,
                    &dropped,
                );
            }),
            hook("hooks/fast.rs", move |api| {
                api.on(|e: &ContextEvent, _c: &HookContext| {
                    let mut messages = e.messages.clone();
                    messages.push(Message::user("fast"));
                    ContextEventResult {
                        messages: Some(messages),
                    }
                });
                api.on(move |_e: &BeforeAgentStartEvent, _c: &HookContext| i.clone());
                api.on(move |_e: &SessionCompactingEvent, _c: &HookContext| c.clone());
                api.on(move |_e: &ToolResultEvent, _c: &HookContext| o.clone());
            }),
        ]);
        let errors = Errors::record(&runner);

        let messages = runner.emit_context(vec![Message::user("original")]).await;
        assert_eq!(messages, [Message::user("original"), Message::user("fast")]);
        assert_eq!(
            runner.emit_before_agent_start("go", None).await,
            Some(injected)
        );
        let event = SessionCompactingEvent {
            session_id: "s".to_owned(),
            messages: vec![],
        };
        assert_eq!(runner.emit(&event).await, Some(compacting));
        let event = ToolResultEvent {
            tool_name: "bash".to_owned(),
            tool_call_id: "c1".to_owned(),
            input: serde_json::Map::new().into(),
            content: vec![Content::text("out")],
            details: None,
            is_error: Some(false),
            is_warning: None,
        };
        assert_eq!(runner.emit_tool_result(&event).await, Some(overridden));

        let t = timed_out(100);
        assert_eq!(
            errors.get(),
            [
                hook_error("hooks/slow.rs", "context", &t),
                hook_error("hooks/slow.rs", "before_agent_start", &t),
                hook_error("hooks/slow.rs", "session.compacting", &t),
                hook_error("hooks/slow.rs", "tool_result", &t),
            ]
        );
        assert_eq!(
            log.entries(),
            Vec::<String>::new(),
            "no slow handler finished"
        );
    })
    .await;
}

/// What a handler that started `bash` through `ctx.exec` left behind.
struct Started {
    pgid: i32,
    completed: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

/// Registers an async handler of `E` that runs a 30 s `bash` through `ctx.exec` (the shell
/// writes its pid, which is its process group id, to `pid_file`), with `timeout`.
fn on_exec_sleeper<E: HookEvent>(
    api: &mut HookApi,
    pid_file: &std::path::Path,
    timeout: Duration,
    completed: &Arc<AtomicBool>,
    dropped: &Arc<AtomicBool>,
) {
    let script = format!(
        "echo $$ > '{}'; sleep 30 & sleep 30; wait",
        pid_file.display()
    );
    let completed = Arc::clone(completed);
    let dropped = Arc::clone(dropped);
    api.on_handler(
        async_handler(move |_e: &E, ctx: &HookContext| {
            let script = script.clone();
            let completed = Arc::clone(&completed);
            let guard = DropFlag(Arc::clone(&dropped));
            Box::pin(async move {
                let _guard = guard;
                let _ = ctx
                    .exec("bash", &["-c".to_owned(), script], ExecOptions::default())
                    .await;
                completed.store(true, Ordering::SeqCst);
                Ok(None)
            })
        }),
        info("sleeper", Some(timeout)),
    );
}

async fn assert_process_group_killed(started: &Started) {
    assert!(
        !started.completed.load(Ordering::SeqCst),
        "the exec call never finished"
    );
    assert!(
        started.dropped.load(Ordering::SeqCst),
        "the timed-out handler's future was dropped"
    );
    let pgid = started.pgid;
    let gone = eventually(Duration::from_secs(3), || group_members(pgid).is_empty()).await;
    assert!(
        gone,
        "the processes the handler started are still alive: {:?}",
        group_members(pgid)
    );
}

#[tokio::test]
async fn a_timed_out_handler_is_dropped_and_the_process_it_exec_ed_is_killed() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let (completed, dropped) = (flag(), flag());
        let runner = runner_in(
            dir.path(),
            vec![hook_in(dir.path(), "hooks/sleeper.rs", |api| {
                on_exec_sleeper::<TurnStartEvent>(api, &pid_file, ms(1_500), &completed, &dropped);
            })],
        );
        let errors = Errors::record(&runner);
        let _ = runner.emit(&TurnStartEvent::default()).await;
        assert_eq!(
            errors.get(),
            [hook_error(
                "hooks/sleeper.rs",
                "turn_start",
                &timed_out(1_500)
            )]
        );
        let pgid = read_pid(&pid_file, Duration::ZERO)
            .await
            .expect("bash started and wrote its pid");
        assert_process_group_killed(&Started {
            pgid,
            completed,
            dropped,
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn a_timed_out_tool_call_gate_blocks_and_the_process_it_exec_ed_is_killed() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let (completed, dropped) = (flag(), flag());
        let runner = runner_in(
            dir.path(),
            vec![hook_in(dir.path(), "hooks/sleeper.rs", |api| {
                on_exec_sleeper::<ToolCallEvent>(api, &pid_file, ms(1_500), &completed, &dropped);
            })],
        );
        let tool = BashTool::new(dir.path());
        let started = Arc::clone(&tool.started);
        let wrapper = HookToolWrapper::new(tool, Arc::new(runner));
        let outcome = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "true" })),
                &CancellationToken::new(),
                None,
            )
            .await;
        let text = match &outcome {
            Err(e @ ToolError::Hook(_)) => e.to_string(),
            other => panic!("expected a block, got {other:?}"),
        };
        assert!(
            text.contains("hooks/sleeper.rs") && text.contains("1500 ms"),
            "{text}"
        );
        assert_eq!(started.load(Ordering::SeqCst), 0);
        let pgid = read_pid(&pid_file, Duration::ZERO)
            .await
            .expect("bash started and wrote its pid");
        assert_process_group_killed(&Started {
            pgid,
            completed,
            dropped,
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn custom_event_handlers_obey_the_runner_default_timeout() {
    bounded(async {
        let log = Log::default();
        let l = log.clone();
        let runner = runner(vec![
            hook("hooks/slow.rs", |api| {
                api.on_custom("deploy", |_v: &Value, _c: &HookContext| {
                    Box::pin(async {
                        tokio::time::sleep(ms(30_000)).await;
                        Ok(())
                    })
                });
            }),
            hook("hooks/next.rs", move |api| {
                api.on_custom("deploy", move |_v: &Value, _c: &HookContext| {
                    l.push("next");
                    Box::pin(async { Ok(()) })
                });
            }),
        ])
        .with_default_timeout(Some(ms(100)));
        let errors = Errors::record(&runner);
        runner.emit_custom("deploy", &json!({})).await;
        assert_eq!(log.entries(), ["next"]);
        assert_eq!(
            errors.get(),
            [hook_error("hooks/slow.rs", "deploy", &timed_out(100))]
        );
    })
    .await;
}

/// Documents a limit: a sync handler is called directly and cannot be interrupted, so no
/// timeout applies to it (`#[hook(timeout_ms = ..)]` rejects sync functions for that reason).
#[tokio::test]
async fn a_sync_handler_is_not_timed_out() {
    let log = Log::default();
    let l = log.clone();
    let runner: HookRunner = runner(vec![hook("hooks/sync.rs", move |api| {
        api.on_handler(
            Handler::<TurnStartEvent>::sync(move |_e: &TurnStartEvent, _c: &HookContext| {
                std::thread::sleep(ms(150));
                l.push("done");
            }),
            info("sync", Some(ms(10))),
        );
    })])
    .with_default_timeout(Some(ms(10)));
    let errors = Errors::record(&runner);
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert_eq!(log.entries(), ["done"]);
    assert_eq!(errors.get(), []);
}
