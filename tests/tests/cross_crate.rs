//! Two bundles from two crates, linked into one test binary: the registry orders their hooks
//! by id and each hook's handlers by source position, whatever order inventory collected them
//! in (which differs between debug and release builds; this test runs in both in CI).

// A bundle crate that is never named is not linked and its hooks vanish: name each one.
use bundle_a as _;
use bundle_b as _;

use std::path::Path;
use std::sync::Arc;

use hookwright::events::{EventKind, Message};
use hookwright::registry::{self, RegistrationKind};
use hookwright::{HookRunner, JsonlSessionStore};

fn runner() -> HookRunner {
    let cwd = Path::new(".");
    let hooks = registry::compiled_hooks(cwd).expect("no duplicate registrations");
    HookRunner::new(hooks, cwd, Arc::new(JsonlSessionStore::in_memory(cwd)))
}

#[test]
fn hooks_are_sorted_by_id() {
    assert_eq!(
        registry::compiled_hook_ids(),
        ["bundle_a", "bundle_b", "zz_shared"]
    );
    let runner = runner();
    assert_eq!(runner.hook_paths(), ["bundle_a", "bundle_b", "zz_shared"]);
    for hook in runner.hooks() {
        assert_eq!(hook.resolved_path, Path::new(&hook.path));
    }
}

#[test]
fn handlers_are_sorted_by_source_position_across_crates() {
    let runner = runner();
    let names: Vec<Vec<&str>> = runner
        .hooks()
        .iter()
        .map(|h| {
            h.handlers
                .infos(EventKind::Context)
                .iter()
                .map(|i| &*i.name)
                .collect()
        })
        .collect();
    assert_eq!(
        names,
        [
            vec!["a1", "a2", "a3", "a4"],
            vec!["b1", "b2"],
            vec!["a_shared", "b_shared"],
        ]
    );
}

#[tokio::test]
async fn the_runner_calls_them_in_that_order() {
    let out = runner().emit_context(vec![Message::user("start")]).await;
    let texts: Vec<String> = out
        .iter()
        .map(|m| serde_json::to_value(m).unwrap()["content"].to_string())
        .collect();
    let expected = [
        "start", "a1", "a2", "a3", "a4", "b1", "b2", "a_shared", "b_shared",
    ];
    assert_eq!(texts.len(), expected.len(), "{texts:?}");
    for (text, name) in texts.iter().zip(expected) {
        assert!(text.contains(name), "{texts:?}");
    }
}

#[test]
fn registrations_carry_kind_target_and_place() {
    let regs: Vec<_> = registry::registrations()
        .iter()
        .map(|r| (r.hook(), r.kind(), r.target(), r.name(), r.location().file))
        .collect();
    let a = "tests/bundles/bundle-a/src/lib.rs";
    let a_more = "tests/bundles/bundle-a/src/more.rs";
    let b = "tests/bundles/bundle-b/src/lib.rs";
    use RegistrationKind::{Command, Handler, Renderer};
    assert_eq!(
        regs,
        [
            ("bundle_a", Handler, "context", "a1", a),
            ("bundle_a", Handler, "context", "a2", a),
            ("bundle_a", Handler, "turn_start", "a_turn", a),
            ("bundle_a", Command, "a-cmd", "a_cmd", a),
            ("bundle_a", Handler, "context", "a3", a),
            ("bundle_a", Handler, "context", "a4", a_more),
            ("bundle_b", Handler, "context", "b1", b),
            ("bundle_b", Command, "b-cmd", "b_cmd", b),
            ("bundle_b", Handler, "context", "b2", b),
            ("bundle_b", Renderer, "b-type", "b_render", b),
            ("zz_shared", Handler, "context", "a_shared", a),
            ("zz_shared", Handler, "context", "b_shared", b),
        ]
    );
    let a1 = registry::registrations()[0];
    assert_eq!(a1.event(), Some("context"));
    assert_eq!((a1.location().line, a1.location().column), (20, 4));
}

#[tokio::test]
async fn commands_and_renderers_are_registered() {
    let runner = runner();
    let commands: Vec<(&str, Option<&str>)> = runner
        .get_registered_commands()
        .iter()
        .map(|c| (c.name.as_str(), c.description.as_deref()))
        .collect();
    assert_eq!(
        commands,
        [("a-cmd", Some("bundle A's command")), ("b-cmd", None)]
    );
    assert_eq!(runner.run_command("a-cmd", "x").await, Some(Ok(())));
    assert_eq!(runner.run_command("b-cmd", "").await, Some(Ok(())));
    assert!(runner.get_message_renderer("b-type").is_some());
}
