//! The runner's dispatch plan: for each event kind, every hook's handlers in dispatch order
//! (hooks in load order, a hook's handlers in registration order), flattened once when the
//! runner is built, so that an emission walks one slice instead of looking up each hook's
//! table.

use std::any::Any;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::api::LoadedHook;
use crate::events::{CustomEvent, Event, EventKind, HookEvent};
use crate::handler::{Handler, HandlerEntry, SyncHandlerFn, SyncHandlerFnPtr};

/// How the dispatch loop calls a handler: a sync one directly, from a compact array that
/// holds nothing else.
pub(crate) enum Step<E: Event> {
    /// A sync `fn` (what `#[hook]` generates for a sync handler).
    Fn(SyncHandlerFnPtr<E>),
    /// A sync closure.
    Closure(Arc<SyncHandlerFn<E>>),
    /// An async handler: the loop hands it to the async path, which reads its entry.
    Async,
}

/// The handlers of one event, across hooks, in dispatch order.
pub(crate) struct Plan<E: Event> {
    /// Each handler with the index of its hook in the runner.
    pub(crate) entries: Vec<(usize, HandlerEntry<E>)>,
    /// How to call each handler (the same order as `entries`).
    pub(crate) steps: Vec<Step<E>>,
    /// Whether every handler is sync: an emission then runs them all in one go, without
    /// polling a handler future.
    pub(crate) sync_only: bool,
}

impl<E: Event> Plan<E> {
    /// A plan without handlers.
    fn empty() -> Self {
        Plan {
            entries: Vec::new(),
            steps: Vec::new(),
            sync_only: true,
        }
    }

    /// Appends `hook`'s handlers (`hook` is its index in the runner).
    fn extend(&mut self, hook: usize, entries: &[HandlerEntry<E>]) {
        for entry in entries {
            let step = match &entry.handler {
                Handler::SyncFn(f) => Step::Fn(*f),
                Handler::Sync(f) => Step::Closure(Arc::clone(f)),
                Handler::AsyncFn(_) | Handler::AsyncInline(_) | Handler::Async(_) => Step::Async,
            };
            self.sync_only &= !matches!(step, Step::Async);
            self.steps.push(step);
            self.entries.push((hook, entry.clone()));
        }
    }
}

/// One [`Plan`] per event kind that has handlers, and one per custom event name.
pub(crate) struct Plans {
    slots: [Option<Box<dyn Any + Send + Sync>>; EventKind::COUNT],
    custom: IndexMap<String, Plan<CustomEvent>>,
    /// Bit `kind.index()` is set when `kind` has a plan: an emission without handlers tests
    /// one bit, before any downcast.
    present: u32,
}

/// A plan slot: `None` when its kind has no handler, else a `Plan<E>`.
type PlanSlot = Option<Box<dyn Any + Send + Sync>>;

impl Plans {
    /// The plans of `hooks`, in load order.
    pub(crate) fn new(hooks: &[LoadedHook]) -> Self {
        let mut slots: [PlanSlot; EventKind::COUNT] = std::array::from_fn(|_| None);
        macro_rules! plan_each {
            ($(($kind:ident, $name:literal, $event:ident $($rest:tt)*))*) => {$(
                slots[EventKind::$kind.index()] = plan_of::<crate::events::$event>(hooks);
            )*};
        }
        crate::for_each_event!(plan_each);
        let mut custom: IndexMap<String, Plan<CustomEvent>> = IndexMap::new();
        for (index, hook) in hooks.iter().enumerate() {
            for name in hook.handlers.custom_events() {
                custom
                    .entry(name.to_owned())
                    .or_insert_with(Plan::empty)
                    .extend(index, hook.handlers.custom(name));
            }
        }
        let present = slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.is_some())
            .fold(0, |bits, (index, _)| bits | 1 << index);
        Plans {
            slots,
            custom,
            present,
        }
    }

    /// The plan of `E`; `None` when no hook has a handler of it.
    #[inline]
    pub(crate) fn get<E: HookEvent>(&self) -> Option<&Plan<E>> {
        if !self.has(E::KIND) {
            return None;
        }
        self.slots[E::KIND.index()].as_deref()?.downcast_ref()
    }

    /// The plan of the custom event `name`; `None` when no hook has a handler of it.
    #[inline]
    pub(crate) fn custom(&self, name: &str) -> Option<&Plan<CustomEvent>> {
        self.custom.get(name)
    }

    /// Whether some hook has a handler of `kind`.
    #[inline]
    pub(crate) fn has(&self, kind: EventKind) -> bool {
        self.present & (1 << kind.index()) != 0
    }
}

/// The plan of `E` over `hooks` (in load order), from each hook's handler table; `None` when
/// no hook has a handler of `E`.
fn plan_of<E: HookEvent>(hooks: &[LoadedHook]) -> PlanSlot {
    let mut plan = None;
    for (index, hook) in hooks.iter().enumerate() {
        let entries = hook.handlers.get::<E>();
        if !entries.is_empty() {
            plan.get_or_insert_with(Plan::<E>::empty)
                .extend(index, entries);
        }
    }
    plan.map(|plan| Box::new(plan) as Box<dyn Any + Send + Sync>)
}
