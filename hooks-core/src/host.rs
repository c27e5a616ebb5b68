//! [`Host`]: what the agent gives the runner ([`crate::HookRunner::initialize`]).
//!
//! A host implements what it has: every method answers as a runner without that function does
//! (SPEC-DETAILS sections 3, 4.1 and 5.1): no agent named, no model, messages and entries dropped, idle, no
//! queued messages, `abort` and `wait_for_idle` doing nothing, the session actions answering
//! `{ cancelled: false }`, the no-op UI.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::calls::{
    Model, NavigateTreeOptions, NewSessionOptions, SendMessageOptions, SessionActionResult,
};
use crate::events::CustomMessage;
use crate::ui::HookUi;

/// The agent's side of a runner: the model, where messages and entries go, idle state, session
/// actions and the UI (upstream's `initialize` options).
///
/// What the runner asks when (SPEC-DETAILS section 3): `ui` and `has_ui` once, at `initialize`;
/// `model` once per emission (every handler of the emission sees that answer) and per context
/// built; everything else when a handler calls it. A second `initialize` replaces the host,
/// except for the session actions the new host does not carry out
/// ([`Host::session_actions`]): those stay with the host that did.
#[async_trait]
pub trait Host: Send + Sync + 'static {
    /// The agent CLI this host serves, as the `hooks` binary names it (`claude`, `codex`,
    /// `gemini`, ...: the `AGENT` of `hooks AGENT EVENT`); `None` when the host does not say.
    /// A hook reads it to work around what one agent does outside every event
    /// ([`HookContext::agent`](crate::HookContext::agent)).
    fn agent(&self) -> Option<&str> {
        None
    }

    /// The model in use.
    fn model(&self) -> Option<Model> {
        None
    }

    /// Delivers a custom message a hook sent (`pi.sendMessage`).
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        let _ = (message, options);
    }

    /// Persists a custom entry a hook appended (`pi.appendEntry`).
    fn append_entry(&self, custom_type: &str, data: Option<Value>) {
        let _ = (custom_type, data);
    }

    /// Whether the agent is idle.
    fn is_idle(&self) -> bool {
        true
    }

    /// Waits until the agent is idle.
    async fn wait_for_idle(&self) {}

    /// Aborts the current agent run (fire-and-forget).
    fn abort(&self) {}

    /// Whether messages are queued.
    fn has_queued_messages(&self) -> bool {
        false
    }

    /// Starts a new session (a command's `new_session`).
    async fn new_session(&self, options: NewSessionOptions) -> SessionActionResult {
        let _ = options;
        SessionActionResult::default()
    }

    /// Branches from `entry_id` (a command's `branch`).
    async fn branch(&self, entry_id: &str) -> SessionActionResult {
        let _ = entry_id;
        SessionActionResult::default()
    }

    /// Navigates to `target_id` in the session tree (a command's `navigate_tree`).
    async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> SessionActionResult {
        let _ = (target_id, options);
        SessionActionResult::default()
    }

    /// Which of `new_session`, `branch` and `navigate_tree` this host carries out. An action it
    /// does not is kept from the host before it (upstream keeps a session handler that a later
    /// `initialize` leaves out), and is the default on a runner's first host.
    fn session_actions(&self) -> SessionActions {
        SessionActions::NONE
    }

    /// The UI; `None` is a new no-op UI ([`NoUi`](crate::NoUi)).
    fn ui(&self) -> Option<Arc<dyn HookUi>> {
        None
    }

    /// Whether the UI is interactive.
    fn has_ui(&self) -> bool {
        false
    }
}

/// Which session actions a [`Host`] carries out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionActions {
    /// [`Host::new_session`].
    pub new_session: bool,
    /// [`Host::branch`].
    pub branch: bool,
    /// [`Host::navigate_tree`].
    pub navigate_tree: bool,
}

impl SessionActions {
    /// None of them.
    pub const NONE: SessionActions = SessionActions {
        new_session: false,
        branch: false,
        navigate_tree: false,
    };
    /// All three.
    pub const ALL: SessionActions = SessionActions {
        new_session: true,
        branch: true,
        navigate_tree: true,
    };
}
