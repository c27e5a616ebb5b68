//! The test kit (`hookwright::testing`) on hooks made by hand: what it scripts and records.

use hookwright::prelude::*;
use hookwright::testing::{Asked, ScriptedUi, TestSession};
use serde_json::json;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
}

/// A hook that asks twice, notifies, sets the status line, sends a message and appends an
/// entry on every `bash` call, and blocks the call unless both answers were yes.
fn asking_hook() -> hookwright::LoadedHook {
    let mut api = HookApi::new("asking", ".");
    api.on_async(|event: &ToolCallEvent, ctx: &HookContext| {
        Box::pin(async move {
            let first = ctx.ui().confirm("first", "one?").await;
            let second = ctx.ui().confirm("second", "two?").await;
            let pick = ctx.ui().select("pick", &["a".into(), "b".into()]).await;
            ctx.ui()
                .notify(&format!("{first} {second} {pick:?}"), NotifyKind::Info);
            ctx.ui().set_status("asking", Some(&event.tool_name));
            let message = CustomMessage::new("note", "asked");
            ctx.send_message(message, SendMessageOptions::default())
                .expect("a host");
            ctx.append_entry("asked", Some(json!(second)))
                .expect("a host");
            (!(first && second)).then(|| ToolCallEventResult::block("not both"))
        })
    });
    api.finish()
}

#[test]
fn scripted_answers_come_in_order_then_the_default_and_everything_is_recorded() {
    let ui = ScriptedUi::confirming(false)
        .then_confirm([true])
        .then_select(Some("b"));
    let session = TestSession::builder()
        .hooks(vec![asking_hook()])
        .ui(ui)
        .build();
    let reason = rt().block_on(session.block_reason("bash", json!({})));
    assert_eq!(
        reason.as_deref(),
        Some("not both"),
        "the second confirm is the default"
    );
    let ui = session.ui().expect("a UI");
    assert_eq!(
        ui.asked(),
        [
            Asked::Confirm {
                title: "first".into(),
                message: "one?".into()
            },
            Asked::Confirm {
                title: "second".into(),
                message: "two?".into()
            },
            Asked::Select {
                title: "pick".into(),
                options: vec!["a".into(), "b".into()]
            },
        ]
    );
    assert_eq!(
        ui.notifications(),
        [("true false Some(\"b\")".to_owned(), NotifyKind::Info)]
    );
    assert_eq!(ui.status("asking").as_deref(), Some("bash"));
    let sent = session.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0.custom_type, "note");
    assert_eq!(
        session.entries(),
        [("asked".to_owned(), Some(json!(false)))]
    );
}

#[test]
fn a_session_without_ui_gives_the_no_op_answers_and_records_no_question() {
    let session = TestSession::builder()
        .hooks(vec![asking_hook()])
        .without_ui()
        .build();
    assert!(session.ui().is_none());
    assert!(!session.runner().has_ui());
    let reason = rt().block_on(session.block_reason("bash", json!({})));
    assert_eq!(
        reason.as_deref(),
        Some("not both"),
        "the no-op confirm says no"
    );
}

#[test]
fn a_failing_handler_stops_the_call_with_its_error() {
    let mut api = HookApi::new("failing", ".");
    api.on(|_: &ToolCallEvent, _: &HookContext| -> Result<(), String> { Err("broken".into()) });
    let session = TestSession::with_hooks(vec![api.finish()]);
    let reason = rt()
        .block_on(session.block_reason("bash", json!({})))
        .expect("stopped");
    assert!(reason.contains("broken"), "{reason}");
}

#[test]
fn commands_and_any_event_go_through_the_runner() {
    let mut api = HookApi::new("commands", ".");
    api.register_command("hi", Some("Say hi"), |args: &str, ctx: &CommandContext| {
        let text = format!("hi {args}");
        Box::pin(async move {
            ctx.ui().notify(&text, NotifyKind::Info);
            Ok(())
        })
    });
    api.on(|_: &TurnStartEvent, ctx: &HookContext| {
        ctx.ui().notify("turn", NotifyKind::Info);
    });
    let session = TestSession::with_hooks(vec![api.finish()]);
    rt().block_on(async {
        assert!(
            session
                .command("hi", "you")
                .await
                .expect("registered")
                .is_ok()
        );
        assert!(session.command("missing", "").await.is_none());
        let turn: TurnStartEvent = serde_json::from_value(json!({"turnIndex": 0, "timestamp": 0}))
            .expect("a turn_start event");
        session.emit(&turn).await;
    });
    let notes: Vec<String> = session
        .ui()
        .expect("a UI")
        .notifications()
        .into_iter()
        .map(|(text, _)| text)
        .collect();
    assert_eq!(notes, ["hi you", "turn"]);
}
