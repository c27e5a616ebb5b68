//! The trust check: which hook files need trust ([`needs_trust`]), the loader's
//! [`FilePolicy`] for a [`TrustMode`] ([`TrustPolicy`]), and the refusal it gives an untrusted
//! or changed file.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hooks_core::loader::path::normalize_lexically;
use hooks_core::loader::{DiscoveryOptions, FileCandidate, FilePolicy, Level, discover_hooks};

use crate::text::shell_quote;

use super::error::shown;
use super::store::{TrustStatus, TrustStore};

/// How a host checks hook files before it runs them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrustMode {
    /// Project-level files must be in the trust store of the user's config directory
    /// ([`store_path`](super::store_path)).
    #[default]
    Check,
    /// Project-level files must be in this trust store file.
    CheckWith(PathBuf),
    /// Every file is trusted (`--trust-all`).
    All,
}

/// The command that trusts `path`, for hints: `hooks trust '<path>'`.
#[must_use]
pub fn trust_hint(path: &Path) -> String {
    format!("hooks trust {}", shell_quote(&shown(path)))
}

/// Whether the hook file at `path` (absolute) needs trust, given the `levels` at which
/// discovery reported it ([`hooks_core::loader::CapabilityResult::levels_of`]): not when it is
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
/// it. The store is opened once, when a file first needs it.
#[derive(Debug)]
pub struct TrustPolicy {
    /// `None`: the store of this process ([`store_path`](super::store_path)).
    store_path: Option<PathBuf>,
    store: OnceLock<Result<TrustStore, String>>,
}

impl TrustPolicy {
    /// The policy of `mode`; `None` for [`TrustMode::All`] (every file loads).
    #[must_use]
    pub fn new(mode: &TrustMode) -> Option<Self> {
        let store_path = match mode {
            TrustMode::All => return None,
            TrustMode::Check => None,
            TrustMode::CheckWith(path) => Some(path.clone()),
        };
        Some(TrustPolicy {
            store_path,
            store: OnceLock::new(),
        })
    }

    fn store(&self) -> &Result<TrustStore, String> {
        self.store.get_or_init(|| {
            match &self.store_path {
                Some(path) => TrustStore::open(path.clone()),
                None => TrustStore::open_default(),
            }
            .map_err(|e| e.to_string())
        })
    }
}

impl FilePolicy for TrustPolicy {
    fn check(&self, file: &FileCandidate<'_>) -> Result<(), String> {
        if !needs_trust(file.path, file.cwd, file.levels) {
            return Ok(());
        }
        refusal(self.store(), file.path).map_or(Ok(()), Err)
    }
}

/// Why the file at `path` may not run, or `None` when it is trusted.
fn refusal(store: &Result<TrustStore, String>, path: &Path) -> Option<String> {
    let file = shown(path);
    let hint = trust_hint(path);
    let skip = "or pass --trust-all to skip the check, e.g. in CI";
    let store = match store {
        Ok(store) => store,
        Err(e) => {
            return Some(format!(
                "Failed to load hook: {file} is a project hook file and its trust cannot be \
                 checked: {e}"
            ));
        }
    };
    match store.status(path) {
        Ok(TrustStatus::Trusted) => None,
        Ok(TrustStatus::Untrusted) => Some(format!(
            "Failed to load hook: {file} is a project hook file that is not trusted, so it does \
             not run; review it, then run `{hint}` ({skip})"
        )),
        Ok(TrustStatus::Changed { trusted, current }) => Some(format!(
            "Failed to load hook: {file} changed since it was trusted (sha256 {} then, {} now), \
             so it does not run; review it, then run `{hint}` ({skip})",
            &trusted[..12.min(trusted.len())],
            &current[..12.min(current.len())],
        )),
        Err(e) => Some(format!(
            "Failed to load hook: {file} is a project hook file and its trust cannot be \
             checked: {e}"
        )),
    }
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
