//! `hooks new`: the scaffold end to end (new → cargo test → its binary lists the guard →
//! `explain` shows Claude Code's deny), and what it refuses. A test binary of its own, so that
//! the crate's build (a minute or two of both cores) runs beside no timing-sensitive test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `hooks` binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("hooks-bin is inside the workspace")
        .to_path_buf()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `cargo ARGS` in `dir`, as a user would run it there: none of the variables cargo sets for
/// this test process, the build in a target directory of its own under this workspace's
/// (kept between runs, so that a second run builds only the new crate).
fn cargo(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("CARGO_") && name != "CARGO_HOME" {
            command.env_remove(&name);
        }
    }
    let target = workspace_root().join("target/scaffold");
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only")
        .output()
        .expect("cargo runs")
}

#[test]
fn a_new_crate_builds_passes_its_tests_and_its_binary_serves_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let root = workspace_root();
    let out = Command::new(BIN)
        .args(["new", "team-guards", "--path"])
        .arg(&root)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("by path, from the checkout"),
        "{}",
        text(&out.stdout)
    );
    let krate = dir.path().join("team-guards");

    let test = cargo(&krate, &["test", "--offline"]);
    let report = format!("{}{}", text(&test.stdout), text(&test.stderr));
    assert!(test.status.success(), "{report}");
    assert!(report.contains("test result: ok. 2 passed"), "{report}");

    let bin = workspace_root().join("target/scaffold/debug/team-guards");
    let list = Command::new(&bin)
        .arg("list")
        .current_dir(&krate)
        .output()
        .unwrap();
    assert!(list.status.success(), "{}", text(&list.stderr));
    assert!(
        text(&list.stdout).contains("team_guards  no_force_push  src/lib.rs"),
        "{}",
        text(&list.stdout)
    );

    let input = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}"#;
    let input_file = dir.path().join("call.json");
    std::fs::write(&input_file, input).unwrap();
    let explain = Command::new(&bin)
        .args(["explain", "claude", "PreToolUse", "--json", "--input"])
        .arg(&input_file)
        .current_dir(&krate)
        .output()
        .unwrap();
    assert!(explain.status.success(), "{}", text(&explain.stderr));
    let json: serde_json::Value = serde_json::from_slice(&explain.stdout).unwrap();
    assert_eq!(json["exitCode"], 0, "{json}");
    let answer: serde_json::Value = serde_json::from_str(json["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{json}"
    );
}

#[test]
fn new_refuses_an_existing_directory_and_a_bad_name_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken/keep"), "mine").unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .arg("new")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let out = run(&["taken"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("taken: it exists; nothing was written"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("taken/keep")).unwrap(),
        "mine"
    );

    let out = run(&["2fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("must start with a letter"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&["ok", "--path", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a checkout of this framework"),
        "{}",
        text(&out.stderr)
    );

    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["taken"], "nothing else was written");
}
