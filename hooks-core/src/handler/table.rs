//! [`HandlerTable`]: one hook's handlers, per event kind and per custom event name.

use std::any::Any;
use std::fmt;

use indexmap::IndexMap;

use super::{HandlerEntry, HandlerInfo};
use crate::events::{CustomEvent, EventKind, HookEvent};

trait ErasedList: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn infos(&self) -> Vec<&HandlerInfo>;
}

impl<E: HookEvent> ErasedList for Vec<HandlerEntry<E>> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn infos(&self) -> Vec<&HandlerInfo> {
        self.iter().map(|e| &e.info).collect()
    }
}

/// One hook's handlers, per event kind in registration order, plus custom events by name.
#[derive(Default)]
pub struct HandlerTable {
    slots: [Option<Box<dyn ErasedList>>; EventKind::COUNT],
    custom: IndexMap<String, Vec<HandlerEntry<CustomEvent>>>,
}

impl HandlerTable {
    /// Appends a handler of `E` (no de-duplication: registering twice runs twice).
    pub fn push<E: HookEvent>(&mut self, entry: HandlerEntry<E>) {
        let slot = self.slots[E::KIND.index()]
            .get_or_insert_with(|| Box::new(Vec::<HandlerEntry<E>>::new()));
        slot.as_any_mut()
            .downcast_mut::<Vec<HandlerEntry<E>>>()
            .expect("slot type matches its event kind")
            .push(entry);
    }

    /// The handlers of `E`, in registration order.
    #[must_use]
    pub fn get<E: HookEvent>(&self) -> &[HandlerEntry<E>] {
        match &self.slots[E::KIND.index()] {
            Some(slot) => slot
                .as_any()
                .downcast_ref::<Vec<HandlerEntry<E>>>()
                .map_or(&[], Vec::as_slice),
            None => &[],
        }
    }

    /// The handlers of `E`, in registration order, to change in place (e.g. to wrap each one
    /// in a tracer, as `hooks explain` does before a runner is built from the table); `None`
    /// when `E` has none. A runner plans its dispatch from the table when it is built, so a
    /// change afterwards is not seen, and the dispatch path does not read this.
    pub fn get_mut<E: HookEvent>(&mut self) -> Option<&mut Vec<HandlerEntry<E>>> {
        self.slots[E::KIND.index()]
            .as_mut()?
            .as_any_mut()
            .downcast_mut::<Vec<HandlerEntry<E>>>()
    }

    /// The info of each handler of `kind`, in registration order.
    #[must_use]
    pub fn infos(&self, kind: EventKind) -> Vec<&HandlerInfo> {
        self.slots[kind.index()]
            .as_ref()
            .map(|s| s.infos())
            .unwrap_or_default()
    }

    /// Whether there is at least one handler of `kind`.
    #[must_use]
    pub fn has(&self, kind: EventKind) -> bool {
        !self.infos(kind).is_empty()
    }

    /// Appends a handler of the custom event `name`.
    pub fn push_custom(&mut self, name: impl Into<String>, entry: HandlerEntry<CustomEvent>) {
        self.custom.entry(name.into()).or_default().push(entry);
    }

    /// The handlers of the custom event `name`.
    #[must_use]
    pub fn custom(&self, name: &str) -> &[HandlerEntry<CustomEvent>] {
        self.custom.get(name).map_or(&[], Vec::as_slice)
    }

    /// The names of the custom events with handlers, in first-registration order.
    pub fn custom_events(&self) -> impl Iterator<Item = &str> {
        self.custom.keys().map(String::as_str)
    }
}

impl fmt::Debug for HandlerTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for kind in EventKind::ALL {
            let infos = self.infos(*kind);
            if !infos.is_empty() {
                m.entry(&kind.as_str(), &infos);
            }
        }
        for (name, entries) in &self.custom {
            m.entry(name, &entries.len());
        }
        m.finish()
    }
}
