//! The session of a run: which session file is current, the model context built from it, and
//! the session actions that change it (switch and branch, tree navigation, compaction: each an
//! `impl` of the run's host state in a module of its own).

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use hookwright::events::{CustomMessage, Message, SessionEntry};
use hookwright::{JsonlSessionStore, SessionManager};
use serde::Deserialize as _;
use serde_json::{Value, json};

use hookwright::context::SessionActionResult;

use super::script::EntryRef;

mod compact;
mod switch;
mod tree;

/// The answer of a session action that failed (reported with `Shared::fail`): it did not
/// happen, so the hook that asked for it is told so (`cancelled`), not that it succeeded.
const NOT_DONE: SessionActionResult = SessionActionResult { cancelled: true };

/// The current session. Handlers get it as their [`SessionManager`]; it follows every switch
/// (`new_session`, resume, fork, branch), so `ctx.session_manager()` always sees the session
/// the run is writing to.
#[derive(Debug)]
pub struct CurrentSession {
    store: RwLock<Arc<JsonlSessionStore>>,
}

impl CurrentSession {
    /// Starts with `store`.
    #[must_use]
    pub fn new(store: JsonlSessionStore) -> Self {
        CurrentSession {
            store: RwLock::new(Arc::new(store)),
        }
    }

    /// The current store.
    #[must_use]
    pub fn get(&self) -> Arc<JsonlSessionStore> {
        Arc::clone(&crate::sync::read(&self.store))
    }

    /// Makes `store` current and returns the previous one.
    pub fn replace(&self, store: JsonlSessionStore) -> Arc<JsonlSessionStore> {
        std::mem::replace(&mut *crate::sync::write(&self.store), Arc::new(store))
    }

    /// The entry of the current session that `entry` names (by id, or by position).
    ///
    /// # Errors
    /// There is no such entry (the message says why).
    pub fn find_entry(&self, entry: &EntryRef) -> Result<SessionEntry, String> {
        let entries = self.get().entries();
        let found = match entry {
            EntryRef::Id(id) => entries.iter().find(|e| &e.id == id).cloned(),
            EntryRef::Index(i) => {
                let len = i64::try_from(entries.len()).unwrap_or(i64::MAX);
                let at = if *i < 0 { len + i } else { *i };
                usize::try_from(at)
                    .ok()
                    .and_then(|at| entries.get(at))
                    .cloned()
            }
        };
        found.ok_or_else(|| match entry {
            EntryRef::Id(id) => format!("the current session has no entry with id {id}"),
            EntryRef::Index(i) => format!(
                "the current session has {} entries: index {i} is out of range",
                entries.len()
            ),
        })
    }

    /// The current session file, as a string.
    #[must_use]
    pub fn file_string(&self) -> Option<String> {
        self.get()
            .session_file()
            .map(|p| p.to_string_lossy().into_owned())
    }
}

impl SessionManager for CurrentSession {
    fn session_file(&self) -> Option<PathBuf> {
        self.get().session_file()
    }
    fn session_id(&self) -> String {
        self.get().session_id()
    }
    fn cwd(&self) -> PathBuf {
        self.get().cwd()
    }
    fn entries(&self) -> Vec<SessionEntry> {
        self.get().entries()
    }
    fn leaf_id(&self) -> Option<String> {
        self.get().leaf_id()
    }
    fn branch_entries(&self) -> Vec<SessionEntry> {
        self.get().branch_entries()
    }
}

/// The message an entry contributes to the model context, if any.
#[must_use]
pub fn entry_message(entry: &SessionEntry) -> Option<Message> {
    match entry.entry_type.as_str() {
        // Read from the borrowed value: no copy of it per message and turn.
        "message" => Message::deserialize(entry.extra.get("message")?).ok(),
        "custom_message" => {
            let mut fields = entry.extra.clone();
            fields.remove("timestamp");
            serde_json::from_value::<CustomMessage>(Value::Object(fields))
                .ok()
                .map(Message::Custom)
        }
        "branch_summary" => Some(Message::Other(json!({
            "role": "branchSummary",
            "summary": entry.extra.get("summary").cloned().unwrap_or(Value::Null),
            "fromId": entry.extra.get("fromId").cloned().unwrap_or(Value::Null),
        }))),
        _ => None,
    }
}

/// The messages sent to the model: those of the current branch only
/// ([`SessionManager::branch_entries`], root to leaf), so a tree navigation changes what the
/// model sees. After the latest compaction on the branch: its summary, then the kept messages
/// (from `firstKeptEntryId`) and everything after it.
#[must_use]
pub fn context_messages(session: &dyn SessionManager) -> Vec<Message> {
    let path = session.branch_entries();
    let compaction = path.iter().rposition(|e| e.entry_type == "compaction");
    let Some(c) = compaction else {
        return path.iter().filter_map(entry_message).collect();
    };
    let entry = &path[c];
    let mut out = vec![Message::Other(json!({
        "role": "compactionSummary",
        "summary": entry.extra.get("summary").cloned().unwrap_or(Value::Null),
        "tokensBefore": entry.extra.get("tokensBefore").cloned().unwrap_or(Value::Null),
    }))];
    let first_kept = entry.extra.get("firstKeptEntryId").and_then(Value::as_str);
    if let Some(k) = first_kept.and_then(|id| path[..c].iter().position(|e| e.id == id)) {
        out.extend(path[k..c].iter().filter_map(entry_message));
    }
    out.extend(path[c + 1..].iter().filter_map(entry_message));
    out
}

/// A short label of a message: its role, or `custom:<customType>`.
#[must_use]
pub fn message_label(message: &Message) -> String {
    match message.custom_type() {
        Some(t) => format!("custom:{t}"),
        None => message.role().to_owned(),
    }
}
