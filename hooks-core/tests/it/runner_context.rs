//! `HookRunner::emit_context` (SPEC.md section 5, SPEC-DETAILS 5.6): a chain over the
//! messages; `None` / `{messages: None}` keep, `Some(vec![])` empties, errors keep.

use crate::support::{Errors, Log, hook, hook_error, runner};
use hookwright::HookContext;
use hookwright::events::{ContextEvent, ContextEventResult, CustomMessage, Message};

fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| match m {
            Message::User(u) => u.content.to_text(),
            Message::Custom(c) => format!("custom:{}", c.custom_type),
            other => other.role().to_owned(),
        })
        .collect()
}

fn appender(name: &'static str) -> impl Fn(&ContextEvent, &HookContext) -> ContextEventResult {
    move |e: &ContextEvent, _c: &HookContext| {
        let mut messages = e.messages.clone();
        messages.push(Message::user(name));
        ContextEventResult {
            messages: Some(messages),
        }
    }
}

#[tokio::test]
async fn context_chain_each_handler_receives_previous_output_three_hooks() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(appender("a"));
        }),
        hook("b", |api| {
            api.on(appender("b1"));
            api.on(appender("b2"));
        }),
        hook("c", |api| {
            api.on(appender("c"));
        }),
    ]);
    let out = runner.emit_context(vec![Message::user("start")]).await;
    assert_eq!(texts(&out), ["start", "a", "b1", "b2", "c"]);
}

#[tokio::test]
async fn context_chain_two_hooks_filter_then_see_filtered() {
    let seen = Log::new();
    let s = seen.clone();
    let runner = runner(vec![
        hook("filter", |api| {
            api.on(|e: &ContextEvent, _c: &HookContext| ContextEventResult {
                messages: Some(
                    e.messages
                        .iter()
                        .filter(|m| m.custom_type() != Some("debug-only"))
                        .cloned()
                        .collect(),
                ),
            });
        }),
        hook("observer", move |api| {
            api.on(move |e: &ContextEvent, _c: &HookContext| {
                s.push(texts(&e.messages).join(","));
            });
        }),
    ]);
    let input = vec![
        Message::user("u1"),
        Message::Custom(CustomMessage::new("debug-only", "dbg")),
        Message::Custom(CustomMessage::new("note", "n")),
    ];
    let out = runner.emit_context(input).await;
    assert_eq!(texts(&out), ["u1", "custom:note"]);
    assert_eq!(seen.entries(), ["u1,custom:note"]);
}

#[tokio::test]
async fn context_none_keeps_previous_messages() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(appender("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ContextEvent, _c: &HookContext| None::<ContextEventResult>);
            api.on(|_e: &ContextEvent, _c: &HookContext| {});
        }),
    ]);
    let out = runner.emit_context(vec![Message::user("start")]).await;
    assert_eq!(texts(&out), ["start", "a"]);
}

#[tokio::test]
async fn context_messages_none_keeps_previous_messages() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(appender("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ContextEvent, _c: &HookContext| ContextEventResult { messages: None });
        }),
        hook("c", |api| {
            api.on(appender("c"));
        }),
    ]);
    let out = runner.emit_context(vec![Message::user("start")]).await;
    assert_eq!(texts(&out), ["start", "a", "c"]);
}

#[tokio::test]
async fn context_empty_vec_empties_the_messages() {
    let seen = Log::new();
    let s = seen.clone();
    let runner = runner(vec![
        hook("a", |api| {
            api.on(|_e: &ContextEvent, _c: &HookContext| ContextEventResult {
                messages: Some(vec![]),
            });
        }),
        hook("b", move |api| {
            api.on(move |e: &ContextEvent, _c: &HookContext| {
                s.push(e.messages.len().to_string());
            });
        }),
    ]);
    let out = runner
        .emit_context(vec![Message::user("x"), Message::user("y")])
        .await;
    assert!(out.is_empty());
    assert_eq!(
        seen.entries(),
        ["0"],
        "the next handler sees the emptied list"
    );
}

#[tokio::test]
async fn context_error_keeps_previous_messages_and_is_reported() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(appender("a"));
        }),
        hook("b", |api| {
            api.on(|_e: &ContextEvent, _c: &HookContext| {
                Err::<ContextEventResult, _>(std::io::Error::other("disk full"))
            });
        }),
        hook("c", |api| {
            api.on(appender("c"));
        }),
    ]);
    let errors = Errors::record(&runner);
    let out = runner.emit_context(vec![Message::user("start")]).await;
    assert_eq!(texts(&out), ["start", "a", "c"]);
    assert_eq!(errors.get(), [hook_error("b", "context", "disk full")]);
}

#[tokio::test]
async fn context_panic_keeps_previous_messages_and_is_reported() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on(appender("a"));
        }),
        hook("b", |api| {
            api.on(
                |_e: &ContextEvent, _c: &HookContext| -> ContextEventResult {
                    panic!("context handler exploded")
                },
            );
        }),
        hook("c", |api| {
            api.on(appender("c"));
        }),
    ]);
    let errors = Errors::record(&runner);
    let out = runner.emit_context(vec![Message::user("start")]).await;
    assert_eq!(texts(&out), ["start", "a", "c"]);
    assert_eq!(
        errors.get(),
        [hook_error("b", "context", "context handler exploded")]
    );
}

#[tokio::test]
async fn context_no_handlers_returns_the_input_unchanged() {
    let runner = runner(vec![hook("a", |_| {})]);
    let input = vec![Message::user("a"), Message::user("b")];
    assert_eq!(runner.emit_context(input.clone()).await, input);
}

#[tokio::test]
async fn context_async_handlers_chain_too() {
    let runner = runner(vec![
        hook("a", |api| {
            api.on_async(|e: &ContextEvent, _c: &HookContext| {
                let mut messages = e.messages.clone();
                Box::pin(async move {
                    tokio::task::yield_now().await;
                    messages.push(Message::user("async-a"));
                    ContextEventResult {
                        messages: Some(messages),
                    }
                })
            });
        }),
        hook("b", |api| {
            api.on(appender("b"));
        }),
    ]);
    let out = runner.emit_context(vec![]).await;
    assert_eq!(texts(&out), ["async-a", "b"]);
}
