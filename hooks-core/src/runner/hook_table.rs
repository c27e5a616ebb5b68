//! [`HookTable`]: loaded hooks and their dispatch plan, built once, for one runner or for many
//! (a resident host's sessions: one table, a runner per session).
//!
//! What a runner keeps of its own is not in the table: its host, the contexts it lends, its
//! state (`ctx.state::<T>()`), its error listeners. A hook itself is bound to a runner only
//! through a [`HookSender`](crate::HookSender) it handed out while it registered (a handler
//! closing over `api.sender()` sends to the host of the runner the hook is in): such a hook
//! can be in one runner only, so a table with one serves the first runner built from it and
//! refuses the next ([`TableInUse`]). A table of hooks that handed out no sender (every
//! compiled-in hook) serves any number of runners.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::plan::Plans;
use super::shared::Shared;
use crate::api::LoadedHook;

/// Loaded hooks (in load order) and their dispatch plan, shared by the runners built from it
/// ([`HookRunner::from_table`](crate::HookRunner::from_table)); cheap to clone.
#[derive(Clone)]
pub struct HookTable {
    inner: Arc<Inner>,
}

struct Inner {
    hooks: Vec<LoadedHook>,
    plans: Plans,
    /// The first hook that handed out a sender, if any: it binds the table to one runner.
    bound: Option<usize>,
    /// Whether a runner was built from the table.
    claimed: AtomicBool,
}

/// A second runner asked of a table one of whose hooks is bound to the first
/// ([`HookRunner::from_table`](crate::HookRunner::from_table)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the hook `{hook}` handed out a HookSender, which sends to the host of the one runner it is \
     in, and its table serves a runner already: load the hooks again for another runner"
)]
pub struct TableInUse {
    /// The path of the bound hook.
    pub hook: String,
}

impl HookTable {
    /// The table of `hooks`, in load order.
    #[must_use]
    pub fn new(hooks: Vec<LoadedHook>) -> Self {
        let bound = hooks.iter().position(LoadedHook::handed_out_sender);
        HookTable {
            inner: Arc::new(Inner {
                plans: Plans::new(&hooks),
                hooks,
                bound,
                claimed: AtomicBool::new(false),
            }),
        }
    }

    /// The hooks, in load order.
    #[must_use]
    pub fn hooks(&self) -> &[LoadedHook] {
        &self.inner.hooks
    }

    /// Whether the table serves any number of runners: none of its hooks handed out a
    /// [`HookSender`](crate::HookSender).
    #[must_use]
    pub fn is_shareable(&self) -> bool {
        self.inner.bound.is_none()
    }

    /// Whether `a` and `b` are the same table (not two tables of equal hooks).
    #[must_use]
    pub fn ptr_eq(a: &HookTable, b: &HookTable) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    /// The dispatch plan.
    #[inline(always)]
    pub(crate) fn plans(&self) -> &Plans {
        &self.inner.plans
    }

    /// Takes the table for the runner whose state is `shared`: a table with a bound hook
    /// links its hooks to that runner, once.
    pub(crate) fn attach(&self, shared: &Arc<Shared>) -> Result<(), TableInUse> {
        let Some(bound) = self.inner.bound else {
            return Ok(());
        };
        if self.inner.claimed.swap(true, Ordering::AcqRel) {
            return Err(TableInUse {
                hook: self.inner.hooks[bound].path.clone(),
            });
        }
        for hook in &self.inner.hooks {
            hook.link(shared);
        }
        Ok(())
    }
}

impl From<Vec<LoadedHook>> for HookTable {
    fn from(hooks: Vec<LoadedHook>) -> Self {
        HookTable::new(hooks)
    }
}

impl fmt::Debug for HookTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookTable")
            .field("hooks", &self.inner.hooks)
            .field("shareable", &self.is_shareable())
            .finish()
    }
}
