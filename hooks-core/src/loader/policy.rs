//! The host's say on hook files ([`FilePolicy`]): the library loads every file, as upstream,
//! unless the host refuses it (e.g. a project file the user has not trusted).
//!
//! A refused file is out of the game before de-duplication: it hides no other provider's item
//! with the same key (the next one wins), it never loads, and its reason becomes a load error.
//! Compiled-in hooks are not asked about.

use super::capability::FileCandidate;

/// Decides, once per hook file, whether it may load.
///
/// Discovery asks about an item only when no accepted item of a higher-priority provider has
/// its key already (a shadowed item is never loaded, so it is not asked about); configured
/// paths are asked about once they have loaded without error.
pub trait FilePolicy: Send + Sync {
    /// `Ok(())` to load the file; `Err(reason)` to refuse it, where `reason` is the whole load
    /// error (e.g. `Failed to load hook: ... is not trusted; ...`).
    ///
    /// # Errors
    /// The file is refused: it does not load and does not shadow other items.
    fn check(&self, file: &FileCandidate<'_>) -> Result<(), String>;
}

/// Every file may load (the default policy).
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptAll;

impl FilePolicy for AcceptAll {
    fn check(&self, _file: &FileCandidate<'_>) -> Result<(), String> {
        Ok(())
    }
}

impl<F> FilePolicy for F
where
    F: Fn(&FileCandidate<'_>) -> Result<(), String> + Send + Sync,
{
    fn check(&self, file: &FileCandidate<'_>) -> Result<(), String> {
        self(file)
    }
}
