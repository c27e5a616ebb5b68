//! [`Tables`]: the hook table that a resident host's sessions share when their hooks are the
//! same compiled-in hooks.
//!
//! A session still loads its hooks when it is built (the hook files discovered for its
//! working directory, checked against the trust store as they are now), so a hook file that
//! appears, changes or gets trusted is seen by the next session as before. When that load is
//! compiled-in hooks alone, the same ones (by id, in order) as the table kept from an earlier
//! session, the new session's runner is built over that table instead: a compiled-in hook is
//! the same code and registrations whichever session loads it, and its runner state, host and
//! contexts are the runner's own ([`hookwright::HookTable`]). A load with a hook file (or hooks
//! given by a factory) gets a table of its own, as every session did before.

use std::sync::Mutex;

use crate::sync::Locked as _;
use hookwright::{HookTable, LoadedHook};

/// The table kept for sessions whose hooks are compiled-in hooks alone.
#[derive(Debug, Default)]
pub struct Tables {
    compiled: Mutex<Option<HookTable>>,
}

impl Tables {
    /// No table kept yet.
    #[must_use]
    pub fn new() -> Self {
        Tables::default()
    }

    /// The table for `hooks`, just loaded for a new session: the kept one when `hooks` are
    /// compiled-in hooks alone with the same ids in the same order (`hooks` are dropped), else
    /// a table of their own (kept for the next session when they are compiled-in alone).
    pub fn table_for(&self, hooks: Vec<LoadedHook>) -> HookTable {
        if !hooks.iter().all(LoadedHook::is_compiled) {
            return HookTable::new(hooks);
        }
        let mut kept = self.compiled.locked();
        if let Some(table) = kept.as_ref() {
            let same = table.hooks().len() == hooks.len()
                && table
                    .hooks()
                    .iter()
                    .zip(&hooks)
                    .all(|(a, b)| a.path == b.path);
            if same {
                return table.clone();
            }
        }
        let table = HookTable::new(hooks);
        if table.is_shareable() {
            *kept = Some(table.clone());
        }
        table
    }
}
