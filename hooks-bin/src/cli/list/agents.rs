//! Per agent, the loaded handlers and commands that the agent can never call: its protocol
//! ([`Protocol::events`](crate::agents::Protocol::events)) emits none of their events, or
//! none of its events runs a command.

use std::collections::BTreeSet;

use hooks_core::LoadedHook;
use hooks_core::events::EventKind;
use serde_json::{Value, json};

use crate::agents::{Agent, Protocol};

/// The events of ours that `protocol` emits, and whether any of its events runs commands.
fn reachable(protocol: &dyn Protocol) -> (BTreeSet<EventKind>, bool) {
    let events = protocol.events();
    let kinds = events
        .iter()
        .flat_map(|e| e.mapping.kinds().iter().copied())
        .collect();
    let commands = events.iter().any(|e| e.mapping.runs_commands());
    (kinds, commands)
}

/// `[{"agent", "unreachable": [{"event", "hook", "name", "location"}], "unreachableCommands":
/// [{"name", "hook"}]}]`, one entry per agent in [`Agent::ALL`] order; handlers in dispatch
/// order, events in the order of SPEC.md section 3.
#[must_use]
pub(super) fn unreachable(hooks: &[LoadedHook]) -> Value {
    let agents: Vec<Value> = Agent::ALL
        .iter()
        .map(|agent| {
            let (kinds, runs_commands) = reachable(agent.protocol());
            let handlers: Vec<Value> = EventKind::ALL
                .iter()
                .filter(|kind| !kinds.contains(kind))
                .flat_map(|kind| {
                    hooks.iter().flat_map(move |hook| {
                        hook.handlers.infos(*kind).into_iter().map(move |info| {
                            json!({
                                "event": kind.as_str(),
                                "hook": hook.path,
                                "name": info.name,
                                "location": info.location.map(|l| l.to_string()),
                            })
                        })
                    })
                })
                .collect();
            let commands: Vec<Value> = if runs_commands {
                Vec::new()
            } else {
                hooks
                    .iter()
                    .flat_map(|hook| {
                        hook.commands
                            .values()
                            .map(move |c| json!({ "name": c.name, "hook": hook.path }))
                    })
                    .collect()
            };
            json!({
                "agent": agent.as_str(),
                "unreachable": handlers,
                "unreachableCommands": commands,
            })
        })
        .collect();
    Value::Array(agents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_gemini_reaches_context_and_every_agent_reaches_the_tool_gate() {
        for agent in Agent::ALL {
            let (kinds, commands) = reachable(agent.protocol());
            assert!(kinds.contains(&EventKind::ToolCall), "{agent}");
            assert!(commands, "{agent}: every agent has a prompt event");
            assert_eq!(
                kinds.contains(&EventKind::Context),
                *agent == Agent::Gemini,
                "{agent}"
            );
        }
    }
}
