//! The bridge (`hooks-bin/bridges/pi/hooks.ts`) holds copies of what is defined here, since it
//! must act when the server is down: its table `ON_FAILURE` lists our 25 events in SPEC order
//! (its `OURS` is that table's keys), each with the rule of [`OnFailure::of`].

use hooks_bin::agents::OnFailure;
use hooks_bin::install::extension::BRIDGE_SOURCE;
use hooks_core::EventKind;

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
