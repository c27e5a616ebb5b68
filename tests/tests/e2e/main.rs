//! End-to-end: the real agent CLIs against a scripted model server on 127.0.0.1: Claude Code and
//! Codex with `hooks install` in place; Gemini CLI, Copilot CLI, Qwen Code and Factory Droid with
//! a recorder hook ([`fixtures::Recorder`]) that pins what each agent's hook protocol does, and
//! with `hooks install` in place (`scenarios::bundle`). Each agent is a driver behind
//! [`agent::Agent`]; what several agents share is written once over it.
//!
//! Each scenario starts a [`model::ModelServer`] with a script of model turns, a scratch
//! [`agent::Sandbox`] (home and project), installs the hooks binary ([`host_binary`]) into the
//! agent's settings with `hooks install`, runs the agent once or more ([`agent`]), and checks the
//! effect on disk and in the requests the model received.
//!
//! The agents come from the npm registry at pinned versions ([`install`]). Every scenario that
//! runs an agent (or the TypeScript compiler) is `#[ignore = "needs HOOKS_E2E=install (the real
//! agents)"]`: a plain `cargo test` counts it as ignored, never as passed, and `--ignored` runs
//! them. `HOOKS_E2E` decides what happens then when an agent is not in the cache: unset (or
//! `require`), the scenario fails saying so; `install`, it is installed first (what `.ci/run`
//! does: `HOOKS_E2E=install cargo test --workspace --test e2e -- --ignored --skip
//! bridge_overhead`, all but the measurement).

mod agent;
mod fixtures;
mod host_binary;
mod install;
mod model;
mod process;
mod scenarios;
mod timing;

use std::io::Write;

/// Prints a line past the test harness's output capture, so that installs and measurements
/// show in a normal `cargo test` run.
pub(crate) fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "e2e: {line}");
}
