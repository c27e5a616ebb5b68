//! [`SessionFiles`]: where `hooks serve` keeps each agent session's entries (what its hooks
//! append with `append_entry` and the other session writes), so that they outlive the server:
//! a session whose id comes back after a restart (or a `kill -9`) reopens its file, and its
//! hooks see their earlier entries.
//!
//! # Layout
//!
//! `<state dir>/hooks/sessions/<agent>/<session id>.jsonl` ([`SessionFiles::default_dir`]:
//! the state directory is `$XDG_STATE_HOME` when it is absolute, else `~/.local/state`), the
//! directories made mode 0700 and the files 0600. The session id is percent-encoded into the
//! file name (every byte but ASCII letters, digits, `-` and `_` as `%XX`): two ids never share
//! a file, and no id leaves the directory (`/` and `.` are encoded). An id whose encoding is
//! longer than [`MAX_ENCODED`] bytes is named by the start of its encoding, `~` (which no
//! encoding holds) and the SHA-256 of the id.
//!
//! Each file is a [`JsonlSessionStore`]: one complete line per append, so a server killed
//! mid-append leaves at most a cut last line, which reopening skips with a warning (on the
//! server's stderr) and the next append removes. Files are never deleted by the server: an
//! agent can resume a session it ended (`claude --resume`), and the files hold only what the
//! hooks appended.

use std::path::{Path, PathBuf};

use hookwright::{JsonlSessionStore, SessionManager};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use sha2::{Digest, Sha256};

use super::SessionKey;

/// The longest encoded session id used whole as a file name (a file name has at most 255
/// bytes).
pub const MAX_ENCODED: usize = 200;

/// What a session id keeps unencoded in its file name.
const KEPT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_');

/// The directory of the session files of one server; see the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    dir: PathBuf,
}

impl SessionFiles {
    /// The session files under `dir` (one directory per agent in it).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SessionFiles { dir: dir.into() }
    }

    /// `$XDG_STATE_HOME/hooks/sessions` when `XDG_STATE_HOME` is absolute, else
    /// `~/.local/state/hooks/sessions`.
    ///
    /// # Errors
    /// Neither an absolute `XDG_STATE_HOME` nor a home directory.
    pub fn default_dir() -> Result<PathBuf, String> {
        let state =
            crate::home::state_dir().ok_or("no absolute XDG_STATE_HOME and no home directory")?;
        Ok(state.join("hooks").join("sessions"))
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the session `key`.
    #[must_use]
    pub fn path(&self, key: &SessionKey) -> PathBuf {
        self.dir
            .join(file_name(&key.agent))
            .join(format!("{}.jsonl", file_name(&key.id)))
    }

    /// The store of the session `key`: its file reopened when there is one (its warnings, a
    /// cut last line, written to stderr), else made, for hooks working in `cwd`.
    ///
    /// # Errors
    /// The directory or the file cannot be made, or the file cannot be read, is not a session
    /// file, or is another session's (the message names the file).
    pub fn open(&self, key: &SessionKey, cwd: &Path) -> Result<JsonlSessionStore, String> {
        let path = self.path(key);
        let dir = path.parent().unwrap_or(&self.dir);
        super::runtime_dir::make_private(dir).map_err(|e| format!("the session directory: {e}"))?;
        if !path.exists() {
            return JsonlSessionStore::create_at(&path, cwd, key.id.as_str())
                .map_err(|e| e.to_string());
        }
        let store = JsonlSessionStore::open(&path).map_err(|e| e.to_string())?;
        if store.session_id() != key.id {
            return Err(format!(
                "{} is the file of session {:?}, not of {:?}",
                path.display(),
                store.session_id(),
                key.id
            ));
        }
        for warning in store.load_warnings() {
            eprintln!("hooks serve: session {key}: {warning}");
        }
        Ok(store)
    }
}

/// `name` as a file name (see the [module docs](self)).
fn file_name(name: &str) -> String {
    let encoded = utf8_percent_encode(name, KEPT).to_string();
    if encoded.len() <= MAX_ENCODED {
        return encoded;
    }
    let digest: String = Sha256::digest(name.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    // The encoding is ASCII: any byte offset is a character boundary.
    format!("{}~{digest}", &encoded[..MAX_ENCODED / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_one_file_name_in_its_agents_directory_and_no_two_share_one() {
        let files = SessionFiles::new("/s");
        let path = |id: &str| files.path(&SessionKey::new("claude", id));
        assert_eq!(path("0b1c-2d_3e"), Path::new("/s/claude/0b1c-2d_3e.jsonl"));
        assert_eq!(path("../x"), Path::new("/s/claude/%2E%2E%2Fx.jsonl"));
        assert_eq!(path(".."), Path::new("/s/claude/%2E%2E.jsonl"));
        assert_eq!(path("a/b"), Path::new("/s/claude/a%2Fb.jsonl"));
        assert_eq!(path("%2F"), Path::new("/s/claude/%252F.jsonl"));
        let long = "x".repeat(300);
        let name = path(&long).file_name().unwrap().len();
        assert!(name < 255, "{name}");
        let ids = [
            "a/b",
            "a%2Fb",
            "a.b",
            "a%2Eb",
            &long,
            &format!("{long}y"),
            "é",
        ];
        let mut names: Vec<PathBuf> = ids.iter().map(|id| path(id)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ids.len(), "{names:?}");
        for p in &names {
            assert_eq!(p.parent(), Some(Path::new("/s/claude")), "{}", p.display());
        }
    }
}
