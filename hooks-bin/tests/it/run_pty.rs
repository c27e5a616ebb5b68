//! The interactive UI of `hooks run` under a pseudo-terminal: the `rm -rf` example asks
//! `Dangerous command` / `Allow: <cmd>`, and the answer decides.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use expectrl::session::OsSession;
use expectrl::{Eof, Expect, Session};

const SCRIPT: &str = r#"{"prompt": "clean up"}
{"tool": "bash", "input": {"command": "rm -rf victim"}}
"#;

/// A project with a `victim` directory and the script, plus the spawned `hooks run`.
fn spawn(extra_env: &[(&str, &str)]) -> (tempfile::TempDir, OsSession) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("victim")).expect("mkdir");
    std::fs::write(dir.path().join("victim/file"), "x").expect("write");
    std::fs::write(dir.path().join("s.jsonl"), SCRIPT).expect("script");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
    cmd.args(["run", "s.jsonl"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut session = Session::spawn(cmd).expect("spawn in a pty");
    session.set_expect_timeout(Some(Duration::from_secs(30)));
    (dir, session)
}

/// Answers the confirm prompt with `answer` and returns everything printed after it.
fn answer(session: &mut OsSession, answer: &str) -> String {
    let prompt = session
        .expect("Dangerous command: Allow: rm -rf victim")
        .expect("the confirm prompt appears");
    let before = String::from_utf8_lossy(prompt.before()).into_owned();
    assert!(before.contains("ui       interactive"), "{before}");
    // Give the prompt a moment to enter raw mode before typing.
    std::thread::sleep(Duration::from_millis(300));
    session.send(answer).expect("type");
    session.send("\r").expect("enter");
    let rest = session.expect(Eof).expect("the run ends");
    String::from_utf8_lossy(rest.as_bytes()).into_owned()
}

fn strip(text: &str) -> String {
    String::from_utf8(strip_ansi_escapes::strip(text)).expect("utf8")
}

#[test]
fn confirm_denied_blocks_rm_rf() {
    let (dir, mut session) = spawn(&[]);
    let output = answer(&mut session, "n");
    let plain = strip(&output);
    assert!(
        plain.contains("? confirm \"Dangerous command\" → no"),
        "{plain}"
    );
    assert!(plain.contains("✗ blocked: user denied command"), "{plain}");
    assert!(
        output.contains("\x1b[31m"),
        "colour on a terminal: {output:?}"
    );
    assert!(
        dir.path().join("victim/file").exists(),
        "the command did not run"
    );
}

#[test]
fn confirm_accepted_runs_rm_rf() {
    let (dir, mut session) = spawn(&[]);
    let plain = strip(&answer(&mut session, "y"));
    assert!(
        plain.contains("? confirm \"Dangerous command\" → yes"),
        "{plain}"
    );
    assert!(plain.contains("✓ ok"), "{plain}");
    assert!(!dir.path().join("victim").exists(), "the command ran");
}

#[test]
fn no_color_turns_colour_off_on_a_terminal() {
    let (_dir, mut session) = spawn(&[("NO_COLOR", "1")]);
    let output = answer(&mut session, "n");
    // The prompt library draws its own prompt; the transcript itself must be plain.
    let transcript = output
        .rsplit_once("→ no")
        .map_or(output.as_str(), |(_, after)| after);
    assert!(
        transcript.contains("blocked: user denied command"),
        "{output:?}"
    );
    assert!(!transcript.contains("\x1b[31m"), "{transcript:?}");
}

#[test]
fn no_ui_never_prompts() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("victim")).expect("mkdir");
    std::fs::write(dir.path().join("s.jsonl"), SCRIPT).expect("script");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
    cmd.args(["run", "s.jsonl", "--no-ui"])
        .current_dir(dir.path())
        .env("HOME", dir.path());
    let mut session = Session::spawn(cmd).expect("spawn");
    session.set_expect_timeout(Some(Duration::from_secs(30)));
    let out = session.expect(Eof).expect("ends without input");
    let plain = strip(&String::from_utf8_lossy(out.as_bytes()));
    assert!(plain.contains("blocked: rm -rf blocked (no UI)"), "{plain}");
    assert!(Path::new(&dir.path().join("victim")).exists());
}
