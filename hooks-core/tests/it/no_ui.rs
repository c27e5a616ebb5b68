//! `NoUi`, the no-op UI context (SPEC.md section 6, SPEC-DETAILS 4.1), and where the runner
//! uses it.

use crate::support::{Log, hook, runner, test_host};
use hookwright::events::ToolCallEvent;
use hookwright::events::ToolCallEventResult;
use hookwright::ui::{CustomUiRequest, NotifyKind};
use hookwright::{HookContext, HookUi, NoUi};
use serde_json::json;

#[tokio::test]
async fn no_ui_select_input_and_editor_resolve_none() {
    let ui = NoUi;
    assert_eq!(
        ui.select("Pick", &["a".to_owned(), "b".to_owned()]).await,
        None
    );
    assert_eq!(ui.input("Name", Some("placeholder")).await, None);
    assert_eq!(ui.input("Name", None).await, None);
    assert_eq!(ui.editor("Edit", Some("prefill")).await, None);
}

#[tokio::test]
async fn no_ui_confirm_resolves_false() {
    assert!(!NoUi.confirm("Dangerous command", "Allow: rm -rf /").await);
}

#[tokio::test]
async fn no_ui_custom_resolves_none() {
    let request = CustomUiRequest {
        kind: "picker".to_owned(),
        payload: json!({ "items": [1, 2] }),
    };
    assert_eq!(NoUi.custom(request).await, None);
}

#[tokio::test]
async fn no_ui_notify_set_status_and_set_editor_text_do_nothing() {
    let ui = NoUi;
    ui.notify("hello", NotifyKind::Warning);
    ui.set_status("key", Some("text"));
    ui.set_status("key", None);
    ui.set_editor_text("draft");
    assert_eq!(
        ui.get_editor_text(),
        "",
        "set_editor_text is not remembered"
    );
}

#[tokio::test]
async fn no_ui_get_editor_text_returns_empty_string_and_theme_is_available() {
    assert_eq!(NoUi.get_editor_text(), "");
    let theme = NoUi.theme();
    assert_eq!(theme.fg(hookwright::ui::ThemeColor::Accent, "x"), "x");
}

#[tokio::test]
async fn no_ui_is_used_before_initialize_and_has_ui_is_false() {
    // The canonical "block unsafe bash" hook: without a UI it blocks with its no-UI reason.
    let seen = Log::new();
    let s = seen.clone();
    let guard = hook("block-rm", move |api| {
        api.on_async(move |e: &ToolCallEvent, ctx: &HookContext| {
            let s = s.clone();
            Box::pin(async move {
                let command = e.input_str("command").unwrap_or_default().to_owned();
                if !command.contains("rm -rf") {
                    return None;
                }
                s.push(format!("has_ui={}", ctx.has_ui()));
                if !ctx.has_ui() {
                    return Some(ToolCallEventResult::block("rm -rf blocked (no UI)"));
                }
                let allowed = ctx
                    .ui()
                    .confirm("Dangerous command", &format!("Allow: {command}"))
                    .await;
                (!allowed).then(|| ToolCallEventResult::block("user denied command"))
            })
        });
    });
    let runner = runner(vec![guard]);
    let event = ToolCallEvent {
        tool_name: "bash".to_owned(),
        tool_call_id: "c1".to_owned(),
        input: crate::support::input(json!({ "command": "rm -rf /tmp/x" })),
    };
    let result = runner.emit_tool_call(&event).await.unwrap();
    assert_eq!(
        result,
        Some(ToolCallEventResult::block("rm -rf blocked (no UI)"))
    );
    assert!(!runner.ui_context().confirm("t", "m").await);

    // A UI that is present but a NoUi (hasUI forced true) refuses: `confirm` answers false.
    let (mut options, _inbox) = test_host();
    options.ui = Some(std::sync::Arc::new(NoUi));
    options.has_ui = Some(true);
    runner.initialize(options);
    let result = runner.emit_tool_call(&event).await.unwrap();
    assert_eq!(
        result,
        Some(ToolCallEventResult::block("user denied command"))
    );
    assert_eq!(seen.entries(), ["has_ui=false", "has_ui=true"]);
}

/// A UI that shows notifications only: it implements `notify` and nothing else.
struct NotesOnly(std::sync::Mutex<Vec<String>>);

impl HookUi for NotesOnly {
    fn notify(&self, message: &str, _kind: NotifyKind) {
        self.0.lock().unwrap().push(message.to_owned());
    }
}

#[tokio::test]
async fn a_ui_implements_only_what_it_shows_and_answers_as_no_ui_for_the_rest() {
    let ui = NotesOnly(std::sync::Mutex::new(Vec::new()));
    ui.notify("shown", NotifyKind::Info);
    assert_eq!(*ui.0.lock().unwrap(), ["shown"]);
    assert_eq!(ui.select("Pick", &["a".to_owned()]).await, None);
    assert!(!ui.confirm("Dangerous command", "Allow?").await);
    assert_eq!(ui.input("Name", Some("placeholder")).await, None);
    assert_eq!(ui.editor("Edit", Some("prefill")).await, None);
    let request = CustomUiRequest {
        kind: "picker".to_owned(),
        payload: json!([1]),
    };
    assert_eq!(ui.custom(request).await, None);
    ui.set_status("key", Some("text"));
    ui.set_editor_text("draft");
    assert_eq!(ui.get_editor_text(), "");
    assert_eq!(ui.theme(), NoUi.theme());
}
