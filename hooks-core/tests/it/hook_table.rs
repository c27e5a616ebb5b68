//! [`HookTable`]: one table of loaded hooks serving several runners. What is a runner's own
//! stays its own: its host (where `ctx.send_message` goes, the model its contexts capture),
//! its `ctx.state::<T>()`, its error listeners; a hook bound to a runner through a sender it
//! handed out serves that runner alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::{Errors, TestSession, cwd, hook, model, test_host};
use hookwright::events::*;
use hookwright::{HandlerError, HookContext, HookRunner, HookTable, SendMessageOptions};

#[derive(Default)]
struct Calls(AtomicUsize);

/// A runner over `table` with its own session.
fn runner_over(table: &HookTable) -> HookRunner {
    HookRunner::from_table(table, cwd(), Arc::new(TestSession::new())).unwrap()
}

/// A hook that counts its `agent_start` calls in the runner's state, sends the count to the
/// runner's host, and fails on the third call.
fn counting_hook() -> hookwright::LoadedHook {
    hook("counting", |api| {
        api.on(|_e: &AgentStartEvent, ctx: &HookContext| {
            let n = ctx.state::<Calls>().0.fetch_add(1, Ordering::Relaxed) + 1;
            let model = ctx.model().map_or("none".to_owned(), |m| m.id.clone());
            ctx.send_message(
                CustomMessage::new("count", format!("{n} {model}")),
                SendMessageOptions::default(),
            )
            .unwrap();
            if n == 3 {
                return Err(HandlerError::new("third"));
            }
            Ok(())
        });
    })
}

#[tokio::test]
async fn runners_over_one_table_keep_their_own_state_host_and_error_listeners() {
    let table = HookTable::new(vec![counting_hook()]);
    assert!(table.is_shareable());
    let (a, b) = (runner_over(&table), runner_over(&table));
    assert!(
        HookTable::ptr_eq(a.table(), b.table()),
        "one table, not a copy"
    );
    let (mut host_a, inbox_a) = test_host();
    host_a.get_model = Arc::new(|| Some(model("model-a")));
    let (host_b, inbox_b) = test_host();
    a.initialize(host_a);
    b.initialize(host_b);
    let (errors_a, errors_b) = (Errors::record(&a), Errors::record(&b));

    for _ in 0..3 {
        let _ = a.emit(&AgentStartEvent::default()).await;
    }
    let _ = b.emit(&AgentStartEvent::default()).await;

    let texts = |inbox: &crate::support::HostInbox| -> Vec<String> {
        inbox
            .messages
            .lock()
            .unwrap()
            .iter()
            .map(|(m, _)| m.content.to_text())
            .collect()
    };
    assert_eq!(texts(&inbox_a), ["1 model-a", "2 model-a", "3 model-a"]);
    assert_eq!(texts(&inbox_b), ["1 none"], "b counts from its own state");
    assert_eq!(errors_a.get().len(), 1, "{:?}", errors_a.get());
    assert!(errors_b.get().is_empty(), "{:?}", errors_b.get());
    assert_eq!(a.hook_paths(), ["counting"]);
    assert_eq!(b.hook_paths(), ["counting"]);
}

#[tokio::test]
async fn a_table_whose_hook_handed_out_a_sender_serves_its_first_runner_alone() {
    let mut sender = None;
    let bound = hook("bound", |api| sender = Some(api.sender()));
    let sender = sender.unwrap();
    let table = HookTable::new(vec![counting_hook(), bound]);
    assert!(!table.is_shareable());
    let first = runner_over(&table);
    let refused = HookRunner::from_table(&table, cwd(), Arc::new(TestSession::new()))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(refused.hook, "bound");
    assert!(refused.to_string().contains("HookSender"), "{refused}");

    let (host, inbox) = test_host();
    first.initialize(host);
    sender
        .send_message(CustomMessage::new("x", "hi"), SendMessageOptions::default())
        .unwrap();
    assert_eq!(
        inbox.messages.lock().unwrap().len(),
        1,
        "to the first runner's host"
    );
}
