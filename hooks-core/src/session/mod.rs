//! Sessions: the read-only view handlers get ([`SessionManager`]), the write access a
//! `new_session` setup callback gets ([`SessionWriter`]), and a JSONL file store implementing
//! both ([`JsonlSessionStore`]).
//!
//! A session file is upstream-compatible JSON Lines. The first line is a header
//! `{"type":"session","version":3,"id":...,"timestamp":...,"cwd":...,"parentSession":...?}`;
//! every later line is one entry `{"type":...,"id":...,"parentId":...,"timestamp":...,...}`.
//! Entries are only ever appended, one complete line per write, never rewritten. The one
//! repair is of a last line cut by a crash (no newline at its end, no complete entry): the
//! first append after reopening removes it. A complete line that is not an entry is an error.
//!
//! # A session is a tree
//!
//! Each entry names its parent (`parentId`, `null` for a root). The *leaf* is where the next
//! entry is attached: normally the last entry appended, but navigating the tree
//! ([`JsonlSessionStore::set_leaf`]) moves it to any earlier entry, and the next entry starts a
//! new branch there. The leaf itself is not written to the file (upstream writes entries only):
//! reopening a file puts the leaf on its last entry. The *branch* is the path from the root to
//! the leaf ([`SessionManager::branch_entries`]); it, not the file order, is what the model's
//! context is built from.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::Value;

use crate::events::{CustomMessage, Message, SessionEntry};

mod jsonl;
mod util;

pub use jsonl::JsonlSessionStore;

/// The version written in the header of new session files.
pub const SESSION_VERSION: u32 = 3;

/// A read-only view of a session, as handlers see it (`ReadonlySessionManager`).
pub trait SessionManager: Send + Sync {
    /// The session file, `None` for a session kept in memory only.
    fn session_file(&self) -> Option<PathBuf>;
    /// The session id (from the header).
    fn session_id(&self) -> String;
    /// The working directory the session was started in (from the header).
    fn cwd(&self) -> PathBuf;
    /// Every entry, in file order (the header excluded), whichever branch it is on.
    fn entries(&self) -> Vec<SessionEntry>;
    /// The id of the current leaf: the entry the next append is attached to. It is the last
    /// entry appended unless the session navigated to another entry since; `None` for an empty
    /// session, or after navigating to the root (before the first entry).
    fn leaf_id(&self) -> Option<String>;
    /// The current branch: the entries from the root to the current leaf (inclusive),
    /// following `parentId`s, root first (upstream `getBranch()`). Entries on other branches
    /// are left out, whatever their place in the file.
    ///
    /// The default implementation combines [`entries`](Self::entries) and
    /// [`leaf_id`](Self::leaf_id) with [`branch_path`]; implementations that can read both at
    /// once (as [`JsonlSessionStore`] does) should override it.
    fn branch_entries(&self) -> Vec<SessionEntry> {
        branch_path(&self.entries(), self.leaf_id().as_deref())
    }
}

/// The path from the root to the entry `leaf` (inclusive) in `entries`, following `parentId`s,
/// root first. `None`, or an id not in `entries`, gives an empty path. A `parentId` naming no
/// entry ends the path there (that entry is treated as a root); a cycle is cut where it closes.
/// When several entries share an id, the last one wins (as upstream's id map).
///
/// ```
/// use hookwright::session::{JsonlSessionStore, SessionManager, SessionWriter, branch_path};
/// use hookwright::events::Message;
///
/// let store = JsonlSessionStore::in_memory(std::path::Path::new("/p"));
/// let a = store.append_message(Message::user("a"))?;
/// let b = store.append_message(Message::user("b"))?;
/// let ids = |path: Vec<_>| path.into_iter().map(|e: hookwright::events::SessionEntry| e.id).collect::<Vec<_>>();
/// assert_eq!(ids(branch_path(&store.entries(), Some(&b.id))), [a.id.clone(), b.id]);
/// assert_eq!(ids(branch_path(&store.entries(), Some(&a.id))), [a.id]);
/// assert!(branch_path(&store.entries(), None).is_empty());
/// # Ok::<(), hookwright::SessionError>(())
/// ```
#[must_use]
pub fn branch_path(entries: &[SessionEntry], leaf: Option<&str>) -> Vec<SessionEntry> {
    let by_id: HashMap<&str, &SessionEntry> = entries.iter().map(|e| (e.id.as_str(), e)).collect();
    let mut seen = HashSet::new();
    let mut path = Vec::new();
    let mut next = leaf;
    while let Some(id) = next {
        let Some(entry) = by_id.get(id) else { break };
        if !seen.insert(id) {
            break;
        }
        path.push((*entry).clone());
        next = entry.parent_id.as_deref();
    }
    path.reverse();
    path
}

/// Write access to a session: what a `new_session` setup callback receives.
///
/// Every append creates an entry whose `parentId` is the current leaf and makes it the new leaf.
pub trait SessionWriter: SessionManager {
    /// Appends a `message` entry (`{"type":"message",...,"message":<Message>}`).
    ///
    /// # Errors
    ///
    /// [`SessionError::Write`] if the session file cannot be written.
    fn append_message(&self, message: Message) -> Result<SessionEntry, SessionError>;

    /// Appends a `custom` entry (`{"type":"custom",...,"customType":...,"data":...}`): hook
    /// state kept in the session and never sent to the model. `data: None` omits the key.
    ///
    /// # Errors
    ///
    /// [`SessionError::Write`] if the session file cannot be written.
    fn append_custom_entry(
        &self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<SessionEntry, SessionError>;

    /// Appends a `custom_message` entry
    /// (`{"type":"custom_message",...,"customType","content","display","details"}`): a hook
    /// message that takes part in the model's context. `details` and `attribution` are written
    /// only when set; the message's own `timestamp` is replaced by the entry's.
    ///
    /// # Errors
    ///
    /// [`SessionError::Write`] if the session file cannot be written.
    fn append_custom_message(&self, message: CustomMessage) -> Result<SessionEntry, SessionError>;
}

/// Why reading or writing a session failed. Every message names the file (and the line).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The session file (or its directory) could not be created.
    #[error("cannot create session file {}: {source}", path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The session file could not be opened or read (for example, it does not exist, or is not
    /// a regular file).
    #[error("cannot open session file {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// An entry could not be appended to the session file.
    #[error("cannot write to session file {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a valid entry (a cut last line, one without its newline, is only a load
    /// warning instead).
    #[error("{}:{line}: invalid session entry: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with the line.
        #[source]
        source: serde_json::Error,
    },
    /// The file does not start with a session header.
    #[error("{}:{line}: not a session file: {reason}", path.display())]
    InvalidHeader {
        /// The file.
        path: PathBuf,
        /// The 1-based line number of the offending line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// An entry could not be serialized.
    #[error("cannot serialize session entry: {0}")]
    Serialize(#[source] serde_json::Error),
    /// The session has no entry with this id (for example, a tree navigation target).
    #[error("{}: no entry with id {id:?}", session_name(path.as_deref()))]
    UnknownEntry {
        /// The file, `None` for a session kept in memory.
        path: Option<PathBuf>,
        /// The id asked for.
        id: String,
    },
    /// An entry being copied in has an id the session already holds.
    #[error("{}: an entry with id {id:?} already exists", session_name(path.as_deref()))]
    DuplicateEntry {
        /// The file, `None` for a session kept in memory.
        path: Option<PathBuf>,
        /// The id.
        id: String,
    },
}

/// How error messages name a session: its file, or `in-memory session`.
fn session_name(path: Option<&std::path::Path>) -> String {
    path.map_or_else(
        || "in-memory session".to_owned(),
        |p| p.display().to_string(),
    )
}

#[cfg(test)]
mod tests;
