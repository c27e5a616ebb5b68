//! The runner of one adapter call, with collectors for what hooks report, send and notify,
//! and the non-interactive UI they get.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hooks_core::events::CustomMessage;
use hooks_core::handler::BoxFuture;
use hooks_core::ui::NotifyKind;
use hooks_core::{
    HookError, HookRunner, HookUi, InitializeOptions, JsonlSessionStore, LoadedHook,
    SessionActionResult,
};

use super::Agent;

/// A runner with collectors for what hooks report or send.
pub(super) struct Session {
    pub(super) runner: HookRunner,
    errors: Arc<Mutex<Vec<HookError>>>,
    notes: Arc<Mutex<Vec<String>>>,
    messages: Arc<Mutex<Vec<CustomMessage>>>,
}

impl Session {
    /// A runner over `hooks` for a call of the agent's session `session_id` (a fresh id when
    /// the agent sent none).
    pub(super) fn new(
        agent: Agent,
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
        let messages: Arc<Mutex<Vec<CustomMessage>>> = Arc::default();
        let sink = Arc::clone(&messages);
        let mut options = InitializeOptions::new(
            Arc::new(move |message, _options| lock(&sink).push(message)),
            Arc::new(|_custom_type, _data| {}),
        );
        options.ui = Some(Arc::new(CollectingUi {
            notes: Arc::clone(&notes),
        }));
        // The agent owns its sessions: a command's session actions cannot be carried out
        // here. They answer `cancelled: true` and say so in the command's output.
        let unavailable = |notes: &Arc<Mutex<Vec<String>>>, what: &'static str| {
            let notes = Arc::clone(notes);
            move || {
                lock(&notes).push(format!(
                    "({what} is not available through the {agent} hook adapter; nothing was done)"
                ));
                let done: BoxFuture<'static, SessionActionResult> =
                    Box::pin(async { SessionActionResult { cancelled: true } });
                done
            }
        };
        let f = unavailable(&notes, "starting a new session");
        options.new_session = Some(Arc::new(move |_options| f()));
        let f = unavailable(&notes, "branching the session");
        options.branch = Some(Arc::new(move |_entry| f()));
        let f = unavailable(&notes, "navigating the session tree");
        options.navigate_tree = Some(Arc::new(move |_target, _options| f()));
        options.has_ui = Some(false);
        runner.initialize(options);
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
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
