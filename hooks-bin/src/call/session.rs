//! The runner of one adapter call, with collectors for what hooks report, send, notify and
//! put on the status line, and the non-interactive UI they get.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::Locked as _;
use async_trait::async_trait;
use hookwright::events::CustomMessage;
use hookwright::session::{SessionManager, SessionWriter};
use hookwright::ui::{NotifyKind, StatusLine, Theme};
use hookwright::{
    HookError, HookRunner, HookTable, HookUi, Host, JsonlSessionStore, NavigateTreeOptions,
    NewSessionOptions, RenderOptions, SendMessageOptions, SessionActionResult, SessionActions,
    TableInUse,
};
use serde_json::Value;

/// The width the status line is rendered to for the user.
const STATUS_WIDTH: usize = 200;

/// A runner with collectors for what hooks report or send.
pub(super) struct Session {
    pub(super) runner: Arc<HookRunner>,
    /// The agent's name, as `hooks` spells it (`claude`).
    pub(super) agent: &'static str,
    errors: Arc<Mutex<Vec<HookError>>>,
    notes: Arc<Mutex<Vec<String>>>,
    status: Arc<Mutex<Status>>,
    messages: Arc<Mutex<Vec<CustomMessage>>>,
    unavailable: Arc<Mutex<Vec<&'static str>>>,
}

/// The status line of one call: the segments set, and whether one was set at all.
#[derive(Default)]
struct Status {
    line: StatusLine,
    changed: bool,
}

/// A message a hook sent: its text (for the model), and what the user is shown of it when it
/// is displayed (its renderer's lines, else its text).
pub(super) struct Sent {
    pub(super) text: String,
    pub(super) shown: Option<String>,
}

impl Session {
    /// A runner over the hooks of `table` for a call of the session `session_id` (a fresh id
    /// when the agent sent none) of the agent named `agent`, its session kept in memory.
    ///
    /// # Errors
    /// `table` serves another runner and cannot serve this one ([`TableInUse`]).
    pub(super) fn new(
        agent: &'static str,
        table: &HookTable,
        cwd: &Path,
        session_id: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<Self, TableInUse> {
        let store = match session_id.filter(|id| !id.is_empty()) {
            Some(id) => JsonlSessionStore::in_memory_with_id(cwd, id),
            None => JsonlSessionStore::in_memory(cwd),
        };
        Session::with_store(agent, table, cwd, store, timeout)
    }

    /// A runner over the hooks of `table` for the session kept in `store`, of the agent named
    /// `agent`.
    ///
    /// # Errors
    /// `table` serves another runner and cannot serve this one ([`TableInUse`]).
    pub(super) fn with_store(
        agent: &'static str,
        table: &HookTable,
        cwd: &Path,
        store: JsonlSessionStore,
        timeout: Option<Duration>,
    ) -> Result<Self, TableInUse> {
        let store = Arc::new(store);
        let runner = Arc::new(
            HookRunner::from_table(table, cwd, Arc::clone(&store) as Arc<dyn SessionManager>)?
                .with_default_timeout(timeout),
        );
        let errors: Arc<Mutex<Vec<HookError>>> = Arc::default();
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let status: Arc<Mutex<Status>> = Arc::default();
        let messages: Arc<Mutex<Vec<CustomMessage>>> = Arc::default();
        let unavailable: Arc<Mutex<Vec<&'static str>>> = Arc::default();
        runner.initialize(AdapterHost {
            agent,
            store,
            messages: Arc::clone(&messages),
            notes: Arc::clone(&notes),
            status: Arc::clone(&status),
            unavailable: Arc::clone(&unavailable),
        });
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| sink.locked().push(e.clone()));
        Ok(Session {
            runner,
            agent,
            errors,
            notes,
            status,
            messages,
            unavailable,
        })
    }

    /// The handler errors reported so far, as one string (`None` when there were none).
    pub(super) fn take_errors(&self) -> Option<String> {
        let errors = std::mem::take(&mut *self.errors.locked());
        (!errors.is_empty()).then(|| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    /// The messages hooks sent so far (those with no text left out), with what the user is
    /// shown of the displayed ones: the lines of the message type's renderer (plain theme),
    /// else the text.
    pub(super) fn take_messages(&self) -> Vec<Sent> {
        std::mem::take(&mut *self.messages.locked())
            .iter()
            .filter_map(|m| {
                let text = m.content.to_text();
                let shown = m
                    .display
                    .then(|| self.rendered(m).unwrap_or_else(|| text.clone()));
                (!text.trim().is_empty()).then_some(Sent { text, shown })
            })
            .collect()
    }

    /// `message` as its type's renderer shows it, if it has one that renders it (a renderer
    /// that panics counts as none).
    fn rendered(&self, message: &CustomMessage) -> Option<String> {
        let renderer = self.runner.get_message_renderer(&message.custom_type)?;
        let lines = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            renderer(message, RenderOptions::default(), &Theme::plain())
        }))
        .ok()??;
        Some(lines.join("\n"))
    }

    /// The texts hooks notified so far (`ctx.ui().notify`).
    pub(super) fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.locked())
    }

    /// The status line, rendered, when hooks set a segment in this call and one is left
    /// (`ctx.ui().set_status`).
    pub(super) fn take_status(&self) -> Option<String> {
        let mut status = self.status.locked();
        std::mem::take(&mut status.changed)
            .then(|| status.line.render(STATUS_WIDTH))
            .flatten()
    }

    /// Forgets what hooks reported, sent, notified or asked for so far (in a resident
    /// session: what its earlier calls left); the status line keeps its segments, but counts
    /// as not set in the next call.
    pub(super) fn clear(&self) {
        self.errors.locked().clear();
        self.notes.locked().clear();
        self.messages.locked().clear();
        self.unavailable.locked().clear();
        self.status.locked().changed = false;
    }

    /// The session actions hooks asked for that the agent's sessions cannot do from here.
    pub(super) fn take_unavailable(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.unavailable.locked())
    }
}

/// The host of an adapter call: it names the agent (`ctx.agent()`), messages are collected,
/// entries appended to the session's
/// store (in memory for a command adapter's call, the session's file in `hooks serve`: a write
/// that fails is reported on stderr); the agent owns its
/// sessions, so a command's session actions cannot be carried out here: they answer
/// `cancelled: true` and are collected, for the command's answer; the UI collects what it is
/// told and is not interactive.
struct AdapterHost {
    /// The agent's name, which hooks read ([`Host::agent`]).
    agent: &'static str,
    store: Arc<JsonlSessionStore>,
    messages: Arc<Mutex<Vec<CustomMessage>>>,
    notes: Arc<Mutex<Vec<String>>>,
    status: Arc<Mutex<Status>>,
    unavailable: Arc<Mutex<Vec<&'static str>>>,
}

impl AdapterHost {
    /// Refuses the session action `what`, and records it.
    fn refuse(&self, what: &'static str) -> SessionActionResult {
        self.unavailable.locked().push(what);
        SessionActionResult { cancelled: true }
    }
}

#[async_trait]
impl Host for AdapterHost {
    fn agent(&self) -> Option<&str> {
        Some(self.agent)
    }

    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.messages.locked().push(message);
    }

    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        if let Err(e) = self.store.append_custom_entry(custom_type, data) {
            eprintln!("hooks: the {custom_type} entry was not kept: {e}");
        }
    }

    async fn new_session(&self, _options: NewSessionOptions) -> SessionActionResult {
        self.refuse("starting a new session")
    }

    async fn branch(&self, _entry_id: &str) -> SessionActionResult {
        self.refuse("branching the session")
    }

    async fn navigate_tree(
        &self,
        _target_id: &str,
        _options: NavigateTreeOptions,
    ) -> SessionActionResult {
        self.refuse("navigating the session tree")
    }

    fn session_actions(&self) -> SessionActions {
        SessionActions::ALL
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::new(CollectingUi {
            notes: Arc::clone(&self.notes),
            status: Arc::clone(&self.status),
        }))
    }
}

/// The UI of an adapter run: not interactive; `notify` texts and the status line are
/// collected, for the user (and a command's output).
struct CollectingUi {
    notes: Arc<Mutex<Vec<String>>>,
    status: Arc<Mutex<Status>>,
}

impl HookUi for CollectingUi {
    fn notify(&self, message: &str, _kind: NotifyKind) {
        self.notes.locked().push(message.to_owned());
    }
    fn set_status(&self, key: &str, text: Option<&str>) {
        let mut status = self.status.locked();
        status.line.set(key, text);
        status.changed = true;
    }
}
