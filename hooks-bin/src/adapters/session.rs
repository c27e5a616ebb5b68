//! The runner of one adapter call, with collectors for what hooks report, send, notify and
//! put on the status line, and the non-interactive UI they get.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use hooks_core::events::CustomMessage;
use hooks_core::handler::BoxFuture;
use hooks_core::ui::{CustomUiRequest, NotifyKind, StatusLine, Theme};
use hooks_core::{
    HookError, HookRunner, HookUi, InitializeOptions, JsonlSessionStore, LoadedHook, RenderOptions,
    SessionActionResult,
};

/// The width the status line is rendered to for the user.
const STATUS_WIDTH: usize = 200;

/// A runner with collectors for what hooks report or send.
pub(super) struct Session {
    pub(super) runner: HookRunner,
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
    /// A runner over `hooks` for a call of the session `session_id` (a fresh id when the
    /// agent sent none) of the agent named `agent`.
    pub(super) fn new(
        agent: &'static str,
        hooks: Vec<LoadedHook>,
        cwd: &Path,
        session_id: Option<&str>,
        timeout: Option<Duration>,
    ) -> Self {
        let store = Arc::new(match session_id.filter(|id| !id.is_empty()) {
            Some(id) => JsonlSessionStore::in_memory_with_id(cwd, id),
            None => JsonlSessionStore::in_memory(cwd),
        });
        let runner = HookRunner::new(hooks, cwd, store).with_default_timeout(timeout);
        let errors: Arc<Mutex<Vec<HookError>>> = Arc::default();
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let status: Arc<Mutex<Status>> = Arc::default();
        let messages: Arc<Mutex<Vec<CustomMessage>>> = Arc::default();
        let unavailable: Arc<Mutex<Vec<&'static str>>> = Arc::default();
        let sink = Arc::clone(&messages);
        let mut options = InitializeOptions::new(
            Arc::new(move |message, _options| lock(&sink).push(message)),
            Arc::new(|_custom_type, _data| {}),
        );
        options.ui = Some(Arc::new(CollectingUi {
            notes: Arc::clone(&notes),
            status: Arc::clone(&status),
        }));
        // The agent owns its sessions: a command's session actions cannot be carried out
        // here. They answer `cancelled: true` and are collected, for the command's answer.
        let refuse = |what: &'static str| {
            let unavailable = Arc::clone(&unavailable);
            move || {
                lock(&unavailable).push(what);
                let done: BoxFuture<'static, SessionActionResult> =
                    Box::pin(async { SessionActionResult { cancelled: true } });
                done
            }
        };
        let f = refuse("starting a new session");
        options.new_session = Some(Arc::new(move |_options| f()));
        let f = refuse("branching the session");
        options.branch = Some(Arc::new(move |_entry| f()));
        let f = refuse("navigating the session tree");
        options.navigate_tree = Some(Arc::new(move |_target, _options| f()));
        options.has_ui = Some(false);
        runner.initialize(options);
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| lock(&sink).push(e.clone()));
        Session {
            runner,
            agent,
            errors,
            notes,
            status,
            messages,
            unavailable,
        }
    }

    /// The handler errors reported so far, as one string (`None` when there were none).
    pub(super) fn take_errors(&self) -> Option<String> {
        let errors = std::mem::take(&mut *lock(&self.errors));
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
        std::mem::take(&mut *lock(&self.messages))
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
        std::mem::take(&mut *lock(&self.notes))
    }

    /// The status line, rendered, when hooks set a segment in this call and one is left
    /// (`ctx.ui().set_status`).
    pub(super) fn take_status(&self) -> Option<String> {
        let mut status = lock(&self.status);
        std::mem::take(&mut status.changed)
            .then(|| status.line.render(STATUS_WIDTH))
            .flatten()
    }

    /// The session actions hooks asked for that the agent's sessions cannot do from here.
    pub(super) fn take_unavailable(&self) -> Vec<&'static str> {
        std::mem::take(&mut *lock(&self.unavailable))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The UI of an adapter run: not interactive; `notify` texts and the status line are
/// collected, for the user (and a command's output).
struct CollectingUi {
    notes: Arc<Mutex<Vec<String>>>,
    status: Arc<Mutex<Status>>,
}

#[async_trait]
impl HookUi for CollectingUi {
    async fn select(&self, _title: &str, _options: &[String]) -> Option<String> {
        None
    }
    async fn confirm(&self, _title: &str, _message: &str) -> bool {
        false
    }
    async fn input(&self, _title: &str, _placeholder: Option<&str>) -> Option<String> {
        None
    }
    async fn editor(&self, _title: &str, _prefill: Option<&str>) -> Option<String> {
        None
    }
    fn notify(&self, message: &str, _kind: NotifyKind) {
        lock(&self.notes).push(message.to_owned());
    }
    fn set_status(&self, key: &str, text: Option<&str>) {
        let mut status = lock(&self.status);
        status.line.set(key, text);
        status.changed = true;
    }
    async fn custom(&self, _request: CustomUiRequest) -> Option<Value> {
        None
    }
    fn set_editor_text(&self, _text: &str) {}
    fn get_editor_text(&self) -> String {
        String::new()
    }
    fn theme(&self) -> Theme {
        Theme::plain()
    }
}
