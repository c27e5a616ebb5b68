//! One Rust type per hook event, their result types, and the combine rule of each.
//!
//! Every event implements [`HookEvent`], which names the event (`NAME`, the upstream `type`
//! string), its [`EventKind`], its result type and its [`Combine`] rule. The runner has one
//! generic dispatch loop that reads the rule; adding an event is adding a type.
//!
//! The JSON form of every event carries the upstream `type` discriminator first, followed by the
//! fields in upstream camelCase spelling; unknown fields are kept in `extra`.

mod agent;
mod kind;
mod message;
mod session;
mod tool;
mod wire;

pub use agent::*;
pub use kind::{EventKind, UnknownEvent};
pub use message::*;
pub use session::*;
pub use tool::*;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// How the results of several handlers of one event combine (SPEC.md section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Combine {
    /// Results are ignored; every handler runs.
    Ignore,
    /// The last returned result wins; every handler runs (`tool_result`, `session.compacting`).
    LastWins,
    /// The last returned result is tracked; a result with `cancel: true` returns at once
    /// (`session_before_*`).
    LastWinsUntilCancel,
    /// The last returned result wins unless a handler blocks; the first block returns at once;
    /// handler errors propagate instead of being reported (`tool_call`).
    LastWinsUntilBlock,
    /// Each handler receives the messages output by the previous one (`context`).
    Chain,
    /// The first returned message is kept; later handlers still run (`before_agent_start`).
    FirstMessage,
}

/// An event a hook can handle.
///
/// Implemented by every event type of this module. The associated items are what the runner and
/// the `#[hook]` macro need to know about an event.
pub trait HookEvent:
    Serialize + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static
{
    /// The upstream event name (the JSON `type` field), e.g. `"tool_call"`.
    const NAME: &'static str;
    /// This event's [`EventKind`].
    const KIND: EventKind;
    /// How results of several handlers combine.
    const COMBINE: Combine;
    /// What a handler may return. Events whose results are ignored use [`NoResult`].
    type Result: Serialize + DeserializeOwned + std::fmt::Debug + Clone + Send + Sync + 'static;

    /// Whether `result` ends the emission at once (a block or a cancel).
    fn short_circuits(result: &Self::Result) -> bool {
        let _ = result;
        false
    }
}

/// The result type of events whose handler results are ignored. It has no values: a handler of
/// such an event returns `()` (or `Result<(), E>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NoResult {}

/// Declares the [`HookEvent`] impl and the tagged serde impls of one event type.
macro_rules! hook_event {
    ($ty:ident, $name:literal, $kind:ident, $result:ty, $combine:ident $(, |$r:ident| $short:expr)?) => {
        impl $crate::events::HookEvent for $ty {
            const NAME: &'static str = $name;
            const KIND: $crate::events::EventKind = $crate::events::EventKind::$kind;
            const COMBINE: $crate::events::Combine = $crate::events::Combine::$combine;
            type Result = $result;
            $(
                fn short_circuits($r: &Self::Result) -> bool {
                    $short
                }
            )?
        }
        $crate::events::wire::tagged_serde!($ty, $name);
    };
}
pub(crate) use hook_event;
