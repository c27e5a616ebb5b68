//! The contexts a runner lends its emissions.
//!
//! What an emission captures (`ui`, `has_ui`, and the host's model) changes only when the host
//! changes, so the runner builds one [`HookContext`] per host it is given, up front, and lends
//! it by reference: an emission then costs one load and the host's `model` call, where
//! building a context costs two reference counts. The model is still asked once per emission;
//! when it is the one the lent context holds (or no model), that context is lent, else the
//! emission builds its own. Lent contexts are kept with the runner, as the hosts are kept with
//! its [`Shared`] state, so an emission that outlives an `initialize` keeps what it captured.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use super::shared::Shared;
use crate::calls::Model;
use crate::context::HookContext;
use crate::host::Host;

/// The contexts lent for each host of a runner, at the host's index (boxed, as the hosts
/// are: see [`Shared`]).
pub(super) struct Lending {
    lent: boxcar::Vec<Box<Lent>>,
}

struct Lent {
    host: Arc<dyn Host>,
    /// The context without a model.
    base: HookContext,
    /// The context with the first model the host answered.
    with_model: OnceLock<HookContext>,
}

/// The context of one emission: lent by the runner or built for it.
pub(crate) enum EmissionContext<'r> {
    Lent(&'r HookContext),
    Owned(HookContext),
}

impl Deref for EmissionContext<'_> {
    type Target = HookContext;

    #[inline(always)]
    fn deref(&self) -> &HookContext {
        match self {
            EmissionContext::Lent(ctx) => ctx,
            EmissionContext::Owned(ctx) => ctx,
        }
    }
}

impl Lending {
    /// Lends contexts of the host `shared` has now (its first).
    pub(super) fn new(shared: &Arc<Shared>) -> Self {
        let lending = Lending {
            lent: boxcar::Vec::new(),
        };
        lending.publish(shared, shared.current());
        lending
    }

    /// Lends contexts of the host at `index` (called as it is installed, in order).
    pub(super) fn publish(&self, shared: &Arc<Shared>, index: usize) {
        let installed = shared.installed_at(index);
        let pushed = self.lent.push(Box::new(Lent {
            host: installed.shared_host(),
            base: HookContext::of(shared, installed, None),
            with_model: OnceLock::new(),
        }));
        debug_assert_eq!(pushed, index, "contexts are lent for each host, in order");
    }

    /// The context of an emission starting now (calls the host's `model` once).
    #[inline]
    pub(super) fn context(&self, shared: &Shared) -> EmissionContext<'_> {
        let lent = &self.lent[shared.current()];
        match lent.host.model() {
            None => EmissionContext::Lent(&lent.base),
            Some(model) => lent.with_model(model),
        }
    }
}

impl Lent {
    #[cold]
    fn with_model(&self, model: Model) -> EmissionContext<'_> {
        let mut model = Some(model);
        let ctx = self.with_model.get_or_init(|| {
            self.base
                .with_model(model.take().expect("the model is taken once"))
        });
        match model {
            None => EmissionContext::Lent(ctx),
            Some(model) if ctx.model() == Some(&model) => EmissionContext::Lent(ctx),
            Some(model) => EmissionContext::Owned(self.base.with_model(model)),
        }
    }
}
