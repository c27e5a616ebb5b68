//! The compile-time checks of `#[hook]`, `#[command]` and `#[renderer]`, pinned by trybuild.
//!
//! Each `ui/fail/*.rs` case must fail to compile with exactly its `.stderr`; each
//! `ui/pass/*.rs` case must compile and run. The snapshots are rustc's text, so the test is
//! pinned to the toolchain they were blessed with; re-bless with
//! `TRYBUILD=overwrite cargo test -p tests --test ui` and review the diff.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
