//! The session actions that change the current session file: a switch (`new_session`, resume,
//! fork) and a branch, each cancellable by its `session_before_*` event.

use std::path::{Path, PathBuf};

use hookwright::context::{NewSessionOptions, SessionActionResult, SessionSetup};
use hookwright::events::{
    SessionBeforeBranchEvent, SessionBeforeSwitchEvent, SessionBranchEvent, SessionEntry,
    SessionSwitchEvent, SwitchReason,
};
use hookwright::session::branch_path;
use hookwright::{JsonlSessionStore, SessionManager};

use super::super::host::Shared;
use super::NOT_DONE;

impl Shared {
    /// `session_before_switch` (cancellable), then `switch` builds the new store, which becomes
    /// current, then `session_switch`.
    ///
    /// `setup` (from `new_session`) seeds the new session after it became current and before
    /// `session_switch`.
    async fn switch_to(
        &self,
        reason: SwitchReason,
        target: Option<String>,
        make: impl FnOnce(&Self) -> Result<JsonlSessionStore, String>,
        change: &str,
        setup: Option<SessionSetup>,
    ) -> SessionActionResult {
        let before = SessionBeforeSwitchEvent {
            reason,
            target_session_file: target,
        };
        if self
            .emit(&before)
            .await
            .is_some_and(|r| r.cancel == Some(true))
        {
            self.out.session(change, None, None, true);
            return SessionActionResult { cancelled: true };
        }
        let store = match make(self) {
            Ok(store) => store,
            Err(e) => {
                self.fail(&e);
                return NOT_DONE;
            }
        };
        let previous_session_file = self.make_current(change, store);
        if let Some(setup) = setup {
            let store = self.session.get();
            if let Err(e) = setup(&*store).await {
                self.out
                    .hook_error("(new_session setup)", "new_session", e.message());
            }
        }
        let after = SessionSwitchEvent {
            reason,
            previous_session_file,
        };
        self.emit(&after).await;
        SessionActionResult::default()
    }

    /// `new_session` (the command context's, and `{"switch": {"reason": "new"}}`).
    pub(in crate::run) async fn new_session(
        &self,
        options: NewSessionOptions,
    ) -> SessionActionResult {
        let NewSessionOptions {
            parent_session,
            setup,
        } = options;
        self.switch_to(
            SwitchReason::New,
            None,
            |me| {
                JsonlSessionStore::create(&me.session_dir, &me.cwd, parent_session)
                    .map_err(|e| e.to_string())
            },
            "new",
            setup,
        )
        .await
    }

    /// `{"switch": {"reason": "resume", "session": FILE}}`.
    pub(in crate::run) async fn resume(&self, file: &str) -> SessionActionResult {
        let path = self.resolve_session_file(file);
        let target = path.to_string_lossy().into_owned();
        self.switch_to(
            SwitchReason::Resume,
            Some(target),
            |_| JsonlSessionStore::open(&path).map_err(|e| e.to_string()),
            "resume",
            None,
        )
        .await
    }

    /// `{"switch": {"reason": "fork"}}`: a new session file, parent the current one, with a copy
    /// of the current branch.
    pub(in crate::run) async fn fork(&self) -> SessionActionResult {
        self.switch_to(
            SwitchReason::Fork,
            None,
            |me| {
                let current = me.session.get();
                me.copy_into_new(&current.branch_entries(), current.session_file())
            },
            "fork",
            None,
        )
        .await
    }

    /// Makes `store` the current session and shows the `change` (with the store's load
    /// warnings); returns the previous session file.
    fn make_current(&self, change: &str, store: JsonlSessionStore) -> Option<String> {
        let file = store
            .session_file()
            .map(|p| p.to_string_lossy().into_owned());
        let parent = store.parent_session();
        let previous = self.session.replace(store);
        for warning in self.session.get().load_warnings() {
            self.out.warning(warning);
        }
        self.out
            .session(change, file.as_deref(), parent.as_deref(), false);
        previous
            .session_file()
            .map(|p| p.to_string_lossy().into_owned())
    }

    /// A new store whose parent is `parent`, holding copies of `entries` (a path, root first)
    /// with their ids, so references between them (`firstKeptEntryId`) still hold.
    fn copy_into_new(
        &self,
        entries: &[SessionEntry],
        parent: Option<PathBuf>,
    ) -> Result<JsonlSessionStore, String> {
        let parent = parent.map(|p| p.to_string_lossy().into_owned());
        let store = JsonlSessionStore::create(&self.session_dir, &self.cwd, parent)
            .map_err(|e| e.to_string())?;
        for entry in entries {
            store.append_copy(entry).map_err(|e| e.to_string())?;
        }
        Ok(store)
    }

    fn resolve_session_file(&self, file: &str) -> PathBuf {
        let path = Path::new(file);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.session_dir.join(path)
        }
    }

    /// `branch`: `session_before_branch` (cancellable), then a new session file (parent: the
    /// current one) holding the conversation before the chosen entry, then `session_branch`.
    ///
    /// As upstream (`createBranchedSession(entry.parentId)`), the new file holds the path from
    /// the root to the chosen entry's parent, with the same ids, on whichever branch the entry
    /// is; the chosen entry itself (typically the user prompt to redo) is not copied. Branching
    /// from a root entry gives an empty session. `skipConversationRestore` has nothing to skip
    /// here: the context is always rebuilt from the session.
    pub(in crate::run) async fn branch(&self, entry_id: String) -> SessionActionResult {
        let before = SessionBeforeBranchEvent {
            entry_id: entry_id.clone(),
        };
        if self
            .emit(&before)
            .await
            .is_some_and(|r| r.cancel == Some(true))
        {
            self.out.session("branch", None, None, true);
            return SessionActionResult { cancelled: true };
        }
        let current = self.session.get();
        let entries = current.entries();
        let Some(entry) = entries.iter().find(|e| e.id == entry_id) else {
            self.fail(&format!(
                "the current session has no entry with id {entry_id}"
            ));
            return SessionActionResult::default();
        };
        let kept = branch_path(&entries, entry.parent_id.as_deref());
        let store = match self.copy_into_new(&kept, current.session_file()) {
            Ok(store) => store,
            Err(e) => {
                self.fail(&e);
                return NOT_DONE;
            }
        };
        let previous_session_file = self.make_current("branch", store);
        self.emit(&SessionBranchEvent {
            previous_session_file,
        })
        .await;
        SessionActionResult::default()
    }
}
