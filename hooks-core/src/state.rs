//! What hooks keep for the life of one runner ([`HookContext::state`](crate::HookContext::state)):
//! one value per type, made on first use.
//!
//! Upstream loads a hook module once per session, so a module's variables live exactly as
//! long as the session. A `static` in a compiled bundle lives as long as the process instead,
//! which in a resident host (`hooks serve`, one runner per agent session) is every session at
//! once. A value kept here lives as long as the runner, which a host builds per session.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// One value per type, each made with `Default` on first use and shared from then on.
#[derive(Default)]
pub(crate) struct RunnerState {
    values: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl RunnerState {
    /// The value of type `T`, made with `T::default()` if there is none yet.
    pub(crate) fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        let value = values
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        Arc::clone(value)
            .downcast::<T>()
            .unwrap_or_else(|_| unreachable!("each value is stored under its own type id"))
    }
}
