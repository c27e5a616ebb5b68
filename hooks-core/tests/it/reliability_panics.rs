//! Issue 7, item 1: panics never escape. A handler (sync, async while building its future,
//! async before its first await, async after an await), a custom-event handler or a command
//! that panics is a thrown error on every path: a `HookError` carrying the panic message on the
//! `emit` paths (the remaining handlers run), an `Err` naming the hook on `emit_tool_call`
//! (later handlers skipped), a blocked call in the tool wrapper (the tool never runs).
//!
//! Error listeners are the exception: a listener that panics is not caught (upstream: listener
//! exceptions propagate); the last tests document exactly what that does.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::{
    BashTool, Errors, Log, PANIC_TAG, boom, boom_opaque, hook, hook_error, hook_in, input,
    quiet_expected_panics, runner, runner_in,
};
use futures::FutureExt as _;
use hookwright::events::*;
use hookwright::handler::{BoxFuture, HandlerError, HandlerErrorKind};
use hookwright::tool::DEFAULT_BLOCK_REASON;
use hookwright::{HookApi, HookContext, HookToolWrapper, Tool, ToolError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// How a handler panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// A sync handler panics.
    Sync,
    /// An async handler panics while building its future (before returning it).
    AsyncWhileBuilding,
    /// An async handler's future panics on its first poll, before any await.
    AsyncBeforeAwait,
    /// An async handler's future panics after it was suspended at an await.
    AsyncAfterAwait,
}

const STYLES: [Style; 4] = [
    Style::Sync,
    Style::AsyncWhileBuilding,
    Style::AsyncBeforeAwait,
    Style::AsyncAfterAwait,
];

/// The async styles (custom events and commands are async only).
const ASYNC_STYLES: [Style; 3] = [
    Style::AsyncWhileBuilding,
    Style::AsyncBeforeAwait,
    Style::AsyncAfterAwait,
];

fn message(style: Style, place: &str) -> String {
    format!("{PANIC_TAG}: {style:?} handler of {place} exploded")
}

/// Registers a handler of `E` that logs `label` and then panics with `message` in `style`.
fn on_panicking<E: HookEvent>(api: &mut HookApi, style: Style, message: String, log: &Log) {
    let log = log.clone();
    match style {
        Style::Sync => {
            api.on(move |_e: &E, _c: &HookContext| {
                log.push("panicking");
                boom(&message);
            });
        }
        Style::AsyncWhileBuilding => {
            api.on_async(move |_e: &E, _c: &HookContext| -> BoxFuture<'_, ()> {
                log.push("panicking");
                boom(&message);
                Box::pin(async {})
            });
        }
        Style::AsyncBeforeAwait => {
            api.on_async(move |_e: &E, _c: &HookContext| {
                let log = log.clone();
                let message = message.clone();
                Box::pin(async move {
                    log.push("panicking");
                    boom(&message);
                    tokio::task::yield_now().await;
                })
            });
        }
        Style::AsyncAfterAwait => {
            api.on_async(move |_e: &E, _c: &HookContext| {
                let log = log.clone();
                let message = message.clone();
                Box::pin(async move {
                    log.push("panicking");
                    tokio::task::yield_now().await;
                    boom(&message);
                })
            });
        }
    }
}

/// Registers a handler of `E` that only logs `label`.
fn on_logging<E: HookEvent>(api: &mut HookApi, label: &'static str, log: &Log) {
    let log = log.clone();
    api.on(move |_e: &E, _c: &HookContext| log.push(label));
}

fn tool_call_event() -> ToolCallEvent {
    ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "call-1".to_owned(),
        input: serde_json::Map::new().into(),
    }
}

#[tokio::test]
async fn emit_reports_a_panicking_handler_and_runs_the_remaining_handlers() {
    quiet_expected_panics();
    for style in STYLES {
        let log = Log::default();
        let msg = message(style, "turn_start");
        let runner = runner(vec![
            hook("hooks/a.rs", |api| {
                on_logging::<TurnStartEvent>(api, "a1", &log);
                on_panicking::<TurnStartEvent>(api, style, msg.clone(), &log);
                on_logging::<TurnStartEvent>(api, "a3", &log);
            }),
            hook("hooks/b.rs", |api| {
                on_logging::<TurnStartEvent>(api, "b1", &log)
            }),
        ]);
        let errors = Errors::record(&runner);

        let _ = runner.emit(&TurnStartEvent::default()).await;
        assert_eq!(log.entries(), ["a1", "panicking", "a3", "b1"], "{style:?}");
        assert_eq!(
            errors.get(),
            [hook_error("hooks/a.rs", "turn_start", &msg)],
            "{style:?}"
        );

        // The runner is intact afterwards: the same emission behaves the same way again.
        let _ = runner.emit(&TurnStartEvent::default()).await;
        assert_eq!(log.entries().len(), 8, "{style:?}");
        assert_eq!(errors.get().len(), 2, "{style:?}");
    }
}

#[tokio::test]
async fn emit_of_a_cancellable_event_reports_the_panic_and_a_later_cancel_still_wins() {
    quiet_expected_panics();
    for style in STYLES {
        let log = Log::default();
        let msg = message(style, "session_before_switch");
        let runner = runner(vec![
            hook("hooks/a.rs", |api| {
                on_panicking::<SessionBeforeSwitchEvent>(api, style, msg.clone(), &log);
            }),
            hook("hooks/b.rs", |api| {
                api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                    SessionBeforeSwitchResult { cancel: Some(true) }
                });
            }),
        ]);
        let errors = Errors::record(&runner);
        let result = runner
            .emit(&SessionBeforeSwitchEvent {
                reason: SwitchReason::New,
                target_session_file: None,
            })
            .await;
        assert_eq!(
            result,
            Some(SessionBeforeSwitchResult { cancel: Some(true) }),
            "{style:?}"
        );
        assert_eq!(
            errors.get(),
            [hook_error("hooks/a.rs", "session_before_switch", &msg)],
            "{style:?}"
        );
    }
}

#[tokio::test]
async fn emit_tool_call_returns_the_panic_naming_the_hook_and_skips_later_handlers() {
    quiet_expected_panics();
    for style in STYLES {
        let log = Log::default();
        let msg = message(style, "tool_call");
        let runner = runner(vec![
            hook("hooks/a.rs", |api| {
                let l = log.clone();
                // An explicit "allow" first: a later panic must still fail the emission.
                api.on(move |_e: &ToolCallEvent, _c: &HookContext| {
                    l.push("a1");
                    ToolCallEventResult {
                        block: Some(false),
                        reason: Some("fine by me".to_owned()),
                    }
                });
                on_panicking::<ToolCallEvent>(api, style, msg.clone(), &log);
                on_logging::<ToolCallEvent>(api, "a3", &log);
            }),
            hook("hooks/b.rs", |api| {
                on_logging::<ToolCallEvent>(api, "b1", &log)
            }),
        ]);
        let errors = Errors::record(&runner);

        let error = runner
            .emit_tool_call(&tool_call_event())
            .await
            .expect_err("a panicking tool_call handler fails the emission");
        assert_eq!(error.hook_path, "hooks/a.rs", "{style:?}");
        assert_eq!(error.error.kind(), HandlerErrorKind::Panic, "{style:?}");
        assert_eq!(error.error.message(), msg, "{style:?}");
        let text = error.to_string();
        assert!(
            text.contains("hooks/a.rs") && text.contains(&msg),
            "{style:?}: {text}"
        );
        assert_eq!(
            log.entries(),
            ["a1", "panicking"],
            "{style:?}: later handlers are skipped"
        );
        assert_eq!(
            errors.get(),
            [],
            "{style:?}: tool_call errors are not reported"
        );
    }
}

#[tokio::test]
async fn wrapped_call_with_a_panicking_tool_call_handler_is_blocked_and_the_tool_never_runs() {
    quiet_expected_panics();
    for style in STYLES {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::default();
        let msg = message(style, "tool_call");
        let results = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&results);
        let runner = runner_in(
            dir.path(),
            vec![
                hook_in(dir.path(), "hooks/allow.rs", |api| {
                    api.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult {
                        block: Some(false),
                        reason: None,
                    });
                }),
                hook_in(dir.path(), "hooks/gate.rs", |api| {
                    on_panicking::<ToolCallEvent>(api, style, msg.clone(), &log);
                    api.on(move |_e: &ToolResultEvent, _c: &HookContext| {
                        r.fetch_add(1, Ordering::SeqCst);
                    });
                }),
            ],
        );
        let tool = BashTool::new(dir.path());
        let started = Arc::clone(&tool.started);
        let wrapper = HookToolWrapper::new(tool, Arc::new(runner));

        let outcome = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "touch ran" })),
                &CancellationToken::new(),
                None,
            )
            .await;
        let Err(ToolError::Hook(error)) = &outcome else {
            panic!("{style:?}: expected a hook error, got {outcome:?}");
        };
        assert_eq!(error.hook_path, "hooks/gate.rs", "{style:?}");
        let text = outcome.as_ref().unwrap_err().to_string();
        assert!(
            text.contains("hooks/gate.rs") && text.contains(&msg),
            "{style:?}: the block reason names the hook and the panic: {text}"
        );
        assert_ne!(text, DEFAULT_BLOCK_REASON);
        assert_eq!(started.load(Ordering::SeqCst), 0, "{style:?}: tool ran");
        assert!(!dir.path().join("ran").exists(), "{style:?}: tool ran");
        assert_eq!(
            results.load(Ordering::SeqCst),
            0,
            "{style:?}: no tool_result after a block"
        );
    }
}

#[tokio::test]
async fn wrapped_call_with_a_panicking_tool_result_handler_succeeds_and_reports_it() {
    quiet_expected_panics();
    for style in STYLES {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::default();
        let msg = message(style, "tool_result");
        let runner = runner_in(
            dir.path(),
            vec![hook_in(dir.path(), "hooks/redact.rs", |api| {
                api.on(
                    |_e: &ToolResultEvent, _c: &HookContext| ToolResultEventResult {
                        content: Some(vec![Content::text("redacted")]),
                        ..ToolResultEventResult::default()
                    },
                );
                on_panicking::<ToolResultEvent>(api, style, msg.clone(), &log);
            })],
        );
        let runner = Arc::new(runner);
        let errors = Errors::record(&runner);
        let wrapper = HookToolWrapper::new(BashTool::new(dir.path()), runner);
        let output = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "echo secret" })),
                &CancellationToken::new(),
                None,
            )
            .await
            .expect("a tool_result panic does not fail the call");
        assert_eq!(output.text_content(), "redacted", "{style:?}");
        assert_eq!(
            errors.get(),
            [hook_error("hooks/redact.rs", "tool_result", &msg)],
            "{style:?}"
        );
    }
}

#[tokio::test]
async fn emit_context_reports_the_panic_and_the_chain_keeps_the_previous_messages() {
    quiet_expected_panics();
    for style in STYLES {
        let log = Log::default();
        let msg = message(style, "context");
        let seen = Log::default();
        let s = seen.clone();
        let runner = runner(vec![
            hook("hooks/first.rs", |api| {
                api.on(|_e: &ContextEvent, _c: &HookContext| ContextEventResult {
                    messages: Some(vec![Message::user("from first")]),
                });
            }),
            hook("hooks/boom.rs", |api| {
                on_panicking::<ContextEvent>(api, style, msg.clone(), &log);
            }),
            hook("hooks/last.rs", |api| {
                api.on(move |e: &ContextEvent, _c: &HookContext| {
                    s.push(format!("{} messages", e.messages.len()));
                    let mut messages = e.messages.clone();
                    messages.push(Message::user("from last"));
                    ContextEventResult {
                        messages: Some(messages),
                    }
                });
            }),
        ]);
        let errors = Errors::record(&runner);
        let out = runner.emit_context(vec![Message::user("original")]).await;
        assert_eq!(
            out,
            [Message::user("from first"), Message::user("from last")],
            "{style:?}"
        );
        assert_eq!(seen.entries(), ["1 messages"], "{style:?}");
        assert_eq!(
            errors.get(),
            [hook_error("hooks/boom.rs", "context", &msg)],
            "{style:?}"
        );
    }
}

#[tokio::test]
async fn emit_before_agent_start_reports_the_panic_and_a_later_message_is_kept() {
    quiet_expected_panics();
    for style in STYLES {
        let log = Log::default();
        let msg = message(style, "before_agent_start");
        let injected = InjectedMessage {
            custom_type: "note".to_owned(),
            content: MessageContent::Text("remember".to_owned()),
            display: true,
            details: None,
            attribution: None,
        };
        let result = BeforeAgentStartEventResult {
            message: Some(injected),
        };
        let r = result.clone();
        let runner = runner(vec![
            hook("hooks/boom.rs", |api| {
                on_panicking::<BeforeAgentStartEvent>(api, style, msg.clone(), &log);
            }),
            hook("hooks/inject.rs", move |api| {
                api.on(move |_e: &BeforeAgentStartEvent, _c: &HookContext| r.clone());
            }),
        ]);
        let errors = Errors::record(&runner);
        let out = runner.emit_before_agent_start("hello", None).await;
        assert_eq!(out, Some(result), "{style:?}");
        assert_eq!(
            errors.get(),
            [hook_error("hooks/boom.rs", "before_agent_start", &msg)],
            "{style:?}"
        );
    }
}

/// Registers a custom-event handler of `name` that panics in `style`.
fn on_custom_panicking(api: &mut HookApi, name: &str, style: Style, message: String) {
    match style {
        Style::Sync | Style::AsyncWhileBuilding => {
            api.on_custom(
                name,
                move |_v: &Value, _c: &HookContext| -> BoxFuture<'_, Result<(), HandlerError>> {
                    boom(&message);
                    Box::pin(async { Ok(()) })
                },
            );
        }
        Style::AsyncBeforeAwait => {
            api.on_custom(name, move |_v: &Value, _c: &HookContext| {
                let message = message.clone();
                Box::pin(async move {
                    boom(&message);
                    tokio::task::yield_now().await;
                    Ok(())
                })
            });
        }
        Style::AsyncAfterAwait => {
            api.on_custom(name, move |_v: &Value, _c: &HookContext| {
                let message = message.clone();
                Box::pin(async move {
                    tokio::task::yield_now().await;
                    boom(&message);
                    Ok(())
                })
            });
        }
    }
}

#[tokio::test]
async fn emit_custom_reports_the_panic_and_runs_the_remaining_handlers() {
    quiet_expected_panics();
    for style in ASYNC_STYLES {
        let log = Log::default();
        let msg = message(style, "a custom event");
        let l = log.clone();
        let runner = runner(vec![
            hook("hooks/boom.rs", |api| {
                on_custom_panicking(api, "deploy", style, msg.clone());
            }),
            hook("hooks/after.rs", move |api| {
                api.on_custom("deploy", move |v: &Value, _c: &HookContext| {
                    l.push(format!("after {v}"));
                    Box::pin(async { Ok(()) })
                });
            }),
        ]);
        let errors = Errors::record(&runner);
        runner.emit_custom("deploy", &json!(7)).await;
        assert_eq!(log.entries(), ["after 7"], "{style:?}");
        assert_eq!(
            errors.get(),
            [hook_error("hooks/boom.rs", "deploy", &msg)],
            "{style:?}"
        );
    }
}

#[tokio::test]
async fn run_command_turns_a_panicking_command_into_an_error() {
    quiet_expected_panics();
    for style in ASYNC_STYLES {
        let msg = message(style, "a command");
        let m = msg.clone();
        let runner = runner(vec![hook("hooks/cmd.rs", move |api| match style {
            Style::AsyncBeforeAwait => {
                api.register_command("deploy", None, move |_args, _cc| {
                    let m = m.clone();
                    Box::pin(async move {
                        boom(&m);
                        tokio::task::yield_now().await;
                        Ok(())
                    })
                });
            }
            Style::AsyncAfterAwait => {
                api.register_command("deploy", None, move |_args, _cc| {
                    let m = m.clone();
                    Box::pin(async move {
                        tokio::task::yield_now().await;
                        boom(&m);
                        Ok(())
                    })
                });
            }
            _ => {
                api.register_command(
                    "deploy",
                    None,
                    move |_args: &str,
                          _cc: &hookwright::CommandContext|
                          -> BoxFuture<'_, Result<(), HandlerError>> {
                        boom(&m);
                        Box::pin(async { Ok(()) })
                    },
                );
            }
        })]);
        let errors = Errors::record(&runner);
        let outcome = runner.run_command("deploy", "now").await;
        let Some(Err(error)) = outcome else {
            panic!("{style:?}: expected an error, got {outcome:?}");
        };
        assert_eq!(error.kind(), HandlerErrorKind::Panic, "{style:?}");
        assert_eq!(error.message(), msg, "{style:?}");
        assert_eq!(
            errors.get(),
            [],
            "{style:?}: a command error is returned, not reported"
        );
    }
}

#[tokio::test]
async fn a_panic_with_a_non_string_payload_is_reported_too() {
    quiet_expected_panics();
    let log = Log::default();
    let l = log.clone();
    let runner = runner(vec![
        hook("hooks/odd.rs", |api| {
            api.on(|_e: &TurnEndEvent, _c: &HookContext| boom_opaque());
        }),
        hook("hooks/next.rs", move |api| {
            api.on(move |_e: &TurnEndEvent, _c: &HookContext| l.push("next"));
        }),
    ]);
    let errors = Errors::record(&runner);
    let _ = runner
        .emit(&TurnEndEvent {
            turn_index: 0,
            message: Message::user("hi"),
            tool_results: vec![],
        })
        .await;
    let errors = errors.get();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].hook_path, "hooks/odd.rs");
    assert!(
        !errors[0].error.is_empty(),
        "a non-empty message is reported"
    );
    assert_eq!(log.entries(), ["next"]);
}

// ---------------------------------------------------------------------------------------------
// Error listeners: not caught (documented behaviour).
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_panicking_error_listener_propagates_out_of_emit_and_the_runner_stays_usable() {
    quiet_expected_panics();
    let log = Log::default();
    let l = log.clone();
    let runner = runner(vec![
        hook("hooks/fails.rs", |api| {
            api.on(|_e: &AgentStartEvent, _c: &HookContext| Err::<(), _>("no config".to_owned()));
        }),
        hook("hooks/after.rs", move |api| {
            api.on(move |_e: &AgentStartEvent, _c: &HookContext| l.push("after"));
        }),
    ]);
    let before = Errors::record(&runner);
    let listener_msg = format!("{PANIC_TAG}: listener exploded");
    let m = listener_msg.clone();
    let subscription = runner.on_error(move |_e| boom(&m));
    let after = Errors::record(&runner);

    let unwound = AssertUnwindSafe(runner.emit(&AgentStartEvent::default()))
        .catch_unwind()
        .await;
    let payload = unwound.expect_err("the listener's panic propagates out of emit");
    assert_eq!(payload.downcast_ref::<String>(), Some(&listener_msg));
    // Listeners are called in subscription order: the earlier one saw the error, the later one
    // did not, and the emission stopped there (the next handler did not run).
    assert_eq!(
        before.get(),
        [hook_error("hooks/fails.rs", "agent_start", "no config")]
    );
    assert_eq!(after.get(), []);
    assert_eq!(log.entries(), Vec::<String>::new());

    // Nothing is poisoned: with the listener removed, the same emission reports and continues.
    subscription.unsubscribe();
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(log.entries(), ["after"]);
    assert_eq!(before.get().len(), 2);
    assert_eq!(after.get().len(), 1);
}

#[tokio::test]
async fn a_panicking_error_listener_does_not_affect_emit_tool_call() {
    quiet_expected_panics();
    let runner = runner(vec![hook("hooks/gate.rs", |api| {
        api.on(|_e: &ToolCallEvent, _c: &HookContext| Err::<(), _>("gate broken".to_owned()));
    })]);
    let _subscription = runner.on_error(|_e| boom(&format!("{PANIC_TAG}: listener")));
    // tool_call errors are returned, never reported, so the listener is not called.
    let error = runner.emit_tool_call(&tool_call_event()).await.unwrap_err();
    assert_eq!(error.error.message(), "gate broken");
}

#[tokio::test]
async fn a_panicking_error_listener_propagates_out_of_the_tool_wrapper_after_the_tool_ran() {
    quiet_expected_panics();
    let dir = tempfile::tempdir().unwrap();
    let runner = runner_in(
        dir.path(),
        vec![hook_in(dir.path(), "hooks/post.rs", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| {
                Err::<(), _>("post-processing failed".to_owned())
            });
        })],
    );
    let listener_msg = format!("{PANIC_TAG}: listener in wrapper");
    let m = listener_msg.clone();
    let _subscription = runner.on_error(move |_e| boom(&m));
    let wrapper = HookToolWrapper::new(BashTool::new(dir.path()), Arc::new(runner));
    let unwound = AssertUnwindSafe(wrapper.execute(
        "call-1",
        &input(json!({ "command": "touch ran" })),
        &CancellationToken::new(),
        None,
    ))
    .catch_unwind()
    .await;
    let payload = unwound.expect_err("the listener's panic propagates out of the wrapper");
    assert_eq!(payload.downcast_ref::<String>(), Some(&listener_msg));
    assert!(dir.path().join("ran").exists(), "the tool had already run");
}
