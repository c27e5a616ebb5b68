//! [`EventKind`]: the closed list of the 25 upstream events.

use std::fmt;
use std::str::FromStr;

macro_rules! kinds {
    ($($variant:ident => $name:literal,)*) => {
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

kinds! {
    SessionStart => "session_start",
    SessionBeforeSwitch => "session_before_switch",
    SessionSwitch => "session_switch",
    SessionBeforeBranch => "session_before_branch",
    SessionBranch => "session_branch",
    SessionBeforeCompact => "session_before_compact",
    SessionCompacting => "session.compacting",
    SessionCompact => "session_compact",
    SessionBeforeTree => "session_before_tree",
    SessionTree => "session_tree",
    SessionShutdown => "session_shutdown",
    Context => "context",
    BeforeAgentStart => "before_agent_start",
    AgentStart => "agent_start",
    AgentEnd => "agent_end",
    TurnStart => "turn_start",
    TurnEnd => "turn_end",
    AutoCompactionStart => "auto_compaction_start",
    AutoCompactionEnd => "auto_compaction_end",
    AutoRetryStart => "auto_retry_start",
    AutoRetryEnd => "auto_retry_end",
    TtsrTriggered => "ttsr_triggered",
    TodoReminder => "todo_reminder",
    ToolCall => "tool_call",
    ToolResult => "tool_result",
}

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
