//! An agent is one value, listed once ([`Agent::ALL`]): every command that knows agents knows
//! each of them, from that list, with the events its protocol serves.

use hookwright_cli::agents::Agent;
use serde_json::Value;

use crate::common::scratch::{Scratch, text};

#[test]
fn every_command_knows_every_agent_of_the_list_with_the_events_its_protocol_serves() {
    let user = Scratch::new();
    let top = text(&user.hooks(&["--help"]));
    let doctor = user.hooks(&["doctor", "--json"]);
    let doctor: Value = serde_json::from_slice(&doctor.stdout)
        .unwrap_or_else(|e| panic!("doctor --json: {e}: {}", text(&doctor)));
    let list = user.hooks(&["list", "--json"]);
    let list: Value = serde_json::from_slice(&list.stdout)
        .unwrap_or_else(|e| panic!("list --json: {e}: {}", text(&list)));
    for &agent in Agent::ALL {
        let name = agent.as_str();
        let protocol = agent.protocol();
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
        for command in ["install", "uninstall"] {
            let out = user.hooks(&[command, name, "--dry-run"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "hooks {command} {name}: {}",
                text(&out)
            );
        }
        let first = protocol.events()[0].name;
        let explain = user.hooks_with(&["explain", name, first], b"{}", &[]);
        assert!(
            !text(&explain).contains("invalid value"),
            "hooks explain {name}: {}",
            text(&explain)
        );
        assert!(
            doctor.to_string().contains(&format!("\"{name}\"")),
            "doctor does not know {name}: {doctor}"
        );
        assert!(
            list.to_string().contains(&format!("\"{name}\"")),
            "list does not know {name}: {list}"
        );
    }
}
