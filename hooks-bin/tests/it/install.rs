//! `hooks install`: merging into existing settings, idempotence, backup, dry run, bad files,
//! replacing the entries of a moved binary.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use hookwright::{HookApi, HookRunner, JsonlSessionStore};
use hookwright_cli::agents::AgentEvent;
use hookwright_cli::agents::hook_json::{
    POST_TOOL_USE, POST_TOOL_USE_FAILURE, PRE_COMPACT, PRE_TOOL_USE, SESSION_END, SESSION_START,
    STOP, USER_PROMPT_SUBMIT,
};
use hookwright_cli::install::{self, Install, InstallError, Scope, Target};

const BINARY: &str = "/opt/hooks/bin/hooks";

fn claude_events() -> Vec<AgentEvent> {
    vec![PRE_TOOL_USE, POST_TOOL_USE, USER_PROMPT_SUBMIT]
}

fn plan(target: Target, path: &Path, dry_run: bool) -> Install {
    Install {
        target,
        path: path.to_path_buf(),
        binary: PathBuf::from(BINARY),
        command: None,
        dry_run,
        on_failure_block: false,
        http: None,
    }
}

/// [`plan`] for Claude with `"onFailure": "block"` on gating entries (Claude Code 2.1.295+).
fn plan_fail_closed(path: &Path) -> Install {
    Install {
        on_failure_block: true,
        ..plan(Target::Claude, path, false)
    }
}

fn apply(
    plan: &Install,
    events: &[AgentEvent],
) -> (Result<install::InstallReport, InstallError>, String) {
    let mut out = Vec::new();
    let result = plan.apply(events, &mut out);
    (result, String::from_utf8(out).unwrap())
}

/// A settings file with other keys and another tool's hooks.
const EXISTING: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard --strict", "timeout": 30}]}
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "notify-send hi"}]}
    ]
  },
  "env": {"FOO": "bar"}
}
"#;

fn settings_file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join(".claude").join("settings.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn install_claude_merges_into_settings_with_other_hooks_and_keys() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), EXISTING);
    let (result, out) = apply(&plan(Target::Claude, &path, false), &claude_events());
    let report = result.unwrap();
    assert_eq!(report.added, claude_events());
    assert!(report.written);
    assert!(
        out.contains("Added PreToolUse, PostToolUse, UserPromptSubmit hooks"),
        "{out}"
    );

    let new = read_json(&path);
    let old: Value = serde_json::from_str(EXISTING).unwrap();
    let keys: Vec<&String> = new.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "env"], "order kept");
    assert_eq!(new["model"], old["model"]);
    assert_eq!(new["permissions"], old["permissions"]);
    assert_eq!(new["env"], old["env"]);
    assert_eq!(new["hooks"]["Notification"], old["hooks"]["Notification"]);
    let pre = new["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[0], old["hooks"]["PreToolUse"][0],
        "the other tool's hook stays first"
    );
    assert_eq!(
        pre[1],
        json!({"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"]}]})
    );
    assert_eq!(
        new["hooks"]["UserPromptSubmit"][0]["hooks"][0]["args"],
        json!(["claude", "UserPromptSubmit"])
    );
}

#[test]
fn install_writes_a_backup_of_the_previous_file() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), EXISTING);
    let (result, out) = apply(&plan(Target::Claude, &path, false), &claude_events());
    let backup = result.unwrap().backup.expect("a backup");
    assert_eq!(backup, path.with_file_name("settings.json.bak"));
    assert_eq!(fs::read_to_string(&backup).unwrap(), EXISTING);
    assert!(out.contains("settings.json.bak"), "{out}");
    assert_eq!(
        dir_entries(path.parent().unwrap()),
        ["settings.json", "settings.json.bak"],
        "no temporary file left"
    );
}

#[test]
fn install_is_idempotent() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), EXISTING);
    let install = plan(Target::Claude, &path, false);
    apply(&install, &claude_events()).0.unwrap();
    let after_first = fs::read(&path).unwrap();
    let backup_first = fs::read(path.with_file_name("settings.json.bak")).unwrap();

    let (result, out) = apply(&install, &claude_events());
    let report = result.unwrap();
    assert!(report.added.is_empty());
    assert!(!report.written);
    assert_eq!(report.backup, None);
    assert!(
        out.contains("up to date") && out.contains("nothing changed"),
        "{out}"
    );
    assert_eq!(
        fs::read(&path).unwrap(),
        after_first,
        "second run changes nothing"
    );
    assert_eq!(
        fs::read(path.with_file_name("settings.json.bak")).unwrap(),
        backup_first,
        "the backup is not overwritten by a no-op"
    );
}

#[test]
fn install_adds_only_missing_events() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), "{}");
    let install = plan(Target::Claude, &path, false);
    apply(&install, &[PRE_TOOL_USE]).0.unwrap();
    let (result, _) = apply(&install, &[PRE_TOOL_USE, STOP]);
    assert_eq!(result.unwrap().added, [STOP]);
    let new = read_json(&path);
    assert_eq!(new["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), EXISTING);
    let (result, out) = apply(&plan(Target::Claude, &path, true), &claude_events());
    let report = result.unwrap();
    assert!(!report.written);
    assert_eq!(report.added, claude_events());
    assert!(
        out.contains("--- a/") && out.contains("+++ b/"),
        "unified diff: {out}"
    );
    assert!(out.contains("@@"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with('+') && l.contains("\"claude\"")),
        "{out}"
    );
    assert!(out.contains("nothing written"), "{out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), EXISTING);
    assert_eq!(dir_entries(path.parent().unwrap()), ["settings.json"]);
}

#[test]
fn dry_run_without_a_file_creates_nothing() {
    let dir = common::workdir();
    let path = dir.path().join(".claude").join("settings.json");
    let (result, out) = apply(&plan(Target::Claude, &path, true), &claude_events());
    result.unwrap();
    assert!(out.contains("+{"), "{out}");
    assert!(!dir.path().join(".claude").exists());
}

#[test]
fn install_creates_the_file_and_directory() {
    let dir = common::workdir();
    let path = install::settings_path(
        Target::Claude,
        Scope::Project,
        dir.path(),
        Path::new("/nonexistent-home"),
    );
    assert_eq!(path, dir.path().join(".claude/settings.json"));
    let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
    let report = result.unwrap();
    assert_eq!(report.backup, None, "no previous file, no backup");
    assert_eq!(
        read_json(&path)["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        BINARY
    );
}

#[test]
fn user_scope_uses_the_home_directory() {
    let cwd = Path::new("/work/p");
    let home = Path::new("/home/u");
    assert_eq!(
        install::settings_path(Target::Claude, Scope::User, cwd, home),
        home.join(".claude/settings.json")
    );
    assert_eq!(
        install::settings_path(Target::Codex, Scope::User, cwd, home),
        home.join(".codex/hooks.json")
    );
    assert_eq!(
        install::settings_path(Target::Codex, Scope::Project, cwd, home),
        cwd.join(".codex/hooks.json")
    );
}

#[test]
fn user_scope_needs_an_absolute_home_or_codex_home() {
    use std::ffi::OsStr;
    let home = Path::new("/home/u");
    let path = |target, codex_home: Option<&str>, home: &Path| {
        install::user_settings_path(target, codex_home.map(OsStr::new), home)
    };
    assert_eq!(
        path(Target::Codex, Some("/srv/codex"), Path::new("")).unwrap(),
        Path::new("/srv/codex/hooks.json")
    );
    assert_eq!(
        path(Target::Codex, Some(""), home).unwrap(),
        home.join(".codex/hooks.json"),
        "an empty CODEX_HOME is unset"
    );
    assert_eq!(
        path(Target::Claude, Some("/srv/codex"), home).unwrap(),
        home.join(".claude/settings.json"),
        "CODEX_HOME is Codex's only"
    );
    let error = |target, codex_home, home: &str| {
        path(target, codex_home, Path::new(home))
            .unwrap_err()
            .to_string()
    };
    assert!(error(Target::Claude, None, "").contains("set HOME to an absolute path"));
    assert!(error(Target::Claude, None, "relative").contains("set HOME"));
    assert!(error(Target::Codex, None, "").contains("set CODEX_HOME or HOME"));
    assert!(
        error(Target::Codex, Some("rel"), "/home/u")
            .contains("CODEX_HOME must be an absolute path, not `rel`")
    );
}

fn assert_untouched(path: &Path, text: &[u8]) {
    assert_eq!(fs::read(path).unwrap(), text, "the file is untouched");
    assert_eq!(
        dir_entries(path.parent().unwrap()),
        [path.file_name().unwrap().to_string_lossy().into_owned()],
        "no backup, no temporary file"
    );
}

#[test]
fn malformed_settings_are_an_error_naming_file_line_column_and_untouched() {
    let dir = common::workdir();
    let text = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n}\n";
    let path = settings_file(dir.path(), text);
    let (result, out) = apply(&plan(Target::Claude, &path, false), &claude_events());
    let err = result.unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}:5:", path.display())),
        "names file:line:column: {message}"
    );
    assert!(!message.contains('\n'));
    assert_eq!(out, "");
    assert_untouched(&path, text.as_bytes());
}

#[test]
fn bad_settings_files_are_errors_and_untouched() {
    let cases: &[(&[u8], &str)] = &[
        (b"{\"model\": \"op\xffus\"}", "UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
        (
            b"{\"hooks\": []}",
            "`hooks` must be an object, found an array",
        ),
        (
            b"{\"hooks\": {\"PreToolUse\": {\"x\": 1}}}",
            "`hooks.PreToolUse` must be an array",
        ),
        (b"{\"a\": 1} trailing", "trailing"),
    ];
    for (text, expected) in cases {
        let dir = common::workdir();
        let path = dir.path().join("settings.json");
        fs::write(&path, text).unwrap();
        let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
        let message = result.unwrap_err().to_string();
        assert!(
            message.contains(expected),
            "{message:?} should contain {expected:?}"
        );
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert_untouched(&path, text);
    }
}

#[test]
fn deeply_nested_settings_are_an_error() {
    let dir = common::workdir();
    let path = dir.path().join("settings.json");
    let text = format!("{{\"a\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    fs::write(&path, &text).unwrap();
    let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
    assert!(result.unwrap_err().to_string().contains("nested deeper"));
    assert_untouched(&path, text.as_bytes());
}

#[test]
fn install_codex_uses_a_quoted_shell_command() {
    let dir = common::workdir();
    let path = dir.path().join(".codex").join("hooks.json");
    let install = Install {
        target: Target::Codex,
        path: path.clone(),
        binary: PathBuf::from("/opt/my tools/hooks"),
        command: None,
        dry_run: false,
        on_failure_block: true,
        http: None,
    };
    let events = [PRE_TOOL_USE, POST_TOOL_USE];
    let (result, _said) = apply(&install, &events);
    result.unwrap();
    assert_eq!(
        read_json(&path)["hooks"]["PreToolUse"][0],
        json!({"hooks": [{"type": "command", "command": "'/opt/my tools/hooks' codex PreToolUse"}]})
    );
    let (result, _) = apply(&install, &events);
    assert!(result.unwrap().added.is_empty(), "idempotent");
}

#[cfg(unix)]
#[test]
fn install_writes_through_a_symlink_and_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::workdir();
    let real = dir.path().join("dotfiles-settings.json");
    fs::write(&real, "{\"model\": \"x\"}\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let link_dir = dir.path().join(".claude");
    fs::create_dir_all(&link_dir).unwrap();
    let link = link_dir.join("settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    apply(&plan(Target::Claude, &link, false), &claude_events())
        .0
        .unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "still a link"
    );
    assert_eq!(read_json(&real)["model"], "x");
    assert!(read_json(&real)["hooks"]["PreToolUse"].is_array());
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn empty_or_blank_settings_count_as_an_empty_object() {
    for text in ["", "  \n\t\r\n"] {
        let dir = common::workdir();
        let path = settings_file(dir.path(), text);
        let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
        assert_eq!(result.unwrap().added, claude_events(), "{text:?}");
        assert_eq!(
            read_json(&path)["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            BINARY
        );
        assert_eq!(
            fs::read_to_string(path.with_file_name("settings.json.bak")).unwrap(),
            text,
            "the old file is still backed up"
        );
    }
}

#[test]
fn a_leading_byte_order_mark_is_accepted_and_kept() {
    let dir = common::workdir();
    let text = "\u{feff}{\"model\": \"opus\"}\n";
    let path = settings_file(dir.path(), text);
    let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
    result.unwrap();
    let new = fs::read_to_string(&path).unwrap();
    let body = new.strip_prefix('\u{feff}').expect("the BOM is kept");
    let value: Value = serde_json::from_str(body).unwrap();
    assert_eq!(value["model"], "opus");
    assert!(value["hooks"]["PreToolUse"].is_array());

    let (result, out) = apply(&plan(Target::Claude, &path, false), &claude_events());
    assert!(!result.unwrap().written, "idempotent with a BOM: {out}");
}

#[cfg(unix)]
#[test]
fn a_dangling_settings_symlink_is_an_error_naming_the_link_and_its_target() {
    let dir = common::workdir();
    let link_dir = dir.path().join(".claude");
    fs::create_dir_all(&link_dir).unwrap();
    let link = link_dir.join("settings.json");
    std::os::unix::fs::symlink("../dotfiles/settings.json", &link).unwrap();
    for dry_run in [true, false] {
        let (result, out) = apply(&plan(Target::Claude, &link, dry_run), &claude_events());
        let message = result.unwrap_err().to_string();
        let target = dir.path().join("dotfiles/settings.json");
        assert!(
            message.contains(&format!(
                "{} is a symlink to {}, which does not exist",
                link.display(),
                target.display()
            )),
            "{message}"
        );
        assert_eq!(out, "");
    }
    assert!(!dir.path().join("dotfiles").exists(), "nothing created");
    assert_eq!(dir_entries(&link_dir), ["settings.json"]);

    // A dangling symlink on the way: the `.claude` directory itself.
    let dir = common::workdir();
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join(".claude")).unwrap();
    let path = dir.path().join(".claude/settings.json");
    let (result, _) = apply(&plan(Target::Claude, &path, false), &claude_events());
    let message = result.unwrap_err().to_string();
    assert!(
        message.contains(&format!(
            "{} is a symlink to {}",
            dir.path().join(".claude").display(),
            dir.path().join("missing").display()
        )),
        "{message}"
    );
}

#[test]
fn dry_run_diff_names_the_file_without_a_double_slash() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), EXISTING);
    assert!(path.is_absolute());
    let (result, out) = apply(&plan(Target::Claude, &path, true), &claude_events());
    result.unwrap();
    let name = path.display().to_string();
    let name = name.trim_start_matches('/');
    assert!(out.contains(&format!("--- a/{name}\n")), "{out}");
    assert!(out.contains(&format!("+++ b/{name}\n")), "{out}");
    assert!(!out.contains("a//") && !out.contains("b//"), "{out}");
}

/// This process's umask, from a shell (which inherits it).
#[cfg(unix)]
fn umask() -> u32 {
    let out = std::process::Command::new("sh")
        .args(["-c", "umask"])
        .output()
        .unwrap();
    u32::from_str_radix(String::from_utf8(out.stdout).unwrap().trim(), 8).unwrap()
}

#[cfg(unix)]
#[test]
fn a_new_settings_file_gets_the_permissions_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::workdir();
    let path = dir.path().join(".claude").join("settings.json");
    apply(&plan(Target::Claude, &path, false), &claude_events())
        .0
        .unwrap();
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask(), "not the 0600 of a temporary file");
}

/// A settings file holding this tool's entries for `old` (exec form) and another tool's hook.
fn installed_from(old: &str) -> String {
    json!({
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
                {"hooks": [{"type": "command", "command": old, "args": ["claude", "PreToolUse"], "timeout": 30}]},
                {"hooks": [{"type": "command", "command": "/usr/bin/other-hooks", "args": ["claude", "PreToolUse"]}]}
            ],
            "Stop": [
                {"hooks": [{"type": "command", "command": old, "args": ["claude", "Stop"]}]}
            ]
        }
    })
    .to_string()
}

#[test]
fn reinstalling_from_another_path_replaces_our_entries_in_place() {
    let dir = common::workdir();
    let old = "/home/u/src/hooks/target/debug/hooks";
    let path = settings_file(dir.path(), &installed_from(old));
    let events = [PRE_TOOL_USE, POST_TOOL_USE];
    let (result, out) = apply(&plan(Target::Claude, &path, false), &events);
    let report = result.unwrap();
    assert_eq!(report.added, [POST_TOOL_USE]);
    assert_eq!(
        report.replaced,
        [install::Replaced {
            event: PRE_TOOL_USE,
            old_binary: old.to_owned(),
            removed: false,
        }]
    );
    assert!(
        out.contains(&format!(
            "Replaced {old} with {BINARY} in the PreToolUse entries"
        )),
        "{out}"
    );
    let new = read_json(&path);
    let pre = new["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 3, "replaced, not added: {new}");
    assert_eq!(pre[0]["hooks"][0]["command"], "other-guard");
    assert_eq!(
        pre[1],
        json!({"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"], "timeout": 30}]}),
        "same place, other fields kept"
    );
    assert_eq!(
        pre[2]["hooks"][0]["command"], "/usr/bin/other-hooks",
        "another binary's name is not ours"
    );
    assert_eq!(
        new["hooks"]["Stop"][0]["hooks"][0]["command"], old,
        "events not being installed are left alone"
    );

    let (result, out) = apply(&plan(Target::Claude, &path, false), &events);
    assert!(!result.unwrap().written, "idempotent: {out}");
}

#[test]
fn reinstalling_from_another_path_replaces_the_codex_shell_form() {
    let dir = common::workdir();
    let path = dir.path().join("hooks.json");
    let old = "/opt/old dir/hooks";
    let text = json!({"hooks": {"PreToolUse": [
        {"hooks": [{"type": "command", "command": "'/opt/old dir/hooks' codex PreToolUse"}]},
        {"hooks": [{"type": "command", "command": "/opt/x/hooks codex PreToolUse --verbose"}]}
    ]}})
    .to_string();
    fs::write(&path, &text).unwrap();
    let (result, _) = apply(&plan(Target::Codex, &path, false), &[PRE_TOOL_USE]);
    let report = result.unwrap();
    assert!(report.added.is_empty());
    assert_eq!(report.replaced[0].old_binary, old);
    let new = read_json(&path);
    assert_eq!(
        new["hooks"]["PreToolUse"],
        json!([
            {"hooks": [{"type": "command", "command": format!("{BINARY} codex PreToolUse")}]},
            {"hooks": [{"type": "command", "command": "/opt/x/hooks codex PreToolUse --verbose"}]}
        ])
    );
}

#[test]
fn an_entry_of_another_path_next_to_ours_is_removed_as_a_duplicate() {
    let dir = common::workdir();
    let old = "/usr/local/bin/hooks";
    let text = json!({"hooks": {"PreToolUse": [
        {"hooks": [{"type": "command", "command": old, "args": ["claude", "PreToolUse"]}]},
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "other-guard"},
            {"type": "command", "command": old, "args": ["claude", "PreToolUse"]}
        ]},
        {"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"]}]}
    ]}})
    .to_string();
    let path = settings_file(dir.path(), &text);
    let (result, out) = apply(&plan(Target::Claude, &path, false), &[PRE_TOOL_USE]);
    let report = result.unwrap();
    assert_eq!(report.replaced.len(), 2);
    assert!(
        report
            .replaced
            .iter()
            .all(|r| r.removed && r.old_binary == old)
    );
    assert!(
        out.contains(&format!("Removed the PreToolUse entries running {old}")),
        "{out}"
    );
    assert_eq!(
        read_json(&path)["hooks"]["PreToolUse"],
        json!([
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
            {"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"]}]}
        ]),
        "one entry runs hooks; the other tool's group stays"
    );
}

/// JSON numbers that a parse-and-print would rewrite (`1E2` → `100.0`, a 30-digit integer →
/// `1.2345678901234568e+29`, `-0` → `-0.0`, `0.10` → `0.1`, ...).
const ODD_NUMBERS: &[&str] = &[
    "123456789012345678901234567890",
    "-123456789012345678901234567890",
    "18446744073709551616",
    "1E2",
    "1e3",
    "1E+2",
    "2.5e-7",
    "1.0",
    "0.10",
    "-0",
    "-0.0",
    "0e0",
    "3.14159265358979323846264338327950288",
    "100000000000000000000000.5",
];

#[test]
fn install_keeps_every_number_and_all_other_text_as_written() {
    // Odd numbers in another tool's keys, in another tool's hook entry, and in the other
    // fields of an entry of ours that is pointed at the new binary: each stays exactly as
    // written, through an install that adds, replaces, and a reinstall that changes nothing.
    let fields = |prefix: &str| {
        ODD_NUMBERS
            .iter()
            .enumerate()
            .map(|(i, n)| format!("\"{prefix}{i}\": {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let other_tool = format!(
        r#"  "otherTool": {{"id": 123456789012345678901234567890, "n": 1E2, "s": "caf\u00e9 \/", {}}},"#,
        fields("k")
    );
    let other_entry = format!(
        r#"      {{"matcher": "Bash", "hooks": [{{"type": "command", "command": "other-guard", "timeout": 1e3, {}}}]}},"#,
        fields("e")
    );
    let old = "/old/bin/hooks";
    let text = format!(
        "{{\n{other_tool}\n  \"hooks\": {{\n    \"PreToolUse\": [\n{other_entry}\n      \
         {{\"hooks\": [{{\"type\": \"command\", \"command\": \"{old}\", \"args\": [\"claude\", \"PreToolUse\"], \"timeout\": 1E3, {}}}]}}\n    ]\n  }},\n  \"last\": -0\n}}\n",
        fields("o")
    );
    serde_json::from_str::<Value>(&text).expect("the test file is JSON");
    let dir = common::workdir();
    let path = settings_file(dir.path(), &text);
    let install = plan(Target::Claude, &path, false);
    let (result, out) = apply(&install, &claude_events());
    let report = result.unwrap();
    assert_eq!(report.replaced.len(), 1, "{out}");
    assert_eq!(report.added, [POST_TOOL_USE, USER_PROMPT_SUBMIT]);
    let new = fs::read_to_string(&path).unwrap();
    let before_ours = text.find(&other_entry).unwrap() + other_entry.len();
    assert!(
        new.starts_with(&text[..before_ours]),
        "everything before our entry is byte for byte as it was:\n{new}"
    );
    assert!(
        new.contains(&other_tool),
        "another tool's key as written:\n{new}"
    );
    assert!(
        new.contains(other_entry.trim_end_matches(',')),
        "another tool's hook entry as written:\n{new}"
    );
    for (prefix, at) in [
        ("k", "another tool's key"),
        ("e", "another tool's entry"),
        ("o", "our entry"),
    ] {
        for (i, n) in ODD_NUMBERS.iter().enumerate() {
            let field = format!("\"{prefix}{i}\": {n}");
            assert!(new.contains(&field), "{field} in {at}:\n{new}");
        }
    }
    assert!(
        new.contains(&format!(
            r#""command": "{BINARY}", "args": ["claude", "PreToolUse"], "timeout": 1E3,"#
        )),
        "{new}"
    );
    assert!(new.ends_with("  \"last\": -0\n}\n"), "{new}");

    let (result, out) = apply(&install, &claude_events());
    assert!(!result.unwrap().written, "reinstall changes nothing: {out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), new);
}

const ALL_CLAUDE: [AgentEvent; 8] = [
    PRE_TOOL_USE,
    POST_TOOL_USE,
    POST_TOOL_USE_FAILURE,
    USER_PROMPT_SUBMIT,
    SESSION_START,
    SESSION_END,
    PRE_COMPACT,
    STOP,
];

#[test]
fn gating_entries_get_on_failure_block_and_observational_ones_do_not() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), "{}");
    apply(&plan_fail_closed(&path), &ALL_CLAUDE).0.unwrap();
    let new = read_json(&path);
    for event in ALL_CLAUDE {
        let entry = &new["hooks"][event.as_str()][0]["hooks"][0];
        let expected = if event.mapping.is_gating() {
            json!("block")
        } else {
            Value::Null
        };
        assert_eq!(entry["onFailure"], expected, "{event}: {entry}");
    }
    assert_eq!(
        new["hooks"]["PreToolUse"][0]["hooks"][0],
        json!({"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"], "onFailure": "block"})
    );
}

#[test]
fn reinstall_sets_on_failure_block_on_our_entries_in_place_and_leaves_others_alone() {
    let dir = common::workdir();
    let text = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
            {"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"], "timeout": 30}]}
        ],
        "PostToolUse": [
            {"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PostToolUse"], "onFailure": "continue"}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "Stop"]}]}
        ]
    }})
    .to_string();
    let path = settings_file(dir.path(), &text);
    let events = [PRE_TOOL_USE, POST_TOOL_USE, STOP];
    let (result, out) = apply(&plan_fail_closed(&path), &events);
    let report = result.unwrap();
    assert!(report.added.is_empty(), "{report:?}");
    assert_eq!(report.upgraded, [PRE_TOOL_USE, POST_TOOL_USE]);
    assert!(
        out.contains("Set \"onFailure\": \"block\" on the PreToolUse, PostToolUse entries of"),
        "{out}"
    );
    let new = read_json(&path);
    let pre = new["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "upgraded, not added: {new}");
    assert_eq!(
        pre[0],
        json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]}),
        "another tool's entry is not ours: no onFailure"
    );
    assert_eq!(
        pre[1],
        json!({"hooks": [{"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"], "timeout": 30, "onFailure": "block"}]}),
        "in place, other fields kept"
    );
    assert_eq!(
        new["hooks"]["PostToolUse"][0]["hooks"][0]["onFailure"], "block",
        "ours by its command, whatever its onFailure said"
    );
    assert_eq!(
        new["hooks"]["Stop"][0]["hooks"][0].get("onFailure"),
        None,
        "Stop does not gate"
    );

    let (result, out) = apply(&plan_fail_closed(&path), &events);
    let report = result.unwrap();
    assert!(
        !report.written && report.upgraded.is_empty(),
        "idempotent: {out}"
    );
}

#[test]
fn on_failure_block_never_makes_an_entry_ours() {
    let dir = common::workdir();
    let other = json!({"type": "command", "command": "/usr/bin/other-hooks", "args": ["claude", "PreToolUse"], "onFailure": "block"});
    let path = settings_file(
        dir.path(),
        &json!({"hooks": {"PreToolUse": [{"hooks": [other.clone()]}]}}).to_string(),
    );
    let (result, _) = apply(&plan_fail_closed(&path), &[PRE_TOOL_USE]);
    assert_eq!(result.unwrap().added, [PRE_TOOL_USE]);
    let new = read_json(&path);
    let pre = new["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0], other);
    assert_eq!(pre[1]["hooks"][0]["command"], BINARY);
}

#[test]
fn without_fail_closed_our_entries_are_left_as_they_are() {
    let dir = common::workdir();
    let path = settings_file(dir.path(), "{}");
    apply(&plan_fail_closed(&path), &[PRE_TOOL_USE]).0.unwrap();
    let (result, _) = apply(&plan(Target::Claude, &path, false), &[PRE_TOOL_USE]);
    assert!(
        !result.unwrap().written,
        "an older Claude Code: nothing removed"
    );
    assert_eq!(
        read_json(&path)["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"],
        "block"
    );
}

fn runner(hooks: Vec<hookwright::LoadedHook>) -> HookRunner {
    HookRunner::new(
        hooks,
        "/tmp",
        Arc::new(JsonlSessionStore::in_memory(Path::new("/tmp"))),
    )
}

#[test]
fn events_come_from_what_the_hooks_handle() {
    let log = common::Log::default();
    let all = runner(vec![common::canonical(Path::new("/tmp"), &log)]);
    assert_eq!(
        install::events_for(Target::Claude, &all),
        [
            PRE_TOOL_USE,
            POST_TOOL_USE,
            POST_TOOL_USE_FAILURE,
            USER_PROMPT_SUBMIT,
            SESSION_START,
            SESSION_END,
            PRE_COMPACT,
            STOP,
        ]
    );
    assert!(!install::events_for(Target::Codex, &all).contains(&POST_TOOL_USE_FAILURE));

    let mut api = HookApi::new("cmd-only", "/tmp");
    api.register_command("handoff", None, |_a, _c| Box::pin(async { Ok(()) }));
    let commands = runner(vec![api.finish()]);
    assert_eq!(
        install::events_for(Target::Claude, &commands),
        [USER_PROMPT_SUBMIT]
    );

    let none = runner(Vec::new());
    assert!(install::events_for(Target::Claude, &none).is_empty());
}

#[test]
fn a_session_switch_handler_installs_session_start() {
    let mut api = HookApi::new("switch-only", "/tmp");
    api.on(|_e: &hookwright::events::SessionSwitchEvent, _c: &hookwright::HookContext| {});
    let switch = runner(vec![api.finish()]);
    for target in [Target::Claude, Target::Codex] {
        assert_eq!(install::events_for(target, &switch), [SESSION_START]);
    }
}

#[test]
fn nothing_to_install_writes_nothing() {
    let dir = common::workdir();
    let path = dir.path().join("settings.json");
    let (result, out) = apply(&plan(Target::Claude, &path, false), &[]);
    assert!(!result.unwrap().written);
    assert!(out.contains("nothing to install"), "{out}");
    assert!(!path.exists());
}

/// A JSON value of bounded size and depth.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9 _./-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z]{1,8}", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Settings objects that may already hold hooks of other tools (and of ours).
fn settings() -> impl Strategy<Value = serde_json::Map<String, Value>> {
    let group = (json_value(), prop::bool::ANY).prop_map(|(extra, ours)| {
        let handler = if ours {
            json!({"type": "command", "command": BINARY, "args": ["claude", "PreToolUse"]})
        } else {
            json!({"type": "command", "command": "other", "extra": extra})
        };
        json!({"matcher": "*", "hooks": [handler]})
    });
    let hooks = prop::collection::vec(
        (
            prop::sample::select(vec!["PreToolUse", "Stop", "Notification", "PostToolUse"]),
            prop::collection::vec(group, 0..3),
        ),
        0..4,
    )
    .prop_map(|kv| {
        Value::Object(
            kv.into_iter()
                .map(|(k, v)| (k.to_owned(), Value::Array(v)))
                .collect(),
        )
    });
    (
        prop::collection::vec(("[a-z]{1,8}", json_value()), 0..5),
        prop::option::of(hooks),
    )
        .prop_map(|(kv, hooks)| {
            let mut map: serde_json::Map<String, Value> =
                kv.into_iter().filter(|(k, _)| k != "hooks").collect();
            if let Some(hooks) = hooks {
                map.insert("hooks".to_owned(), hooks);
            }
            map
        })
}

/// Whether everything in `old` is still in `new` (arrays may have grown at the end).
fn contained(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| contained(v, w))),
        (Value::Array(a), Value::Array(b)) => {
            a.len() <= b.len() && a.iter().zip(b).all(|(v, w)| contained(v, w))
        }
        _ => old == new,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn merge_never_drops_anything_and_is_idempotent(existing in settings()) {
        let dir = common::workdir();
        let path = dir.path().join("settings.json");
        let text = serde_json::to_string_pretty(&existing).unwrap();
        fs::write(&path, &text).unwrap();
        let install = plan(Target::Claude, &path, false);
        let events = [PRE_TOOL_USE, POST_TOOL_USE, STOP];
        apply(&install, &events).0.unwrap();
        let old = Value::Object(existing);
        let new = read_json(&path);
        prop_assert!(contained(&old, &new), "dropped something:\nold {old}\nnew {new}");
        for event in events {
            let groups = new["hooks"][event.as_str()].as_array().unwrap();
            let ours = groups.iter().filter(|g| g["hooks"][0]["command"] == BINARY
                && g["hooks"][0]["args"] == json!(["claude", event.as_str()])).count();
            prop_assert!(ours >= 1, "{event} missing");
        }
        let again = fs::read(&path).unwrap();
        let (result, _) = apply(&install, &events);
        prop_assert!(result.unwrap().added.is_empty());
        prop_assert_eq!(fs::read(&path).unwrap(), again);
    }
}

// End to end: `hooks install` of the built `hooks-examples` (with the example bundle linked).

mod binary {
    use std::fs;

    use serde_json::Value;

    use std::path::Path;
    use std::process::{Command, Output};

    use super::{EXISTING, settings_file};
    use crate::common::{hooks, workdir};

    /// `hooks ARGS` in `cwd` with `HOME` set to `home` (`None`: unset) and nothing else of the
    /// caller's configuration, plus `env`.
    fn hooks_in(cwd: &Path, home: Option<&str>, env: &[(&str, &Path)], args: &[&str]) -> Output {
        let config = workdir();
        let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
        command
            .args(args)
            .current_dir(cwd)
            .env_remove("HOME")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env("HOOKS_CONFIG_DIR", config.path())
            .env("NO_COLOR", "1");
        if let Some(home) = home {
            command.env("HOME", home);
        }
        command.envs(env.iter().copied());
        command.output().expect("the hooks binary runs")
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    #[test]
    fn install_user_without_a_home_fails_and_writes_nothing() {
        let cwd = workdir();
        for (target, home, set) in [
            ("codex", None, "set CODEX_HOME or HOME"),
            ("claude", None, "set HOME"),
            ("claude", Some(""), "set HOME"),
            ("codex", Some("relative/home"), "set CODEX_HOME or HOME"),
        ] {
            let out = hooks_in(cwd.path(), home, &[], &["install", target, "--user"]);
            assert_eq!(out.status.code(), Some(1), "{target} {home:?}: {out:?}");
            assert!(text(&out.stderr).contains(set), "{}", text(&out.stderr));
            assert_eq!(
                fs::read_dir(cwd.path()).unwrap().count(),
                0,
                "nothing written in the working directory"
            );
        }
    }

    #[test]
    fn install_codex_user_writes_into_codex_home() {
        let (cwd, home, codex_home) = (workdir(), workdir(), workdir());
        let out = hooks_in(
            cwd.path(),
            home.path().to_str(),
            &[("CODEX_HOME", codex_home.path())],
            &["install", "codex", "--user"],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(codex_home.path().join("hooks.json").exists());
        assert!(!home.path().join(".codex").exists());
    }

    #[test]
    fn install_rejects_a_missing_working_directory_and_creates_nothing() {
        let (dir, home) = (workdir(), workdir());
        let missing = dir.path().join("missing/project");
        let out = hooks_in(
            dir.path(),
            home.path().to_str(),
            &[],
            &["install", "claude", "--cwd", missing.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            text(&out.stderr).contains("as the working directory"),
            "{}",
            text(&out.stderr)
        );
        assert!(!dir.path().join("missing").exists(), "nothing created");
    }

    #[test]
    fn install_from_a_new_path_keeps_one_entry_per_event() {
        let (dir, home) = (workdir(), workdir());
        let ours = Path::new(env!("CARGO_BIN_EXE_hooks-examples"));
        let old = Path::new("/opt/old-build/bin").join(ours.file_name().unwrap());
        let old = old.to_str().unwrap();
        let text = serde_json::json!({"hooks": {"PreToolUse": [
            {"hooks": [{"type": "command", "command": old, "args": ["claude", "PreToolUse"]}]}
        ]}});
        let path = settings_file(dir.path(), &text.to_string());
        let cwd = dir.path().to_str().unwrap();
        let r = hooks(&["install", "claude", "--cwd", cwd], b"", home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert!(
            r.stdout.contains(&format!("Replaced {old} with")),
            "{}",
            r.stdout
        );
        let new: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let pre = new["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 1, "{new}");
        assert_eq!(
            pre[0]["hooks"][0]["command"],
            env!("CARGO_BIN_EXE_hooks-examples")
        );
    }

    #[test]
    fn install_claude_merges_and_is_idempotent() {
        let (dir, home) = (workdir(), workdir());
        let path = settings_file(dir.path(), EXISTING);
        let cwd = dir.path().to_str().unwrap();
        let r = hooks(
            &["install", "claude", "--cwd", cwd, "--dry-run"],
            b"",
            home.path(),
        );
        assert_eq!(r.code, Some(0), "{r:?}");
        assert!(r.stdout.contains("+++ b/"), "{}", r.stdout);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            EXISTING,
            "dry run writes nothing"
        );

        let r = hooks(&["install", "claude", "--cwd", cwd], b"", home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        let new: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(new["model"], "opus");
        assert_eq!(
            new["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "other-guard --strict"
        );
        let ours = &new["hooks"]["PreToolUse"][1]["hooks"][0];
        assert_eq!(ours["command"], env!("CARGO_BIN_EXE_hooks-examples"));
        assert_eq!(ours["args"], serde_json::json!(["claude", "PreToolUse"]));
        for event in [
            "PostToolUse",
            "PostToolUseFailure",
            "UserPromptSubmit",
            "PreCompact",
        ] {
            assert!(new["hooks"][event].is_array(), "{event} installed: {new}");
        }
        assert_eq!(
            fs::read_to_string(path.with_file_name("settings.json.bak")).unwrap(),
            EXISTING
        );

        let before = fs::read(&path).unwrap();
        let r = hooks(&["install", "claude", "--cwd", cwd], b"", home.path());
        assert_eq!(r.code, Some(0), "{r:?}");
        assert!(r.stdout.contains("nothing changed"), "{}", r.stdout);
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[test]
    fn install_user_scope_and_malformed_settings() {
        let (dir, home) = (workdir(), workdir());
        let cwd = dir.path().to_str().unwrap();
        // Without the caller's CODEX_HOME, which would take precedence over HOME.
        let out = hooks_in(
            dir.path(),
            home.path().to_str(),
            &[],
            &["install", "codex", "--user", "--cwd", cwd],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(home.path().join(".codex/hooks.json").exists());

        let bad = settings_file(dir.path(), "{\"hooks\": {\n");
        let r = hooks(&["install", "claude", "--cwd", cwd], b"", home.path());
        assert_eq!(r.code, Some(1), "{r:?}");
        assert!(r.stderr.contains("settings.json:2:"), "{}", r.stderr);
        assert_eq!(fs::read_to_string(&bad).unwrap(), "{\"hooks\": {\n");
    }

    /// A directory for `PATH` holding a `claude` that prints `version` (none when `None`).
    fn path_with_claude(version: Option<&str>) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = workdir();
        if let Some(version) = version {
            let claude = dir.path().join("claude");
            fs::write(&claude, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
            fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    /// `hooks install claude --cwd DIR ARGS` with `PATH` = `path`; the output and the installed
    /// PreToolUse entry's `onFailure`.
    fn install_claude(path: &Path, args: &[&str]) -> (Output, Value) {
        let (dir, home) = (workdir(), workdir());
        let cwd = dir.path().to_str().unwrap();
        let mut all = vec!["install", "claude", "--cwd", cwd];
        all.extend_from_slice(args);
        let out = hooks_in(dir.path(), home.path().to_str(), &[("PATH", path)], &all);
        let settings = dir.path().join(".claude/settings.json");
        let on_failure = fs::read_to_string(settings)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map_or(Value::Null, |v| {
                v["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"].clone()
            });
        (out, on_failure)
    }

    #[test]
    fn install_claude_writes_on_failure_block_for_the_claude_on_path_from_2_1_295() {
        for (version, expected, says) in [
            (
                Some("2.1.328 (Claude Code)"),
                Some("block"),
                "Claude Code 2.1.328 (",
            ),
            (
                Some("2.1.295 (Claude Code)"),
                Some("block"),
                "Claude Code 2.1.295 (",
            ),
            (Some("2.1.294 (Claude Code)"), None, "is older than 2.1.295"),
            (None, Some("block"), "`claude` is not on PATH"),
            (Some("garbage"), Some("block"), "could not be read"),
        ] {
            let path = path_with_claude(version);
            let (out, on_failure) = install_claude(path.path(), &[]);
            let stdout = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{version:?}: {out:?}");
            assert_eq!(on_failure.as_str(), expected, "{version:?}: {stdout}");
            assert!(stdout.contains(says), "{version:?}: {stdout}");
        }
    }

    #[test]
    fn a_stated_claude_version_wins_over_the_one_on_path() {
        let path = path_with_claude(Some("2.1.328 (Claude Code)"));
        let (out, on_failure) = install_claude(path.path(), &["--claude-version", "2.1.200"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_eq!(on_failure, Value::Null, "{}", text(&out.stdout));
        assert!(text(&out.stdout).contains("Claude Code 2.1.200 is older"));
        let (out, on_failure) = install_claude(path.path(), &["--claude-version", "2.1.300"]);
        assert_eq!(on_failure, "block", "{}", text(&out.stdout));
    }

    #[test]
    fn a_bad_claude_version_is_a_usage_error() {
        let path = path_with_claude(None);
        let (out, on_failure) = install_claude(path.path(), &["--claude-version", "latest"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            text(&out.stderr).contains("`latest` is not a version"),
            "{out:?}"
        );
        assert_eq!(on_failure, Value::Null, "nothing written");
        let (dir, home) = (workdir(), workdir());
        let out = hooks_in(
            dir.path(),
            home.path().to_str(),
            &[("CODEX_HOME", dir.path())],
            &["install", "codex", "--user", "--claude-version", "2.1.328"],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(!dir.path().join("hooks.json").exists());
    }

    #[test]
    fn a_claude_whose_version_leaves_a_child_holding_stdout_is_killed_at_the_deadline() {
        let path = workdir();
        let child =
            crate::common::agent_leaving_a_child(path.path(), "claude", "2.1.328 (Claude Code)");
        let started = std::time::Instant::now();
        let (out, on_failure) = install_claude(path.path(), &[]);
        let took = started.elapsed();
        // The probe's deadline is 5 s; the child would hold stdout for 30 s.
        assert!(took < std::time::Duration::from_secs(10), "took {took:?}");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            text(&out.stdout).contains("Claude Code 2.1.328 ("),
            "what it printed before the deadline is read: {}",
            text(&out.stdout)
        );
        assert_eq!(on_failure, "block");
        assert!(
            crate::common::ended_within(&child, std::time::Duration::from_secs(2)),
            "the background child was killed with the probe's group"
        );
    }

    const CODEX_CONFIG: &str = "# my settings\nmodel = \"o3\"   # keep this comment\n\n[model_providers.x]\nname = \"x\"\n";

    /// `hooks install codex --user --trust` (plus `args`) with `CODEX_HOME` = `codex_home`.
    fn install_codex_trusted(codex_home: &Path, args: &[&str]) -> Output {
        let (dir, home) = (workdir(), workdir());
        let mut all = vec!["install", "codex", "--user", "--trust"];
        all.extend_from_slice(args);
        hooks_in(
            dir.path(),
            home.path().to_str(),
            &[("CODEX_HOME", codex_home)],
            &all,
        )
    }

    #[test]
    fn install_codex_says_how_to_trust_the_entries_unless_it_trusted_them() {
        let (dir, home) = (workdir(), workdir());
        let out = hooks_in(dir.path(), home.path().to_str(), &[], &["install", "codex"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let said = text(&out.stdout);
        assert!(said.contains("/hooks in Codex"), "trust note: {said}");
        assert!(
            said.contains("--trust") && said.contains("codex exec --dangerously-bypass-hook-trust"),
            "the note says how to trust them for unattended runs: {said}"
        );
        let codex_home = workdir();
        let out = install_codex_trusted(codex_home.path(), &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let said = text(&out.stdout);
        assert!(!said.contains("/hooks in Codex"), "{said}");
    }

    #[test]
    fn install_codex_trust_trusts_exactly_our_entries_in_config_toml() {
        let codex_home = workdir();
        let config = codex_home.path().join("config.toml");
        fs::write(&config, CODEX_CONFIG).unwrap();
        let hooks_json = codex_home.path().join("hooks.json");
        let other = serde_json::json!({"type": "command", "command": "other-guard"});
        fs::write(
            &hooks_json,
            serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [other]}]}})
                .to_string(),
        )
        .unwrap();
        let out = install_codex_trusted(codex_home.path(), &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let stdout = text(&out.stdout);
        assert!(stdout.contains("Trusted 5 hooks in"), "{stdout}");
        assert!(
            !stdout.contains("open /hooks in Codex"),
            "no note asking for the trust this install gave: {stdout}"
        );

        let text_after = fs::read_to_string(&config).unwrap();
        assert!(
            text_after.starts_with(CODEX_CONFIG),
            "kept as written:\n{text_after}"
        );
        assert_eq!(
            fs::read_to_string(config.with_file_name("config.toml.bak")).unwrap(),
            CODEX_CONFIG
        );
        let doc: toml_edit::DocumentMut = text_after.parse().unwrap();
        let state = doc["hooks"]["state"].as_table().unwrap();
        let installed: Value =
            serde_json::from_str(&fs::read_to_string(&hooks_json).unwrap()).unwrap();
        let mut expected = Vec::new();
        for (event, groups) in installed["hooks"].as_object().unwrap() {
            for (i, group) in groups.as_array().unwrap().iter().enumerate() {
                for (j, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                    let ours = handler["command"].as_str().unwrap().contains(" codex ");
                    let label = hookwright_cli::install::snake_case(event);
                    let key = format!("{}:{label}:{i}:{j}", hooks_json.display());
                    let hash = state
                        .get(&key)
                        .and_then(|t| t.get("trusted_hash"))
                        .and_then(|h| h.as_str());
                    if ours {
                        let want = hookwright_cli::install::trust_hash(
                            &label,
                            group["matcher"].as_str(),
                            handler,
                        );
                        assert_eq!(hash, Some(want.as_str()), "{key}");
                        expected.push(key);
                    } else {
                        assert_eq!(hash, None, "another tool's entry is not trusted: {key}");
                    }
                }
            }
        }
        assert_eq!(state.len(), expected.len(), "{text_after}");
        assert_eq!(
            expected.len(),
            5,
            "the five Codex events the examples handle"
        );
        assert!(text_after.contains("[hooks.state.\""), "{text_after}");

        let before = fs::read(&config).unwrap();
        let out = install_codex_trusted(codex_home.path(), &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            text(&out.stdout).contains("already trusts these hooks"),
            "{}",
            text(&out.stdout)
        );
        assert_eq!(fs::read(&config).unwrap(), before, "idempotent");
    }

    #[test]
    fn install_codex_trust_dry_run_and_bad_config_write_nothing() {
        let codex_home = workdir();
        let out = install_codex_trusted(codex_home.path(), &["--dry-run"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            text(&out.stdout).contains("Would trust 5 hooks in"),
            "{}",
            text(&out.stdout)
        );
        assert!(!codex_home.path().join("config.toml").exists());

        let config = codex_home.path().join("config.toml");
        fs::write(&config, "hooks = 3\n").unwrap();
        let out = install_codex_trusted(codex_home.path(), &[]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            text(&out.stderr).contains("`hooks` must be a table"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(fs::read_to_string(&config).unwrap(), "hooks = 3\n");
    }

    #[test]
    fn trust_is_for_codex_only() {
        let (dir, home) = (workdir(), workdir());
        let cwd = dir.path().to_str().unwrap();
        let out = hooks_in(
            dir.path(),
            home.path().to_str(),
            &[],
            &["install", "claude", "--cwd", cwd, "--trust"],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            text(&out.stderr).contains("--trust is for codex only"),
            "{out:?}"
        );
        assert!(!dir.path().join(".claude").exists());
    }
}

/// A scratch machine for `hooks install` run as a process: a home, a project, a `bin`
/// directory that is the whole `PATH`, and the config directory of `hooks`.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "home", "project", "bin", "elsewhere"] {
            fs::create_dir(dir.path().join(sub)).unwrap();
        }
        Machine { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub).canonicalize().unwrap()
    }

    /// The `hooks` under test placed at `rel` under the scratch directory (a hard link, so
    /// that it is this binary at that path), returned.
    fn place(&self, rel: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bin = env!("CARGO_BIN_EXE_hooks-examples");
        if fs::hard_link(bin, &path).is_err() {
            fs::copy(bin, &path).unwrap();
        }
        path.canonicalize().unwrap()
    }

    /// `bin/hooks` on `PATH`: a symlink to `target`.
    fn on_path(&self, target: &Path) {
        std::os::unix::fs::symlink(target, self.path("bin").join("hooks")).unwrap();
    }

    /// `binary ARGS` in the project, with `PATH` the scratch `bin` (and `path` before it).
    fn run_with_path(&self, binary: &Path, args: &[&str], path: &str) -> common::Run {
        let output = std::process::Command::new(binary)
            .args(args)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path("home"))
            .env("HOOKS_CONFIG_DIR", self.path("config"))
            .current_dir(self.path("project"))
            .output()
            .unwrap();
        common::Run {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    fn run(&self, binary: &Path, args: &[&str]) -> common::Run {
        self.run_with_path(binary, args, &self.path("bin").display().to_string())
    }

    /// `binary ARGS`, which must succeed: its stdout.
    fn ok(&self, binary: &Path, args: &[&str]) -> String {
        let run = self.run(binary, args);
        assert_eq!(run.code, Some(0), "{args:?}: {}{}", run.stdout, run.stderr);
        run.stdout
    }

    fn settings(&self, rel: &str) -> Value {
        read_json(&self.path("project").join(rel))
    }
}

/// The `command` of every handler under every event of a Claude-style settings file.
fn commands(settings: &Value, key: &str) -> Vec<String> {
    let mut all = Vec::new();
    for list in settings["hooks"].as_object().unwrap().values() {
        for item in list.as_array().unwrap() {
            let handlers = item["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![item.clone()]);
            for h in handlers {
                all.push(h[key].as_str().unwrap().to_owned());
            }
        }
    }
    all.dedup();
    all
}

#[test]
fn a_project_install_writes_the_bare_name_when_it_is_this_binary_on_path() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    m.on_path(&binary);
    let out = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(
        out.contains("Entries run `hooks`: `hooks` on PATH is this binary."),
        "{out}"
    );
    let settings = m.settings(".claude/settings.json");
    assert_eq!(commands(&settings, "command"), ["hooks"], "{settings:#}");
    let again = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(again.contains("is up to date"), "idempotent: {again}");
}

#[test]
fn a_binary_inside_the_project_is_written_through_the_agents_project_variable() {
    let m = Machine::new();
    let binary = m.place("project/tools/hooks");
    let out = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(
        out.contains(
            "Entries run `${CLAUDE_PROJECT_DIR}/tools/hooks`: `hooks` is not on PATH, and the \
             binary is inside the project (tools/hooks), reached through $CLAUDE_PROJECT_DIR."
        ),
        "{out}"
    );
    let claude = m.settings(".claude/settings.json");
    assert_eq!(
        commands(&claude, "command"),
        ["${CLAUDE_PROJECT_DIR}/tools/hooks"]
    );
    // The shell-form agents: quoted for the shell that expands the variable, except Gemini
    // CLI, which puts the directory in already quoted.
    for (agent, file, key, word) in [
        (
            "qwen",
            ".qwen/settings.json",
            "command",
            "\"$QWEN_PROJECT_DIR\"/tools/hooks",
        ),
        (
            "droid",
            ".factory/settings.json",
            "command",
            "\"$FACTORY_PROJECT_DIR\"/tools/hooks",
        ),
        (
            "copilot",
            ".github/hooks/hooks.json",
            "bash",
            "\"$COPILOT_PROJECT_DIR\"/tools/hooks",
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "command",
            "$GEMINI_PROJECT_DIR/tools/hooks",
        ),
    ] {
        let out = m.ok(&binary, &["install", agent]);
        assert!(
            out.contains(&format!("Entries run `{word}`")),
            "{agent}: {out}"
        );
        for command in commands(&m.settings(file), key) {
            assert!(
                command.starts_with(&format!("{word} {agent} ")),
                "{agent}: {command}"
            );
        }
        assert!(m.ok(&binary, &["install", agent]).contains("is up to date"));
    }
    let again = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(again.contains("is up to date"), "idempotent: {again}");
}

#[test]
fn codex_has_no_project_variable_so_a_binary_inside_the_project_is_written_absolute() {
    let m = Machine::new();
    let binary = m.place("project/tools/hooks");
    let out = m.ok(&binary, &["install", "codex"]);
    assert!(
        out.contains(&format!(
            "Entries run `{}`: `hooks` is not on PATH, and Codex gives its hooks no \
             project-directory variable and runs them in the session's directory",
            binary.display()
        )),
        "{out}"
    );
    for command in commands(&m.settings(".codex/hooks.json"), "command") {
        assert!(
            command.starts_with(&format!("{} codex ", binary.display())),
            "{command}"
        );
    }
}

#[test]
fn a_binary_outside_the_project_and_off_path_is_written_absolute_and_says_why() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    let out = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(
        out.contains(&format!(
            "Entries run `{}`: `hooks` is not on PATH, and the binary is outside the project.",
            binary.display()
        )),
        "{out}"
    );
    let settings = m.settings(".claude/settings.json");
    assert_eq!(
        commands(&settings, "command"),
        [binary.display().to_string()]
    );
}

#[test]
fn a_name_on_path_that_is_another_file_or_behind_a_relative_entry_is_not_written() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    let other = m.path("bin").join("hooks");
    fs::write(&other, "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&other, fs::Permissions::from_mode(0o755)).unwrap();
    let out = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(
        out.contains(&format!(
            "`hooks` on PATH is {}, another file than this binary",
            other.display()
        )),
        "{out}"
    );
    fs::remove_file(&other).unwrap();
    m.on_path(&binary);
    let relative_first = format!(".:{}", m.path("bin").display());
    let run = m.run_with_path(
        &binary,
        &["install", "gemini", "--dry-run"],
        &relative_first,
    );
    assert!(
        run.stdout
            .contains("`hooks` on PATH comes after the relative entry `.`"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(
        run.stdout
            .contains(&format!("Entries run `{}`", binary.display()))
    );
}

#[test]
fn a_stated_command_must_be_this_binary_on_path_unless_allowed_missing() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    let settings = m.path("project").join(".claude/settings.json");
    let install = |extra: &[&str]| {
        let mut args = vec!["install", "claude", "--claude-version", "2.1.328"];
        args.extend_from_slice(extra);
        m.run(&binary, &args)
    };
    let refused = install(&["--command", "hooks"]);
    assert_eq!(refused.code, Some(1), "{}", refused.stdout);
    assert!(
        refused.stderr.contains("--command hooks: `hooks` is not on PATH, so the entries \
             would not run this binary (add --allow-missing to write it anyway); nothing was written"),
        "{}",
        refused.stderr
    );
    assert!(!settings.exists());
    let renamed = install(&["--command", "guard"]);
    assert_eq!(renamed.code, Some(1));
    assert!(
        renamed.stderr.contains("this binary is named `hooks`"),
        "{}",
        renamed.stderr
    );
    let allowed = install(&["--command", "hooks", "--allow-missing"]);
    assert_eq!(allowed.code, Some(0), "{}", allowed.stderr);
    assert!(
        allowed.stdout.contains(
            "Entries run `hooks`: --command hooks with --allow-missing (`hooks` is not on PATH on this machine)."
        ),
        "{}",
        allowed.stdout
    );
    assert_eq!(commands(&read_json(&settings), "command"), ["hooks"]);
    // Another program of that name on PATH: refused, --allow-missing or not.
    let other = m.path("bin").join("hooks");
    fs::write(&other, "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&other, fs::Permissions::from_mode(0o755)).unwrap();
    let before = fs::read_to_string(&settings).unwrap();
    let refused = install(&["--command", "hooks", "--allow-missing"]);
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("another file than this binary"),
        "{}",
        refused.stderr
    );
    assert_eq!(fs::read_to_string(&settings).unwrap(), before);
}

#[test]
fn a_user_install_keeps_the_absolute_path_unless_the_bare_name_resolves() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    let out = m.ok(&binary, &["install", "gemini", "--user"]);
    assert!(
        out.contains(&format!(
            "Entries run `{}`: `hooks` is not on PATH; the user's settings are this machine's own.",
            binary.display()
        )),
        "{out}"
    );
    m.on_path(&binary);
    let out = m.ok(&binary, &["install", "gemini", "--user"]);
    assert!(out.contains("Entries run `hooks`"), "{out}");
    assert!(
        out.contains(&format!("Replaced {} with hooks in the", binary.display())),
        "the old entry is pointed at the name in place: {out}"
    );
    let settings = read_json(&m.path("home").join(".gemini/settings.json"));
    for command in commands(&settings, "command") {
        assert!(command.starts_with("hooks gemini "), "{command}");
    }
}

#[test]
fn a_committed_portable_entry_that_runs_this_binary_here_is_left_as_it_is() {
    let m = Machine::new();
    let binary = m.place("project/tools/hooks");
    m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    let written = fs::read_to_string(m.path("project").join(".claude/settings.json")).unwrap();
    // A teammate with the same binary on PATH: the bare name would be chosen, but the
    // project-relative entry runs this binary here too, so nothing changes.
    m.on_path(&binary);
    let out = m.ok(
        &binary,
        &["install", "claude", "--claude-version", "2.1.328"],
    );
    assert!(out.contains("Entries run `hooks`"), "{out}");
    assert!(out.contains("is up to date"), "{out}");
    assert_eq!(
        fs::read_to_string(m.path("project").join(".claude/settings.json")).unwrap(),
        written
    );
    // Uninstall removes the entries in either portable form.
    let out = m.ok(&binary, &["uninstall", "claude"]);
    assert!(out.contains("Removed"), "{out}");
    assert!(
        !m.path("project").join(".claude/settings.json").exists(),
        "{out}"
    );
}

#[test]
fn codex_trust_hashes_the_bare_command_as_written() {
    let m = Machine::new();
    let binary = m.place("elsewhere/hooks");
    m.on_path(&binary);
    let codex_home = m.path("home").join(".codex");
    let out = m.ok(&binary, &["install", "codex", "--user", "--trust"]);
    assert!(out.contains("Trusted"), "{out}");
    let hooks: Value = read_json(&codex_home.join("hooks.json"));
    let config = fs::read_to_string(codex_home.join("config.toml")).unwrap();
    let (event, groups) = hooks["hooks"].as_object().unwrap().iter().next().unwrap();
    let handler = &groups[0]["hooks"][0];
    assert_eq!(handler["command"], format!("hooks codex {event}"));
    let hash = install::trust_hash(&install::snake_case(event), None, handler);
    assert!(config.contains(&hash), "{config}");
}
