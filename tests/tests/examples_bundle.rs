//! `use hookwright_examples as _;` is all it takes to link the examples bundle: its hooks are then in the
//! registry, one per module, with the four canonical examples of SPEC.md section 8 among them.

use hookwright_examples as _;

use hookwright::registry::{self, RegistrationKind};

#[test]
fn naming_the_bundle_links_its_hooks() {
    let ids = registry::compiled_hook_ids();
    for id in [
        "hookwright_examples::block_rm",
        "hookwright_examples::redact",
        "hookwright_examples::filter_context",
        "hookwright_examples::handoff",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let handoff = registry::registrations()
        .iter()
        .find(|r| r.kind() == RegistrationKind::Command && r.target() == "handoff")
        .expect("the /handoff command is registered");
    assert_eq!(handoff.hook(), "hookwright_examples::handoff");
    assert!(handoff.location().file.starts_with("examples/src/"));
    let hooks = registry::compiled_hooks(std::path::Path::new(".")).expect("no duplicates");
    assert_eq!(hooks.len(), ids.len());
}
