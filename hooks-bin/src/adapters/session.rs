//! The runner of one adapter call, with collectors for what hooks report, send and notify,
//! and the non-interactive UI they get.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use hooks_core::events::CustomMessage;
use hooks_core::ui::NotifyKind;
use hooks_core::{
    HookError, HookRunner, HookUi, Host, JsonlSessionStore, LoadedHook, NavigateTreeOptions,
    NewSessionOptions, SendMessageOptions, SessionActionResult, SessionActions,
};

/// A runner with collectors for what hooks report or send.
pub(super) struct Session {
    pub(super) runner: Arc<HookRunner>,
    errors: Arc<Mutex<Vec<HookError>>>,
    notes: Arc<Mutex<Vec<String>>>,
    messages: Arc<Mutex<Vec<CustomMessage>>>,
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
        let runner = Arc::new(HookRunner::new(hooks, cwd, store).with_default_timeout(timeout));
        let errors: Arc<Mutex<Vec<HookError>>> = Arc::default();
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let messages: Arc<Mutex<Vec<CustomMessage>>> = Arc::default();
        runner.initialize(AdapterHost {
            agent,
            notes: Arc::clone(&notes),
            messages: Arc::clone(&messages),
        });
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| lock(&sink).push(e.clone()));
        Session {
            runner,
            errors,
            notes,
            messages,
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

    /// The text of the messages hooks sent, joined with blank lines.
    pub(super) fn take_messages(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.messages))
            .iter()
            .map(|m| m.content.to_text())
            .filter(|t| !t.trim().is_empty())
            .collect()
    }

    pub(super) fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.notes))
    }

    /// Forgets what hooks reported, sent or notified so far (in a resident session: what its
    /// earlier calls left).
    pub(super) fn clear(&self) {
        lock(&self.errors).clear();
        lock(&self.notes).clear();
        lock(&self.messages).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The host of an adapter call: messages are collected, entries dropped, the UI collects
/// notifications and is not interactive.
struct AdapterHost {
    agent: &'static str,
    notes: Arc<Mutex<Vec<String>>>,
    messages: Arc<Mutex<Vec<CustomMessage>>>,
}

impl AdapterHost {
    /// The agent owns its sessions: a command's session actions cannot be carried out here.
    /// They answer `cancelled: true` and say so in the command's output.
    fn unavailable(&self, what: &str) -> SessionActionResult {
        lock(&self.notes).push(format!(
            "({what} is not available through the {} hook adapter; nothing was done)",
            self.agent
        ));
        SessionActionResult { cancelled: true }
    }
}

#[async_trait]
impl Host for AdapterHost {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        lock(&self.messages).push(message);
    }

    async fn new_session(&self, _options: NewSessionOptions) -> SessionActionResult {
        self.unavailable("starting a new session")
    }

    async fn branch(&self, _entry_id: &str) -> SessionActionResult {
        self.unavailable("branching the session")
    }

    async fn navigate_tree(
        &self,
        _target_id: &str,
        _options: NavigateTreeOptions,
    ) -> SessionActionResult {
        self.unavailable("navigating the session tree")
    }

    fn session_actions(&self) -> SessionActions {
        SessionActions::ALL
    }

    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        Some(Arc::new(CollectingUi {
            notes: Arc::clone(&self.notes),
        }))
    }
}

/// The UI of an adapter run: not interactive; `notify` text is collected (a command's output).
struct CollectingUi {
    notes: Arc<Mutex<Vec<String>>>,
}

impl HookUi for CollectingUi {
    fn notify(&self, message: &str, _kind: NotifyKind) {
        lock(&self.notes).push(message.to_owned());
    }
}
