//! [`JsonlSessionStore`]: a session kept in an append-only JSON Lines file.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::util::{entry_id, file_stamp, now_iso8601, session_id};
use super::{SESSION_VERSION, SessionError, SessionManager, SessionWriter, branch_path};
use crate::events::{CustomMessage, Extra, Message, SessionEntry};

/// Keys every entry line carries itself; `append_entry` drops them from the caller's fields.
const RESERVED_KEYS: [&str; 4] = ["type", "id", "parentId", "timestamp"];

/// The first line of a session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
    #[serde(default)]
    cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent_session: Option<String>,
    #[serde(flatten)]
    extra: Extra,
}

/// A session kept in a JSON Lines file (or only in memory), implementing [`SessionManager`] and
/// [`SessionWriter`].
///
/// Each append writes one complete line with a single `write` on a file opened in append mode;
/// earlier lines are never rewritten. Appends from several threads are serialized by an internal
/// lock, so each append's `parentId` is the leaf left by the one before. One store should own a
/// file at a time: two stores (or processes) appending to the same file would each chain their
/// own entries.
///
/// The session is a tree (see the [module docs](super)): [`set_leaf`](Self::set_leaf) moves the
/// leaf to an earlier entry without writing anything, and the next append becomes a child of it.
/// [`branch_entries`](SessionManager::branch_entries) is the path from the root to the leaf.
///
/// Opening a file whose last line was cut by a crash (it has no newline and is not a complete
/// entry) keeps every earlier entry and reports the cut line in
/// [`load_warnings`](Self::load_warnings); the first append afterwards removes the cut bytes
/// (they hold no complete entry) before writing. Any other line that is not an entry, the last
/// one included when it ends with a newline, is an error naming the file and the line, and
/// nothing is removed.
///
/// ```
/// use hookwright::session::{JsonlSessionStore, SessionManager, SessionWriter};
///
/// let dir = tempfile::tempdir()?;
/// let store = JsonlSessionStore::create(dir.path(), dir.path(), None)?;
/// let entry = store.append_custom_entry("my-hook", Some(serde_json::json!({"count": 1})))?;
///
/// let reopened = JsonlSessionStore::open(&store.session_file().unwrap())?;
/// assert_eq!(reopened.entries(), vec![entry]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct JsonlSessionStore {
    path: Option<PathBuf>,
    header: Header,
    warnings: Vec<String>,
    state: Mutex<State>,
}

/// What appends change.
struct State {
    file: Option<File>,
    entries: Vec<SessionEntry>,
    /// Entry id → position in `entries` (the last entry with that id).
    index: HashMap<String, usize>,
    /// Where the next append is attached.
    leaf: Option<String>,
    /// Length of the file up to the end of the last complete line.
    good_len: u64,
    /// Bytes past `good_len` (a cut line, or a failed write) to remove before the next append.
    truncate: bool,
    /// The last line is a complete entry without its newline; the next append writes it first.
    needs_newline: bool,
}

impl std::fmt::Debug for JsonlSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlSessionStore")
            .field("path", &self.path)
            .field("session_id", &self.header.id)
            .field("entries", &self.lock().entries.len())
            .finish_non_exhaustive()
    }
}

impl JsonlSessionStore {
    /// Creates a new session file `<dir>/<timestamp>_<id>.jsonl` (creating `dir` if needed) and
    /// writes its header line. `parent_session` is recorded as the header's `parentSession`.
    ///
    /// # Errors
    ///
    /// [`SessionError::Create`] if the directory or the file cannot be created or written.
    pub fn create(
        dir: &Path,
        cwd: &Path,
        parent_session: Option<String>,
    ) -> Result<Self, SessionError> {
        let header = new_header(cwd, parent_session);
        let stamp = file_stamp(header.timestamp.as_deref().unwrap_or_default());
        let path = dir.join(format!("{stamp}_{}.jsonl", header.id));
        let create_err = |source| SessionError::Create {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| {
            // `create_dir_all` says only "File exists" when something else holds the name.
            if dir.exists() && !dir.is_dir() {
                create_err(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("the session directory {} is not a directory", dir.display()),
                ))
            } else {
                create_err(e)
            }
        })?;
        Self::create_file(path, header, &mut OpenOptions::new())
    }

    /// Creates the new session file `path` for the session `id` (another agent's session,
    /// served by a resident host) and writes its header line. The directory must exist; the
    /// file is made readable by its owner only (mode 0600 on unix), as it holds what the
    /// session's hooks keep. Reopen it with [`open`](Self::open).
    ///
    /// ```
    /// use hookwright::session::{JsonlSessionStore, SessionManager, SessionWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("abc123.jsonl");
    /// let store = JsonlSessionStore::create_at(&path, dir.path(), "abc123")?;
    /// store.append_custom_entry("my-hook", None)?;
    /// let reopened = JsonlSessionStore::open(&path)?;
    /// assert_eq!((reopened.session_id().as_str(), reopened.entries().len()), ("abc123", 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SessionError::Create`] if the file exists or cannot be created or written.
    pub fn create_at(path: &Path, cwd: &Path, id: impl Into<String>) -> Result<Self, SessionError> {
        let mut header = new_header(cwd, None);
        header.id = id.into();
        let mut options = OpenOptions::new();
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        Self::create_file(path.to_path_buf(), header, &mut options)
    }

    /// Creates `path` (it must not exist) with `options` and writes `header` as its first line.
    fn create_file(
        path: PathBuf,
        header: Header,
        options: &mut OpenOptions,
    ) -> Result<Self, SessionError> {
        let create_err = |source| SessionError::Create {
            path: path.clone(),
            source,
        };
        let mut line = serde_json::to_string(&header).map_err(SessionError::Serialize)?;
        line.push('\n');
        let mut file = options
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(create_err)?;
        file.write_all(line.as_bytes()).map_err(create_err)?;
        file.flush().map_err(create_err)?;
        Ok(Self::with_state(
            Some(path),
            header,
            Vec::new(),
            Some(file),
            Vec::new(),
            line.len() as u64,
        ))
    }

    /// Opens an existing session file and reads its entries; later appends go to its end, and
    /// the leaf is the last entry (a leaf moved by [`set_leaf`](Self::set_leaf) is not saved).
    ///
    /// A cut last line (no newline at its end and not a valid entry: what a crash during a
    /// write leaves) is skipped and reported in [`load_warnings`](Self::load_warnings); every
    /// earlier entry is kept, and the first append removes the cut bytes. A last line that ends
    /// with a newline was written whole, so it must be a valid entry like every other line.
    /// Blank lines are skipped.
    ///
    /// Only a regular file (symbolic links are followed) is read, and no more of it than its
    /// size when opened: a FIFO or a device is refused before it is opened or read.
    ///
    /// # Errors
    ///
    /// [`SessionError::Open`] if the file cannot be opened or read, or is not a regular file
    /// (the message names the path),
    /// [`SessionError::InvalidHeader`] if it does not start with a session header,
    /// [`SessionError::Parse`] if a line other than a cut last line is not a valid entry (the
    /// message names `file:line`; the file is left as it is).
    pub fn open(path: &Path) -> Result<Self, SessionError> {
        let open_err = |source| SessionError::Open {
            path: path.to_path_buf(),
            source,
        };
        // Checked before opening: opening a FIFO waits for a writer, and a device such as
        // `/dev/zero` never ends.
        ensure_regular(&std::fs::metadata(path).map_err(open_err)?).map_err(open_err)?;
        let mut options = OpenOptions::new();
        options.read(true).append(true);
        // Should the path be replaced by a FIFO after the check, opening it does not block.
        // The flag has no effect on a regular file.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, nix::libc::O_NONBLOCK);
        let mut file = options.open(path).map_err(open_err)?;
        let meta = file.metadata().map_err(open_err)?;
        ensure_regular(&meta).map_err(open_err)?;
        let bytes = read_at_most(&mut file, meta.len()).map_err(open_err)?;
        let loaded = parse_file(path, &bytes)?;
        let store = Self::with_state(
            Some(path.to_path_buf()),
            loaded.header,
            loaded.entries,
            Some(file),
            loaded.warnings,
            loaded.good_len,
        );
        {
            let mut state = store.lock();
            state.truncate = loaded.good_len < bytes.len() as u64;
            state.needs_newline = loaded.needs_newline;
        }
        Ok(store)
    }

    /// A session kept in memory only (no file): for tests and `--no-session`.
    #[must_use]
    pub fn in_memory(cwd: &Path) -> Self {
        Self::with_state(None, new_header(cwd, None), Vec::new(), None, Vec::new(), 0)
    }

    /// A session kept in memory only, under the id `id`: a host serving one call of another
    /// agent's session (the hook adapters) gives hooks that agent's session id, so that what a
    /// hook keeps per session stays together across calls.
    ///
    /// ```
    /// use hookwright::{JsonlSessionStore, SessionManager};
    ///
    /// let store = JsonlSessionStore::in_memory_with_id(std::path::Path::new("/p"), "abc123");
    /// assert_eq!(store.session_id(), "abc123");
    /// assert_eq!(store.session_file(), None);
    /// ```
    #[must_use]
    pub fn in_memory_with_id(cwd: &Path, id: impl Into<String>) -> Self {
        let mut header = new_header(cwd, None);
        header.id = id.into();
        Self::with_state(None, header, Vec::new(), None, Vec::new(), 0)
    }

    /// Problems found by [`open`](Self::open) that did not prevent loading (a cut last line,
    /// removed by the first append).
    #[must_use]
    pub fn load_warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The session this one was started from (the header's `parentSession`).
    #[must_use]
    pub fn parent_session(&self) -> Option<String> {
        self.header.parent_session.clone()
    }

    /// Appends an entry of type `entry_type` with `fields` (its own keys, e.g. `customType`)
    /// as a child of the current leaf, makes it the leaf and returns it. The keys `type`, `id`,
    /// `parentId` and `timestamp` in `fields` are ignored: the store sets them.
    ///
    /// # Errors
    ///
    /// [`SessionError::Write`] if the line cannot be written; the store is unchanged then, and
    /// any partial line is removed before the next append.
    pub fn append_entry(
        &self,
        entry_type: &str,
        mut fields: Extra,
    ) -> Result<SessionEntry, SessionError> {
        for key in RESERVED_KEYS {
            fields.remove(key);
        }
        let mut state = self.lock();
        let entry = SessionEntry {
            entry_type: entry_type.to_owned(),
            id: entry_id(|id| state.index.contains_key(id)),
            parent_id: state.leaf.clone(),
            timestamp: Some(now_iso8601()),
            extra: fields,
        };
        self.push(&mut state, entry)
    }

    /// Appends a copy of `entry` (from another session) as a child of the current leaf, keeping
    /// its id, type, timestamp and fields, and makes it the leaf; only its `parentId` is
    /// replaced. Copying a branch root first, entry by entry, rebuilds it with the same ids, so
    /// references between entries (a compaction's `firstKeptEntryId`) stay valid, as upstream's
    /// `createBranchedSession` does. An entry without an id gets a fresh one.
    ///
    /// # Errors
    ///
    /// [`SessionError::DuplicateEntry`] if this session already has an entry with that id;
    /// [`SessionError::Write`] as for [`append_entry`](Self::append_entry).
    pub fn append_copy(&self, entry: &SessionEntry) -> Result<SessionEntry, SessionError> {
        let mut state = self.lock();
        let mut copy = entry.clone();
        if copy.id.is_empty() {
            copy.id = entry_id(|id| state.index.contains_key(id));
        } else if state.index.contains_key(&copy.id) {
            return Err(SessionError::DuplicateEntry {
                path: self.path.clone(),
                id: copy.id,
            });
        }
        copy.parent_id.clone_from(&state.leaf);
        self.push(&mut state, copy)
    }

    /// Moves the leaf to the entry `id` (`None`: to the root, before the first entry), so the
    /// next append becomes its child and [`branch_entries`](SessionManager::branch_entries)
    /// ends there. Nothing is written: the tree is implied by the entries' `parentId`s, and a
    /// reopened file starts at its last entry again.
    ///
    /// # Errors
    ///
    /// [`SessionError::UnknownEntry`] if the session has no entry `id`; the leaf is unchanged.
    pub fn set_leaf(&self, id: Option<&str>) -> Result<(), SessionError> {
        let mut state = self.lock();
        match id {
            Some(id) if !state.index.contains_key(id) => Err(SessionError::UnknownEntry {
                path: self.path.clone(),
                id: id.to_owned(),
            }),
            _ => {
                state.leaf = id.map(str::to_owned);
                Ok(())
            }
        }
    }

    /// The entry with this id, if the session has one.
    #[must_use]
    pub fn entry(&self, id: &str) -> Option<SessionEntry> {
        let state = self.lock();
        state.index.get(id).map(|&i| state.entries[i].clone())
    }

    /// Writes `entry` (if file-backed), then records it and makes it the leaf.
    fn push(&self, state: &mut State, entry: SessionEntry) -> Result<SessionEntry, SessionError> {
        if let Some(path) = &self.path {
            let json = serde_json::to_string(&entry).map_err(SessionError::Serialize)?;
            state
                .write_line(&json)
                .map_err(|source| SessionError::Write {
                    path: path.clone(),
                    source,
                })?;
        }
        let at = state.entries.len();
        state.index.insert(entry.id.clone(), at);
        state.leaf = Some(entry.id.clone());
        state.entries.push(entry.clone());
        Ok(entry)
    }

    fn with_state(
        path: Option<PathBuf>,
        header: Header,
        entries: Vec<SessionEntry>,
        file: Option<File>,
        warnings: Vec<String>,
        good_len: u64,
    ) -> Self {
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        let leaf = entries
            .iter()
            .rev()
            .map(|e| e.id.clone())
            .find(|id| !id.is_empty());
        JsonlSessionStore {
            path,
            header,
            warnings,
            state: Mutex::new(State {
                file,
                entries,
                index,
                leaf,
                good_len,
                truncate: false,
                needs_newline: false,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while locked cannot leave the state half-updated: it changes only after a
        // successful write.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Writes `json` as one line with a single write call, first removing leftovers past
    /// `good_len` and ending an unterminated last line.
    fn write_line(&mut self, json: &str) -> std::io::Result<()> {
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        if self.truncate {
            file.set_len(self.good_len)?;
            self.truncate = false;
        }
        let mut line = String::with_capacity(json.len() + 2);
        if self.needs_newline {
            line.push('\n');
        }
        line.push_str(json);
        line.push('\n');
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
            // Part of the line may have reached the file: remove it before the next append.
            self.truncate = true;
            return Err(e);
        }
        self.good_len += line.len() as u64;
        self.needs_newline = false;
        Ok(())
    }
}

impl SessionManager for JsonlSessionStore {
    fn session_file(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    fn session_id(&self) -> String {
        self.header.id.clone()
    }

    fn cwd(&self) -> PathBuf {
        PathBuf::from(&self.header.cwd)
    }

    fn entries(&self) -> Vec<SessionEntry> {
        self.lock().entries.clone()
    }

    fn leaf_id(&self) -> Option<String> {
        self.lock().leaf.clone()
    }

    fn branch_entries(&self) -> Vec<SessionEntry> {
        let state = self.lock();
        branch_path(&state.entries, state.leaf.as_deref())
    }
}

impl SessionWriter for JsonlSessionStore {
    fn append_message(&self, message: Message) -> Result<SessionEntry, SessionError> {
        let message = serde_json::to_value(message).map_err(SessionError::Serialize)?;
        self.append_entry(
            "message",
            Extra::from_iter([("message".to_owned(), message)]),
        )
    }

    fn append_custom_entry(
        &self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<SessionEntry, SessionError> {
        let mut fields = Extra::new();
        fields.insert("customType".to_owned(), Value::from(custom_type));
        if let Some(data) = data {
            fields.insert("data".to_owned(), data);
        }
        self.append_entry("custom", fields)
    }

    fn append_custom_message(&self, message: CustomMessage) -> Result<SessionEntry, SessionError> {
        let fields = match serde_json::to_value(message).map_err(SessionError::Serialize)? {
            Value::Object(fields) => fields,
            other => Extra::from_iter([("content".to_owned(), other)]),
        };
        // The message's numeric `timestamp` would clash with the entry's; append_entry drops it.
        self.append_entry("custom_message", fields)
    }
}

fn new_header(cwd: &Path, parent_session: Option<String>) -> Header {
    Header {
        kind: "session".to_owned(),
        version: Some(SESSION_VERSION),
        id: session_id(),
        timestamp: Some(now_iso8601()),
        cwd: cwd.to_string_lossy().into_owned(),
        parent_session,
        extra: Extra::new(),
    }
}

/// What [`parse_file`] found.
struct Loaded {
    header: Header,
    entries: Vec<SessionEntry>,
    warnings: Vec<String>,
    good_len: u64,
    needs_newline: bool,
}

/// Fails unless `meta` is that of a regular file, saying what it is instead.
fn ensure_regular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a directory"
    } else {
        special_file_kind(kind)
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("not a regular file (it is {what})"),
    ))
}

/// What a file that is neither regular nor a directory is.
#[cfg(unix)]
fn special_file_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

/// What a file that is neither regular nor a directory is.
#[cfg(not(unix))]
fn special_file_kind(_: std::fs::FileType) -> &'static str {
    "a special file"
}

/// Reads `reader` to its end, but no more than `limit` bytes: the file's size when it was
/// checked, so a file that grows while it is read cannot make the read run away.
pub(super) fn read_at_most(reader: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    // The size is only a hint for the buffer: a sparse file can claim far more than it holds.
    const MAX_RESERVE: u64 = 64 << 20;
    let mut bytes = Vec::with_capacity(usize::try_from(limit.min(MAX_RESERVE)).unwrap_or(0));
    reader.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Parses a session file's bytes.
fn parse_file(path: &Path, bytes: &[u8]) -> Result<Loaded, SessionError> {
    // (1-based line number, byte offset, content without '\n', terminated by '\n')
    let mut lines = Vec::new();
    let mut offset = 0;
    for (index, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let terminated = raw.ends_with(b"\n");
        let content = raw.strip_suffix(b"\n").unwrap_or(raw);
        if !content.iter().all(u8::is_ascii_whitespace) {
            lines.push((index + 1, offset, content, terminated));
        }
        offset += raw.len();
    }
    let invalid_header = |line, reason: String| SessionError::InvalidHeader {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let Some(&(header_line, header_offset, header_bytes, header_terminated)) = lines.first() else {
        return Err(invalid_header(1, "the file is empty".to_owned()));
    };
    let header: Header = serde_json::from_slice(header_bytes)
        .map_err(|e| invalid_header(header_line, format!("bad header line: {e}")))?;
    if header.kind != "session" {
        return Err(invalid_header(
            header_line,
            format!("the first line has type {:?}, not \"session\"", header.kind),
        ));
    }
    let mut loaded = Loaded {
        header,
        entries: Vec::new(),
        warnings: Vec::new(),
        good_len: (header_offset + header_bytes.len() + usize::from(header_terminated)) as u64,
        needs_newline: !header_terminated,
    };
    let last = lines.len() - 1;
    for (i, &(line, offset, content, terminated)) in lines.iter().enumerate().skip(1) {
        match serde_json::from_slice::<SessionEntry>(content) {
            Ok(entry) => {
                loaded.entries.push(entry);
                loaded.good_len = (offset + content.len() + usize::from(terminated)) as u64;
                loaded.needs_newline = !terminated;
            }
            // Only a write cut short leaves a last line without its newline. A complete line
            // that does not parse is not one: it is reported below, like any other line.
            Err(e) if i == last && !terminated => {
                loaded.warnings.push(format!(
                    "{}:{line}: ignored the cut last line ({} bytes): {e}",
                    path.display(),
                    content.len()
                ));
            }
            Err(source) => {
                return Err(SessionError::Parse {
                    path: path.to_path_buf(),
                    line,
                    source,
                });
            }
        }
    }
    Ok(loaded)
}
