//! One Rust type per hook event, their result types, and the combine rule of each.
//!
//! Every event implements [`HookEvent`], which names the event (`NAME`, the upstream `type`
//! string), its [`EventKind`], its result type and its combine rule ([`HookEvent::Rule`], one of
//! the types in [`combine`]). The runner has one emission path, generic over the event, which
//! hands each handler's outcome to the rule and answers what the rule makes of them; adding an
//! event is adding its types and one row to the list of events
//! ([`for_each_event!`](crate::for_each_event), in `kind.rs`: its kind, name, types and rule),
//! and, for a new way of combining, a rule beside the others.
//!
//! The JSON form of every event carries the upstream `type` discriminator first, followed by the
//! fields in upstream camelCase spelling; unknown fields are kept in `extra`.

mod agent;
pub mod combine;
mod kind;
mod message;
mod session;
mod tool;
mod wire;

pub use agent::*;
pub use combine::{Combine, Combiner};
pub use kind::{EventKind, UnknownEvent};
pub use message::*;
pub use session::*;
pub use tool::*;

use serde::Serialize;
use serde::de::DeserializeOwned;

use combine::{Chain, FirstMessage, Ignore, LastWins, Strict, UntilCancel};

/// Anything the runner emits: every [`HookEvent`] and custom events by name
/// ([`CustomEvent`]). What its handlers may return, and its name in error reports.
pub trait Event: Send + Sync + 'static {
    /// What a handler may return.
    type Result: Send + Sync + 'static;

    /// The event's name in a `HookError` (`event.type` upstream).
    fn name(&self) -> &str;
}

/// An event a hook can handle.
///
/// Implemented by every event type of this module. The associated items are what the runner and
/// the `#[hook]` macro need to know about an event: its name, kind, result type and combine
/// rule.
pub trait HookEvent:
    Serialize + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static
{
    /// The upstream event name (the JSON `type` field), e.g. `"tool_call"`.
    const NAME: &'static str;
    /// This event's [`EventKind`].
    const KIND: EventKind;
    /// The name of this event's combine rule.
    const COMBINE: Combine = <Self::Rule as Combiner<Self>>::RULE;
    /// What a handler may return. Events whose results are ignored use [`NoResult`].
    type Result: Serialize + DeserializeOwned + std::fmt::Debug + Clone + Send + Sync + 'static;
    /// How results of several handlers combine: one of the rules of [`combine`].
    type Rule: Combiner<Self>;
}

impl<E: HookEvent> Event for E {
    type Result = <E as HookEvent>::Result;

    #[inline(always)]
    fn name(&self) -> &str {
        E::NAME
    }
}

/// A custom event: any name a hook subscribed to with `HookApi::on_custom` (as upstream `pi.on`
/// accepts any string), with its JSON payload. Its handlers' results are ignored
/// ([`combine::Ignore`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomEvent {
    /// The event name.
    pub name: String,
    /// What the emitter sent.
    pub payload: serde_json::Value,
}

impl Event for CustomEvent {
    type Result = NoResult;

    fn name(&self) -> &str {
        &self.name
    }
}

/// The result type of events whose handler results are ignored. It has no values: a handler of
/// such an event returns `()` (or `Result<(), E>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NoResult {}

/// The [`HookEvent`] impl and the tagged serde impls of every event of the list.
macro_rules! hook_events {
    ($(($kind:ident, $name:literal, $event:ident $(-> $result:ident)?, $rule:ty))*) => {$(
        impl HookEvent for $event {
            const NAME: &'static str = $name;
            const KIND: EventKind = EventKind::$kind;
            type Result = hook_events!(@result $($result)?);
            type Rule = $rule;
        }
        wire::tagged_serde!($event, $name);
    )*};
    (@result) => { NoResult };
    (@result $result:ident) => { $result };
}

crate::for_each_event!(hook_events);
