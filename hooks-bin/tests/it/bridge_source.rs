//! The bridge (`hooks-bin/bridges/pi/hooks.ts`) holds copies of what is defined here, since it
//! must act when the server is down: its table `ON_FAILURE` lists our 25 events in SPEC order
//! (its `OURS` is that table's keys), each with the rule of [`OnFailure::of`].

use hookwright::EventKind;
use hookwright_cli::agents::OnFailure;
use hookwright_cli::install::extension::BRIDGE_SOURCE;

/// The bridge's `ON_FAILURE` table: `(event, rule)` in its order.
fn bridge_table() -> Vec<(String, String)> {
    let start = BRIDGE_SOURCE
        .find("const ON_FAILURE = {")
        .expect("the bridge has its ON_FAILURE table");
    let body = &BRIDGE_SOURCE[start..];
    let body = &body[body.find('{').expect("its opening brace") + 1..];
    let body = &body[..body
        .find("\n} as const satisfies Record<string, Failure>;")
        .expect("its closing brace, typed")];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (key, value) = line
                .strip_suffix(',')
                .and_then(|l| l.split_once(": "))
                .unwrap_or_else(|| panic!("not `event: \"rule\",`: {line}"));
            (
                key.trim_matches('"').to_owned(),
                value.trim_matches('"').to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_bridge_lists_our_events_in_spec_order_each_with_its_rule() {
    let ours: Vec<(String, String)> = EventKind::ALL
        .iter()
        .map(|k| (k.as_str().to_owned(), OnFailure::of(*k).as_str().to_owned()))
        .collect();
    assert_eq!(bridge_table(), ours);
}

#[test]
fn the_bridge_names_each_rule_it_applies() {
    for rule in ["block", "withhold", "hold", "cancel"] {
        assert!(
            BRIDGE_SOURCE.contains(&format!("case \"{rule}\":")),
            "the bridge does not apply `{rule}`"
        );
    }
}

/// The text between `start` and the next `end` in the bridge's source.
fn between<'a>(start: &str, end: &str) -> &'a str {
    let from = BRIDGE_SOURCE
        .find(start)
        .unwrap_or_else(|| panic!("the bridge has {start}"));
    let body = &BRIDGE_SOURCE[from + start.len()..];
    &body[..body
        .find(end)
        .unwrap_or_else(|| panic!("{start} ends with {end}"))]
}

#[test]
fn the_events_the_bridge_routes_from_each_agent_are_what_hooks_list_assumes() {
    use hookwright_cli::install::extension::ExtensionAgent;
    use std::collections::BTreeSet;
    // pi: `PI_DELIVERS` under their own names, and the keys its `SOURCES.pi` adds.
    let mut pi: BTreeSet<String> = between("const PI_DELIVERS = [", "]")
        .split(',')
        .map(|name| name.trim().trim_matches('"').to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    let mapped = between(
        "  pi: {\n    ...Object.fromEntries(PI_DELIVERS.map((e) => [e, e])),\n",
        "  },",
    );
    pi.extend(
        mapped
            .lines()
            .filter_map(|line| line.trim().split_once(':'))
            .map(|(k, _)| k.to_owned()),
    );
    let ours: BTreeSet<String> = ExtensionAgent::Pi
        .delivers()
        .iter()
        .map(|kind| kind.as_str().to_owned())
        .collect();
    assert_eq!(pi, ours);
    // oh-my-pi: every event, by its own name.
    assert!(BRIDGE_SOURCE.contains("  omp: Object.fromEntries(OURS.map((e) => [e, e])),\n"));
    assert_eq!(ExtensionAgent::Omp.delivers(), EventKind::ALL);
}
