//! Handler errors (SPEC.md section 7, SPEC-DETAILS 5.2-5.7): `Err` and panics on every emit
//! path, `HookError` contents, error listeners, timeouts.

use std::time::{Duration, Instant};

use crate::support::{Counter, Errors, Log, hook, hook_error, runner};
use hookwright::events::*;
use hookwright::handler::{Handler, HandlerError, HandlerErrorKind, HandlerInfo};
use hookwright::{HookContext, HookError};
use serde_json::json;

fn tool_call() -> ToolCallEvent {
    ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c1".to_owned(),
        input: serde_json::Map::new().into(),
    }
}

fn tool_result() -> ToolResultEvent {
    ToolResultEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c1".to_owned(),
        input: serde_json::Map::new().into(),
        content: vec![Content::text("out")],
        details: None,
        is_error: Some(false),
        is_warning: None,
    }
}

/// Panics with `message` (a helper so handler closures keep the `()` return type).
fn panics(message: &str) {
    panic!("{message}")
}

fn panic_any_u8() {
    std::panic::panic_any(42_u8)
}

fn slow_info(timeout: Option<Duration>) -> HandlerInfo {
    HandlerInfo {
        name: "slow".into(),
        location: None,
        timeout,
    }
}

#[tokio::test]
async fn a_returned_error_keeps_its_causes() {
    // `.context(..)` on an `anyhow` error: the reported text is the whole chain, so the cause
    // (here the I/O error) is not lost.
    use anyhow::Context as _;
    let runner = runner(vec![hook("hooks/config.rs", |api| {
        api.on(|_e: &TurnStartEvent, _c: &HookContext| {
            std::fs::read_to_string("/nonexistent/hooks-config.toml")
                .map(drop)
                .context("reading config")
        });
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&TurnStartEvent::default()).await;
    let errors = errors.get();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .error
            .starts_with("reading config: No such file or directory"),
        "{}",
        errors[0].error
    );
}

#[tokio::test]
async fn emit_err_is_reported_as_hook_error_and_dispatch_continues() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("hooks/first.rs", |api| {
            api.on(|_e: &TurnStartEvent, _c: &HookContext| {
                Err::<(), _>(anyhow::anyhow!("counter file missing"))
            });
        }),
        hook("hooks/second.rs", move |api| {
            api.on(move |_e: &TurnStartEvent, _c: &HookContext| c.bump());
        }),
    ]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert_eq!(count.get(), 1, "the next handler still runs");
    assert_eq!(
        errors.get(),
        [HookError {
            hook_path: "hooks/first.rs".to_owned(),
            event: "turn_start".to_owned(),
            error: "counter file missing".to_owned(),
        }]
    );
}

#[tokio::test]
async fn hook_error_names_the_hook_path_as_given_and_the_event_name() {
    let runner = runner(vec![hook("./relative/hook.rs", |api| {
        api.on(|_e: &SessionCompactingEvent, _c: &HookContext| {
            Err::<SessionCompactingResult, _>("x")
        });
    })]);
    let errors = Errors::record(&runner);
    let _ = runner
        .emit(&SessionCompactingEvent {
            session_id: "s".to_owned(),
            messages: vec![],
        })
        .await;
    assert_eq!(
        errors.get(),
        [hook_error("./relative/hook.rs", "session.compacting", "x")]
    );
}

#[tokio::test]
async fn emit_panic_is_reported_with_its_message() {
    let runner = runner(vec![hook("p", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| panics("static message"));
        api.on(|_e: &AgentStartEvent, _c: &HookContext| panics(&format!("formatted {}", 7)));
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(
        errors.get(),
        [
            hook_error("p", "agent_start", "static message"),
            hook_error("p", "agent_start", "formatted 7"),
        ]
    );
}

#[tokio::test]
async fn emit_panic_with_non_string_payload_is_reported() {
    let runner = runner(vec![hook("p", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| panic_any_u8());
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    let errors = errors.get();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].event, "agent_start");
    assert!(!errors[0].error.is_empty());
}

#[tokio::test]
async fn async_handler_panic_while_building_the_future_is_reported() {
    let runner = runner(vec![hook("p", |api| {
        api.on_async(
            |_e: &AgentStartEvent, _c: &HookContext| -> hookwright::handler::BoxFuture<'_, ()> {
                panic!("before the future")
            },
        );
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(
        errors.get(),
        [hook_error("p", "agent_start", "before the future")]
    );
}

#[tokio::test]
async fn async_handler_panic_while_polling_is_reported() {
    let runner = runner(vec![hook("p", |api| {
        api.on_async(|_e: &AgentStartEvent, _c: &HookContext| {
            Box::pin(async move {
                tokio::task::yield_now().await;
                panics("after an await");
            })
        });
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(
        errors.get(),
        [hook_error("p", "agent_start", "after an await")]
    );
}

#[tokio::test]
async fn a_panic_never_escapes_the_runner_on_any_path() {
    let runner = runner(vec![hook("p", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| panics("emit"));
        api.on(|_e: &ToolCallEvent, _c: &HookContext| panics("tool_call"));
        api.on(
            |_e: &ToolResultEvent, _c: &HookContext| -> ToolResultEventResult {
                panic!("tool_result")
            },
        );
        api.on(|_e: &ContextEvent, _c: &HookContext| panics("context"));
        api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| panics("before_agent_start"));
        api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| panics("switch"));
        api.on_custom("my_event", |_v, _c| {
            Box::pin(async move {
                panics("custom");
                Ok(())
            })
        });
        api.register_command("cmd", None, |_args, _c| {
            Box::pin(async move {
                panics("command");
                Ok(())
            })
        });
    })]);
    let errors = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert!(runner.emit_tool_call(&tool_call()).await.is_err());
    assert_eq!(runner.emit_tool_result(&tool_result()).await, None);
    assert_eq!(runner.emit_context(vec![Message::user("m")]).await.len(), 1);
    assert_eq!(runner.emit_before_agent_start("p", None).await, None);
    let _ = runner
        .emit(&SessionBeforeSwitchEvent {
            reason: SwitchReason::Fork,
            target_session_file: None,
        })
        .await;
    runner.emit_custom("my_event", &json!({})).await;
    let command = runner.run_command("cmd", "").await.unwrap().unwrap_err();
    assert_eq!(command.message(), "command");
    let reported: Vec<(String, String)> = errors
        .get()
        .into_iter()
        .map(|e| (e.event, e.error))
        .collect();
    let expected = [
        ("agent_start", "emit"),
        ("tool_result", "tool_result"),
        ("context", "context"),
        ("before_agent_start", "before_agent_start"),
        ("session_before_switch", "switch"),
        ("my_event", "custom"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(reported, expected);
}

#[tokio::test]
async fn emit_custom_err_is_reported_with_the_custom_name() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on_custom("message_start", |_v, _c| {
                Box::pin(async move { Err(HandlerError::new("no handler state")) })
            });
        }),
        hook("b", move |api| {
            api.on_custom("message_start", move |_v, _c| {
                let c = c.clone();
                Box::pin(async move {
                    c.bump();
                    Ok(())
                })
            });
        }),
    ]);
    let errors = Errors::record(&runner);
    runner
        .emit_custom("message_start", &json!({ "id": 1 }))
        .await;
    assert_eq!(count.get(), 1);
    assert_eq!(
        errors.get(),
        [hook_error("a", "message_start", "no handler state")]
    );
}

#[tokio::test]
async fn run_command_err_is_returned() {
    let runner = runner(vec![hook("a", |api| {
        api.register_command("deploy", Some("Deploys"), |args, _c| {
            let args = args.to_owned();
            Box::pin(async move { Err(HandlerError::new(format!("cannot deploy {args}"))) })
        });
    })]);
    let err = runner
        .run_command("deploy", "prod")
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.message(), "cannot deploy prod");
    assert!(runner.run_command("missing", "").await.is_none());
}

#[tokio::test]
async fn run_command_panic_is_returned_as_an_error() {
    let runner = runner(vec![hook("a", |api| {
        api.register_command(
            "boom",
            None,
            |_args, _c| -> hookwright::handler::BoxFuture<'_, _> { panic!("command built badly") },
        );
    })]);
    let err = runner.run_command("boom", "").await.unwrap().unwrap_err();
    assert_eq!(err.kind(), HandlerErrorKind::Panic);
    assert_eq!(err.message(), "command built badly");
}

#[tokio::test]
async fn on_error_unsubscribe_stops_delivery() {
    let runner = runner(vec![hook("a", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| Err::<(), _>("e"));
    })]);
    let count = Counter::new();
    let c = count.clone();
    let subscription = runner.on_error(move |_e| c.bump());
    let kept = Errors::record(&runner);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(count.get(), 1);
    subscription.unsubscribe();
    let _ = runner.emit(&AgentStartEvent::default()).await;
    let _ = runner.emit_context(vec![]).await;
    assert_eq!(count.get(), 1, "an unsubscribed listener gets nothing");
    assert_eq!(kept.get().len(), 2, "other listeners stay");
}

#[tokio::test]
async fn on_error_listeners_are_called_in_subscription_order() {
    let runner = runner(vec![hook("a", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| Err::<(), _>("e1"));
        api.on(|_e: &AgentStartEvent, _c: &HookContext| Err::<(), _>("e2"));
    })]);
    let log = Log::new();
    let mut subscriptions = Vec::new();
    for name in ["first", "second", "third"] {
        let log = log.clone();
        subscriptions.push(runner.on_error(move |e| log.push(format!("{name}:{}", e.error))));
    }
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(
        log.entries(),
        [
            "first:e1",
            "second:e1",
            "third:e1",
            "first:e2",
            "second:e2",
            "third:e2"
        ]
    );
    drop(subscriptions);
}

#[tokio::test]
async fn on_error_dropping_the_subscription_keeps_the_listener() {
    let runner = runner(vec![hook("a", |api| {
        api.on(|_e: &AgentStartEvent, _c: &HookContext| Err::<(), _>("e"));
    })]);
    let count = Counter::new();
    let c = count.clone();
    drop(runner.on_error(move |_e| c.bump()));
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn emit_error_sends_to_every_listener() {
    let runner = runner(vec![]);
    let seen = Errors::record(&runner);
    let error = hook_error("h", "custom", "text");
    runner.emit_error(&error);
    assert_eq!(seen.get(), [error]);
}

#[tokio::test]
async fn async_handler_timeout_via_handler_info_becomes_hook_error() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("slow", |api| {
            api.on_handler(
                Handler::boxed(|_e: &TurnStartEvent, _c: &HookContext| {
                    Box::pin(async move { tokio::time::sleep(Duration::from_secs(30)).await })
                }),
                slow_info(Some(Duration::from_millis(100))),
            );
        }),
        hook("next", move |api| {
            api.on(move |_e: &TurnStartEvent, _c: &HookContext| c.bump());
        }),
    ]);
    let errors = Errors::record(&runner);
    let started = Instant::now();
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(count.get(), 1, "dispatch continues after the timeout");
    let errors = errors.get();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].hook_path, "slow");
    assert_eq!(errors[0].event, "turn_start");
    assert!(errors[0].error.contains("timed out"), "{}", errors[0].error);
}

#[tokio::test]
async fn default_timeout_becomes_hook_error_on_context_and_keeps_messages() {
    let runner = runner(vec![hook("slow", |api| {
        api.on_async(|_e: &ContextEvent, _c: &HookContext| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                ContextEventResult {
                    messages: Some(vec![]),
                }
            })
        });
    })])
    .with_default_timeout(Some(Duration::from_millis(100)));
    let errors = Errors::record(&runner);
    let out = runner.emit_context(vec![Message::user("kept")]).await;
    assert_eq!(out, vec![Message::user("kept")]);
    let errors = errors.get();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].event, "context");
}

#[tokio::test]
async fn handler_own_timeout_overrides_the_default() {
    let runner = runner(vec![hook("patient", |api| {
        api.on_handler(
            Handler::boxed(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                Box::pin(async move {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    SessionBeforeSwitchResult { cancel: Some(true) }
                })
            }),
            slow_info(Some(Duration::from_secs(20))),
        );
    })])
    .with_default_timeout(Some(Duration::from_millis(20)));
    let errors = Errors::record(&runner);
    let result = runner
        .emit(&SessionBeforeSwitchEvent {
            reason: SwitchReason::New,
            target_session_file: None,
        })
        .await;
    assert_eq!(
        result,
        Some(SessionBeforeSwitchResult { cancel: Some(true) })
    );
    assert!(errors.get().is_empty());
}

#[tokio::test]
async fn no_timeout_by_default() {
    let runner = runner(vec![hook("slowish", |api| {
        api.on_async(|_e: &ToolResultEvent, _c: &HookContext| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                ToolResultEventResult {
                    details: Some(json!(1)),
                    ..Default::default()
                }
            })
        });
    })]);
    let errors = Errors::record(&runner);
    let result = runner.emit_tool_result(&tool_result()).await;
    assert_eq!(result.unwrap().details, Some(json!(1)));
    assert!(errors.get().is_empty());
}

#[tokio::test]
async fn session_before_error_then_cancel_still_short_circuits() {
    let count = Counter::new();
    let c = count.clone();
    let runner =
        runner(vec![
            hook("a", |api| {
                api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                    Err::<SessionBeforeSwitchResult, _>("broken")
                });
            }),
            hook("b", |api| {
                api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                    SessionBeforeSwitchResult { cancel: Some(true) }
                });
            }),
            hook("c", move |api| {
                api.on(move |_e: &SessionBeforeSwitchEvent, _c: &HookContext| c.bump());
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
        Some(SessionBeforeSwitchResult { cancel: Some(true) })
    );
    assert_eq!(count.get(), 0);
    assert_eq!(
        errors.get(),
        [hook_error("a", "session_before_switch", "broken")]
    );
}
