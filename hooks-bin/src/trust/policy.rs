//! The trust check: which hook files need trust ([`needs_trust`]), the loader's
//! [`FilePolicy`] for a [`TrustMode`] ([`TrustPolicy`]), and the refusal it gives an untrusted
//! or changed file.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use hookwright::loader::path::normalize_lexically;
use hookwright::loader::{DiscoveryOptions, FileCandidate, FilePolicy, Level, discover_hooks};

use crate::text::shell_quote;

use super::error::shown;
use super::store::{TrustStore, sha256_file};
use crate::sync::Locked as _;

/// How a host checks hook files before it runs them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrustMode {
    /// Project-level files must be in the trust store of the user's config directory
    /// ([`store_path`](super::store_path)).
    #[default]
    Check,
    /// Every file is trusted (`--trust-all`).
    All,
}

/// The command that trusts `path`, for hints: `hooks trust '<path>'`.
#[must_use]
pub fn trust_hint(path: &Path) -> String {
    format!("hooks trust {}", shell_quote(&shown(path)))
}

/// Whether the hook file at `path` (absolute) needs trust, given the `levels` at which
/// discovery reported it ([`hookwright::loader::CapabilityResult::levels_of`]): not when it is
/// reported at user level; yes when it is reported at project level; otherwise (a configured
/// path discovery did not find) when it lies under `cwd`.
#[must_use]
pub fn needs_trust(path: &Path, cwd: &Path, levels: &[Level]) -> bool {
    if levels.contains(&Level::User) {
        return false;
    }
    levels.contains(&Level::Project) || under(&normalize_lexically(path), cwd)
}

/// The hook files discovered for `cwd` (with `options`) that [`needs_trust`]: what a bare
/// `hooks trust` records.
#[must_use]
pub fn project_hook_files(cwd: &Path, options: &DiscoveryOptions) -> Vec<PathBuf> {
    let discovery = discover_hooks(cwd, options);
    discovery
        .items
        .iter()
        .filter(|item| needs_trust(&item.path, cwd, &discovery.levels_of(&item.path)))
        .filter(|item| item.path.is_file())
        .map(|item| item.path.clone())
        .collect()
}

/// Whether `path` is `dir` or inside it, lexically or after resolving symlinks.
fn under(path: &Path, dir: &Path) -> bool {
    if path.starts_with(normalize_lexically(dir)) {
        return true;
    }
    match (fs::canonicalize(path), fs::canonicalize(dir)) {
        (Ok(path), Ok(dir)) => path.starts_with(dir),
        _ => false,
    }
}

/// The trust check as the loader's [`FilePolicy`]: a file that [`needs_trust`] loads only
/// when the store records its current content; otherwise it is refused with a load error that
/// says why (not trusted, changed since trusted, or the store cannot be read) and how to trust
/// it.
///
/// The loader asks again before each run of a hook file ([`hookwright::loader::shell`]), in
/// every mode: a file changed after its hooks were loaded (a resident server keeps them for a
/// whole session) runs only once its new content is trusted. The checks stay cheap: the store
/// is read again only when its file changed (its device, inode, size, modification and change
/// times), and a hook file is hashed again only when its own identity changed.
#[derive(Debug)]
pub struct TrustPolicy {
    seen: Mutex<Seen>,
}

/// What a [`TrustPolicy`] read last: the store, and the hashes of the files it checked.
#[derive(Debug, Default)]
struct Seen {
    /// The store as read, and the identity of its file then (`None`: missing).
    store: Option<(Option<FileId>, Result<TrustStore, String>)>,
    /// Each hook file's identity and content hash when it was last hashed.
    hashes: HashMap<PathBuf, (FileId, String)>,
}

/// What tells a file's content changed without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    modified: Option<SystemTime>,
    changed: (i64, i64),
}

impl FileId {
    fn of(path: &Path) -> std::io::Result<FileId> {
        let meta = fs::metadata(path)?;
        let (dev, ino, changed) = {
            use std::os::unix::fs::MetadataExt as _;
            (meta.dev(), meta.ino(), (meta.ctime(), meta.ctime_nsec()))
        };
        Ok(FileId {
            dev,
            ino,
            size: meta.len(),
            modified: meta.modified().ok(),
            changed,
        })
    }
}

impl TrustPolicy {
    /// The policy of `mode`; `None` for [`TrustMode::All`] (every file loads).
    #[must_use]
    pub fn new(mode: &TrustMode) -> Option<Self> {
        (*mode == TrustMode::Check).then(|| TrustPolicy {
            seen: Mutex::new(Seen::default()),
        })
    }

    /// Why `path` may not run now, or `None` when it is trusted.
    fn refusal(&self, path: &Path) -> Option<String> {
        let mut seen = self.seen.locked();
        let store_file = super::store_path().map_err(|e| e.to_string());
        let current = match FileId::of(path) {
            Ok(id) => match seen.hashes.get(path) {
                Some((then, hash)) if *then == id => Ok(hash.clone()),
                _ => sha256_file(path).inspect(|hash| {
                    seen.hashes.insert(path.to_path_buf(), (id, hash.clone()));
                }),
            },
            Err(e) => Err(e),
        };
        let file = match store_file {
            Ok(file) => file,
            Err(e) => return refusal(Err(&e), path, current),
        };
        let id = FileId::of(&file).ok();
        if !matches!(&seen.store, Some((then, _)) if *then == id) {
            seen.store = Some((id, TrustStore::open(file).map_err(|e| e.to_string())));
        }
        match &seen.store {
            Some((_, store)) => refusal(store.as_ref(), path, current),
            None => refusal(
                Err(&"the trust store was not read".to_owned()),
                path,
                current,
            ),
        }
    }
}

impl FilePolicy for TrustPolicy {
    fn check(&self, file: &FileCandidate<'_>) -> Result<(), String> {
        if !needs_trust(file.path, file.cwd, file.levels) {
            return Ok(());
        }
        self.refusal(file.path).map_or(Ok(()), Err)
    }
}

/// Why the file at `path`, whose content hashes to `current` now, may not run by `store`, or
/// `None` when it is trusted.
fn refusal(
    store: Result<&TrustStore, &String>,
    path: &Path,
    current: std::io::Result<String>,
) -> Option<String> {
    let file = shown(path);
    let hint = trust_hint(path);
    let skip = "or pass --trust-all to skip the check, e.g. in CI";
    let cannot = |e: &dyn std::fmt::Display| {
        Some(format!(
            "Failed to load hook: {file} is a project hook file and its trust cannot be \
             checked: {e}"
        ))
    };
    let store = match store {
        Ok(store) => store,
        Err(e) => return cannot(e),
    };
    let Some(trusted) = store.get(path) else {
        return Some(format!(
            "Failed to load hook: {file} is a project hook file that is not trusted, so it does \
             not run; review it, then run `{hint}` ({skip})"
        ));
    };
    let current = match current {
        Ok(current) => current,
        Err(e) => return cannot(&format!("cannot read {file}: {e}")),
    };
    (current != trusted).then(|| {
        format!(
            "Failed to load hook: {file} changed since it was trusted (sha256 {} then, {} now), \
             so it does not run; review it, then run `{hint}` ({skip})",
            &trusted[..12.min(trusted.len())],
            &current[..12.min(current.len())],
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_escapes_control_characters() {
        assert_eq!(shown(Path::new("/a/\x1b[31mb")), "/a/\\u{1b}[31mb");
        assert_eq!(
            trust_hint(Path::new("/a b/it's")),
            r"hooks trust '/a b/it'\''s'"
        );
    }

    #[test]
    fn user_level_wins_and_cwd_bounds_configured_paths() {
        let cwd = Path::new("/p");
        let (user, project) = (&[Level::User][..], &[Level::Project][..]);
        assert!(needs_trust(
            Path::new("/p/.xcsh/hooks/pre/a.sh"),
            cwd,
            project
        ));
        assert!(!needs_trust(
            Path::new("/p/.xcsh/hooks/pre/u.sh"),
            cwd,
            &[Level::Project, Level::User]
        ));
        assert!(!needs_trust(
            Path::new("/p/.xcsh/hooks/pre/u.sh"),
            cwd,
            user
        ));
        assert!(needs_trust(Path::new("/elsewhere/pre/c.sh"), cwd, project));
        assert!(needs_trust(Path::new("/p/./y/../x/pre/c.sh"), cwd, &[]));
        assert!(!needs_trust(Path::new("/elsewhere/pre/c.sh"), cwd, &[]));
    }
}
