//! `HookRunner::emit_tool_call` (SPEC.md sections 5 and 7, SPEC-DETAILS 5.5): last result
//! wins, the first block short-circuits, handler errors propagate (no `HookError`).

use std::time::{Duration, Instant};

use crate::support::{Counter, Errors, Log, hook, runner};
use hookwright::HookContext;
use hookwright::events::{ToolCallEvent, ToolCallEventResult};
use hookwright::handler::{Handler, HandlerErrorKind, HandlerInfo};
use serde_json::json;

fn event() -> ToolCallEvent {
    ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "call-7".to_owned(),
        input: crate::support::input(json!({ "command": "ls" })),
    }
}

fn allow(reason: &str) -> ToolCallEventResult {
    ToolCallEventResult {
        block: Some(false),
        reason: Some(reason.to_owned()),
    }
}

#[tokio::test]
async fn tool_call_last_result_wins_two_hooks() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| allow("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| allow("b"));
        }),
    ]);
    assert_eq!(
        runner.emit_tool_call(&event()).await.unwrap(),
        Some(allow("b"))
    );
}

#[tokio::test]
async fn tool_call_last_result_wins_three_hooks() {
    let count = Counter::new();
    let mut hooks = Vec::new();
    for name in ["a", "b", "c"] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &ToolCallEvent, _c: &HookContext| {
                count.bump();
                allow(name)
            });
        }));
    }
    let runner = runner(hooks);
    assert_eq!(
        runner.emit_tool_call(&event()).await.unwrap(),
        Some(allow("c"))
    );
    assert_eq!(count.get(), 3);
}

#[tokio::test]
async fn tool_call_first_block_short_circuits() {
    let log = Log::new();
    let mut hooks = Vec::new();
    for (name, block) in [("a", false), ("b", true), ("c", true)] {
        let log = log.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &ToolCallEvent, _c: &HookContext| {
                log.push(name);
                ToolCallEventResult {
                    block: Some(block),
                    reason: Some(format!("reason {name}")),
                }
            });
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit_tool_call(&event()).await.unwrap().unwrap();
    assert!(result.is_block());
    assert_eq!(result.reason.as_deref(), Some("reason b"));
    assert_eq!(log.entries(), ["a", "b"], "c must not run after b blocked");
}

#[tokio::test]
async fn tool_call_block_skips_later_handlers_of_the_same_hook() {
    let log = Log::new();
    let (l1, l2) = (log.clone(), log.clone());
    let runner = runner(vec![hook("a", move |api| {
        api.on(move |_e: &ToolCallEvent, _c: &HookContext| {
            l1.push("a1");
            ToolCallEventResult::block("no")
        });
        api.on(move |_e: &ToolCallEvent, _c: &HookContext| l2.push("a2"));
    })]);
    let result = runner.emit_tool_call(&event()).await.unwrap();
    assert_eq!(result, Some(ToolCallEventResult::block("no")));
    assert_eq!(log.entries(), ["a1"]);
}

#[tokio::test]
async fn tool_call_non_block_then_none_returns_the_first_object() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| allow("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| None::<ToolCallEventResult>);
        }),
        hook("c", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {});
        }),
    ]);
    assert_eq!(
        runner.emit_tool_call(&event()).await.unwrap(),
        Some(allow("a"))
    );
}

#[tokio::test]
async fn tool_call_empty_result_is_a_result_that_does_not_block() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| allow("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult::default());
        }),
    ]);
    assert_eq!(
        runner.emit_tool_call(&event()).await.unwrap(),
        Some(ToolCallEventResult::default()),
        "`{{}}` is Some(Default) and replaces the earlier result"
    );
}

#[tokio::test]
async fn tool_call_no_handlers_returns_none() {
    let runner = runner(vec![hook("a", |_| {})]);
    assert_eq!(runner.emit_tool_call(&event()).await.unwrap(), None);
}

#[tokio::test]
async fn tool_call_handlers_receive_the_event() {
    let seen = Log::new();
    let s = seen.clone();
    let runner = runner(vec![hook("a", move |api| {
        api.on(move |e: &ToolCallEvent, _c: &HookContext| {
            s.push(format!(
                "{} {} {}",
                e.tool_name,
                e.tool_call_id,
                e.input_str("command").unwrap()
            ));
        });
    })]);
    let _ = runner.emit_tool_call(&event()).await;
    assert_eq!(seen.entries(), ["bash call-7 ls"]);
}

#[tokio::test]
async fn tool_call_err_propagates_without_hook_error_and_skips_later_handlers() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| allow("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {
                Err::<ToolCallEventResult, _>("policy service unreachable")
            });
        }),
        hook("c", move |api| {
            api.on(move |_e: &ToolCallEvent, _c: &HookContext| c.bump());
        }),
    ]);
    let errors = Errors::record(&runner);
    let err = runner.emit_tool_call(&event()).await.unwrap_err();
    assert_eq!(err.hook_path, "b");
    assert_eq!(err.error.message(), "policy service unreachable");
    assert_eq!(err.error.kind(), HandlerErrorKind::Error);
    assert_eq!(
        err.to_string(),
        "policy service unreachable",
        "rethrown as is"
    );
    assert_eq!(count.get(), 0, "later handlers are skipped");
    assert!(errors.get().is_empty(), "no HookError on tool_call");
}

#[tokio::test]
async fn tool_call_panic_propagates_without_hook_error() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on(
                |_e: &ToolCallEvent, _c: &HookContext| -> Option<ToolCallEventResult> {
                    panic!("guard crashed")
                },
            );
        }),
        hook("b", move |api| {
            api.on(move |_e: &ToolCallEvent, _c: &HookContext| c.bump());
        }),
    ]);
    let errors = Errors::record(&runner);
    let err = runner.emit_tool_call(&event()).await.unwrap_err();
    assert_eq!(err.hook_path, "a");
    assert_eq!(err.error.kind(), HandlerErrorKind::Panic);
    assert_eq!(err.error.message(), "guard crashed");
    assert!(err.to_string().contains("guard crashed"));
    assert_eq!(count.get(), 0);
    assert!(errors.get().is_empty());
}

#[tokio::test]
async fn tool_call_async_panic_propagates() {
    let runner = runner(vec![hook("async-hook", |api| {
        api.on_async(|_e: &ToolCallEvent, _c: &HookContext| {
            Box::pin(async move {
                tokio::task::yield_now().await;
                if true {
                    panic!("async guard crashed: {}", 42);
                }
                None::<ToolCallEventResult>
            })
        });
    })]);
    let err = runner.emit_tool_call(&event()).await.unwrap_err();
    assert_eq!(err.hook_path, "async-hook");
    assert_eq!(err.error.message(), "async guard crashed: 42");
}

#[tokio::test]
async fn tool_call_error_after_a_block_is_never_reached() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult::block("stop"));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| Err::<(), _>("never"));
        }),
    ]);
    assert_eq!(
        runner.emit_tool_call(&event()).await.unwrap(),
        Some(ToolCallEventResult::block("stop"))
    );
}

#[tokio::test]
async fn tool_call_handler_timeout_propagates_naming_the_hook() {
    let runner = runner(vec![hook("slow-guard", |api| {
        api.on_handler(
            Handler::boxed(|_e: &ToolCallEvent, _c: &HookContext| {
                Box::pin(async move {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                })
            }),
            HandlerInfo {
                name: "slow".into(),
                location: None,
                timeout: Some(Duration::from_millis(100)),
            },
        );
    })]);
    let errors = Errors::record(&runner);
    let started = Instant::now();
    let err = runner.emit_tool_call(&event()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err.hook_path, "slow-guard");
    assert_eq!(err.error.kind(), HandlerErrorKind::Timeout);
    assert!(err.to_string().contains("slow-guard"), "{err}");
    assert!(errors.get().is_empty());
}

#[tokio::test]
async fn tool_call_default_timeout_applies_to_async_handlers() {
    let runner = runner(vec![hook("slow-guard", |api| {
        api.on_async(|_e: &ToolCallEvent, _c: &HookContext| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
            })
        });
    })])
    .with_default_timeout(Some(Duration::from_millis(100)));
    let started = Instant::now();
    let err = runner.emit_tool_call(&event()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err.error.kind(), HandlerErrorKind::Timeout);
    assert!(err.to_string().contains("slow-guard"), "{err}");
}
