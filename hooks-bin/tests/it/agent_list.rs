//! An agent is one value, listed once ([`AgentKind::ALL`]): every command that knows agents knows
//! each of them, from that list: the command-hook agents with the events their protocol serves,
//! pi and oh-my-pi through their bridge extension.

use hookwright_cli::agents::AgentKind;
use serde_json::Value;

use crate::common::scratch::{Scratch, text};

#[test]
fn every_command_knows_every_agent_of_the_list_with_the_events_its_protocol_serves() {
    let user = Scratch::new();
    let top = text(&user.hooks(&["--help"]));
    let install_help = text(&user.hooks(&["install", "--help"]));
    let uninstall_help = text(&user.hooks(&["uninstall", "--help"]));
    for &agent in AgentKind::ALL {
        let name = agent.as_str();
        for command in ["install", "uninstall"] {
            let out = user.hooks(&[command, name, "--dry-run"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "hooks {command} {name}: {}",
                text(&out)
            );
        }
        for help in [&install_help, &uninstall_help] {
            assert!(help.contains(&format!("`{name}` (")), "{help}");
        }
        // For real, so that doctor has this binary's entries (or bridge) of each agent to find.
        let out = user.hooks(&["install", name]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "hooks install {name}: {}",
            text(&out)
        );
        match agent {
            AgentKind::Command(hooked) => {
                let protocol = hooked.protocol();
                let display = protocol.cli().display_name;
                assert!(
                    top.lines()
                        .any(|l| l.trim_start().starts_with(name) && l.contains(display)),
                    "`hooks --help` has no `{name}`: {top}"
                );
                let help = text(&user.hooks(&[name, "--help"]));
                for event in protocol.events() {
                    assert!(
                        help.contains(event.name),
                        "`hooks {name} --help` lacks {}: {help}",
                        event.name
                    );
                }
                assert!(help.contains(protocol.cli().exit_status), "{help}");
                let first = protocol.events()[0].name;
                let explain = user.hooks_with(&["explain", name, first], b"{}", &[]);
                assert!(
                    !text(&explain).contains("invalid value"),
                    "hooks explain {name}: {}",
                    text(&explain)
                );
            }
            AgentKind::Extension(bridged) => {
                let install = top.lines().find(|l| l.trim_start().starts_with("install"));
                assert!(
                    install.is_some_and(|l| l.contains(&format!("`{name}`"))
                        && l.contains(bridged.spec().display_name)),
                    "`hooks --help` does not name `{name}` for install: {top}"
                );
            }
        }
    }
    let doctor = user.hooks(&["doctor", "--json"]);
    let doctor: Value = serde_json::from_slice(&doctor.stdout)
        .unwrap_or_else(|e| panic!("doctor --json: {e}: {}", text(&doctor)));
    let list = user.hooks(&["list", "--json"]);
    let list: Value = serde_json::from_slice(&list.stdout)
        .unwrap_or_else(|e| panic!("list --json: {e}: {}", text(&list)));
    for &agent in AgentKind::ALL {
        let name = agent.as_str();
        let known = match agent {
            AgentKind::Command(_) => format!("\"{name}\""),
            AgentKind::Extension(_) => format!("{name} bridge "),
        };
        assert!(
            doctor.to_string().contains(&known),
            "doctor does not know {name}: {doctor}"
        );
        assert!(
            list.to_string().contains(&format!("\"{name}\"")),
            "list does not know {name}: {list}"
        );
    }
}
