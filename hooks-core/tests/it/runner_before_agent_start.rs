//! `HookRunner::emit_before_agent_start` (SPEC.md section 5, SPEC-DETAILS 5.7): the first
//! returned message is kept, later handlers still run, results without a message are ignored.

use crate::support::{Counter, Errors, Log, hook, hook_error, runner};
use hookwright::HookContext;
use hookwright::events::{
    BeforeAgentStartEvent, BeforeAgentStartEventResult, ImageContent, InjectedMessage,
};
use serde_json::json;

fn message(custom_type: &str) -> BeforeAgentStartEventResult {
    BeforeAgentStartEventResult {
        message: Some(InjectedMessage {
            custom_type: custom_type.to_owned(),
            content: format!("content of {custom_type}").into(),
            display: true,
            details: Some(json!({ "from": custom_type })),
            attribution: None,
        }),
    }
}

#[tokio::test]
async fn before_agent_start_first_message_wins_two_hooks() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("b"));
        }),
    ]);
    assert_eq!(
        runner.emit_before_agent_start("hello", None).await,
        Some(message("a"))
    );
}

#[tokio::test]
async fn before_agent_start_later_handlers_still_run_three_hooks() {
    let count = Counter::new();
    let mut hooks = Vec::new();
    for name in ["a", "b", "c"] {
        let count = count.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |_e: &BeforeAgentStartEvent, _c: &HookContext| {
                count.bump();
                message(name)
            });
        }));
    }
    let runner = runner(hooks);
    let result = runner.emit_before_agent_start("hello", None).await;
    assert_eq!(count.get(), 3, "side effects of later handlers happen");
    assert_eq!(result, Some(message("a")));
}

#[tokio::test]
async fn before_agent_start_results_without_message_are_ignored() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| {
                BeforeAgentStartEventResult::default()
            });
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| {
                None::<BeforeAgentStartEventResult>
            });
        }),
        hook("b", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("b"));
        }),
        hook("c", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("c"));
        }),
    ]);
    assert_eq!(
        runner.emit_before_agent_start("hello", None).await,
        Some(message("b"))
    );
}

#[tokio::test]
async fn before_agent_start_without_any_message_returns_none() {
    let runner = runner(vec![hook("a", |api| {
        api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| {
            BeforeAgentStartEventResult::default()
        });
    })]);
    assert_eq!(runner.emit_before_agent_start("hello", None).await, None);
    let empty = crate::support::runner(vec![]);
    assert_eq!(empty.emit_before_agent_start("hello", None).await, None);
}

#[tokio::test]
async fn before_agent_start_every_handler_gets_prompt_and_images() {
    let seen = Log::new();
    let mut hooks = Vec::new();
    for name in ["a", "b"] {
        let seen = seen.clone();
        hooks.push(hook(name, move |api| {
            api.on(move |e: &BeforeAgentStartEvent, _c: &HookContext| {
                let images = e.images.as_ref().map_or(0, Vec::len);
                seen.push(format!("{name}:{}:{images}", e.prompt));
                message(name)
            });
        }));
    }
    let runner = runner(hooks);
    let image = ImageContent {
        data: "aGVsbG8=".to_owned(),
        mime_type: "image/png".to_owned(),
        extra: serde_json::Map::new(),
    };
    let _ = runner
        .emit_before_agent_start("fix the bug", Some(vec![image]))
        .await;
    assert_eq!(seen.entries(), ["a:fix the bug:1", "b:fix the bug:1"]);
}

#[tokio::test]
async fn before_agent_start_errors_reported_and_iteration_continues() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| {
                Err::<BeforeAgentStartEventResult, _>("no memory file")
            });
        }),
        hook("b", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("b"));
        }),
    ]);
    let errors = Errors::record(&runner);
    assert_eq!(
        runner.emit_before_agent_start("p", None).await,
        Some(message("b"))
    );
    assert_eq!(
        errors.get(),
        [hook_error("a", "before_agent_start", "no memory file")]
    );
}

#[tokio::test]
async fn before_agent_start_panic_reported_and_first_message_kept() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &BeforeAgentStartEvent, _c: &HookContext| message("a"));
        }),
        hook("b", |api| {
            api.on_async(|_e: &BeforeAgentStartEvent, _c: &HookContext| {
                Box::pin(async move {
                    if true {
                        panic!("late panic");
                    }
                    message("b")
                })
            });
        }),
    ]);
    let errors = Errors::record(&runner);
    assert_eq!(
        runner.emit_before_agent_start("p", None).await,
        Some(message("a"))
    );
    assert_eq!(
        errors.get(),
        [hook_error("b", "before_agent_start", "late panic")]
    );
}
