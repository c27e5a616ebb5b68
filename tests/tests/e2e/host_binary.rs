//! The host binary under test: hookwright-cli's `hooks-examples` (hooks-bin/src/bin/hooks-examples.rs),
//! every command of `hooks` with the examples bundle linked in (the scenarios check the examples'
//! guard, redaction, `/handoff`, ...; the default `hooks` links the guards instead).
//!
//! Cargo gives an integration test the path of its own package's binaries only, and never
//! builds a dependency's binaries, so this asks Cargo itself: `cargo build -p hookwright-cli --bin
//! hooks-examples --message-format=json` names the executable it produced (in whatever target
//! directory and profile directory Cargo uses, `CARGO_TARGET_DIR` included). After
//! `cargo test --workspace` the binary is already built and this takes a moment. The build
//! runs once per test process. `HOOKS_E2E_BIN` names a binary to use instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The `hooks-examples` binary. `HOOKS_E2E_BIN` names a binary to use instead.
///
/// # Panics
///
/// When it cannot be built.
pub(crate) fn path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| given_or_built("HOOKS_E2E_BIN", "hookwright-cli", "hooks-examples"))
}

/// The default `hooks` (hooks-bin/src/main.rs), which links the guards; built the same way.
/// `HOOKS_E2E_GUARDS_BIN` names a binary to use instead.
///
/// # Panics
///
/// When it cannot be built.
pub(crate) fn guards() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| given_or_built("HOOKS_E2E_GUARDS_BIN", "hookwright-cli", "hooks"))
}

/// `hooks-e2e` (tests/bundles/e2e-bundle): an author's own binary, the examples bundle and a
/// `before_agent_start` hook; built the same way. `HOOKS_E2E_BUNDLE_BIN` names a binary to use
/// instead.
///
/// # Panics
///
/// When it cannot be built.
pub(crate) fn e2e_bundle() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| given_or_built("HOOKS_E2E_BUNDLE_BIN", "e2e-bundle", "hooks-e2e"))
}

/// The binary the environment variable `var` names (which must be a file), or else `bin` of
/// `package`, built.
fn given_or_built(var: &str, package: &str, bin: &str) -> PathBuf {
    if let Some(given) = std::env::var_os(var).filter(|b| !b.is_empty()) {
        let given = PathBuf::from(given);
        assert!(given.is_file(), "{var}={} is no file", given.display());
        return given;
    }
    build(package, bin).unwrap_or_else(|e| panic!("cannot build the {bin} binary: {e}"))
}

fn build(package: &str, bin: &str) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the tests crate has no parent directory")?;
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args([
            "build",
            "-p",
            package,
            "--bin",
            bin,
            "--message-format=json-render-diagnostics",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build -p {package} failed ({})",
            output.status
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo built no `{bin}` executable"))
}
