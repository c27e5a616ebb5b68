//! `HookToolWrapper` around a real tool that runs a process (SPEC.md section 4, SPEC-DETAILS
//! section 6): tool_call -> tool -> tool_result.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{BashTool, Counter, Errors, Log, hook, input, test_host};
use hookwright::events::{
    Content, ToolCallEvent, ToolCallEventResult, ToolResultEvent, ToolResultEventResult,
};
use hookwright::tool::DEFAULT_BLOCK_REASON;
use hookwright::{
    HookContext, HookRunner, HookToolWrapper, LoadedHook, Tool, ToolError, ToolOutput,
};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

struct Setup {
    dir: TempDir,
    runner: Arc<HookRunner>,
    wrapper: HookToolWrapper<BashTool>,
}

fn setup(hooks: Vec<LoadedHook>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let runner = Arc::new(HookRunner::new(
        hooks,
        dir.path(),
        Arc::new(crate::support::TestSession::new()),
    ));
    let wrapper = HookToolWrapper::new(BashTool::new(dir.path()), Arc::clone(&runner));
    Setup {
        dir,
        runner,
        wrapper,
    }
}

async fn run(wrapper: &impl Tool, command: &str) -> Result<ToolOutput, ToolError> {
    wrapper
        .execute(
            "call-1",
            &input(json!({ "command": command })),
            &CancellationToken::new(),
            None,
        )
        .await
}

fn exists(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

/// A hook that records every tool_result event it sees and returns `result`.
fn result_recorder(
    path: &str,
    seen: &Arc<Mutex<Vec<ToolResultEvent>>>,
    result: Option<ToolResultEventResult>,
) -> LoadedHook {
    let seen = Arc::clone(seen);
    hook(path, move |api| {
        api.on(move |e: &ToolResultEvent, _c: &HookContext| {
            seen.lock().unwrap().push(e.clone());
            result.clone()
        });
    })
}

fn blocker(result: ToolCallEventResult) -> LoadedHook {
    hook("blocker", move |api| {
        api.on(move |_e: &ToolCallEvent, _c: &HookContext| result.clone());
    })
}

// ---- transparency --------------------------------------------------------------------------

#[tokio::test]
async fn wrapper_forwards_name_description_and_parameters() {
    let s = setup(vec![]);
    let inner = BashTool::new(s.dir.path());
    assert_eq!(s.wrapper.name(), "bash");
    assert_eq!(s.wrapper.description(), inner.description());
    assert_eq!(s.wrapper.parameters(), inner.parameters());
    // A wrapper is itself a Tool, so it can be wrapped again.
    let twice = HookToolWrapper::new(s.wrapper, Arc::clone(&s.runner));
    assert_eq!(twice.name(), "bash");
    assert_eq!(run(&twice, "echo hi").await.unwrap().text_content(), "hi\n");
}

#[tokio::test]
async fn wrapper_without_handlers_returns_the_tool_output_unchanged() {
    let s = setup(vec![]);
    let out = run(&s.wrapper, "echo out; echo note >&2").await.unwrap();
    assert_eq!(out.text_content(), "out\n");
    assert_eq!(out.details, Some(json!({ "exitCode": 0 })));
    assert_eq!(out.extra.get("isWarning"), Some(&Value::Bool(true)));
}

#[tokio::test]
async fn wrapper_emits_tool_call_only_when_handlers_exist() {
    // Every emission builds one context, which snapshots the model once: count those calls.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder("r", &seen, None)]);
    let (mut options, _inbox) = test_host();
    let emissions = Counter::new();
    let e = emissions.clone();
    options.get_model = Arc::new(move || {
        e.bump();
        None
    });
    s.runner.initialize(options);
    run(&s.wrapper, "true").await.unwrap();
    assert_eq!(emissions.get(), 1, "only tool_result was emitted");

    let with_call = setup(vec![
        hook("c", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {});
        }),
        result_recorder("r", &seen, None),
    ]);
    let (mut options, _inbox) = test_host();
    let e = emissions.clone();
    options.get_model = Arc::new(move || {
        e.bump();
        None
    });
    with_call.runner.initialize(options);
    run(&with_call.wrapper, "true").await.unwrap();
    assert_eq!(emissions.get(), 3, "tool_call and tool_result were emitted");
}

#[tokio::test]
async fn wrapper_tool_call_event_carries_tool_name_call_id_and_input() {
    let seen = Log::new();
    let l = seen.clone();
    let s = setup(vec![hook("h", move |api| {
        api.on(move |e: &ToolCallEvent, _c: &HookContext| {
            l.push(format!(
                "{} {} {}",
                e.tool_name,
                e.tool_call_id,
                Value::from(e.input.clone())
            ));
        });
    })]);
    run(&s.wrapper, "true").await.unwrap();
    assert_eq!(seen.entries(), [r#"bash call-1 {"command":"true"}"#]);
}

// ---- blocking ------------------------------------------------------------------------------

#[tokio::test]
async fn wrapper_block_with_reason_fails_with_the_reason_and_the_tool_does_not_run() {
    let s = setup(vec![blocker(ToolCallEventResult::block(
        "rm -rf blocked (no UI)",
    ))]);
    let err = run(&s.wrapper, "touch ran").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "rm -rf blocked (no UI)".to_owned()
        }
    );
    assert_eq!(err.to_string(), "rm -rf blocked (no UI)");
    assert!(!exists(s.dir.path(), "ran"), "the tool must not run");
}

#[tokio::test]
async fn wrapper_block_with_empty_reason_uses_the_default_reason() {
    let s = setup(vec![blocker(ToolCallEventResult {
        block: Some(true),
        reason: Some(String::new()),
    })]);
    let err = run(&s.wrapper, "touch ran").await.unwrap_err();
    assert_eq!(err.to_string(), "Tool execution was blocked by a hook");
    assert_eq!(DEFAULT_BLOCK_REASON, "Tool execution was blocked by a hook");
    assert!(!exists(s.dir.path(), "ran"));
}

#[tokio::test]
async fn wrapper_block_without_reason_uses_the_default_reason() {
    let s = setup(vec![blocker(ToolCallEventResult {
        block: Some(true),
        reason: None,
    })]);
    let err = run(&s.wrapper, "touch ran").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "Tool execution was blocked by a hook".to_owned()
        }
    );
    assert!(!exists(s.dir.path(), "ran"));
}

#[tokio::test]
async fn wrapper_non_blocking_result_lets_the_tool_run() {
    let s = setup(vec![blocker(ToolCallEventResult {
        block: Some(false),
        reason: Some("fine".to_owned()),
    })]);
    run(&s.wrapper, "touch ran").await.unwrap();
    assert!(exists(s.dir.path(), "ran"));
}

#[tokio::test]
async fn wrapper_failing_tool_call_handler_blocks_with_its_error_text() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![
        hook("policy", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {
                Err::<(), _>("policy server unreachable")
            });
        }),
        result_recorder("r", &results, None),
    ]);
    let errors = Errors::record(&s.runner);
    let err = run(&s.wrapper, "touch ran").await.unwrap_err();
    assert!(matches!(err, ToolError::Hook(_)), "{err:?}");
    assert_eq!(err.to_string(), "policy server unreachable");
    assert!(!exists(s.dir.path(), "ran"));
    assert!(
        results.lock().unwrap().is_empty(),
        "no tool_result after a failed tool_call"
    );
    assert!(
        errors.get().is_empty(),
        "tool_call errors are not HookErrors"
    );
}

#[tokio::test]
async fn wrapper_panicking_tool_call_handler_blocks() {
    let s = setup(vec![hook("crashy", |api| {
        api.on(
            |_e: &ToolCallEvent, _c: &HookContext| -> Option<ToolCallEventResult> {
                panic!("guard crashed")
            },
        );
    })]);
    let err = run(&s.wrapper, "touch ran").await.unwrap_err();
    let ToolError::Hook(hook_error) = &err else {
        panic!("expected a hook error, got {err:?}")
    };
    assert_eq!(hook_error.hook_path, "crashy");
    assert!(err.to_string().contains("guard crashed"), "{err}");
    assert!(!exists(s.dir.path(), "ran"));
}

#[tokio::test]
async fn wrapper_no_tool_result_after_a_block() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![
        blocker(ToolCallEventResult::block("no")),
        result_recorder("r", &results, None),
    ]);
    let _ = run(&s.wrapper, "touch ran").await.unwrap_err();
    assert!(results.lock().unwrap().is_empty());
    assert!(!exists(s.dir.path(), "ran"));
}

// ---- tool_result on success ----------------------------------------------------------------

#[tokio::test]
async fn wrapper_tool_result_event_describes_the_successful_run() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder("r", &results, None)]);
    let out = run(&s.wrapper, "echo hello; echo warn >&2").await.unwrap();
    let events = results.lock().unwrap().clone();
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e.tool_name, "bash");
    assert_eq!(e.tool_call_id, "call-1");
    assert_eq!(
        Value::from(e.input.clone()),
        json!({ "command": "echo hello; echo warn >&2" })
    );
    assert_eq!(e.content, vec![Content::text("hello\n")]);
    assert_eq!(e.details, Some(json!({ "exitCode": 0 })));
    assert_eq!(e.is_error, Some(false));
    assert_eq!(
        e.is_warning, None,
        "no isWarning key even when the output had one"
    );
    assert_eq!(
        out.extra.get("isWarning"),
        Some(&Value::Bool(true)),
        "no override: kept"
    );
}

#[tokio::test]
async fn wrapper_tool_result_override_replaces_content_and_details() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "redact",
        &results,
        Some(ToolResultEventResult {
            content: Some(vec![Content::text("API_KEY=[REDACTED]")]),
            details: Some(json!({ "redacted": 1 })),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo API_KEY=sk-123").await.unwrap();
    assert_eq!(out.content, vec![Content::text("API_KEY=[REDACTED]")]);
    assert_eq!(out.details, Some(json!({ "redacted": 1 })));
}

#[tokio::test]
async fn wrapper_details_only_override_keeps_the_content() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            details: Some(json!({ "annotated": true })),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo keep").await.unwrap();
    assert_eq!(out.content, vec![Content::text("keep\n")]);
    assert_eq!(out.details, Some(json!({ "annotated": true })));
}

#[tokio::test]
async fn wrapper_content_only_override_keeps_the_details() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            content: Some(vec![Content::text("replaced")]),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo original").await.unwrap();
    assert_eq!(out.content, vec![Content::text("replaced")]);
    assert_eq!(out.details, Some(json!({ "exitCode": 0 })));
}

#[tokio::test]
async fn wrapper_null_details_override_keeps_the_details() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            details: Some(Value::Null),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo x").await.unwrap();
    assert_eq!(out.details, Some(json!({ "exitCode": 0 })));
    assert_eq!(out.content, vec![Content::text("x\n")]);
}

#[tokio::test]
async fn wrapper_is_error_in_an_override_is_ignored() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            content: Some(vec![Content::text("looks bad")]),
            is_error: Some(true),
            is_warning: Some(true),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo ok")
        .await
        .expect("success stays success");
    assert_eq!(out.content, vec![Content::text("looks bad")]);
    assert!(
        out.extra.is_empty(),
        "isWarning from a handler is not applied either"
    );
}

#[tokio::test]
async fn wrapper_override_drops_extra_fields_and_no_override_keeps_them() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            details: Some(json!(1)),
            ..Default::default()
        }),
    )]);
    let out = run(&s.wrapper, "echo x; echo w >&2").await.unwrap();
    assert!(out.extra.get("isWarning").is_none(), "dropped on override");

    let kept = setup(vec![result_recorder("r", &results, None)]);
    let out = run(&kept.wrapper, "echo x; echo w >&2").await.unwrap();
    assert_eq!(out.extra.get("isWarning"), Some(&Value::Bool(true)));
}

#[tokio::test]
async fn wrapper_last_tool_result_override_wins_across_hooks() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![
        result_recorder(
            "a",
            &results,
            Some(ToolResultEventResult {
                content: Some(vec![Content::text("a")]),
                details: Some(json!("a")),
                ..Default::default()
            }),
        ),
        result_recorder(
            "b",
            &results,
            Some(ToolResultEventResult {
                content: Some(vec![Content::text("b")]),
                ..Default::default()
            }),
        ),
        result_recorder("c", &results, None),
    ]);
    let out = run(&s.wrapper, "echo tool").await.unwrap();
    assert_eq!(out.content, vec![Content::text("b")]);
    assert_eq!(
        out.details,
        Some(json!({ "exitCode": 0 })),
        "b's result replaced a's whole result; b had no details, so the tool's are kept"
    );
    let events = results.lock().unwrap().clone();
    assert_eq!(events.len(), 3);
    assert!(
        events
            .iter()
            .all(|e| e.content == vec![Content::text("tool\n")])
    );
}

#[tokio::test]
async fn wrapper_tool_result_handler_error_is_reported_and_the_output_kept() {
    let s = setup(vec![hook("bad", |api| {
        api.on(|_e: &ToolResultEvent, _c: &HookContext| {
            Err::<ToolResultEventResult, _>("redactor broke")
        });
    })]);
    let errors = Errors::record(&s.runner);
    let out = run(&s.wrapper, "echo fine").await.unwrap();
    assert_eq!(out.text_content(), "fine\n");
    assert_eq!(
        errors.get(),
        [crate::support::hook_error(
            "bad",
            "tool_result",
            "redactor broke"
        )]
    );
}

// ---- tool failure --------------------------------------------------------------------------

#[tokio::test]
async fn wrapper_tool_failure_emits_tool_result_with_is_error_and_returns_the_original_error() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder(
        "r",
        &results,
        Some(ToolResultEventResult {
            content: Some(vec![Content::text("hidden failure")]),
            ..Default::default()
        }),
    )]);
    let err = run(&s.wrapper, "echo boom >&2; exit 3").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::failed("exit code 3: boom"),
        "the original error, not the override"
    );
    let events = results.lock().unwrap().clone();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].is_error, Some(true));
    assert_eq!(events[0].content, vec![Content::text("exit code 3: boom")]);
    assert_eq!(events[0].details, None);
    assert_eq!(events[0].tool_call_id, "call-1");
}

#[tokio::test]
async fn wrapper_tool_failure_without_tool_result_handlers_returns_the_error() {
    let s = setup(vec![]);
    let err = run(&s.wrapper, "exit 9").await.unwrap_err();
    assert_eq!(err, ToolError::failed("exit code 9: "));
}

// ---- progress and cancellation -------------------------------------------------------------

#[tokio::test]
async fn wrapper_progress_updates_reach_the_caller_directly() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![
        hook("c", |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| {});
        }),
        result_recorder("r", &results, None),
    ]);
    let updates = Log::new();
    let u = updates.clone();
    let dir = s.dir.path().to_owned();
    let on_update = move |o: ToolOutput| {
        u.push(o.text_content());
        // Lets the script go on: proves updates arrive while the tool still runs.
        std::fs::write(dir.join(format!("seen-{}", o.text_content())), "").unwrap();
    };
    // The script waits (up to ~10 s) until the caller has seen its first line.
    let script = "echo one; for i in $(seq 200); do [ -f seen-one ] && break; sleep 0.05; done; \
                  [ -f seen-one ] || exit 7; echo two";
    let out = s
        .wrapper
        .execute(
            "call-1",
            &input(json!({ "command": script })),
            &CancellationToken::new(),
            Some(&on_update),
        )
        .await
        .unwrap();
    assert_eq!(updates.entries(), ["one", "two"]);
    assert_eq!(out.text_content(), "one\ntwo\n");
    assert_eq!(
        results.lock().unwrap().len(),
        1,
        "hooks see only the final result"
    );
}

#[tokio::test]
async fn wrapper_cancellation_returns_cancelled_promptly() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let s = setup(vec![result_recorder("r", &results, None)]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // Cancelled once the tool has started its process, not after a guessed delay.
    let started = Arc::clone(&s.wrapper.inner().started);
    tokio::spawn(async move {
        while started.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        trigger.cancel();
    });
    let started = Instant::now();
    let err = s
        .wrapper
        .execute(
            "call-1",
            &input(json!({ "command": "sleep 30" })),
            &cancel,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let events = results.lock().unwrap().clone();
    assert_eq!(events.len(), 1, "a cancelled call is a failed call");
    assert_eq!(events[0].is_error, Some(true));
    assert_eq!(
        events[0].content,
        vec![Content::text(ToolError::Cancelled.to_string())]
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn wrapper_cancellation_kills_the_process() {
    let s = setup(vec![]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pid_file = s.dir.path().join("pid");
    // Cancelled once the process runs (it has written its pid), not after a guessed delay.
    let watcher = {
        let pid_file = pid_file.clone();
        tokio::spawn(async move {
            for _ in 0..1000 {
                if let Ok(pid) = std::fs::read_to_string(&pid_file)
                    && let Ok(pid) = pid.trim().parse::<u32>()
                {
                    trigger.cancel();
                    return Some(pid);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            trigger.cancel();
            None
        })
    };
    let err = s
        .wrapper
        .execute(
            "call-1",
            &input(json!({ "command": "echo $$ > pid.tmp && mv pid.tmp pid; sleep 30" })),
            &cancel,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Cancelled);
    let pid = watcher.await.unwrap().expect("the process started");
    // Killed: gone, or a zombie nobody has reaped yet, within a bound (the kill is sent as the
    // call ends; the kernel may take a moment to stop it); never left running.
    let running = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let on = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']));
        on.then_some(stat)
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while running().is_some() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(running(), None, "the process still runs");
}

#[tokio::test]
async fn wrapper_with_no_handlers_hands_a_cancelled_token_to_a_tool_that_honours_it() {
    let s = setup(vec![]);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = s
        .wrapper
        .execute(
            "call-1",
            &input(json!({ "command": "touch ran" })),
            &cancel,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Cancelled);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!exists(s.dir.path(), "ran"));
}

/// With nothing listening the wrapper is out of the way, even for a token cancelled before
/// the call: the tool's own future is polled (a tool that ignores its token starts), and only
/// once it is pending does the wrapper end it. With a handler the wrapper checks first and the
/// tool's future is never polled.
#[tokio::test]
async fn wrapper_checks_a_cancelled_token_before_the_tool_only_when_hooks_listen() {
    for listening in [false, true] {
        let results = Arc::new(Mutex::new(Vec::new()));
        let hooks = if listening {
            vec![result_recorder("r", &results, None)]
        } else {
            vec![]
        };
        let dir = tempfile::tempdir().unwrap();
        let runner = Arc::new(HookRunner::new(
            hooks,
            dir.path(),
            Arc::new(crate::support::TestSession::new()),
        ));
        let tool = BashTool::ignoring_token(dir.path());
        let started = Arc::clone(&tool.started);
        let wrapper = HookToolWrapper::new(tool, runner);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let outcome = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "echo ran" })),
                &cancel,
                None,
            )
            .await;
        assert_eq!(outcome, Err(ToolError::Cancelled), "listening={listening}");
        let polled = started.load(Ordering::SeqCst);
        assert_eq!(polled, usize::from(!listening), "listening={listening}");
    }
}

#[tokio::test]
async fn wrapper_hands_hooks_and_tool_the_same_input_object() {
    // Upstream passes one input object to the tool_call handlers, the tool and the
    // tool_result handlers; the wrapper shares it the same way instead of copying it.
    let seen: Arc<Mutex<Vec<hookwright::events::ToolInput>>> = Arc::default();
    let (on_call, on_result) = (Arc::clone(&seen), Arc::clone(&seen));
    let s = setup(vec![hook("share", move |api| {
        api.on(move |e: &ToolCallEvent, _c: &HookContext| {
            on_call.lock().unwrap().push(e.input.clone());
        });
        api.on(move |e: &ToolResultEvent, _c: &HookContext| {
            on_result.lock().unwrap().push(e.input.clone());
        });
    })]);
    let given = input(json!({ "command": "true" }));
    s.wrapper
        .execute("call-1", &given, &CancellationToken::new(), None)
        .await
        .expect("the tool runs");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "one tool_call and one tool_result");
    for input in seen.iter() {
        assert!(hookwright::events::ToolInput::ptr_eq(input, &given));
    }
}

#[tokio::test]
async fn wrapper_accepts_tools_of_several_types_as_trait_objects() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::default();
    let runner = Arc::new(HookRunner::new(
        vec![result_recorder("rec", &seen, None)],
        dir.path(),
        Arc::new(crate::support::TestSession::new()),
    ));
    let tools: Vec<Arc<dyn hookwright::tool::DynTool>> = vec![Arc::new(BashTool::new(dir.path()))];
    for tool in tools {
        let wrapper = HookToolWrapper::new(tool, Arc::clone(&runner));
        assert_eq!(Tool::name(&wrapper), "bash");
        let out = run(&wrapper, "echo hi").await.expect("the tool runs");
        assert_eq!(out.text_content().trim(), "hi");
    }
    assert_eq!(seen.lock().unwrap().len(), 1, "tool_result was emitted");
}
