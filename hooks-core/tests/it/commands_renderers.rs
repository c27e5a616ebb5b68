//! Commands, message renderers and custom events by name (SPEC.md sections 1 and 5,
//! SPEC-DETAILS sections 2 and 5.2).

use crate::support::{Counter, Log, hook, runner};
use hookwright::events::CustomMessage;
use hookwright::handler::HandlerError;
use hookwright::ui::Theme;
use hookwright::{HookApi, HookContext, RenderOptions};
use serde_json::{Value, json};

fn command(api: &mut HookApi, name: &str, tag: &'static str, log: &Log) {
    let log = log.clone();
    api.register_command(name, Some(tag), move |args, _cc| {
        let log = log.clone();
        let args = args.to_owned();
        Box::pin(async move {
            log.push(format!("{tag}({args})"));
            Ok::<(), HandlerError>(())
        })
    });
}

fn renderer(api: &mut HookApi, custom_type: &str, tag: &'static str) {
    api.register_message_renderer(
        custom_type,
        move |m: &CustomMessage, o: RenderOptions, _t: &Theme| {
            Some(vec![format!(
                "{tag}:{}:{}",
                m.content.to_text(),
                o.expanded
            )])
        },
    );
}

fn render(runner: &hookwright::HookRunner, custom_type: &str) -> Option<Vec<String>> {
    let r = runner.get_message_renderer(custom_type)?;
    r(
        &CustomMessage::new(custom_type, "body"),
        RenderOptions { expanded: true },
        &Theme::plain(),
    )
}

#[tokio::test]
async fn get_command_first_loaded_hook_wins() {
    let log = Log::new();
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let runner = runner(vec![
        hook("a", move |api| command(api, "other", "a-other", &l1)),
        hook("b", move |api| command(api, "deploy", "b-deploy", &l2)),
        hook("c", move |api| command(api, "deploy", "c-deploy", &l3)),
    ]);
    let found = runner.get_command("deploy").unwrap();
    assert_eq!(found.description.as_deref(), Some("b-deploy"));
    runner.run_command("deploy", "x").await.unwrap().unwrap();
    assert_eq!(log.entries(), ["b-deploy(x)"]);
}

#[tokio::test]
async fn get_command_unknown_name_returns_none() {
    let log = Log::new();
    let l = log.clone();
    let runner = runner(vec![hook("a", move |api| command(api, "deploy", "a", &l))]);
    assert!(runner.get_command("Deploy").is_none());
    assert!(runner.get_command("/deploy").is_none());
    assert!(runner.run_command("nope", "").await.is_none());
}

#[tokio::test]
async fn get_registered_commands_returns_all_without_dedup_in_load_order() {
    let log = Log::new();
    let (l1, l2) = (log.clone(), log.clone());
    let runner = runner(vec![
        hook("a", move |api| {
            command(api, "zeta", "a-zeta", &l1);
            command(api, "alpha", "a-alpha", &l1);
        }),
        hook("b", move |api| {
            command(api, "alpha", "b-alpha", &l2);
            command(api, "mid", "b-mid", &l2);
        }),
    ]);
    let listed: Vec<(String, Option<String>)> = runner
        .get_registered_commands()
        .into_iter()
        .map(|c| (c.name.clone(), c.description.clone()))
        .collect();
    let expected = [
        ("zeta", "a-zeta"),
        ("alpha", "a-alpha"),
        ("alpha", "b-alpha"),
        ("mid", "b-mid"),
    ]
    .map(|(n, d)| (n.to_owned(), Some(d.to_owned())));
    assert_eq!(listed, expected);
}

#[tokio::test]
async fn register_command_same_name_in_one_hook_replaces_and_keeps_position() {
    let log = Log::new();
    let l = log.clone();
    let runner = runner(vec![hook("a", move |api| {
        command(api, "first", "v1", &l);
        command(api, "second", "second", &l);
        command(api, "first", "v2", &l);
    })]);
    let names: Vec<&str> = runner
        .get_registered_commands()
        .into_iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["first", "second"],
        "replaced in place, not appended"
    );
    assert_eq!(
        runner.get_command("first").unwrap().description.as_deref(),
        Some("v2")
    );
    runner.run_command("first", "").await.unwrap().unwrap();
    assert_eq!(log.entries(), ["v2()"]);
}

#[tokio::test]
async fn get_message_renderer_first_match_across_hooks() {
    let runner = runner(vec![
        hook("a", |api| renderer(api, "other", "a")),
        hook("b", |api| renderer(api, "note", "b")),
        hook("c", |api| renderer(api, "note", "c")),
    ]);
    assert_eq!(
        render(&runner, "note"),
        Some(vec!["b:body:true".to_owned()])
    );
    assert_eq!(
        render(&runner, "other"),
        Some(vec!["a:body:true".to_owned()])
    );
    assert!(runner.get_message_renderer("missing").is_none());
}

#[tokio::test]
async fn register_message_renderer_same_type_in_one_hook_replaces() {
    let runner = runner(vec![
        hook("a", |api| {
            renderer(api, "note", "first");
            renderer(api, "note", "second");
        }),
        hook("b", |api| renderer(api, "note", "b")),
    ]);
    assert_eq!(
        render(&runner, "note"),
        Some(vec!["second:body:true".to_owned()])
    );
}

#[tokio::test]
async fn renderer_returning_none_means_default_rendering() {
    let runner = runner(vec![hook("a", |api| {
        api.register_message_renderer(
            "quiet",
            |_m: &CustomMessage, _o: RenderOptions, _t: &Theme| None,
        );
    })]);
    assert_eq!(render(&runner, "quiet"), None);
    assert!(runner.get_message_renderer("quiet").is_some());
}

#[tokio::test]
async fn custom_event_is_dispatched_by_name_with_its_payload() {
    let log = Log::new();
    let mut hooks = Vec::new();
    for name in ["a", "b"] {
        let log = log.clone();
        hooks.push(hook(name, move |api| {
            let l = log.clone();
            api.on_custom("message_start", move |v: &Value, _c: &HookContext| {
                l.push(format!("{name}:start:{v}"));
                Box::pin(async { Ok(()) })
            });
            let l = log.clone();
            api.on_custom("message_end", move |v: &Value, _c: &HookContext| {
                l.push(format!("{name}:end:{v}"));
                Box::pin(async { Ok(()) })
            });
        }));
    }
    let runner = runner(hooks);
    assert!(runner.has_custom_handlers("message_start"));
    assert!(!runner.has_custom_handlers("message_update"));
    runner
        .emit_custom("message_start", &json!({ "id": "m1" }))
        .await;
    runner.emit_custom("message_update", &json!(1)).await;
    assert_eq!(
        log.entries(),
        [r#"a:start:{"id":"m1"}"#, r#"b:start:{"id":"m1"}"#]
    );
}

#[tokio::test]
async fn custom_event_with_a_known_event_name_does_not_run_typed_handlers() {
    let typed = Counter::new();
    let custom = Counter::new();
    let (t, c) = (typed.clone(), custom.clone());
    let runner = runner(vec![hook("a", move |api| {
        api.on(move |_e: &hookwright::events::AgentStartEvent, _c: &HookContext| t.bump());
        api.on_custom("agent_start", move |_v, _c| {
            c.bump();
            Box::pin(async { Ok(()) })
        });
    })]);
    runner.emit_custom("agent_start", &json!({})).await;
    assert_eq!((typed.get(), custom.get()), (0, 1));
    let _ = runner
        .emit(&hookwright::events::AgentStartEvent::default())
        .await;
    assert_eq!((typed.get(), custom.get()), (1, 1));
}

#[tokio::test]
async fn custom_event_handlers_run_sequentially_in_order() {
    let log = Log::new();
    let (l1, l2) = (log.clone(), log.clone());
    let runner = runner(vec![
        hook("a", move |api| {
            api.on_custom("tick", move |_v, _c| {
                let l1 = l1.clone();
                Box::pin(async move {
                    l1.push("a-start");
                    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
                    l1.push("a-end");
                    Ok(())
                })
            });
        }),
        hook("b", move |api| {
            api.on_custom("tick", move |_v, _c| {
                l2.push("b");
                Box::pin(async { Ok(()) })
            });
        }),
    ]);
    runner.emit_custom("tick", &Value::Null).await;
    assert_eq!(log.entries(), ["a-start", "a-end", "b"]);
}
