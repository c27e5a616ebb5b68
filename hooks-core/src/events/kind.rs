//! The closed list of the 25 upstream events ([`for_each_event!`](crate::for_each_event)), and
//! [`EventKind`], one variant per event.

use std::fmt;
use std::str::FromStr;

/// Calls the macro `$then` with every event, in spec order (the order of [`EventKind::ALL`](crate::EventKind::ALL)):
/// the one list of the events, from which the crate and the `hooks` binary generate what
/// names each event (the kinds, the `HookEvent` impls, the result conversions, the runner's
/// plans, the binary's decoding and tracing). One row per event, in parentheses:
///
/// ```text
/// (Kind, "name", EventType -> ResultType, Rule)   // an event whose handlers answer
/// (Kind, "name", EventType, Rule)                 // an event whose results are ignored
/// ```
///
/// `Kind` is the [`EventKind`](crate::EventKind) variant, `"name"` the upstream event name, `EventType` and
/// `ResultType` name types of [`crate::events`], and `Rule` is its combine rule, a type of
/// [`crate::events::combine`] in which `Self` is the event. The names are bare: the macro
/// given prefixes them (`hookwright::events::$event`). A row that a macro does not use whole
/// it can match as `($kind:ident, $name:literal, $event:ident $($rest:tt)*)`.
///
/// Not public API (the macros of the `hookwright-macros` crate keep a list of their own, held to
/// this one by a test; so does the pi bridge).
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_event {
    ($then:ident) => {
        $then! {
            (SessionStart, "session_start", SessionStartEvent, Ignore)
            (SessionBeforeSwitch, "session_before_switch", SessionBeforeSwitchEvent
                -> SessionBeforeSwitchResult, UntilCancel<Self>)
            (SessionSwitch, "session_switch", SessionSwitchEvent, Ignore)
            (SessionBeforeBranch, "session_before_branch", SessionBeforeBranchEvent
                -> SessionBeforeBranchResult, UntilCancel<Self>)
            (SessionBranch, "session_branch", SessionBranchEvent, Ignore)
            (SessionBeforeCompact, "session_before_compact", SessionBeforeCompactEvent
                -> SessionBeforeCompactResult, UntilCancel<Self>)
            (SessionCompacting, "session.compacting", SessionCompactingEvent
                -> SessionCompactingResult, LastWins<Self>)
            (SessionCompact, "session_compact", SessionCompactEvent, Ignore)
            (SessionBeforeTree, "session_before_tree", SessionBeforeTreeEvent
                -> SessionBeforeTreeResult, UntilCancel<Self>)
            (SessionTree, "session_tree", SessionTreeEvent, Ignore)
            (SessionShutdown, "session_shutdown", SessionShutdownEvent, Ignore)
            (Context, "context", ContextEvent -> ContextEventResult, Chain)
            (BeforeAgentStart, "before_agent_start", BeforeAgentStartEvent
                -> BeforeAgentStartEventResult, FirstMessage)
            (AgentStart, "agent_start", AgentStartEvent, Ignore)
            (AgentEnd, "agent_end", AgentEndEvent, Ignore)
            (TurnStart, "turn_start", TurnStartEvent, Ignore)
            (TurnEnd, "turn_end", TurnEndEvent, Ignore)
            (AutoCompactionStart, "auto_compaction_start", AutoCompactionStartEvent, Ignore)
            (AutoCompactionEnd, "auto_compaction_end", AutoCompactionEndEvent, Ignore)
            (AutoRetryStart, "auto_retry_start", AutoRetryStartEvent, Ignore)
            (AutoRetryEnd, "auto_retry_end", AutoRetryEndEvent, Ignore)
            (TtsrTriggered, "ttsr_triggered", TtsrTriggeredEvent, Ignore)
            (TodoReminder, "todo_reminder", TodoReminderEvent, Ignore)
            (ToolCall, "tool_call", ToolCallEvent -> ToolCallEventResult, Strict)
            (ToolResult, "tool_result", ToolResultEvent -> ToolResultEventResult, LastWins<Self>)
        }
    };
}

macro_rules! kinds {
    ($(($variant:ident, $name:literal, $($rest:tt)*))*) => {
        /// Every event of SPEC.md section 3, in the order the spec lists them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum EventKind {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl EventKind {
            /// All event kinds, in spec order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant),*];
            /// The number of event kinds.
            pub const COUNT: usize = [$(EventKind::$variant),*].len();

            /// The upstream event name, e.g. `"tool_call"` or `"session.compacting"`.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)*
                }
            }

            /// A dense index in `0..COUNT`, in spec order.
            #[must_use]
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        impl FromStr for EventKind {
            type Err = UnknownEvent;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok(EventKind::$variant),)*
                    _ => Err(UnknownEvent(s.to_owned())),
                }
            }
        }
    };
}

for_each_event!(kinds);

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for EventKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for EventKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The error of parsing an event name that is not one of the 25 known events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event `{0}` (known events: {known})", known = known_list())]
pub struct UnknownEvent(pub String);

fn known_list() -> String {
    EventKind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
