//! The plain values of the calls between hooks and their host: what `send_message`, the
//! session actions and a renderer take (the `*Options`), what the host answers ([`Model`],
//! [`SessionActionResult`]) and how a hook's call fails ([`HookApiError`]).
//!
//! Nothing here calls anything; the modules that make the calls ([`crate::api`],
//! [`crate::context`], [`crate::host`]) re-export what they take and answer.

use serde::{Deserialize, Serialize};

use crate::events::Extra;
use crate::handler::{BoxFuture, HandlerError};
use crate::session::SessionWriter;

/// Errors of [`HookApi`](crate::HookApi) and [`HookContext`](crate::HookContext) calls.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HookApiError {
    /// `send_message` before the host initialized the runner.
    #[error("sendMessage handler not initialized")]
    SendMessageNotInitialized,
    /// `append_entry` before the host initialized the runner.
    #[error("appendEntry handler not initialized")]
    AppendEntryNotInitialized,
}

/// Which queue a message sent while the agent streams goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeliverAs {
    /// Steer the current run.
    Steer,
    /// Follow up after the current run.
    FollowUp,
}

/// Options of `send_message`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageOptions {
    /// Start a turn if the agent is idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_turn: Option<bool>,
    /// Steering or follow-up queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliver_as: Option<DeliverAs>,
}

/// Options a renderer receives (`HookMessageRenderOptions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Whether the message is shown expanded.
    pub expanded: bool,
}

/// The model in use (`Model`), as the host describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The provider, e.g. `anthropic`.
    pub provider: String,
    /// The model id.
    pub id: String,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What `new_session`, `branch` and `navigate_tree` answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionActionResult {
    /// Whether the action did not happen: a hook (or the user) cancelled it, or the host
    /// could not carry it out (a session file that cannot be written, say; the host reports
    /// why).
    pub cancelled: bool,
}

/// A callback that seeds a new session (`setup`).
pub type SessionSetup = Box<
    dyn for<'a> FnOnce(&'a dyn SessionWriter) -> BoxFuture<'a, Result<(), HandlerError>> + Send,
>;

/// Options of [`CommandContext::new_session`](crate::CommandContext::new_session).
#[derive(Default)]
pub struct NewSessionOptions {
    /// The session file the new session continues from.
    pub parent_session: Option<String>,
    /// Seeds the new session before it is used.
    pub setup: Option<SessionSetup>,
}

impl std::fmt::Debug for NewSessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSessionOptions")
            .field("parent_session", &self.parent_session)
            .field("setup", &self.setup.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

/// Options of [`CommandContext::navigate_tree`](crate::CommandContext::navigate_tree).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NavigateTreeOptions {
    /// Whether to summarize the branch left behind.
    pub summarize: bool,
}
