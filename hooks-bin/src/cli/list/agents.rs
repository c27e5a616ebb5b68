//! Per agent, the loaded handlers and commands that the agent can never call: its protocol
//! ([`Protocol::events`](crate::agents::Protocol::events)) emits none of their events, or
//! none of its events runs a command; for pi and oh-my-pi, what their bridge can be given
//! ([`ExtensionAgent::delivers`](crate::agents::ExtensionAgent::delivers); both run commands).

use std::collections::BTreeSet;

use hookwright::LoadedHook;
use hookwright::events::EventKind;
use serde_json::{Value, json};

#[cfg(test)]
use crate::agents::Agent;
use crate::agents::{AgentKind, Protocol};

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

/// Every agent of the list ([`AgentKind::ALL`], in its order) with what it can call: its
/// name, our events it emits, whether it runs commands.
fn agents() -> Vec<(&'static str, BTreeSet<EventKind>, bool)> {
    AgentKind::ALL
        .iter()
        .map(|&agent| match agent {
            AgentKind::Command(hooked) => {
                let (kinds, commands) = reachable(hooked.protocol());
                (agent.as_str(), kinds, commands)
            }
            AgentKind::Extension(bridged) => (
                agent.as_str(),
                bridged.delivers().into_iter().collect(),
                true,
            ),
        })
        .collect()
}

/// `[{"agent", "unreachable": [{"event", "hook", "name", "location"}], "unreachableCommands":
/// [{"name", "hook"}]}]`, one entry per agent ([`agents`]' order); handlers in dispatch
/// order, events in the order of SPEC.md section 3.
#[must_use]
pub(super) fn unreachable(hooks: &[LoadedHook]) -> Value {
    let agents: Vec<Value> = agents()
        .into_iter()
        .map(|(agent, kinds, runs_commands)| {
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
                "agent": agent,
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
    fn pi_and_oh_my_pi_are_listed_and_pi_cannot_deliver_the_auto_events() {
        let names: Vec<&str> = agents().iter().map(|(name, _, _)| *name).collect();
        assert_eq!(names[names.len() - 2..], ["pi", "omp"]);
        let (_, pi, _) = agents().into_iter().find(|(n, _, _)| *n == "pi").unwrap();
        assert!(!pi.contains(&EventKind::AutoRetryStart));
        assert!(pi.contains(&EventKind::SessionBranch));
        let (_, omp, _) = agents().into_iter().find(|(n, _, _)| *n == "omp").unwrap();
        assert_eq!(omp.len(), EventKind::ALL.len());
    }

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
