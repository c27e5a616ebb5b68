//! `hooks install gemini|copilot|qwen|droid|cursor`: each agent's file, scopes, entry form and
//! layout, the merge with other tools' hooks, idempotence, backup, dry run, the ownership rule
//! and Cursor's fail-closed switch.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use hookwright_cli::agents::AgentEvent;
use hookwright_cli::install::{self, Install, InstallError, Scope, Target};

const BINARY: &str = "/opt/hooks/bin/hooks";

fn plan(target: Target, path: &Path, dry_run: bool) -> Install {
    Install {
        target,
        path: path.to_path_buf(),
        binary: PathBuf::from(BINARY),
        command: None,
        dry_run,
        on_failure_block: target == Target::Cursor,
        http: None,
    }
}

fn apply(
    target: Target,
    path: &Path,
    dry_run: bool,
    events: &[AgentEvent],
) -> (install::InstallReport, String) {
    let mut out = Vec::new();
    let report = plan(target, path, dry_run)
        .apply(events, &mut out)
        .unwrap_or_else(|e: InstallError| panic!("install failed: {e}"));
    (report, String::from_utf8(out).unwrap())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn event(target: Target, name: &str) -> AgentEvent {
    target
        .protocol()
        .event(name)
        .unwrap_or_else(|| panic!("{target} has no event {name}"))
}

#[test]
fn each_agent_installs_into_its_own_project_and_user_files() {
    let cwd = Path::new("/p");
    let home = Path::new("/h");
    let cases = [
        (
            Target::Gemini,
            "/p/.gemini/settings.json",
            "/h/.gemini/settings.json",
        ),
        (
            Target::Qwen,
            "/p/.qwen/settings.json",
            "/h/.qwen/settings.json",
        ),
        (
            Target::Droid,
            "/p/.factory/settings.json",
            "/h/.factory/settings.json",
        ),
        (
            Target::Copilot,
            "/p/.github/hooks/hooks.json",
            "/h/.copilot/hooks/hooks.json",
        ),
        (
            Target::Cursor,
            "/p/.cursor/hooks.json",
            "/h/.cursor/hooks.json",
        ),
    ];
    for (target, project, user) in cases {
        assert_eq!(
            install::settings_path(target, Scope::Project, cwd, home),
            Path::new(project)
        );
        assert_eq!(
            install::user_settings_path(target, None, home).unwrap(),
            Path::new(user)
        );
    }
    // Copilot CLI reads its config directory from COPILOT_HOME.
    assert_eq!(
        install::user_settings_path(Target::Copilot, Some("/c".as_ref()), home).unwrap(),
        Path::new("/c/hooks/hooks.json")
    );
}

#[test]
fn gemini_qwen_and_droid_get_shell_form_entries_in_matcher_groups_merged_with_others() {
    for (target, pre) in [
        (Target::Gemini, "BeforeTool"),
        (Target::Qwen, "PreToolUse"),
        (Target::Droid, "PreToolUse"),
    ] {
        let dir = common::workdir();
        let path = dir.path().join("settings.json");
        let existing = json!({
            "model": {"name": "x"},
            "hooks": {pre: [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "other-guard"}]}]},
        });
        fs::write(&path, serde_json::to_string_pretty(&existing).unwrap()).unwrap();
        let (report, _) = apply(target, &path, false, &[event(target, pre)]);
        assert_eq!(report.added, [event(target, pre)], "{target}");
        let new = read_json(&path);
        assert_eq!(new["model"], json!({"name": "x"}), "{target}");
        assert_eq!(
            new["hooks"][pre],
            json!([
                {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "other-guard"}]},
                {"hooks": [{"type": "command", "command": format!("{BINARY} {target} {pre}")}]},
            ]),
            "{target}"
        );
        assert!(
            report.backup.is_some(),
            "{target}: a backup of the old file"
        );
        let (again, out) = apply(target, &path, false, &[event(target, pre)]);
        assert!(!again.written, "{target} is idempotent: {out}");
    }
}

#[test]
fn copilot_entries_run_under_bash_straight_under_the_event_in_a_versioned_file() {
    let dir = common::workdir();
    let path = dir.path().join(".github/hooks/hooks.json");
    let events = [
        event(Target::Copilot, "preToolUse"),
        event(Target::Copilot, "postToolUse"),
    ];
    let (report, _) = apply(Target::Copilot, &path, false, &events);
    assert_eq!(report.added, events);
    assert_eq!(
        read_json(&path),
        json!({"version": 1, "hooks": {
            "preToolUse": [{"type": "command", "bash": format!("{BINARY} copilot preToolUse")}],
            "postToolUse": [{"type": "command", "bash": format!("{BINARY} copilot postToolUse")}],
        }})
    );
    let (again, out) = apply(Target::Copilot, &path, false, &events);
    assert!(!again.written, "idempotent: {out}");
}

#[test]
fn copilot_moved_binary_is_pointed_at_this_one_and_other_entries_are_kept() {
    let dir = common::workdir();
    let path = dir.path().join("hooks.json");
    let old = "/home/u/old dir/hooks";
    let text = json!({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": "./scripts/audit.sh", "timeoutSec": 5},
        {"type": "command", "bash": format!("'{old}' copilot preToolUse"), "timeoutSec": 30},
        {"type": "command", "bash": "/usr/bin/other-hooks copilot preToolUse"},
        {"type": "command", "bash": "/opt/x/hooks copilot preToolUse | tee log"},
    ]}})
    .to_string();
    fs::write(&path, &text).unwrap();
    let pre = event(Target::Copilot, "preToolUse");
    let (report, out) = apply(Target::Copilot, &path, false, &[pre]);
    assert!(report.added.is_empty(), "{out}");
    assert_eq!(report.replaced[0].old_binary, old);
    assert_eq!(
        read_json(&path)["hooks"]["preToolUse"],
        json!([
            {"type": "command", "bash": "./scripts/audit.sh", "timeoutSec": 5},
            {"type": "command", "bash": format!("{BINARY} copilot preToolUse"), "timeoutSec": 30},
            {"type": "command", "bash": "/usr/bin/other-hooks copilot preToolUse"},
            {"type": "command", "bash": "/opt/x/hooks copilot preToolUse | tee log"},
        ])
    );
}

#[test]
fn cursor_entries_fail_closed_on_gating_events_only() {
    let dir = common::workdir();
    let path = dir.path().join("hooks.json");
    fs::write(
        &path,
        r#"{"hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}"#,
    )
    .unwrap();
    let events = [
        event(Target::Cursor, "beforeShellExecution"),
        event(Target::Cursor, "sessionStart"),
    ];
    let (report, _) = apply(Target::Cursor, &path, false, &events);
    assert_eq!(report.added, events);
    assert_eq!(
        read_json(&path),
        json!({"version": 1, "hooks": {
            "afterFileEdit": [{"command": "./format.sh"}],
            "beforeShellExecution": [{"type": "command", "command": format!("{BINARY} cursor beforeShellExecution"), "failClosed": true}],
            "sessionStart": [{"type": "command", "command": format!("{BINARY} cursor sessionStart")}],
        }})
    );
    let (again, _) = apply(Target::Cursor, &path, false, &events);
    assert!(!again.written, "an entry with its switch is still ours");
}

#[test]
fn dry_run_of_a_new_agent_file_prints_the_diff_and_writes_nothing() {
    let dir = common::workdir();
    let path = dir.path().join(".github/hooks/hooks.json");
    let (report, out) = apply(
        Target::Copilot,
        &path,
        true,
        &[event(Target::Copilot, "preToolUse")],
    );
    assert!(!report.written);
    assert!(!path.exists() && !dir.path().join(".github").exists());
    assert!(out.contains("+    \"preToolUse\": ["), "{out}");
    assert!(out.contains("copilot preToolUse"), "{out}");
}

#[test]
fn install_of_the_examples_bundle_registers_only_the_events_it_handles() {
    // The examples bundle handles tool_call, tool_result, context, a command, session_start
    // and session_before_compact (no session_shutdown, no agent_end): each agent gets the
    // events of its own that map to them, installed through the built binary.
    let home = common::workdir();
    let project = common::workdir();
    let cwd = project.path().to_str().unwrap();
    let expected: [(&str, &str, &[&str]); 5] = [
        (
            "gemini",
            ".gemini/settings.json",
            &[
                "BeforeTool",
                "AfterTool",
                "BeforeAgent",
                "BeforeModel",
                "SessionStart",
                "PreCompress",
            ],
        ),
        (
            "copilot",
            ".github/hooks/hooks.json",
            &[
                "preToolUse",
                "postToolUse",
                "userPromptSubmitted",
                "sessionStart",
            ],
        ),
        (
            "qwen",
            ".qwen/settings.json",
            &[
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "UserPromptSubmit",
                "SessionStart",
                "PreCompact",
            ],
        ),
        (
            "droid",
            ".factory/settings.json",
            &[
                "PreToolUse",
                "PostToolUse",
                "UserPromptSubmit",
                "SessionStart",
                "PreCompact",
            ],
        ),
        (
            "cursor",
            ".cursor/hooks.json",
            &[
                "beforeShellExecution",
                "beforeMCPExecution",
                "beforeReadFile",
                "beforeSubmitPrompt",
                "sessionStart",
            ],
        ),
    ];
    for (agent, file, events) in expected {
        let r = common::hooks(&["install", agent, "--cwd", cwd], b"", home.path());
        assert_eq!(r.code, Some(0), "{agent}: {r:?}");
        let settings = read_json(&project.path().join(file));
        let installed: Vec<&str> = settings["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(installed, events, "{agent}");
    }
}

#[test]
fn gemini_precompress_is_installed_for_the_manual_trigger_only() {
    // Gemini CLI sends PreCompress with trigger "auto" before every model turn, and compares a
    // group's matcher to the trigger as is: the group's matcher spares a process per turn.
    let home = common::workdir();
    let project = common::workdir();
    let cwd = project.path().to_str().unwrap();
    let r = common::hooks(&["install", "gemini", "--cwd", cwd], b"", home.path());
    assert_eq!(r.code, Some(0), "{r:?}");
    let settings = read_json(&project.path().join(".gemini/settings.json"));
    let hooks = settings["hooks"].as_object().unwrap();
    for (event, groups) in hooks {
        let matcher = &groups[0]["matcher"];
        if event == "PreCompress" {
            assert_eq!(matcher, "manual", "{settings}");
        } else {
            assert!(
                matcher.is_null(),
                "{event} fires for every tool: {settings}"
            );
        }
    }
}

#[test]
fn reinstalling_over_a_gemini_install_without_the_matcher_gives_our_precompress_group_one() {
    let home = common::workdir();
    let project = common::workdir();
    let cwd = project.path().to_str().unwrap();
    let install = || common::hooks(&["install", "gemini", "--cwd", cwd], b"", home.path());
    assert_eq!(install().code, Some(0));
    // As an install from before the matcher wrote it.
    let file = project.path().join(".gemini/settings.json");
    let mut settings = read_json(&file);
    settings["hooks"]["PreCompress"][0]
        .as_object_mut()
        .unwrap()
        .remove("matcher");
    std::fs::write(&file, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    let r = install();
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        r.stdout
            .contains("\"matcher\": \"manual\" on the PreCompress group"),
        "says what changed: {r:?}"
    );
    assert_eq!(
        read_json(&file)["hooks"]["PreCompress"][0]["matcher"],
        "manual"
    );
    let again = install();
    assert!(again.stdout.contains("nothing changed"), "{again:?}");
    // A group that also holds another tool's entry keeps firing for every trigger.
    let mut settings = read_json(&file);
    let group = &mut settings["hooks"]["PreCompress"][0];
    group.as_object_mut().unwrap().remove("matcher");
    group["hooks"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "command", "command": "other-tool"}));
    std::fs::write(&file, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    let r = install();
    assert!(r.stdout.contains("nothing changed"), "{r:?}");
    assert!(read_json(&file)["hooks"]["PreCompress"][0]["matcher"].is_null());
}
