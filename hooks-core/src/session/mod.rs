//! Sessions: the read-only view handlers get ([`SessionManager`]), the write access a
//! `new_session` setup callback gets ([`SessionWriter`]), and a JSONL file store implementing
//! both ([`JsonlSessionStore`]).
//!
//! A session file is upstream-compatible JSON Lines. The first line is a header
//! `{"type":"session","version":3,"id":...,"timestamp":...,"cwd":...,"parentSession":...?}`;
//! every later line is one entry `{"type":...,"id":...,"parentId":...,"timestamp":...,...}`.
//! Entries are only ever appended, one complete line per write, never rewritten.

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
    /// Every entry, in file order (the header excluded).
    fn entries(&self) -> Vec<SessionEntry>;
    /// The id of the current leaf (the last entry appended), `None` for an empty session.
    fn leaf_id(&self) -> Option<String>;
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
    /// The session file could not be opened or read (for example, it does not exist).
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
    /// A line other than the last one is not a valid entry.
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
}

#[cfg(test)]
mod tests;
