//! Shared by `claude_stdin` and `codex_stdin`: one adapter call on arbitrary stdin, with no
//! hooks, checked against the adapter's output contract.

use std::sync::OnceLock;

use hookwright_cli::agents::{Protocol};
use hookwright_cli::call::{AdapterOptions};
use hookwright_cli::transport::{command};

/// The events tried: the first input byte picks one (the last is not a known event).
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Stop",
    "NotAnEvent",
];

fn options() -> &'static AdapterOptions {
    static OPTIONS: OnceLock<(tempfile::TempDir, AdapterOptions)> = OnceLock::new();
    let (_dir, options) = OPTIONS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = AdapterOptions::with_hooks(|_cwd| Vec::new()).cwd(dir.path());
        (dir, options)
    });
    options
}

/// Runs one call and checks: exit 0, 1 or 2; stdout empty or one JSON value on one line;
/// stderr empty or one line, and non-empty exactly when the exit is not 0.
pub fn check(protocol: &dyn Protocol, data: &[u8]) {
    let Some((&first, input)) = data.split_first() else {
        return;
    };
    let event = EVENTS[usize::from(first) % EVENTS.len()];
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = command::run(protocol, event, input, &mut out, &mut err, options());
    assert!(code <= 2, "exit {code}");
    let stdout = String::from_utf8(out).expect("stdout is UTF-8");
    let stderr = String::from_utf8(err).expect("stderr is UTF-8");
    if !stdout.is_empty() {
        assert!(
            stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
            "{stdout:?}"
        );
        serde_json::from_str::<serde_json::Value>(&stdout).expect("stdout is JSON");
    }
    assert_eq!(
        code != 0,
        !stderr.is_empty(),
        "exit {code}, stderr {stderr:?}"
    );
    if !stderr.is_empty() {
        assert!(
            stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
            "{stderr:?}"
        );
        assert!(!stderr.contains('\x1b'), "{stderr:?}");
    }
}
