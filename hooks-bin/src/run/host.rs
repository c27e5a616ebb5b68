//! The host state of a run ([`Shared`]): what the host functions given to the runner share
//! (the current session, the transcript, the queue of sent messages, idle state, failures,
//! Ctrl-C), and how the driver emits events through the runner and delivers messages.
//!
//! Messages that hooks send with `send_message` are queued and written to the session (and
//! shown) at the next safe point: after the current tool result, before the next `context`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use async_trait::async_trait;
use serde_json::Value;

use hookwright::api::{RenderOptions, SendMessageOptions};
use hookwright::context::{NavigateTreeOptions, NewSessionOptions, SessionActionResult};
use hookwright::events::{Combiner, CustomMessage, HookEvent, Message};
use hookwright::{HookRunner, HookUi, Host, SessionActions, SessionWriter};

use super::interrupt::Interrupts;
use super::session::CurrentSession;
use super::transcript::Transcript;
use crate::run::ui::HostUi;
use crate::sync::Locked as _;

/// What the host functions given to the runner share.
pub(crate) struct Shared {
    /// The runner, once bound (weak: the runner holds the host functions that hold this).
    pub(super) runner: OnceLock<Weak<HookRunner>>,
    /// The current session.
    pub(super) session: Arc<CurrentSession>,
    /// Where records go.
    pub(super) out: Arc<Transcript>,
    /// Where new session files are written (and relative resumed ones are found).
    pub(super) session_dir: PathBuf,
    /// The session's working directory.
    pub(super) cwd: PathBuf,
    /// Messages sent since the last safe point.
    pub(super) pending: Mutex<Vec<CustomMessage>>,
    /// Whether no agent run is open (what `ctx.is_idle()` answers).
    pub(super) idle: AtomicBool,
    /// Actions that could not be carried out.
    pub(super) failures: AtomicUsize,
    /// Ctrl-C handling.
    pub(super) interrupts: Arc<Interrupts>,
}

impl Shared {
    /// The state of a run that starts in `session`.
    pub(super) fn new(
        session: Arc<CurrentSession>,
        out: Arc<Transcript>,
        session_dir: PathBuf,
        cwd: PathBuf,
    ) -> Arc<Self> {
        Arc::new(Shared {
            runner: OnceLock::new(),
            session,
            out,
            session_dir,
            cwd,
            pending: Mutex::new(Vec::new()),
            idle: AtomicBool::new(true),
            failures: AtomicUsize::new(0),
            interrupts: Interrupts::new(),
        })
    }

    /// The runner, while it lives.
    pub(super) fn runner(&self) -> Option<Arc<HookRunner>> {
        self.runner.get().and_then(Weak::upgrade)
    }

    /// Reports an action that could not be carried out (it counts as a failure).
    pub(super) fn fail(&self, message: &str) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        self.out.error(message);
    }

    /// Emits `event` through the generic dispatcher, recording the event and its result (for
    /// the events whose rule answers a handler's result).
    pub(super) async fn emit<E>(&self, event: &E) -> Option<E::Result>
    where
        E: HookEvent<Rule: Combiner<E, Output = Option<E::Result>>>,
    {
        let runner = self.runner()?;
        self.out.event(E::NAME, runner.has_handlers(E::KIND), event);
        let result = runner.emit(event).await;
        if let Some(result) = &result {
            self.out.result(E::NAME, result);
        }
        result
    }

    /// Appends a message to the current session.
    pub(super) fn append_message(&self, message: Message) {
        if let Err(e) = self.session.get().append_message(message) {
            self.fail(&e.to_string());
        }
    }

    /// Writes a custom message to the session and shows it (with its renderer, if any).
    pub(super) fn deliver(&self, message: CustomMessage) {
        let rendered = self
            .runner()
            .filter(|_| message.display)
            .and_then(|runner| {
                let renderer = runner.get_message_renderer(&message.custom_type)?;
                let theme = self.out.theme();
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    renderer(&message, RenderOptions::default(), &theme)
                }))
                .unwrap_or_else(|_| {
                    self.out.hook_error(
                        "(renderer)",
                        "render",
                        &format!("the renderer of `{}` panicked", message.custom_type),
                    );
                    None
                })
            });
        let text = message.content.to_text();
        let value = serde_json::to_value(&message).unwrap_or_default();
        if message.display {
            self.out.message(&value, rendered.as_deref(), &text);
        }
        if let Err(e) = self.session.get().append_custom_message(message) {
            self.fail(&e.to_string());
        }
    }

    /// Delivers the messages hooks sent since the last safe point.
    pub(super) fn flush_pending(&self) {
        let pending = std::mem::take(&mut *self.pending.locked());
        for message in pending {
            self.deliver(message);
        }
    }
}

/// The runner's host: messages go to the pending queue, entries to the transcript and the
/// session, the session actions to the driver, and the UI is `hooks run`'s.
pub(super) struct DriverHost {
    pub(super) shared: Arc<Shared>,
    pub(super) ui: Arc<HostUi>,
}

#[async_trait]
impl Host for DriverHost {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.shared.pending.locked().push(message);
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        self.shared.out.entry(custom_type, data.as_ref());
        if let Err(e) = self
            .shared
            .session
            .get()
            .append_custom_entry(custom_type, data)
        {
            self.shared.fail(&e.to_string());
        }
    }

    fn is_idle(&self) -> bool {
        self.shared.idle.load(Ordering::Relaxed)
    }

    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        self.shared.new_session(options).await
    }

    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        self.shared.branch(entry_id.to_owned()).await
    }

    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        self.shared
            .navigate_tree(target_id.to_owned(), options)
            .await
    }

    fn session_actions(&self) -> SessionActions {
        SessionActions::ALL
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::clone(&self.ui) as Arc<dyn HookUi>)
    }

    fn has_ui(&self) -> bool {
        self.ui.interactive()
    }
}
