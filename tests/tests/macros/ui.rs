//! The compile-time checks of `#[hook]`, `#[command]` and `#[renderer]`, pinned by trybuild.
//!
//! Each `ui/fail/*.rs` case must fail to compile with exactly its `.stderr`; each
//! `ui/pass/*.rs` case must compile and run. The snapshots are rustc's text, so the workspace
//! pins the toolchain they were blessed with (`rust-toolchain.toml`); after changing it,
//! re-bless with `TRYBUILD=overwrite cargo test -p tests --test ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
