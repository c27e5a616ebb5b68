//! `hooks uninstall`: removes exactly the entries `install` counts as ours, from every form
//! install writes (command, shell, `--http`), keeps everything else byte for byte, keeps a
//! backup, and changes nothing on a second run.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookwright_cli::agents::AgentEvent;
use hookwright_cli::agents::Layout;
use hookwright_cli::agents::hook_json::{
    POST_TOOL_USE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END, SESSION_START, STOP, USER_PROMPT_SUBMIT,
};
use hookwright_cli::install::{HttpHooks, Install, Target, Uninstall, UninstallReport};

const BIN: &str = env!("CARGO_BIN_EXE_hooks");
const BINARY: &str = "/opt/hooks/bin/hooks";

fn events() -> Vec<AgentEvent> {
    vec![
        PRE_TOOL_USE,
        POST_TOOL_USE,
        USER_PROMPT_SUBMIT,
        SESSION_START,
        SESSION_END,
        PRE_COMPACT,
        STOP,
    ]
}

fn http() -> HttpHooks {
    HttpHooks {
        url: "http://127.0.0.1:4242".into(),
        secret: "ab".repeat(32),
    }
}

fn install(target: Target, path: &Path, http: Option<HttpHooks>, fail_closed: bool) {
    let plan = Install {
        target,
        path: path.to_path_buf(),
        binary: PathBuf::from(BINARY),
        command: None,
        dry_run: false,
        on_failure_block: fail_closed,
        http,
    };
    let events = if target == Target::Claude {
        events()
    } else {
        target.protocol().events().to_vec()
    };
    let report = plan.apply(&events, &mut Vec::new()).unwrap();
    assert!(report.written, "the install wrote {}", path.display());
}

fn uninstall(target: Target, path: &Path, dry_run: bool) -> (UninstallReport, String) {
    let mut out = Vec::new();
    let report = Uninstall {
        target,
        path: path.to_path_buf(),
        binary: PathBuf::from(BINARY),
        http: Some(HttpHooks {
            secret: String::new(),
            ..http()
        }),
        dry_run,
        record: None,
    }
    .apply(&mut out)
    .unwrap();
    (report, String::from_utf8(out).unwrap())
}

/// A settings file as an agent and the user write it: other keys, another tool's hooks on an
/// event install adds to, and on one it does not.
const OTHERS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": ["Read(.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "other-guard --strict",
            "timeout": 30
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send hi"
          }
        ]
      }
    ]
  },
  "env": {
    "FOO": "bar"
  }
}
"#;

/// Only other keys, no `hooks`.
const NO_HOOKS: &str = "{\n  \"model\": \"opus\",\n  \"n\": 1E2\n}\n";

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// A settings file with another tool's hook, its `hooks` object on one line.
const ONE_LINE: &str = "{\"model\": \"x\", \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]}}\n";

/// [`VERSIONED`] on one line.
const VERSIONED_ONE_LINE: &str = "{\"version\": 1, \"hooks\": {\"notification\": [{\"type\": \"command\", \"bash\": \"notify-send hi\", \"command\": \"notify-send hi\"}]}}\n";

/// A versioned hooks file (Copilot CLI, Cursor) with another tool's hook.
const VERSIONED: &str = r#"{
  "version": 1,
  "hooks": {
    "notification": [
      {
        "type": "command",
        "bash": "notify-send hi",
        "command": "notify-send hi"
      }
    ]
  }
}
"#;

#[test]
fn uninstall_after_install_restores_the_file_byte_for_byte_for_every_agent() {
    let dir = common::workdir();
    for &target in Target::ALL {
        let fixtures: &[&str] = match target.protocol().install().layout {
            Layout::Groups => &[OTHERS, NO_HOOKS, "{}\n", ONE_LINE, "{\"model\": \"x\"}\n"],
            Layout::Versioned => &[VERSIONED, "{}\n", VERSIONED_ONE_LINE],
        };
        for (i, &before) in fixtures.iter().enumerate() {
            for fail_closed in [false, true] {
                let path = file(
                    dir.path(),
                    &format!("{target}-{i}-{fail_closed}.json"),
                    before,
                );
                install(target, &path, None, fail_closed);
                assert_ne!(fs::read_to_string(&path).unwrap(), before, "{target} {i}");
                let (report, out) = uninstall(target, &path, false);
                assert!(report.written, "{target} {i}: {out}");
                assert_eq!(
                    fs::read_to_string(&path).unwrap(),
                    before,
                    "{target} {i} fail-closed {fail_closed}: {out}"
                );
            }
        }
    }
}

/// What the user changed after the install stays: the file is not given back as it was, only
/// this tool's entries leave.
#[test]
fn uninstall_after_a_change_of_the_users_keeps_the_change() {
    let dir = common::workdir();
    let path = file(dir.path(), "settings.json", ONE_LINE);
    install(Target::Claude, &path, None, true);
    let changed = fs::read_to_string(&path).unwrap().replace("\"x\"", "\"y\"");
    fs::write(&path, &changed).unwrap();
    let (report, out) = uninstall(Target::Claude, &path, false);
    assert!(report.written, "{out}");
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let mut expected: serde_json::Value = serde_json::from_str(ONE_LINE).unwrap();
    expected["model"] = "y".into();
    assert_eq!(after, expected);
}

#[test]
fn uninstall_after_install_restores_the_file_byte_for_byte() {
    let dir = common::workdir();
    let cases: [(Target, Option<HttpHooks>, bool, &str); 7] = [
        (Target::Claude, None, true, OTHERS),
        (Target::Claude, None, false, NO_HOOKS),
        (Target::Claude, Some(http()), false, OTHERS),
        (Target::Claude, Some(http()), false, NO_HOOKS),
        (Target::Codex, None, false, OTHERS),
        (Target::Codex, None, false, NO_HOOKS),
        (Target::Codex, None, false, "{}\n"),
    ];
    for (i, (target, http, fail_closed, before)) in cases.into_iter().enumerate() {
        let path = file(dir.path(), &format!("settings-{i}.json"), before);
        install(target, &path, http.clone(), fail_closed);
        assert_ne!(fs::read_to_string(&path).unwrap(), before, "case {i}");
        let (report, out) = uninstall(target, &path, false);
        assert!(report.written, "case {i}: {out}");
        let after = fs::read_to_string(&path).unwrap();
        assert_eq!(
            after,
            before,
            "case {i} ({target}, http {}): {out}",
            http.is_some()
        );
    }
}

#[test]
fn uninstall_removes_only_what_install_counts_as_ours() {
    let dir = common::workdir();
    let text = r#"{
  "hooks": {
    "PreToolUse": [
      {"hooks": [
        {"type": "command", "command": "/old/place/hooks", "args": ["claude", "PreToolUse"]},
        {"type": "command", "command": "other-guard"}
      ]},
      {"hooks": [{"type": "command", "command": "'/a b/hooks' claude PreToolUse"}]},
      {"hooks": [{"type": "command", "command": "/usr/bin/other-hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/target/debug/hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "other-hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/bin/hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/../hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "bin/hooks", "args": ["claude", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "/x/hooks", "args": ["claude", "Stop"]}]},
      {"hooks": [{"type": "command", "command": "/x/hooks", "args": ["codex", "PreToolUse"]}]},
      {"hooks": [{"type": "command", "command": "/x/hooks claude PreToolUse | tee log"}]},
      {"hooks": [{"type": "http", "url": "http://127.0.0.1:9999/claude/PreToolUse"}]},
      {"hooks": [{"type": "http", "url": "http://127.0.0.1:4242/claude/PreToolUse"}]},
      {"hooks": [{"type": "http", "url": "http://127.0.0.1:4242/claude/PreToolUse?if-unreachable=run+/x/hooks+serve+--detach"}]},
      {"hooks": [{"type": "http", "url": "http://127.0.0.1:4242/claude/Stop?if-unreachable=run+/x/hooks+serve+--detach"}]}
    ]
  }
}
"#;
    let path = file(dir.path(), "settings.json", text);
    let (report, out) = uninstall(Target::Claude, &path, false);
    // The bare name and the project-relative path of install's portable forms are ours too.
    assert_eq!(report.removed, [PRE_TOOL_USE; 6], "{out}");
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let kept: Vec<String> = after["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .map(|h| h.to_string())
        .collect();
    assert_eq!(kept.len(), 11, "{kept:#?}");
    assert!(kept[0].contains("other-guard"), "{kept:#?}");
    for gone in [
        "/old/place/hooks",
        "/a b/hooks",
        ":4242/claude/PreToolUse",
        "\"hooks\"",
        "${CLAUDE_PROJECT_DIR}/target",
    ] {
        assert!(!kept.iter().any(|h| h.contains(gone)), "{gone}: {kept:#?}");
    }
    assert_eq!(
        fs::read_to_string(path.with_file_name("settings.json.bak")).unwrap(),
        text,
        "the backup is the file as it was"
    );
}

#[test]
fn a_second_uninstall_changes_nothing_and_a_dry_run_writes_nothing() {
    let dir = common::workdir();
    let path = file(dir.path(), "settings.json", OTHERS);
    install(Target::Claude, &path, None, true);
    let installed = fs::read_to_string(&path).unwrap();
    let (report, out) = uninstall(Target::Claude, &path, true);
    assert_eq!(report.removed.len(), events().len(), "{out}");
    assert!(!report.written);
    assert!(out.contains("Dry run: nothing written."), "{out}");
    assert!(
        out.contains("-            \"onFailure\": \"block\""),
        "a diff: {out}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), installed);

    uninstall(Target::Claude, &path, false);
    let bak = path.with_file_name("settings.json.bak");
    assert_eq!(fs::read_to_string(&bak).unwrap(), installed);
    fs::remove_file(&bak).unwrap();
    let (report, out) = uninstall(Target::Claude, &path, false);
    assert!(report.removed.is_empty() && !report.written, "{out}");
    assert!(out.contains("nothing changed"), "{out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), OTHERS);
    assert!(!bak.exists(), "no backup when nothing changed");
    let (report, out) = uninstall(Target::Claude, &dir.path().join("none.json"), false);
    assert!(!report.written && out.contains("does not exist"), "{out}");
}

fn hooks(project: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--cwd")
        .arg(project)
        .env("HOME", home)
        .env("HOOKS_CONFIG_DIR", home.join("config"))
        .env_remove("CODEX_HOME")
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

#[test]
fn hooks_uninstall_undoes_hooks_install_for_each_agent_and_scope() {
    let dir = common::workdir();
    let (project, home) = (dir.path().join("project"), dir.path().join("home"));
    for d in [&project, &home] {
        fs::create_dir_all(d).unwrap();
    }
    let claude = project.join(".claude");
    fs::create_dir_all(&claude).unwrap();
    let settings = file(&claude, "settings.json", OTHERS);
    let local = file(&claude, "settings.local.json", NO_HOOKS);
    let codex = project.join(".codex");
    fs::create_dir_all(&codex).unwrap();
    let codex_hooks = file(&codex, "hooks.json", OTHERS);
    fs::create_dir_all(home.join(".claude")).unwrap();
    let user = file(&home.join(".claude"), "settings.json", NO_HOOKS);

    ok(&hooks(
        &project,
        &home,
        &["install", "claude", "--claude-version", "2.1.328"],
    ));
    let plain = fs::read_to_string(&settings).unwrap();
    ok(&hooks(
        &project,
        &home,
        &["install", "claude", "--http", "--claude-version", "2.1.328"],
    ));
    // Both forms at once, as an install before `--http` replaced the command entries left
    // them: uninstall cleans both files.
    fs::write(&settings, plain).unwrap();
    ok(&hooks(&project, &home, &["install", "codex"]));
    ok(&hooks(
        &project,
        &home,
        &["install", "claude", "--user", "--claude-version", "2.1.328"],
    ));
    for (path, before) in [
        (&settings, OTHERS),
        (&local, NO_HOOKS),
        (&codex_hooks, OTHERS),
        (&user, NO_HOOKS),
    ] {
        assert_ne!(
            &fs::read_to_string(path).unwrap(),
            before,
            "{}",
            path.display()
        );
    }
    let dry = ok(&hooks(
        &project,
        &home,
        &["uninstall", "claude", "--dry-run"],
    ));
    assert!(dry.contains("Dry run: nothing written."), "{dry}");
    ok(&hooks(&project, &home, &["uninstall", "claude"]));
    ok(&hooks(
        &project,
        &home,
        &["uninstall", "codex", "--project"],
    ));
    ok(&hooks(&project, &home, &["uninstall", "claude", "--user"]));
    for (path, before) in [
        (&settings, OTHERS),
        (&local, NO_HOOKS),
        (&codex_hooks, OTHERS),
        (&user, NO_HOOKS),
    ] {
        assert_eq!(
            &fs::read_to_string(path).unwrap(),
            before,
            "{}",
            path.display()
        );
    }
    let again = ok(&hooks(&project, &home, &["uninstall", "claude"]));
    assert_eq!(again.matches("nothing changed").count(), 2, "{again}");

    let help = ok(&Command::new(BIN)
        .args(["uninstall", "--help"])
        .output()
        .unwrap());
    assert!(help.contains("Exit status: 0 removed"), "{help}");
    let bad = Command::new(BIN)
        .args(["uninstall", "vim"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn uninstall_removes_what_install_created_so_the_project_is_as_before() {
    let dir = common::workdir();
    let (project, home) = (dir.path().join("project"), dir.path().join("home"));
    for d in [&project, &home] {
        fs::create_dir_all(d).unwrap();
    }
    // A directory the user had before stays, though empty once the file is gone.
    fs::create_dir_all(project.join(".github")).unwrap();
    let listing = |root: &Path| -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = walk(root);
        all.sort();
        all
    };
    let before = listing(&project);
    let agents = [
        "claude", "codex", "gemini", "copilot", "qwen", "droid", "cursor",
    ];
    for agent in agents {
        let mut args = vec!["install", agent];
        if agent == "claude" {
            args.extend(["--claude-version", "2.1.328"]);
        }
        ok(&hooks(&project, &home, &args));
    }
    assert_ne!(listing(&project), before);
    let dry = ok(&hooks(
        &project,
        &home,
        &["uninstall", "gemini", "--dry-run"],
    ));
    assert!(
        dry.contains("which install created: nothing else is in it"),
        "{dry}"
    );
    assert!(
        project.join(".gemini/settings.json").exists(),
        "a dry run removes nothing"
    );
    for agent in agents {
        let said = ok(&hooks(&project, &home, &["uninstall", agent]));
        assert!(
            said.contains("install created it and nothing else is in it"),
            "{agent}: {said}"
        );
    }
    assert_eq!(listing(&project), before);
    // A file that was there before install keeps its last byte, `{}` though it is.
    let claude = project.join(".claude");
    fs::create_dir_all(&claude).unwrap();
    let settings = file(&claude, "settings.json", "{}\n");
    ok(&hooks(
        &project,
        &home,
        &["install", "claude", "--claude-version", "2.1.328"],
    ));
    ok(&hooks(&project, &home, &["uninstall", "claude"]));
    assert_eq!(fs::read_to_string(&settings).unwrap(), "{}\n");
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn hooks_uninstall_pi_and_omp_remove_only_this_tools_bridge_and_keep_a_backup() {
    let dir = common::workdir();
    let (project, home) = (dir.path().join("project"), dir.path().join("home"));
    for d in [&project, &home] {
        fs::create_dir_all(d).unwrap();
    }
    for (agent, config) in [("pi", ".pi"), ("omp", ".omp")] {
        let bridge = project.join(config).join("extensions").join("hooks.ts");
        ok(&hooks(&project, &home, &["install", agent]));
        let installed = fs::read_to_string(&bridge).unwrap();
        let dry = ok(&hooks(&project, &home, &["uninstall", agent, "--dry-run"]));
        assert!(dry.contains("Dry run: nothing written."), "{dry}");
        assert!(bridge.exists());
        let out = ok(&hooks(&project, &home, &["uninstall", agent]));
        assert!(!bridge.exists(), "{out}");
        let backup = bridge.with_file_name("hooks.ts.bak");
        assert_eq!(fs::read_to_string(&backup).unwrap(), installed);
        let again = ok(&hooks(&project, &home, &["uninstall", agent]));
        assert!(
            again.contains("does not exist; nothing to remove"),
            "{again}"
        );
        // Another tool's file at that path is not ours: it stays.
        fs::write(&bridge, "export default function () {}\n").unwrap();
        let other = ok(&hooks(&project, &home, &["uninstall", agent]));
        assert!(other.contains("nothing changed"), "{other}");
        assert_eq!(
            fs::read_to_string(&bridge).unwrap(),
            "export default function () {}\n"
        );
    }
}

/// A backup planted as a link (here to `/dev/zero`, which never ends) is not read: uninstall
/// removes this tool's entries as usual and finishes.
#[test]
fn a_backup_that_is_a_link_is_not_read() {
    let dir = common::workdir();
    let path = file(dir.path(), "settings.json", ONE_LINE);
    install(Target::Claude, &path, None, true);
    let backup = dir.path().join("settings.json.bak");
    fs::remove_file(&backup).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &backup).unwrap();
    let (report, out) = uninstall(Target::Claude, &path, false);
    assert!(report.written, "{out}");
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        after,
        serde_json::from_str::<serde_json::Value>(ONE_LINE).unwrap()
    );
}
