//! The built `hooks` binary serving `hooks claude|codex EVENT` on its own stdin and stdout:
//! a stdout that cannot carry an answer, a stdin that cannot be read, a command line clap
//! rejects. Every failure exits 2 on a gating call and 1 on an observational one, except on
//! Codex's `PreCompact`, where it answers `continue: false` (exit 0) whenever stdout can carry
//! that.

use crate::common;

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use common::{Run, input, workdir};

const HOOKS: &str = env!("CARGO_BIN_EXE_hooks-examples");

/// Where the binary's stdout goes.
#[derive(Debug, Clone, Copy)]
enum Stdout {
    /// A pipe the test reads.
    Captured,
    /// `/dev/null`.
    Null,
    /// Closed (`>&-`) before the binary starts.
    Closed,
}

/// Runs `hooks ARGS` with `HOME` = `home`, `stdin` (bytes, or `None`: the directory `home`
/// itself, which cannot be read) and stdout as `stdout` says.
fn hooks(args: &[&str], stdin: Option<&[u8]>, stdout: Stdout, home: &Path) -> Run {
    let mut command = match stdout {
        // `exec` keeps the process (and its exit code); the closed descriptor is inherited.
        Stdout::Closed => {
            let mut c = Command::new("bash");
            c.arg("-c")
                .arg(r#"exec "$0" "$@" >&-"#)
                .arg(HOOKS)
                .args(args);
            c
        }
        _ => {
            let mut c = Command::new(HOOKS);
            c.args(args);
            c
        }
    };
    command
        .env("HOME", home)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HOOKS_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .stderr(Stdio::piped())
        .stdout(match stdout {
            Stdout::Captured => Stdio::piped(),
            Stdout::Null | Stdout::Closed => Stdio::null(),
        })
        .stdin(match stdin {
            Some(_) => Stdio::piped(),
            None => Stdio::from(File::open(home).expect("a directory opens for reading")),
        });
    let mut child = command.spawn().expect("the hooks binary starts");
    let writer = stdin.map(|bytes| {
        let (mut pipe, bytes) = (child.stdin.take().unwrap(), bytes.to_vec());
        // The binary may exit before it reads: ignore a broken pipe.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let output = child.wait_with_output().expect("the hooks binary runs");
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// An input for `event` that the example bundle denies on `PreToolUse` (`rm -rf`).
fn dangerous(event: &str, cwd: &Path) -> Vec<u8> {
    input(
        event,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}, "tool_response": "",
               "prompt": "hello", "trigger": "auto"}),
    )
}

/// The observational events of each agent.
const OBSERVATIONAL: &[(&str, &[&str])] = &[
    (
        "claude",
        &["PostToolUseFailure", "SessionStart", "SessionEnd", "Stop"],
    ),
    ("codex", &["SessionStart", "SessionEnd", "Stop"]),
];

/// The gating events of each agent, and a name that is no event (it counts as gating).
const GATING: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
    "Notification",
];

#[test]
fn a_deny_is_never_lost_to_a_closed_or_null_stdout() {
    let (dir, home) = (workdir(), workdir());
    for agent in ["claude", "codex"] {
        // What the agent gets with stdout captured: the deny, exit 0.
        let r = hooks(
            &[agent, "PreToolUse"],
            Some(&dangerous("PreToolUse", dir.path())),
            Stdout::Captured,
            home.path(),
        );
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
        // Where the deny could not be read, the call fails closed instead of exiting 0 with
        // the deny thrown away.
        for stdout in [Stdout::Null, Stdout::Closed] {
            for event in GATING {
                let r = hooks(
                    &[agent, event],
                    Some(&dangerous(event, dir.path())),
                    stdout,
                    home.path(),
                );
                let case = format!("{agent} {event}, stdout {stdout:?}");
                assert_eq!(r.code, Some(2), "{case}: {r:?}");
                r.assert_one_line_stderr();
                assert!(
                    r.stderr.starts_with(&format!("hooks {agent} {event}: "))
                        && r.stderr.contains("stdout is closed or /dev/null"),
                    "{case}: {}",
                    r.stderr
                );
            }
        }
    }
}

#[test]
fn observational_events_run_with_a_closed_or_null_stdout() {
    // No decision can be lost there: the hooks run and the call succeeds.
    let (dir, home) = (workdir(), workdir());
    for (agent, events) in OBSERVATIONAL {
        for event in *events {
            for stdout in [Stdout::Null, Stdout::Closed] {
                let r = hooks(
                    &[agent, event],
                    Some(&dangerous(event, dir.path())),
                    stdout,
                    home.path(),
                );
                assert_eq!(
                    (r.code, r.stderr.as_str()),
                    (Some(0), ""),
                    "{agent} {event}, stdout {stdout:?}"
                );
            }
        }
    }
}

#[test]
fn a_stdin_read_error_exits_1_on_observational_events_and_2_on_gating_ones() {
    let home = workdir();
    let check = |agent: &str, event: &str, code: i32| {
        let r = hooks(&[agent, event], None, Stdout::Captured, home.path());
        r.assert_one_line_stderr();
        if (agent, event) == ("codex", "PreCompact") {
            // Codex compacts after any exit code: the failure answers `continue: false`.
            assert_eq!(r.code, Some(0), "{agent} {event}: {r:?}");
            assert_eq!(
                r.json(),
                json!({"continue": false, "stopReason": r.stderr.trim_end()})
            );
            return;
        }
        assert_eq!(r.code, Some(code), "{agent} {event}: {r:?}");
        assert_eq!(r.stdout, "");
        assert!(
            r.stderr
                .starts_with(&format!("hooks {agent} {event}: cannot read stdin: ")),
            "{agent} {event}: {}",
            r.stderr
        );
    };
    for (agent, events) in OBSERVATIONAL {
        for event in *events {
            check(agent, event, 1);
        }
        for event in GATING {
            check(agent, event, 2);
        }
    }
}

#[test]
fn a_usage_error_exits_1_on_observational_events_and_2_on_gating_ones() {
    let (dir, home) = (workdir(), workdir());
    for (agent, events) in OBSERVATIONAL {
        for event in *events {
            let bytes = dangerous(event, dir.path());
            for args in [
                &[agent, event, "--no-such-option"][..],
                &[agent, event, "extra"],
                &[agent, event, "--cwd"],
            ] {
                let r = hooks(args, Some(&bytes), Stdout::Captured, home.path());
                assert_eq!(r.code, Some(1), "{args:?}: {r:?}");
                assert!(r.stderr.starts_with("error: "), "{args:?}: {}", r.stderr);
            }
        }
        for event in GATING {
            let bytes = dangerous(event, dir.path());
            let args = [agent, event, "--no-such-option"];
            let r = hooks(&args, Some(&bytes), Stdout::Captured, home.path());
            if (*agent, *event) == ("codex", "PreCompact") {
                // Codex compacts after any exit code: the failure answers `continue: false`.
                assert_eq!(r.code, Some(0), "{args:?}: {r:?}");
                assert_eq!(
                    r.json(),
                    json!({"continue": false,
                           "stopReason": "hooks codex PreCompact: invalid command line"})
                );
                // Unless the answer cannot be read: then the exit code is all there is.
                for stdout in [Stdout::Null, Stdout::Closed] {
                    let r = hooks(&args, Some(&bytes), stdout, home.path());
                    assert_eq!(r.code, Some(2), "{args:?}, stdout {stdout:?}: {r:?}");
                }
                continue;
            }
            assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
            assert_eq!(r.stdout, "", "{args:?}");
        }
    }
    // Other commands' usage errors are unchanged.
    let r = hooks(
        &["list", "--bogus"],
        Some(b""),
        Stdout::Captured,
        home.path(),
    );
    assert_eq!(r.code, Some(2), "{r:?}");
}
