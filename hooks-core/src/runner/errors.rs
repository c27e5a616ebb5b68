//! What the runner reports: [`HookError`]s, sent to the error listeners of
//! [`super::HookRunner::on_error`].

use std::fmt;
use std::sync::{Arc, RwLock, Weak};

/// A handler error reported to the error listeners (`HookError`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookError {
    /// The hook's path, as given to the loader.
    pub hook_path: String,
    /// The event name.
    pub event: String,
    /// The error text (for a panic, its message).
    pub error: String,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hook {} failed on {}: {}",
            self.hook_path, self.event, self.error
        )
    }
}

impl std::error::Error for HookError {}

/// A listener for [`HookError`]s.
pub type ErrorListener = Arc<dyn Fn(&HookError) + Send + Sync>;

pub(crate) type Listeners = RwLock<Vec<(u64, ErrorListener)>>;

/// Returned by [`super::HookRunner::on_error`]; [`ErrorSubscription::unsubscribe`] removes the
/// listener. Dropping it keeps the listener subscribed.
#[derive(Debug)]
pub struct ErrorSubscription {
    pub(crate) listeners: Weak<Listeners>,
    pub(crate) id: u64,
}

impl ErrorSubscription {
    /// Removes the listener.
    pub fn unsubscribe(self) {
        if let Some(listeners) = self.listeners.upgrade() {
            listeners
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .retain(|(id, _)| *id != self.id);
        }
    }
}
