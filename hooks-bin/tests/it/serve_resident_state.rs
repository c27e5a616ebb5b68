//! What a resident `hooks serve` keeps for a session must not outlive what it was built from:
//! a trusted hook file that changes, the environment of the session that started the server,
//! the project root of a session rebuilt after a restart.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use serde_json::json;

use crate::common::scratch::{Scratch, eventually, text};

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "c1"})
}

fn executable(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Claude Code's input of `event` for `session` with its `cwd` at `cwd`.
fn input_in(
    user: &Scratch,
    event: &str,
    session: &str,
    cwd: &Path,
    extra: serde_json::Value,
) -> Vec<u8> {
    let mut body: serde_json::Value =
        serde_json::from_slice(&user.input(event, session, extra)).unwrap();
    body["cwd"] = json!(cwd);
    body.to_string().into_bytes()
}

#[test]
fn a_trusted_hook_file_changed_mid_session_does_not_run_until_it_is_trusted_again() {
    let user = Scratch::new();
    let project = user.path("project");
    let runs = user.path("runs.txt");
    let hook = project.join(".claude/hooks/pre/bash.sh");
    let version = |v: &str| {
        executable(
            &hook,
            &format!("#!/bin/sh\necho {v} >> '{}'\nexit 0\n", runs.display()),
        );
    };
    version("v1");
    let out = user.hooks(&["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = user.hooks(&["serve", "--detach"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let ls = user.input("PreToolUse", "s1", bash("ls"));
    let first = user.hooks_with(&["claude", "PreToolUse"], &ls, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "v1\n");
    assert!(
        user.path("state")
            .join("hooks/sessions/claude/s1.jsonl")
            .exists(),
        "the call was not served by the server"
    );

    // The project's file changes (a checkout, a pull) while the session lives.
    version("v2");
    let later = user.hooks_with(&["claude", "PreToolUse"], &ls, &[]);
    let alone = user.hooks_with(&["claude", "PreToolUse"], &ls, &[("HOOKS_NO_SERVER", "1")]);
    for (out, how) in [(&later, "served"), (&alone, "in its own process")] {
        assert_eq!(out.status.code(), Some(2), "{how}: {}", text(out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("hooks claude PreToolUse: ")
                && stderr.contains("changed since it was trusted"),
            "{how}: {stderr}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&runs).unwrap(),
        "v1\n",
        "the untrusted content ran"
    );
    // Trusted again, it runs again in the same session.
    assert_eq!(user.hooks(&["trust"]).status.code(), Some(0));
    let again = user.hooks_with(&["claude", "PreToolUse"], &ls, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "v1\nv2\n");
}

#[test]
fn the_audit_mode_of_the_session_that_started_the_server_is_not_every_later_sessions() {
    let user = Scratch::new();
    let start = user.input("SessionStart", "audited", json!({"source": "startup"}));
    let out = user.hooks_with(
        &["claude", "SessionStart", "--via-server"],
        &start,
        &[("HOOKS_MODE", "audit"), ("SOME_API_KEY", "sk-session-one")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let port = user.default_port();
    let rm = |session: &str| user.input("PreToolUse", session, bash("rm -rf /"));

    let (status, body) = user.post(port, "PreToolUse", &rm("later"), &[]);
    assert_eq!(status, 200);
    assert!(
        body.contains("\"deny\""),
        "another session is audited: {body:?}"
    );
    // What Claude Code sends for an unset `$HOOKS_MODE` in a header: nothing.
    let (_, body) = user.post(port, "PreToolUse", &rm("unset"), &[("x-hooks-mode", "")]);
    assert!(body.contains("\"deny\""), "{body:?}");
    // The audited session's own calls carry its mode.
    let (status, body) = user.post(
        port,
        "PreToolUse",
        &rm("audited"),
        &[("x-hooks-mode", "audit")],
    );
    assert_eq!((status, body.as_str()), (200, ""));
    let (status, body) = user.post(port, "PreToolUse", &rm("off"), &[("x-hooks-disable", "1")]);
    assert_eq!((status, body.as_str()), (200, ""));
    let (status, body) = user.post(
        port,
        "PreToolUse",
        &rm("typo"),
        &[("x-hooks-mode", "lenient")],
    );
    assert_eq!(status, 200);
    assert!(
        body.contains("\"block\"") && body.contains("HOOKS_MODE"),
        "a mode that is neither blocks: {body:?}"
    );

    let environ = std::fs::read(format!("/proc/{}/environ", user.server_pid())).unwrap();
    let environ = String::from_utf8_lossy(&environ);
    for leaked in ["HOOKS_MODE", "SOME_API_KEY", "sk-session-one"] {
        assert!(
            !environ.contains(leaked),
            "the server has {leaked}: {environ}"
        );
    }
}

#[test]
fn a_session_rebuilt_after_a_restart_loads_its_hooks_for_its_project_root() {
    let user = Scratch::new();
    let project = user.path("project");
    let sub = project.join("crates/sub");
    std::fs::create_dir_all(&sub).unwrap();
    executable(
        &project.join(".claude/hooks/pre/bash.sh"),
        "#!/bin/sh\necho 'the project guard blocks bash' >&2\nexit 2\n",
    );
    assert_eq!(user.hooks(&["trust"]).status.code(), Some(0));
    let root = project.to_str().unwrap();
    let start = input_in(
        &user,
        "SessionStart",
        "s1",
        &project,
        json!({"source": "startup"}),
    );
    let out = user.hooks_with(
        &["claude", "SessionStart", "--via-server"],
        &start,
        &[("CLAUDE_PROJECT_DIR", root)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The documented recovery: a restart.
    assert_eq!(user.hooks(&["serve", "--stop"]).status.code(), Some(0));
    assert_eq!(user.hooks(&["serve", "--detach"]).status.code(), Some(0));
    eventually("the server runs", || {
        user.hooks(&["serve", "--status"]).status.code() == Some(0)
    });

    // The model `cd`s into a subdirectory; Claude Code's HTTP hook carries that `cwd`.
    let ls = input_in(&user, "PreToolUse", "s1", &sub, bash("ls"));
    let (status, body) = user.post(user.default_port(), "PreToolUse", &ls, &[]);
    assert_eq!(status, 200);
    assert!(
        body.contains("\"deny\"") && body.contains("the project guard blocks bash"),
        "rebuilt for the subdirectory: {body:?}"
    );
    let alone = user.hooks_with(
        &["claude", "PreToolUse"],
        &ls,
        &[("HOOKS_NO_SERVER", "1"), ("CLAUDE_PROJECT_DIR", root)],
    );
    assert!(
        String::from_utf8_lossy(&alone.stdout).contains("the project guard blocks bash")
            || String::from_utf8_lossy(&alone.stderr).contains("the project guard blocks bash"),
        "{}",
        text(&alone)
    );
}
