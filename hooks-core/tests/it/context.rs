//! `HookContext` / `CommandContext` and `HookRunner::initialize` (SPEC-DETAILS sections 2, 3 and
//! 5.1-5.2): capture vs late binding, one context per emission, replace-or-reset vs
//! replace-only-if-given, command defaults, `send_message` / `append_entry`.

use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use crate::support::{
    BranchHandler, Counter, Errors, Log, NavigateTreeHandler, NewSessionHandler, TestHost, TestUi,
    hook, model, runner, test_host,
};
use hookwright::api::HookSender;
use hookwright::events::*;
use hookwright::{
    DeliverAs, HookContext, HookRunner, HookUi, Model, NavigateTreeOptions, NewSessionOptions,
    SendMessageOptions, SessionActionResult,
};
use serde_json::json;

fn with_ui(mut options: TestHost, ui: Arc<TestUi>, has_ui: bool) -> TestHost {
    let ui: Arc<dyn HookUi> = ui;
    options.ui = Some(ui);
    options.has_ui = Some(has_ui);
    options
}

fn with_model(mut options: TestHost, id: &'static str) -> TestHost {
    options.get_model = Arc::new(move || Some(model(id)));
    options
}

fn counting_model(options: &mut TestHost, id: &'static str) -> Counter {
    let calls = Counter::new();
    let c = calls.clone();
    options.get_model = Arc::new(move || {
        c.bump();
        Some(model(id))
    });
    calls
}

fn cancelled(value: bool) -> SessionActionResult {
    SessionActionResult { cancelled: value }
}

// ---- capture vs late binding ---------------------------------------------------------------

#[tokio::test]
async fn ctx_ui_has_ui_and_model_are_captured_when_the_context_is_built() {
    let runner = runner(vec![]);
    let (options, _inbox) = test_host();
    runner.initialize(with_model(
        with_ui(options, TestUi::new("first"), true),
        "m1",
    ));
    let ctx = runner.create_context();

    let (options, _inbox) = test_host();
    runner.initialize(with_model(
        with_ui(options, TestUi::new("second"), false),
        "m2",
    ));

    assert_eq!(ctx.ui().theme().name, "first");
    assert!(ctx.has_ui());
    assert_eq!(ctx.model().unwrap().id, "m1");

    let fresh = runner.create_context();
    assert_eq!(fresh.ui().theme().name, "second");
    assert!(!fresh.has_ui());
    assert_eq!(fresh.model().unwrap().id, "m2");
}

#[tokio::test]
async fn ctx_agent_is_the_host_in_force_s_and_none_before_a_host_names_one() {
    let runner = runner(vec![]);
    let ctx = runner.create_context();
    assert_eq!(ctx.agent(), None, "no host yet");
    let (mut options, _inbox) = test_host();
    options.agent = Some("claude");
    runner.initialize(options);
    assert_eq!(ctx.agent(), Some("claude"), "asked at call time");
    let (options, _inbox) = test_host();
    runner.initialize(options);
    assert_eq!(
        runner.create_context().agent(),
        None,
        "a host that names none"
    );
}

#[tokio::test]
async fn ctx_is_idle_abort_and_has_queued_messages_are_late_bound() {
    let runner = runner(vec![]);
    let first_aborts = Counter::new();
    let second_aborts = Counter::new();

    let (mut options, _inbox) = test_host();
    options.is_idle = Some(Arc::new(|| false));
    options.has_queued_messages = Some(Arc::new(|| true));
    let a = first_aborts.clone();
    options.abort = Some(Arc::new(move || a.bump()));
    runner.initialize(options);

    let ctx = runner.create_context();
    assert!(!ctx.is_idle());
    assert!(ctx.has_queued_messages());

    let (mut options, _inbox) = test_host();
    options.is_idle = Some(Arc::new(|| true));
    options.has_queued_messages = Some(Arc::new(|| false));
    let b = second_aborts.clone();
    options.abort = Some(Arc::new(move || b.bump()));
    runner.initialize(options);

    assert!(ctx.is_idle(), "asked at call time");
    assert!(!ctx.has_queued_messages(), "asked at call time");
    ctx.abort();
    assert_eq!((first_aborts.get(), second_aborts.get()), (0, 1));
}

#[tokio::test]
async fn ctx_within_one_emission_keeps_captured_members_and_late_binds_the_rest() {
    let slot: Arc<OnceLock<Weak<HookRunner>>> = Arc::new(OnceLock::new());
    let (reinit, _inbox2) = test_host();
    let mut reinit = with_model(with_ui(reinit, TestUi::new("after"), false), "after");
    reinit.is_idle = Some(Arc::new(|| false));
    let seen = Log::new();

    let s = Arc::clone(&slot);
    let first = hook("reinitializer", move |api| {
        api.on(move |_e: &AgentStartEvent, _c: &HookContext| {
            let runner = s.get().unwrap().upgrade().unwrap();
            runner.initialize(reinit.clone());
        });
    });
    let l = seen.clone();
    let second = hook("observer", move |api| {
        api.on(move |_e: &AgentStartEvent, ctx: &HookContext| {
            l.push(format!(
                "ui={} has_ui={} model={} idle={}",
                ctx.ui().theme().name,
                ctx.has_ui(),
                ctx.model().unwrap().id,
                ctx.is_idle()
            ));
        });
    });
    let runner = Arc::new(runner(vec![first, second]));
    slot.set(Arc::downgrade(&runner)).unwrap();
    let (options, _inbox) = test_host();
    runner.initialize(with_model(
        with_ui(options, TestUi::new("before"), true),
        "before",
    ));

    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert_eq!(
        seen.entries(),
        ["ui=before has_ui=true model=before idle=false"]
    );
}

#[tokio::test]
async fn one_context_per_emission_shared_by_its_handlers() {
    let addresses: Arc<Mutex<Vec<(String, usize)>>> = Arc::default();
    let record = |tag: &'static str, addresses: &Arc<Mutex<Vec<(String, usize)>>>| {
        let addresses = Arc::clone(addresses);
        move |ctx: &HookContext| {
            addresses.lock().unwrap().push((
                tag.to_owned(),
                ctx.model().unwrap() as *const Model as usize,
            ));
        }
    };
    let mut hooks = Vec::new();
    for _ in 0..2 {
        let (r1, r2, r3, r4, r5, r6) = (
            record("emit", &addresses),
            record("tool_call", &addresses),
            record("tool_result", &addresses),
            record("context", &addresses),
            record("before_agent_start", &addresses),
            record("custom", &addresses),
        );
        let r6 = Arc::new(r6);
        hooks.push(hook("h", move |api| {
            api.on(move |_e: &TurnStartEvent, c: &HookContext| r1(c));
            api.on(move |_e: &ToolCallEvent, c: &HookContext| r2(c));
            api.on(move |_e: &ToolResultEvent, c: &HookContext| r3(c));
            api.on(move |_e: &ContextEvent, c: &HookContext| r4(c));
            api.on(move |_e: &BeforeAgentStartEvent, c: &HookContext| r5(c));
            api.on_custom("ping", move |_v, c| {
                r6(c);
                Box::pin(async { Ok(()) })
            });
        }));
    }
    let runner = runner(hooks);
    let (mut options, _inbox) = test_host();
    let get_model_calls = counting_model(&mut options, "m");
    runner.initialize(options);

    let _ = runner.emit(&TurnStartEvent::default()).await;
    let _ = runner
        .emit_tool_call(&ToolCallEvent {
            tool_name: "t".to_owned(),
            tool_call_id: "c".to_owned(),
            input: ToolInput::new(),
        })
        .await;
    let _ = runner
        .emit_tool_result(&ToolResultEvent {
            tool_name: "t".to_owned(),
            tool_call_id: "c".to_owned(),
            input: ToolInput::new(),
            content: vec![],
            details: None,
            is_error: Some(false),
            is_warning: None,
        })
        .await;
    let _ = runner.emit_context(vec![]).await;
    let _ = runner.emit_before_agent_start("p", None).await;
    runner.emit_custom("ping", &json!(null)).await;

    assert_eq!(
        get_model_calls.get(),
        6,
        "one context (one model snapshot) per emission"
    );
    let addresses = addresses.lock().unwrap().clone();
    assert_eq!(addresses.len(), 12);
    for pair in addresses.chunks(2) {
        assert_eq!(pair[0].0, pair[1].0, "both hooks ran for the same emission");
        assert_eq!(
            pair[0].1, pair[1].1,
            "{}: both handlers share the context",
            pair[0].0
        );
    }
}

// ---- initialize ----------------------------------------------------------------------------

#[tokio::test]
async fn initialize_resets_is_idle_wait_for_idle_abort_and_queued_when_omitted() {
    let runner = runner(vec![]);
    let aborts = Counter::new();
    let waits = Counter::new();
    let (mut options, _inbox) = test_host();
    options.is_idle = Some(Arc::new(|| false));
    options.has_queued_messages = Some(Arc::new(|| true));
    let a = aborts.clone();
    options.abort = Some(Arc::new(move || a.bump()));
    let w = waits.clone();
    options.wait_for_idle = Some(Arc::new(move || {
        w.bump();
        Box::pin(async {})
    }));
    runner.initialize(options);
    let cc = runner.create_command_context();
    cc.wait_for_idle().await;
    cc.abort();
    assert_eq!((aborts.get(), waits.get()), (1, 1));

    let (options, _inbox) = test_host();
    runner.initialize(options);
    let ctx = runner.create_command_context();
    assert!(ctx.is_idle(), "reset to the default `true`");
    assert!(!ctx.has_queued_messages(), "reset to the default `false`");
    ctx.abort();
    ctx.wait_for_idle().await;
    assert_eq!((aborts.get(), waits.get()), (1, 1), "reset to no-ops");
}

#[tokio::test]
async fn initialize_keeps_new_session_branch_and_navigate_tree_when_omitted() {
    let runner = runner(vec![]);
    let calls = Log::new();
    let (mut options, _inbox) = test_host();
    let l = calls.clone();
    let new_session: NewSessionHandler = Arc::new(move |o: NewSessionOptions| {
        l.push(format!("new_session parent={:?}", o.parent_session));
        Box::pin(async { SessionActionResult { cancelled: true } })
    });
    let l = calls.clone();
    let branch: BranchHandler = Arc::new(move |id: String| {
        l.push(format!("branch {id}"));
        Box::pin(async { SessionActionResult { cancelled: true } })
    });
    let l = calls.clone();
    let navigate: NavigateTreeHandler = Arc::new(move |id: String, o: NavigateTreeOptions| {
        l.push(format!("navigate {id} summarize={}", o.summarize));
        Box::pin(async { SessionActionResult { cancelled: true } })
    });
    options.new_session = Some(new_session);
    options.branch = Some(branch);
    options.navigate_tree = Some(navigate);
    runner.initialize(options);

    let (options, _inbox) = test_host();
    runner.initialize(options);

    let cc = runner.create_command_context();
    let parent = NewSessionOptions {
        parent_session: Some("/s/parent.jsonl".to_owned()),
        setup: None,
    };
    assert_eq!(cc.new_session(parent).await, cancelled(true));
    assert_eq!(cc.branch("e42").await, cancelled(true));
    assert_eq!(
        cc.navigate_tree("t7", NavigateTreeOptions { summarize: true })
            .await,
        cancelled(true)
    );
    assert_eq!(
        calls.entries(),
        [
            "new_session parent=Some(\"/s/parent.jsonl\")",
            "branch e42",
            "navigate t7 summarize=true"
        ]
    );
}

#[tokio::test]
async fn initialize_replaces_given_session_handlers() {
    let runner = runner(vec![]);
    let (mut options, _inbox) = test_host();
    options.branch = Some(Arc::new(|_id: String| {
        Box::pin(async { SessionActionResult { cancelled: true } })
    }));
    runner.initialize(options);
    let (mut options, _inbox) = test_host();
    options.branch = Some(Arc::new(|_id: String| {
        Box::pin(async { SessionActionResult { cancelled: false } })
    }));
    runner.initialize(options);
    assert_eq!(
        runner.create_command_context().branch("e").await,
        cancelled(false)
    );
}

#[tokio::test]
async fn initialize_without_ui_installs_a_no_op_ui_and_has_ui_false() {
    let runner = runner(vec![]);
    let (options, _inbox) = test_host();
    runner.initialize(with_ui(options, TestUi::new("tui"), true));
    assert!(runner.has_ui());
    assert_eq!(runner.ui_context().theme().name, "tui");

    let (options, _inbox) = test_host();
    runner.initialize(options);
    assert!(!runner.has_ui());
    let ctx = runner.create_context();
    assert!(!ctx.has_ui());
    assert!(!ctx.ui().confirm("t", "m").await);
    assert_eq!(ctx.ui().get_editor_text(), "");
    assert_eq!(ctx.ui().input("t", None).await, None);
}

#[tokio::test]
async fn initialize_replaces_get_model() {
    let runner = runner(vec![]);
    let (options, _inbox) = test_host();
    runner.initialize(with_model(options, "m1"));
    assert_eq!(runner.create_context().model().unwrap().id, "m1");
    let (options, _inbox) = test_host();
    runner.initialize(options);
    assert_eq!(runner.create_context().model(), None);
}

#[tokio::test]
async fn runner_before_initialize_has_the_default_state() {
    let runner = runner(vec![]);
    assert!(!runner.has_ui());
    let ctx = runner.create_context();
    assert!(!ctx.has_ui());
    assert_eq!(ctx.model(), None);
    assert!(ctx.is_idle());
    assert!(!ctx.has_queued_messages());
    ctx.abort();
    assert!(!ctx.ui().confirm("t", "m").await);
    assert_eq!(ctx.cwd(), crate::support::cwd());
    assert_eq!(ctx.session_manager().session_id(), "test-session");
}

#[tokio::test]
async fn ctx_cwd_and_session_manager_are_the_runner_constructor_values() {
    let seen = Log::new();
    let s = seen.clone();
    let h = hook("h", move |api| {
        api.on(move |_e: &SessionStartEvent, ctx: &HookContext| {
            s.push(format!(
                "{} {} {:?}",
                ctx.cwd().display(),
                ctx.session_manager().session_id(),
                ctx.session_manager().session_file()
            ));
        });
    });
    let session = crate::support::TestSession {
        id: "abc".to_owned(),
        ..crate::support::TestSession::new()
    };
    let runner = HookRunner::new(vec![h], "/elsewhere", Arc::new(session));
    let _ = runner.emit(&SessionStartEvent::default()).await;
    assert_eq!(
        seen.entries(),
        ["/elsewhere abc Some(\"/sessions/test-session.jsonl\")"]
    );
}

// ---- command context -----------------------------------------------------------------------

#[tokio::test]
async fn command_context_defaults_cancelled_false_and_wait_for_idle_resolves() {
    let runner = runner(vec![]);
    let cc = runner.create_command_context();
    assert_eq!(
        cc.new_session(NewSessionOptions::default()).await,
        cancelled(false)
    );
    assert_eq!(cc.branch("e1").await, cancelled(false));
    assert_eq!(
        cc.navigate_tree("e1", NavigateTreeOptions::default()).await,
        cancelled(false)
    );
    tokio::time::timeout(Duration::from_secs(5), cc.wait_for_idle())
        .await
        .expect("wait_for_idle resolves at once by default");

    // Still the defaults after an initialize that gives none of them.
    let (options, _inbox) = test_host();
    runner.initialize(options);
    let cc = runner.create_command_context();
    assert_eq!(cc.branch("e1").await, cancelled(false));
}

#[tokio::test]
async fn command_context_captures_ui_has_ui_and_model_when_created() {
    let runner = runner(vec![]);
    let (options, _inbox) = test_host();
    runner.initialize(with_model(
        with_ui(options, TestUi::new("old"), true),
        "m-old",
    ));
    let cc = runner.create_command_context();
    let (mut options, _inbox) = test_host();
    options.is_idle = Some(Arc::new(|| false));
    runner.initialize(with_model(options, "m-new"));
    assert_eq!(cc.ui().theme().name, "old");
    assert!(cc.has_ui());
    assert_eq!(cc.model().unwrap().id, "m-old");
    assert!(!cc.is_idle(), "late-bound");
    let fresh = runner.create_command_context();
    assert_eq!(fresh.model().unwrap().id, "m-new");
    assert!(!fresh.has_ui());
}

#[tokio::test]
async fn command_context_methods_use_the_host_functions_current_at_call_time() {
    let runner = runner(vec![]);
    let cc = runner.create_command_context();
    let waits = Counter::new();
    let (mut options, _inbox) = test_host();
    let w = waits.clone();
    options.wait_for_idle = Some(Arc::new(move || {
        w.bump();
        Box::pin(async {})
    }));
    options.new_session = Some(Arc::new(|o: NewSessionOptions| {
        let has_setup = o.setup.is_some();
        Box::pin(async move {
            SessionActionResult {
                cancelled: has_setup,
            }
        })
    }));
    runner.initialize(options);
    cc.wait_for_idle().await;
    assert_eq!(waits.get(), 1);
    let with_setup = NewSessionOptions {
        parent_session: None,
        setup: Some(Box::new(|_writer| Box::pin(async { Ok(()) }))),
    };
    assert_eq!(cc.new_session(with_setup).await, cancelled(true));
}

#[tokio::test]
async fn command_handler_receives_args_and_a_command_context() {
    let seen = Log::new();
    let s = seen.clone();
    let runner = runner(vec![hook("h", move |api| {
        api.register_command("handoff", Some("hand off"), move |args, cc| {
            let s = s.clone();
            let args = args.to_owned();
            Box::pin(async move {
                cc.wait_for_idle().await;
                let r = cc
                    .new_session(NewSessionOptions {
                        parent_session: cc
                            .session_manager()
                            .session_file()
                            .map(|p| p.display().to_string()),
                        setup: None,
                    })
                    .await;
                s.push(format!("{args} cancelled={}", r.cancelled));
                Ok(())
            })
        });
    })]);
    let parents = Log::new();
    let (mut options, _inbox) = test_host();
    let p = parents.clone();
    options.new_session = Some(Arc::new(move |o: NewSessionOptions| {
        p.push(o.parent_session.unwrap_or_default());
        Box::pin(async { SessionActionResult { cancelled: false } })
    }));
    runner.initialize(options);
    runner
        .run_command("handoff", "now please")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.entries(), ["now please cancelled=false"]);
    assert_eq!(parents.entries(), ["/sessions/test-session.jsonl"]);
}

// ---- send_message / append_entry -----------------------------------------------------------

const SEND_ERR: &str = "sendMessage handler not initialized";
const APPEND_ERR: &str = "appendEntry handler not initialized";

#[tokio::test]
async fn send_message_before_initialize_fails_with_the_exact_text() {
    let mut api = hookwright::HookApi::new("h", crate::support::cwd());
    let message = CustomMessage::new("note", "hello");
    let err = api
        .send_message(message.clone(), SendMessageOptions::default())
        .unwrap_err();
    assert_eq!(err.to_string(), SEND_ERR);
    let sender: HookSender = api.sender();
    assert!(
        format!("{sender:?}").contains("send_message: false"),
        "{sender:?}"
    );
    api.on(|_e: &AgentStartEvent, _c: &HookContext| {});
    let runner = runner(vec![api.finish()]);
    let err = sender
        .send_message(message.clone(), SendMessageOptions::default())
        .unwrap_err();
    assert_eq!(err.to_string(), SEND_ERR);
    let err = runner
        .create_context()
        .send_message(message, SendMessageOptions::default())
        .unwrap_err();
    assert_eq!(err.to_string(), SEND_ERR);
}

#[tokio::test]
async fn append_entry_before_initialize_fails_with_the_exact_text() {
    let api = hookwright::HookApi::new("h", crate::support::cwd());
    assert_eq!(
        api.append_entry("state", None).unwrap_err().to_string(),
        APPEND_ERR
    );
    let sender = api.sender();
    let runner = runner(vec![api.finish()]);
    assert_eq!(
        sender
            .append_entry("state", Some(json!(1)))
            .unwrap_err()
            .to_string(),
        APPEND_ERR
    );
    assert_eq!(
        runner
            .create_context()
            .append_entry("state", None)
            .unwrap_err()
            .to_string(),
        APPEND_ERR
    );
}

#[tokio::test]
async fn send_message_after_initialize_reaches_the_host_unchanged() {
    let slot: Arc<OnceLock<HookSender>> = Arc::new(OnceLock::new());
    let s = Arc::clone(&slot);
    let mut message = CustomMessage::new("note", "from handler");
    message.details = Some(json!({ "k": [1, 2] }));
    message.attribution = Some(Attribution::Agent);
    message.display = false;
    let m = message.clone();
    let options = SendMessageOptions {
        trigger_turn: Some(true),
        deliver_as: Some(DeliverAs::FollowUp),
    };
    let h = hook("h", move |api| {
        assert!(s.set(api.sender()).is_ok());
        api.on(move |_e: &AgentStartEvent, ctx: &HookContext| ctx.send_message(m.clone(), options));
    });
    let runner = runner(vec![h]);
    let errors = Errors::record(&runner);
    let (init, inbox) = test_host();
    runner.initialize(init);

    slot.get()
        .unwrap()
        .send_message(message.clone(), SendMessageOptions::default())
        .unwrap();
    let _ = runner.emit(&AgentStartEvent::default()).await;
    assert!(errors.get().is_empty());
    let received = inbox.messages.lock().unwrap().clone();
    assert_eq!(
        received,
        [
            (message.clone(), SendMessageOptions::default()),
            (message, options)
        ]
    );
}

#[tokio::test]
async fn append_entry_after_initialize_reaches_the_host_unchanged() {
    let api = hookwright::HookApi::new("h", crate::support::cwd());
    let sender = api.sender();
    let runner = runner(vec![api.finish()]);
    let (init, inbox) = test_host();
    runner.initialize(init);
    sender
        .append_entry("counter", Some(json!({ "n": 3, "nested": { "a": null } })))
        .unwrap();
    runner
        .create_context()
        .append_entry("marker", None)
        .unwrap();
    assert_eq!(
        inbox.entries.lock().unwrap().clone(),
        [
            (
                "counter".to_owned(),
                Some(json!({ "n": 3, "nested": { "a": null } }))
            ),
            ("marker".to_owned(), None),
        ]
    );
}

#[tokio::test]
async fn second_initialize_replaces_the_send_message_handler_of_every_hook() {
    let a = hookwright::HookApi::new("a", crate::support::cwd());
    let b = hookwright::HookApi::new("b", crate::support::cwd());
    let (sa, sb) = (a.sender(), b.sender());
    let runner = runner(vec![a.finish(), b.finish()]);
    let (first, first_inbox) = test_host();
    runner.initialize(first);
    let (second, second_inbox) = test_host();
    runner.initialize(second);
    sa.send_message(CustomMessage::new("x", "a"), SendMessageOptions::default())
        .unwrap();
    sb.append_entry("y", None).unwrap();
    assert!(first_inbox.messages.lock().unwrap().is_empty());
    assert_eq!(second_inbox.messages.lock().unwrap().len(), 1);
    assert_eq!(second_inbox.entries.lock().unwrap().len(), 1);
}

// ---- the host ------------------------------------------------------------------------------

/// A host that gives the model and nothing else.
struct ModelOnly;

impl hookwright::Host for ModelOnly {
    fn model(&self) -> Option<Model> {
        Some(model("only"))
    }
}

#[tokio::test]
async fn a_host_implements_only_what_it_has_and_the_rest_answers_the_defaults() {
    let runner = runner(vec![]);
    runner.initialize(ModelOnly);
    let cc = runner.create_command_context();
    assert_eq!(cc.model().unwrap().id, "only");
    assert!(cc.is_idle());
    assert!(!cc.has_queued_messages());
    cc.abort();
    tokio::time::timeout(Duration::from_secs(5), cc.wait_for_idle())
        .await
        .expect("wait_for_idle resolves at once by default");
    assert_eq!(cc.branch("e1").await, cancelled(false));
    assert_eq!(
        cc.new_session(NewSessionOptions::default()).await,
        cancelled(false)
    );
    assert_eq!(
        cc.navigate_tree("e1", NavigateTreeOptions::default()).await,
        cancelled(false)
    );
    assert!(!runner.has_ui());
    assert!(!cc.ui().confirm("t", "m").await);
    // Initialized: messages and entries are accepted (a host without them drops them).
    assert_eq!(
        cc.send_message(CustomMessage::new("x", "y"), SendMessageOptions::default()),
        Ok(())
    );
    assert_eq!(cc.append_entry("state", None), Ok(()));
}

#[tokio::test]
async fn initialize_keeps_each_session_action_the_new_host_does_not_carry_out() {
    let runner = runner(vec![]);
    let calls = Log::new();
    let action = |name: &'static str, log: &Log| {
        let log = log.clone();
        move |what: String| -> hookwright::handler::BoxFuture<'static, SessionActionResult> {
            log.push(format!("{name} {what}"));
            Box::pin(async { SessionActionResult { cancelled: true } })
        }
    };
    let (mut first, _inbox) = test_host();
    let f = action("first new_session", &calls);
    first.new_session = Some(Arc::new(move |_o: NewSessionOptions| f(String::new())));
    let f = action("first branch", &calls);
    first.branch = Some(Arc::new(move |id: String| f(id)));
    let f = action("first navigate", &calls);
    first.navigate_tree = Some(Arc::new(move |id: String, _o| f(id)));
    runner.initialize(first);
    let (mut second, _inbox) = test_host();
    let f = action("second branch", &calls);
    second.branch = Some(Arc::new(move |id: String| f(id)));
    runner.initialize(second);

    let cc = runner.create_command_context();
    cc.new_session(NewSessionOptions::default()).await;
    cc.branch("e1").await;
    cc.navigate_tree("t1", NavigateTreeOptions::default()).await;
    assert_eq!(
        calls.entries(),
        [
            "first new_session ",
            "second branch e1",
            "first navigate t1"
        ]
    );
}

#[derive(Default)]
struct Seen(std::sync::atomic::AtomicUsize);

#[tokio::test]
async fn state_lives_as_long_as_its_runner_and_no_runner_sees_another_s() {
    use std::sync::atomic::Ordering;
    let build = || {
        runner(vec![hook("counter", |api| {
            api.on(|_event: &AgentStartEvent, ctx: &HookContext| {
                ctx.state::<Seen>().0.fetch_add(1, Ordering::SeqCst);
            });
        })])
    };
    let (first, second) = (build(), build());
    for _ in 0..3 {
        let _ = first.emit(&AgentStartEvent::default()).await;
    }
    let _ = second.emit(&AgentStartEvent::default()).await;
    let count =
        |r: &hookwright::HookRunner| r.create_context().state::<Seen>().0.load(Ordering::SeqCst);
    assert_eq!((count(&first), count(&second)), (3, 1));
    assert_eq!(count(&build()), 0, "a new runner starts from the default");
}
