//! The kill switch: with `HOOKS_DISABLE=1` in its environment, every adapter call answers
//! "no opinion" at once (exit 0, nothing on stdout) without decoding its input or loading a
//! hook, and says so in one stderr line. It is the fail-open lever a user pulls knowingly:
//! a guard that is switched off this way lets everything through.
//!
//! The command adapter reads the variable per call (each call is a process); `hooks serve`
//! reads its own process's environment (a server started in the background has none: it is
//! started with a clean one), and over HTTP also the call's `x-hooks-disable` header, which
//! Claude Code's HTTP entries fill from the agent's `$HOOKS_DISABLE`
//! ([`crate::serve::call_headers`]); over `--stdio`: there an `emit` answers `{"result": null, "errors": []}`, a `command` does not run
//! (its `error` says why), and neither builds a session.

use super::Outcome;
use crate::agents::{EXIT_OK, Protocol};
use crate::json::one_line;

/// The variable that switches every hook off: set to `1`.
pub const DISABLE_ENV: &str = "HOOKS_DISABLE";

/// Whether the hooks are switched off: [`DISABLE_ENV`] is `1` in this process's environment.
#[must_use]
pub fn hooks_disabled() -> bool {
    std::env::var_os(DISABLE_ENV).is_some_and(|v| v == "1")
}

/// The outcome of a call for `event_name` while the hooks are switched off: exit 0, no
/// answer, and one stderr line saying so; `None` when they are on.
#[must_use]
pub fn disabled_outcome(protocol: &dyn Protocol, event_name: &str) -> Option<Outcome> {
    hooks_disabled().then(|| off_outcome(protocol, event_name))
}

/// The outcome of a call for `event_name` whose kill switch is on (in this process's
/// environment, or brought by the call to `hooks serve`): exit 0, no answer, and one stderr
/// line saying so.
#[must_use]
pub fn off_outcome(protocol: &dyn Protocol, event_name: &str) -> Outcome {
    let who = format!("hooks {} {}", protocol.name(), one_line(event_name, 60));
    Outcome {
        code: EXIT_OK,
        stdout: String::new(),
        stderr: off_line(&who),
    }
}

fn off_line(who: impl std::fmt::Display) -> String {
    format!("{who}: hooks are disabled ({DISABLE_ENV}=1): no opinion, nothing ran\n")
}

/// The line (with its newline) that says a call of `who` (`hooks claude PreToolUse`) was
/// answered with no opinion because the hooks are switched off; `None` when they are on.
#[must_use]
pub fn disabled_line(who: impl std::fmt::Display) -> Option<String> {
    hooks_disabled().then(|| off_line(who))
}
