//! `HookRunner::emit`, the generic dispatcher (SPEC.md section 5, SPEC-DETAILS 5.1, 5.3, 5.4):
//! order, `tool_result`, `session_before_*`, `session.compacting`, ignored-result events.

use crate::support::{Counter, Errors, Log, hook, runner};
use hookwright::events::*;
use hookwright::{EventKind, HookContext};
use serde_json::json;

fn tool_result_event() -> ToolResultEvent {
    ToolResultEvent {
        tool_name: "read".to_owned(),
        tool_call_id: "call-1".to_owned(),
        input: serde_json::Map::new().into(),
        content: vec![Content::text("original")],
        details: Some(json!({ "lines": 1 })),
        is_error: Some(false),
        is_warning: None,
    }
}

fn override_text(text: &str) -> ToolResultEventResult {
    ToolResultEventResult {
        content: Some(vec![Content::text(text)]),
        ..Default::default()
    }
}

fn before_switch() -> SessionBeforeSwitchEvent {
    SessionBeforeSwitchEvent {
        reason: SwitchReason::New,
        target_session_file: None,
    }
}

fn compacting_event() -> SessionCompactingEvent {
    SessionCompactingEvent {
        session_id: "s1".to_owned(),
        messages: vec![Message::user("hi")],
    }
}

// ---- order -------------------------------------------------------------------------------

#[tokio::test]
async fn handlers_run_hooks_in_load_order_then_registration_order() {
    let log = Log::new();
    let mut hooks = Vec::new();
    for h in ["a", "b", "c"] {
        let log = log.clone();
        hooks.push(hook(h, move |api| {
            for i in 1..=2 {
                let log = log.clone();
                api.on(move |_e: &TurnStartEvent, _c: &HookContext| {
                    log.push(format!("{h}{i}"));
                });
            }
        }));
    }
    let runner = runner(hooks);
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert_eq!(log.entries(), ["a1", "a2", "b1", "b2", "c1", "c2"]);
}

#[tokio::test]
async fn handlers_interleaved_across_events_keep_per_event_registration_order() {
    let log = Log::new();
    let (l1, l2, l3, l4) = (log.clone(), log.clone(), log.clone(), log.clone());
    let h = hook("h", move |api| {
        api.on(move |_e: &TurnStartEvent, _c: &HookContext| l1.push("start-1"));
        api.on(move |_e: &AgentStartEvent, _c: &HookContext| l2.push("agent-1"));
        api.on(move |_e: &TurnStartEvent, _c: &HookContext| l3.push("start-2"));
        api.on(move |_e: &AgentStartEvent, _c: &HookContext| l4.push("agent-2"));
    });
    let runner = runner(vec![h]);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert_eq!(log.entries(), ["agent-1", "agent-2", "start-1", "start-2"]);
}

#[tokio::test]
async fn handlers_async_and_sync_run_sequentially_in_order() {
    let log = Log::new();
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let h1 = hook("h1", move |api| {
        api.on_async(move |_e: &TurnStartEvent, _c: &HookContext| {
            let l1 = l1.clone();
            Box::pin(async move {
                l1.push("async-start");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                l1.push("async-end");
            })
        });
    });
    let h2 = hook("h2", move |api| {
        api.on(move |_e: &TurnStartEvent, _c: &HookContext| l2.push("sync"));
        api.on_async(move |_e: &TurnStartEvent, _c: &HookContext| {
            let l3 = l3.clone();
            Box::pin(async move { l3.push("async-2") })
        });
    });
    let runner = runner(vec![h1, h2]);
    let _ = runner.emit(&TurnStartEvent::default()).await;
    assert_eq!(
        log.entries(),
        ["async-start", "async-end", "sync", "async-2"]
    );
}

#[tokio::test]
async fn same_handler_registered_twice_runs_twice() {
    let count = Counter::new();
    let c = count.clone();
    let h = hook("h", move |api| {
        let handler = move |_e: &AgentStartEvent, _c: &HookContext| c.bump();
        api.on(handler.clone());
        api.on(handler);
    });
    let runner = runner(vec![h]);
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(count.get(), 2);
}

#[tokio::test]
async fn hook_paths_are_the_given_paths_in_load_order() {
    let runner = runner(vec![
        hook("./rel/b.rs", |_| {}),
        hook("/abs/a.rs", |_| {}),
        hook("~/c.rs", |_| {}),
    ]);
    assert_eq!(runner.hook_paths(), ["./rel/b.rs", "/abs/a.rs", "~/c.rs"]);
}

#[tokio::test]
async fn has_handlers_true_only_for_kinds_with_handlers() {
    let runner = runner(vec![
        hook("empty", |_| {}),
        hook("h", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {});
            api.on(|_e: &SessionCompactingEvent, _c: &HookContext| {});
        }),
    ]);
    for kind in EventKind::ALL {
        let expected = matches!(kind, EventKind::ToolCall | EventKind::SessionCompacting);
        assert_eq!(runner.has_handlers(*kind), expected, "{kind}");
    }
}

// ---- tool_result ---------------------------------------------------------------------------

#[tokio::test]
async fn tool_result_last_override_wins_two_hooks() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| Some(override_text("from a")));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| Some(override_text("from b")));
        }),
    ]);
    let result = runner.emit_tool_result(&tool_result_event()).await;
    assert_eq!(result, Some(override_text("from b")));
}

#[tokio::test]
async fn tool_result_last_override_wins_three_hooks_without_short_circuit() {
    let count = Counter::new();
    let mut hooks = Vec::new();
    for name in ["a", "b", "c"] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &ToolResultEvent, _c: &HookContext| {
                count.bump();
                Some(override_text(&format!("from {name}")))
            });
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit(&tool_result_event()).await;
    assert_eq!(count.get(), 3, "every handler runs");
    assert_eq!(result, Some(override_text("from c")));
}

#[tokio::test]
async fn tool_result_none_never_clears_an_earlier_override() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| Some(override_text("from a")));
        }),
        hook("b", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| None::<ToolResultEventResult>);
        }),
        hook("c", |api| {
            api.on(|_e: &ToolResultEvent, _c: &HookContext| {});
        }),
    ]);
    assert_eq!(
        runner.emit_tool_result(&tool_result_event()).await,
        Some(override_text("from a"))
    );
}

#[tokio::test]
async fn tool_result_override_is_wholesale_without_field_merge() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(
                |_e: &ToolResultEvent, _c: &HookContext| ToolResultEventResult {
                    content: Some(vec![Content::text("a")]),
                    details: Some(json!({ "from": "a" })),
                    ..Default::default()
                },
            );
        }),
        hook("b", |api| {
            api.on(
                |_e: &ToolResultEvent, _c: &HookContext| ToolResultEventResult {
                    details: Some(json!({ "from": "b" })),
                    ..Default::default()
                },
            );
        }),
    ]);
    let result = runner.emit_tool_result(&tool_result_event()).await.unwrap();
    assert_eq!(result.content, None, "b's result replaces a's whole result");
    assert_eq!(result.details, Some(json!({ "from": "b" })));
}

#[tokio::test]
async fn tool_result_later_handlers_see_the_original_event() {
    let seen = Log::new();
    let (s1, s2) = (seen.clone(), seen.clone());
    let runner = runner(vec![
        hook("a", move |api| {
            api.on(move |e: &ToolResultEvent, _c: &HookContext| {
                s1.push(e.content[0].as_text().unwrap());
                Some(override_text("changed by a"))
            });
        }),
        hook("b", move |api| {
            api.on(move |e: &ToolResultEvent, _c: &HookContext| {
                s2.push(e.content[0].as_text().unwrap());
                s2.push(e.details.as_ref().unwrap().to_string());
            });
        }),
    ]);
    let _ = runner.emit_tool_result(&tool_result_event()).await;
    assert_eq!(seen.entries(), ["original", "original", r#"{"lines":1}"#]);
}

// ---- session_before_* ----------------------------------------------------------------------

#[tokio::test]
async fn session_before_switch_last_result_tracked_two_hooks() {
    let runner =
        runner(vec![
            hook("a", |api| {
                api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                    Some(SessionBeforeSwitchResult {
                        cancel: Some(false),
                    })
                });
            }),
            hook("b", |api| {
                api.on(|_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                    SessionBeforeSwitchResult { cancel: None }
                });
            }),
        ]);
    assert_eq!(
        runner.emit(&before_switch()).await,
        Some(SessionBeforeSwitchResult { cancel: None })
    );
}

#[tokio::test]
async fn session_before_switch_cancel_short_circuits_across_hooks() {
    let log = Log::new();
    let mut hooks = Vec::new();
    for (name, cancel) in [("a", false), ("b", true), ("c", false)] {
        let log = log.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &SessionBeforeSwitchEvent, _c: &HookContext| {
                log.push(name);
                SessionBeforeSwitchResult {
                    cancel: Some(cancel),
                }
            });
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit(&before_switch()).await;
    assert_eq!(
        result,
        Some(SessionBeforeSwitchResult { cancel: Some(true) })
    );
    assert_eq!(log.entries(), ["a", "b"], "c must not run after the cancel");
}

#[tokio::test]
async fn session_before_branch_cancel_short_circuits_within_one_hook() {
    let log = Log::new();
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let runner = runner(vec![
        hook("a", move |api| {
            api.on(move |_e: &SessionBeforeBranchEvent, _c: &HookContext| {
                l1.push("a1");
                SessionBeforeBranchResult {
                    cancel: Some(true),
                    skip_conversation_restore: None,
                }
            });
            api.on(move |_e: &SessionBeforeBranchEvent, _c: &HookContext| l2.push("a2"));
        }),
        hook("b", move |api| {
            api.on(move |_e: &SessionBeforeBranchEvent, _c: &HookContext| l3.push("b1"));
        }),
    ]);
    let result = runner
        .emit(&SessionBeforeBranchEvent {
            entry_id: "e1".to_owned(),
        })
        .await;
    assert_eq!(result.unwrap().cancel, Some(true));
    assert_eq!(log.entries(), ["a1"]);
}

#[tokio::test]
async fn session_before_branch_cancel_false_does_not_short_circuit() {
    let count = Counter::new();
    let (c1, c2) = (count.clone(), count.clone());
    let runner = runner(vec![
        hook("a", move |api| {
            api.on(move |_e: &SessionBeforeBranchEvent, _c: &HookContext| {
                c1.bump();
                SessionBeforeBranchResult {
                    cancel: Some(false),
                    skip_conversation_restore: Some(true),
                }
            });
        }),
        hook("b", move |api| {
            api.on(move |_e: &SessionBeforeBranchEvent, _c: &HookContext| c2.bump());
        }),
    ]);
    let result = runner
        .emit(&SessionBeforeBranchEvent {
            entry_id: "e1".to_owned(),
        })
        .await;
    assert_eq!(count.get(), 2);
    assert_eq!(
        result,
        Some(SessionBeforeBranchResult {
            cancel: Some(false),
            skip_conversation_restore: Some(true),
        })
    );
}

#[tokio::test]
async fn session_before_compact_last_result_replaces_wholesale_three_hooks() {
    let compaction = CompactionResult {
        summary: "hook summary".to_owned(),
        short_summary: None,
        first_kept_entry_id: "e5".to_owned(),
        tokens_before: 1000,
        details: None,
        preserve_data: None,
    };
    let c = compaction.clone();
    let runner = runner(vec![
        hook("a", move |api| {
            api.on(move |_e: &SessionBeforeCompactEvent, _c: &HookContext| {
                SessionBeforeCompactResult {
                    cancel: None,
                    compaction: Some(c.clone()),
                }
            });
        }),
        hook("b", |api| {
            api.on(
                |_e: &SessionBeforeCompactEvent, _c: &HookContext| SessionBeforeCompactResult {
                    cancel: Some(false),
                    compaction: None,
                },
            );
        }),
        hook("c", |api| {
            api.on(|_e: &SessionBeforeCompactEvent, _c: &HookContext| {
                None::<SessionBeforeCompactResult>
            });
        }),
    ]);
    let event: SessionBeforeCompactEvent = serde_json::from_value(json!({
        "type": "session_before_compact",
        "preparation": { "firstKeptEntryId": "e5", "fileOps": {}, "settings": {} },
        "branchEntries": []
    }))
    .unwrap();
    let result = runner.emit(&event).await;
    assert_eq!(
        result,
        Some(SessionBeforeCompactResult {
            cancel: Some(false),
            compaction: None,
        }),
        "b's result replaces a's (no field merge); c's None does not clear it"
    );
    let _ = compaction;
}

#[tokio::test]
async fn session_before_tree_falsy_never_clears_tracked_result() {
    let summary = SessionBeforeTreeResult {
        cancel: None,
        summary: Some(TreeSummary {
            summary: "s".to_owned(),
            details: None,
        }),
    };
    let s = summary.clone();
    let errors_hook = hook("b", |api| {
        api.on(|_e: &SessionBeforeTreeEvent, _c: &HookContext| Err::<(), _>("boom"));
    });
    let runner = runner(vec![
        hook("a", move |api| {
            api.on(move |_e: &SessionBeforeTreeEvent, _c: &HookContext| s.clone());
        }),
        errors_hook,
        hook("c", |api| {
            api.on(|_e: &SessionBeforeTreeEvent, _c: &HookContext| {});
        }),
    ]);
    let errors = Errors::record(&runner);
    let event: SessionBeforeTreeEvent = serde_json::from_value(json!({
        "type": "session_before_tree",
        "preparation": {
            "targetId": "t", "oldLeafId": null, "commonAncestorId": null,
            "entriesToSummarize": [], "userWantsSummary": true
        }
    }))
    .unwrap();
    assert_eq!(runner.emit(&event).await, Some(summary));
    assert_eq!(errors.get().len(), 1);
}

#[tokio::test]
async fn session_before_cancel_in_first_hook_skips_every_later_hook() {
    let count = Counter::new();
    let mut hooks = vec![hook("a", |api| {
        api.on(
            |_e: &SessionBeforeSwitchEvent, _c: &HookContext| SessionBeforeSwitchResult {
                cancel: Some(true),
            },
        );
    })];
    for name in ["b", "c"] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &SessionBeforeSwitchEvent, _c: &HookContext| count.bump());
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit(&before_switch()).await;
    assert_eq!(
        result,
        Some(SessionBeforeSwitchResult { cancel: Some(true) })
    );
    assert_eq!(count.get(), 0);
}

// ---- session.compacting --------------------------------------------------------------------

#[tokio::test]
async fn session_compacting_last_result_wins_three_hooks() {
    let count = Counter::new();
    let mut hooks = Vec::new();
    for (name, prompt) in [("a", Some("pa")), ("b", Some("pb")), ("c", None)] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &SessionCompactingEvent, _c: &HookContext| {
                count.bump();
                prompt.map(|p| SessionCompactingResult {
                    prompt: Some(p.to_owned()),
                    ..Default::default()
                })
            });
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit(&compacting_event()).await;
    assert_eq!(count.get(), 3);
    assert_eq!(result.unwrap().prompt.as_deref(), Some("pb"));
}

#[tokio::test]
async fn session_compacting_last_wins_two_hooks_wholesale() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(
                |_e: &SessionCompactingEvent, _c: &HookContext| SessionCompactingResult {
                    context: Some(vec!["ctx a".to_owned()]),
                    prompt: Some("pa".to_owned()),
                    preserve_data: None,
                },
            );
        }),
        hook("b", |api| {
            api.on(
                |_e: &SessionCompactingEvent, _c: &HookContext| SessionCompactingResult {
                    context: Some(vec!["ctx b".to_owned()]),
                    ..Default::default()
                },
            );
        }),
    ]);
    let result = runner.emit(&compacting_event()).await.unwrap();
    assert_eq!(result.context, Some(vec!["ctx b".to_owned()]));
    assert_eq!(result.prompt, None, "no field merge with a's result");
}

#[tokio::test]
async fn session_compacting_cancel_has_no_effect() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &SessionCompactingEvent, _c: &HookContext| {
                // An upstream-shaped result carrying `cancel: true`: the field is not part of
                // the result type and does not stop the emission.
                serde_json::from_str::<SessionCompactingResult>(r#"{"cancel":true,"prompt":"pa"}"#)
                    .map(Some)
            });
        }),
        hook("b", move |api| {
            api.on(move |_e: &SessionCompactingEvent, _c: &HookContext| {
                c.bump();
                SessionCompactingResult {
                    prompt: Some("pb".to_owned()),
                    ..Default::default()
                }
            });
        }),
    ]);
    let result = runner.emit(&compacting_event()).await.unwrap();
    assert_eq!(count.get(), 1, "b runs after a's cancel");
    assert_eq!(result.prompt.as_deref(), Some("pb"));
}

// ---- events whose results are ignored -------------------------------------------------------

#[tokio::test]
async fn ignored_result_events_run_every_handler_and_return_none() {
    let count = Counter::new();
    let mut hooks = Vec::new();
    for name in ["a", "b"] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            let c = count.clone();
            api.on(move |_e: &SessionStartEvent, _c: &HookContext| c.bump());
            let c = count.clone();
            api.on(move |_e: &SessionShutdownEvent, _c: &HookContext| c.bump());
            let c = count.clone();
            api.on(move |_e: &AgentEndEvent, _c: &HookContext| c.bump());
            let c = count.clone();
            api.on(move |_e: &AutoRetryEndEvent, _c: &HookContext| c.bump());
            let c = count.clone();
            api.on(move |_e: &SessionSwitchEvent, _c: &HookContext| c.bump());
        }));
    }
    let runner = runner(hooks);
    assert!(runner.emit(&SessionStartEvent::default()).await.is_none());
    assert!(
        runner
            .emit(&SessionShutdownEvent::default())
            .await
            .is_none()
    );
    assert!(runner.emit(&AgentEndEvent::default()).await.is_none());
    assert!(
        runner
            .emit(&AutoRetryEndEvent {
                success: true,
                attempt: 1,
                final_error: None,
            })
            .await
            .is_none()
    );
    assert!(
        runner
            .emit(&SessionSwitchEvent {
                reason: SwitchReason::Resume,
                previous_session_file: None,
            })
            .await
            .is_none()
    );
    assert_eq!(count.get(), 10);
}

#[tokio::test]
async fn generic_emit_answers_the_events_own_rule_for_tool_call_context_and_before_agent_start() {
    let count = Counter::new();
    let (c1, c2, c3) = (count.clone(), count.clone(), count.clone());
    let injected = InjectedMessage {
        custom_type: "x".to_owned(),
        content: "y".into(),
        display: true,
        details: None,
        attribution: None,
    };
    let message = injected.clone();
    let runner = runner(vec![hook("a", move |api| {
        api.on(move |_e: &ToolCallEvent, _c: &HookContext| {
            c1.bump();
            ToolCallEventResult::block("answered by emit")
        });
        api.on(move |_e: &ContextEvent, _c: &HookContext| {
            c2.bump();
            ContextEventResult {
                messages: Some(vec![]),
            }
        });
        api.on(move |_e: &BeforeAgentStartEvent, _c: &HookContext| {
            c3.bump();
            BeforeAgentStartEventResult {
                message: Some(message.clone()),
            }
        });
    })]);
    let tool_call = ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c1".to_owned(),
        input: serde_json::Map::new().into(),
    };
    assert_eq!(
        runner.emit(&tool_call).await,
        Ok(Some(ToolCallEventResult::block("answered by emit")))
    );
    assert_eq!(
        runner
            .emit(&ContextEvent {
                messages: vec![Message::user("x")]
            })
            .await,
        Some(vec![]),
        "the chain's messages come back"
    );
    assert_eq!(
        runner
            .emit(&BeforeAgentStartEvent {
                prompt: "p".to_owned(),
                images: None,
            })
            .await,
        Some(BeforeAgentStartEventResult {
            message: Some(injected)
        })
    );
    assert_eq!(count.get(), 3);
}

#[tokio::test]
async fn generic_emit_of_tool_call_propagates_the_error_as_emit_tool_call_does() {
    let count = Counter::new();
    let c = count.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| Err::<(), _>("bad"));
        }),
        hook("b", move |api| {
            api.on(move |_e: &ToolCallEvent, _c: &HookContext| c.bump());
        }),
    ]);
    let errors = Errors::record(&runner);
    let tool_call = ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c1".to_owned(),
        input: serde_json::Map::new().into(),
    };
    let err = runner.emit(&tool_call).await.unwrap_err();
    assert_eq!(
        (err.hook_path.as_str(), err.to_string()),
        ("a", "bad".to_owned())
    );
    assert_eq!(runner.emit_tool_call(&tool_call).await.unwrap_err(), err);
    assert_eq!(count.get(), 0, "no later handler runs");
    assert!(errors.get().is_empty(), "nothing is reported");
}

#[tokio::test]
async fn emit_without_handlers_returns_none() {
    let runner = runner(vec![hook("a", |_| {})]);
    assert_eq!(runner.emit(&before_switch()).await, None);
    assert_eq!(runner.emit_tool_result(&tool_result_event()).await, None);
}
