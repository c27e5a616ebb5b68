//! The pitfall behind the `use my_bundle as _;` rule: `bundle-a` and `bundle-b` are
//! dependencies of this test crate, but this binary never names them, so they are not linked
//! and their hooks are not there. (`cross_crate.rs` names them and finds them.)

#[test]
fn a_bundle_that_is_never_named_is_not_linked() {
    assert_eq!(
        hookwright::registry::compiled_hook_ids(),
        Vec::<&str>::new(),
        "if rustc starts linking unnamed dependencies, the README's `use my_bundle as _;` \
         rule can be relaxed"
    );
    assert!(
        hookwright::registry::compiled_hooks(std::path::Path::new("."))
            .unwrap()
            .is_empty()
    );
}
