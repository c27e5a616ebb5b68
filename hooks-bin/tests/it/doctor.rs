//! `hooks doctor`: each agent found (fake agents: shell scripts on a scratch `PATH` printing a
//! version), each entry of ours checked by install's own rule, each finding with its fix;
//! exit 1 exactly when a gating hook would not run.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hooks");

/// A scratch machine: a home, a project, the config and runtime directories of `hooks`, and a
/// `PATH` holding only the fake agents written into it.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project", "bin"] {
            fs::create_dir(dir.path().join(sub)).unwrap();
        }
        Machine { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// A fake agent `name` on `PATH` whose `--version` prints `printed`.
    fn agent(&self, name: &str, printed: &str) {
        self.script(name, &format!("#!/bin/sh\necho '{printed}'\n"));
    }

    fn script(&self, name: &str, body: &str) {
        let path = self.path("bin").join(name);
        fs::write(&path, body).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env_clear()
            .env("PATH", self.path("bin"))
            .env("HOME", self.path("home"))
            .env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .current_dir(self.path("project"));
        c
    }

    fn hooks(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `hooks ARGS`, which must succeed.
    fn ok(&self, args: &[&str]) {
        let out = self.hooks(args);
        assert_eq!(out.status.code(), Some(0), "hooks {args:?}: {}", text(&out));
    }

    /// `hooks doctor --json`: its exit code, report and human text (a second run, without
    /// `--json`).
    fn doctor(&self) -> (i32, Value, String) {
        let out = self.hooks(&["doctor", "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("doctor --json printed no JSON ({e}): {}", text(&out)));
        let human = self.hooks(&["doctor"]);
        assert_eq!(human.status.code(), out.status.code(), "{}", text(&human));
        (out.status.code().unwrap(), report, text(&human))
    }

    fn project_settings(&self) -> PathBuf {
        self.path("project").join(".claude/settings.json")
    }

    /// Rewrites `file` with `from` replaced by `to` everywhere.
    fn replace(&self, file: &Path, from: &str, to: &str) {
        let text = fs::read_to_string(file).unwrap();
        assert!(text.contains(from), "{from} in {}", file.display());
        fs::write(file, text.replace(from, to)).unwrap();
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = self.hooks(&["serve", "--stop"]);
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The findings of `agent` (`claude`), or of no agent (`None`).
fn findings<'a>(report: &'a Value, agent: Option<&str>) -> Vec<&'a Value> {
    let list = match agent {
        Some(agent) => report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == agent)
            .unwrap_or_else(|| panic!("{agent} is not in the report: {report:#}"))["findings"]
            .as_array()
            .unwrap(),
        None => report["findings"].as_array().unwrap(),
    };
    list.iter().collect()
}

/// The one finding of `agent` at `level` whose message contains `needle`.
fn finding<'a>(report: &'a Value, agent: Option<&str>, level: &str, needle: &str) -> &'a Value {
    let all = findings(report, agent);
    let matching: Vec<&&Value> = all
        .iter()
        .filter(|f| f["level"] == level && f["message"].as_str().unwrap().contains(needle))
        .collect();
    assert_eq!(
        matching.len(),
        1,
        "one {level} finding with {needle:?} for {agent:?}: {report:#}"
    );
    matching[0]
}

fn levels(report: &Value) -> Vec<String> {
    let agents = report["agents"].as_array().unwrap();
    agents
        .iter()
        .flat_map(|a| a["findings"].as_array().unwrap())
        .chain(report["findings"].as_array().unwrap())
        .map(|f| f["level"].as_str().unwrap().to_owned())
        .collect()
}

/// Claude Code 2.1.328 and Codex 0.169.0 on `PATH`, as they print their versions.
fn claude_and_codex() -> Machine {
    let m = Machine::new();
    m.agent("claude", "2.1.328 (Claude Code)");
    m.agent("codex", "codex-cli 0.169.0");
    m
}

#[test]
fn a_clean_install_is_clean_and_exits_0() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    m.ok(&["install", "codex", "--user", "--trust"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    assert!(
        levels(&report).iter().all(|l| l == "ok"),
        "only ok findings: {human}"
    );
    let agent = |name: &str| {
        report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(agent("claude")["version"], "2.1.328");
    assert_eq!(agent("codex")["version"], "0.169.0");
    finding(&report, Some("claude"), "ok", "run this binary");
    finding(
        &report,
        Some("codex"),
        "ok",
        "Codex trusts every entry of ours",
    );
    assert!(human.contains("every gating hook runs"), "{human}");
    assert!(human.contains("Claude Code 2.1.328 ("), "{human}");
}

#[test]
fn an_entry_whose_binary_is_gone_is_an_error_with_the_fix_and_exit_1() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    let gone = m.path("gone/hooks");
    m.replace(&m.project_settings(), BIN, gone.to_str().unwrap());
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("claude"), "error", "which does not exist");
    assert!(f["message"].as_str().unwrap().contains("PreToolUse"), "{f}");
    assert_eq!(f["gating"], true);
    assert_eq!(f["fix"], "hooks install claude --project");
    assert!(
        human.contains("fix: hooks install claude --project"),
        "{human}"
    );
}

#[test]
fn an_entry_that_is_not_executable_is_an_error() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    let plain = m.path("plain/hooks");
    fs::create_dir_all(plain.parent().unwrap()).unwrap();
    fs::write(&plain, "not a program").unwrap();
    m.replace(&m.project_settings(), BIN, plain.to_str().unwrap());
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    finding(&report, Some("claude"), "error", "not an executable file");
}

#[test]
fn an_entry_naming_another_hooks_binary_is_reported_with_which_it_is() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    let other = m.path("other/hooks");
    fs::create_dir_all(other.parent().unwrap()).unwrap();
    fs::write(&other, "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(&other, fs::Permissions::from_mode(0o755)).unwrap();
    m.replace(&m.project_settings(), BIN, other.to_str().unwrap());
    let (code, report, human) = m.doctor();
    assert_eq!(
        code, 0,
        "another binary runs: no gating hook is lost: {human}"
    );
    let f = finding(&report, Some("claude"), "warn", "not this binary");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains(other.to_str().unwrap()),
        "names the other binary: {f}"
    );
    assert_eq!(f["fix"], "hooks install claude --project");
}

#[test]
fn http_entries_without_a_server_are_a_warning_while_a_session_start_starts_it() {
    let m = claude_and_codex();
    m.ok(&["install", "claude", "--http"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "the next session starts it: {human}");
    let f = finding(&report, Some("claude"), "warn", "which does not run now");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("the SessionStart entry starts it"),
        "{f}"
    );
    assert_eq!(f["fix"], "hooks serve --detach");
    m.ok(&["serve", "--detach"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "with the server running: {human}");
    finding(&report, Some("claude"), "ok", "the server answers");
}

#[test]
fn http_entries_without_a_server_or_its_starter_are_an_error_fixed_by_serve_detach() {
    let m = claude_and_codex();
    m.ok(&["install", "claude", "--http"]);
    let local = m.path("project").join(".claude/settings.local.json");
    let mut settings: Value = serde_json::from_str(&fs::read_to_string(&local).unwrap()).unwrap();
    settings["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("SessionStart")
        .expect("install --http writes a SessionStart entry");
    fs::write(&local, settings.to_string()).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(
        &report,
        Some("claude"),
        "error",
        "no SessionStart entry of ours",
    );
    assert_eq!(f["gating"], true);
    assert_eq!(
        f["fix"],
        "hooks serve --detach, or hooks install claude --project --http"
    );
}

#[test]
fn http_entries_with_another_secret_are_an_error() {
    let m = claude_and_codex();
    m.ok(&["install", "claude", "--http"]);
    m.ok(&["serve", "--detach"]);
    let local = m.path("project").join(".claude/settings.local.json");
    let text = fs::read_to_string(&local).unwrap();
    let secret = fs::read_to_string(m.path("config/serve-secret")).unwrap();
    fs::write(&local, text.replace(secret.trim(), &"0".repeat(64))).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("claude"), "error", "the server refuses them");
    assert_eq!(f["fix"], "hooks install claude --project --http");
}

/// `claude_and_codex` with the machine's `git` on `PATH` and the project a git repository.
fn in_a_git_repository() -> Machine {
    let m = claude_and_codex();
    let git = ["/usr/bin/git", "/bin/git", "/usr/local/bin/git"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("git is installed");
    std::os::unix::fs::symlink(git, m.path("bin").join("git")).unwrap();
    m.git(&["init", "-q", "."]);
    m
}

impl Machine {
    /// `git ARGS` in the project, which must succeed.
    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(self.path("project"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
    }
}

#[test]
fn a_tracked_file_holding_the_secret_is_an_error_with_the_fix_and_exit_1() {
    let m = in_a_git_repository();
    m.ok(&["install", "claude", "--http"]);
    m.git(&["add", "-f", ".claude/settings.local.json"]);
    m.git(&["commit", "-q", "-m", "oops"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("claude"), "error", "git tracks it");
    assert_eq!(f["leaks_secret"], true, "{f}");
    assert_eq!(f["gating"], false, "{f}");
    let fix = f["fix"].as_str().unwrap();
    assert!(
        fix.contains("rm --cached -- .claude/settings.local.json") && fix.contains("commit"),
        "{fix}"
    );
    assert!(human.contains("in a file git tracks (exit 1)."), "{human}");
}

#[test]
fn a_file_holding_the_secret_that_git_does_not_ignore_is_a_warning() {
    let m = in_a_git_repository();
    m.ok(&["install", "claude", "--http"]);
    // As an install from before git ignored it left it.
    fs::write(m.path("project/.git/info/exclude"), "").unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    let f = finding(&report, Some("claude"), "warn", "git does not ignore it");
    assert_eq!(
        f["fix"],
        "hooks install claude --project --http (adds it to the clone's ignore rules, \
         .git/info/exclude)"
    );
    m.ok(&["install", "claude", "--http"]);
    let (_, report, human) = m.doctor();
    assert!(!human.contains("git does not ignore it"), "{human}");
    finding(&report, Some("claude"), "ok", "git ignores it");
}

#[test]
fn untrusted_codex_entries_are_an_error_with_how_to_trust_them() {
    let m = claude_and_codex();
    m.ok(&["install", "codex", "--user"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("codex"), "error", "does not trust");
    assert_eq!(f["gating"], true);
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .starts_with("hooks install codex --user --trust"),
        "{f}"
    );
    m.ok(&["install", "codex", "--user", "--trust"]);
    let (code, _, human) = m.doctor();
    assert_eq!(code, 0, "trusted now: {human}");
}

#[test]
fn a_changed_codex_entry_is_untrusted_again() {
    let m = claude_and_codex();
    m.ok(&["install", "codex", "--user", "--trust"]);
    let hooks_json = m.path("home/.codex/hooks.json");
    let text = fs::read_to_string(&hooks_json).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 30.into();
    fs::write(&hooks_json, value.to_string()).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("codex"), "error", "does not trust 1 entry");
    assert!(f["message"].as_str().unwrap().contains("PreToolUse"), "{f}");
}

#[test]
fn codex_hooks_feature_off_is_an_error() {
    let m = claude_and_codex();
    m.ok(&["install", "codex", "--user", "--trust"]);
    let config = m.path("home/.codex/config.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, format!("[features]\nhooks = false\n\n{text}")).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, Some("codex"), "error", "`features.hooks` is false");
    assert_eq!(f["fix"], "codex features enable hooks");
}

#[test]
fn claude_disable_all_hooks_is_an_error() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    fs::create_dir_all(m.path("home/.claude")).unwrap();
    let user = m.path("home/.claude/settings.json");
    fs::write(&user, "{\"disableAllHooks\": true}\n").unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(
        &report,
        Some("claude"),
        "error",
        "`disableAllHooks` is true",
    );
    assert!(
        f["fix"].as_str().unwrap().contains(user.to_str().unwrap()),
        "{f}"
    );
}

#[test]
fn a_claude_too_old_for_on_failure_is_reported() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    m.agent("claude", "2.1.200 (Claude Code)");
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "the hooks run, they only fail open: {human}");
    let f = finding(&report, Some("claude"), "warn", "older than 2.1.295");
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .starts_with("upgrade Claude Code"),
        "{f}"
    );
}

#[test]
fn gating_entries_without_on_failure_on_a_claude_that_reads_it_are_reported() {
    let m = claude_and_codex();
    m.ok(&["install", "claude", "--claude-version", "2.1.200"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    let f = finding(&report, Some("claude"), "warn", "lack \"onFailure\"");
    assert_eq!(f["fix"], "hooks install claude --project");
    m.ok(&["install", "claude"]);
    let (_, report, human) = m.doctor();
    assert!(
        levels(&report).iter().all(|l| l == "ok"),
        "reinstalled: {human}"
    );
}

#[test]
fn no_agent_found_says_so_and_exits_0() {
    let m = Machine::new();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    assert_eq!(report["agents"], Value::Array(Vec::new()), "{report:#}");
    assert!(human.contains("No agent found"), "{human}");
}

#[test]
fn an_agent_whose_version_command_hangs_is_killed_within_the_bound() {
    let m = Machine::new();
    m.script("claude", "#!/bin/sh\nexec /bin/sleep 60\n");
    let started = Instant::now();
    let (code, report, human) = m.doctor();
    // Two runs (--json and text), 5 s each at most.
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(code, 0, "{human}");
    let claude = &report["agents"][0];
    assert_eq!(claude["agent"], "claude");
    assert_eq!(claude["version"], Value::Null);
    assert!(
        claude["version_error"]
            .as_str()
            .unwrap()
            .contains("did not answer within 5 s"),
        "{claude}"
    );
}

#[test]
fn an_agent_whose_version_leaves_a_child_holding_stdout_is_killed_at_the_deadline() {
    let m = Machine::new();
    let child =
        crate::common::agent_leaving_a_child(&m.path("bin"), "claude", "2.1.328 (Claude Code)");
    let started = Instant::now();
    let out = m.hooks(&["doctor", "--json"]);
    let took = started.elapsed();
    // The probe's deadline is 5 s; the child would hold stdout for 30 s.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("doctor --json printed no JSON ({e}): {}", text(&out)));
    let claude = &report["agents"][0];
    assert_eq!(claude["agent"], "claude", "{report:#}");
    assert_eq!(claude["version"], "2.1.328", "{claude}");
    assert!(
        crate::common::ended_within(&child, Duration::from_secs(2)),
        "the background child was killed with the probe's group"
    );
}

#[test]
fn an_untrusted_project_hook_file_is_an_error_fixed_by_hooks_trust() {
    let m = Machine::new();
    let hook = m.path("project/.xcsh/hooks/pre/bash.sh");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, None, "error", "not trusted");
    let fix = f["fix"].as_str().unwrap().to_owned();
    assert!(fix.starts_with("hooks trust "), "{f}");
    m.ok(&["trust", hook.to_str().unwrap()]);
    let (code, _, human) = m.doctor();
    assert_eq!(code, 0, "trusted: {human}");
    fs::write(&hook, "#!/bin/sh\nexit 2\n").unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    finding(&report, None, "error", "changed since it was trusted");
}

#[test]
fn a_project_that_does_not_exist_is_a_usage_error() {
    let m = Machine::new();
    let out = m.hooks(&["doctor", "--project", m.path("nowhere").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("nowhere"), "{}", text(&out));
}

#[test]
fn a_pi_bridge_whose_binary_is_gone_is_an_error_with_the_fix() {
    let m = Machine::new();
    m.ok(&["install", "pi"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    finding(&report, None, "ok", "pi bridge");
    let bridge = m.path("project/.pi/extensions/hooks.ts");
    m.replace(&bridge, BIN, m.path("gone/hooks").to_str().unwrap());
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(&report, None, "error", "which is missing or not executable");
    assert_eq!(f["fix"], "hooks install pi --project");
}

#[test]
fn the_kill_switch_in_the_environment_is_an_error_fixed_by_unsetting_it() {
    let m = claude_and_codex();
    m.ok(&["install", "claude"]);
    let out = m
        .command(&["doctor", "--json"])
        .env("HOOKS_DISABLE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = finding(&report, None, "error", "HOOKS_DISABLE=1 is set here");
    assert_eq!(f["fix"], "unset HOOKS_DISABLE");
}

#[test]
fn gemini_hooks_config_enabled_false_is_an_error() {
    let m = Machine::new();
    m.agent("gemini", "0.61.0");
    m.ok(&["install", "gemini"]);
    let settings = m.path("project/.gemini/settings.json");
    let mut value: Value = serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
    value["hooksConfig"] = serde_json::json!({"enabled": false});
    fs::write(&settings, value.to_string()).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    assert_eq!(report["agents"][0]["version"], "0.61.0");
    finding(
        &report,
        Some("gemini"),
        "error",
        "`hooksConfig.enabled` is false",
    );
}

#[test]
fn an_entry_whose_bare_name_is_not_on_path_here_is_an_error_with_the_fix() {
    let m = claude_and_codex();
    m.ok(&["install", "claude", "--command", "hooks", "--allow-missing"]);
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let f = finding(
        &report,
        Some("claude"),
        "error",
        "run `hooks`, and `hooks` is not on PATH on this machine",
    );
    assert_eq!(f["gating"], true);
    let fix = f["fix"].as_str().unwrap();
    assert!(
        fix.starts_with(&format!(
            "put this binary on PATH as `hooks` (e.g. `ln -s {BIN} ~/.local/bin/hooks`"
        )),
        "{fix}"
    );
    assert!(fix.ends_with("or `hooks install claude --project` to write a command that runs here"));
    // Put on PATH as the fix says, the same entries run this binary.
    std::os::unix::fs::symlink(BIN, m.path("bin").join("hooks")).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 0, "{human}");
    finding(&report, Some("claude"), "ok", "run this binary");
}

#[test]
fn an_entry_whose_project_relative_binary_is_missing_is_an_error_with_the_fix() {
    let m = claude_and_codex();
    let binary = m.path("project").join("tools/hooks");
    fs::create_dir_all(binary.parent().unwrap()).unwrap();
    if fs::hard_link(BIN, &binary).is_err() {
        fs::copy(BIN, &binary).unwrap();
    }
    let installed = m
        .command(&["install", "claude"])
        .arg0_free(&binary)
        .output()
        .unwrap();
    assert_eq!(installed.status.code(), Some(0), "{}", text(&installed));
    assert!(
        fs::read_to_string(m.project_settings())
            .unwrap()
            .contains("${CLAUDE_PROJECT_DIR}/tools/hooks")
    );
    // Run by the binary it names, the entries resolve.
    let out = m
        .command(&["doctor", "--json"])
        .arg0_free(&binary)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    finding(&report, Some("claude"), "ok", "run this binary");
    // A clone where it is not built: an error naming the file and how to get it there.
    fs::remove_file(&binary).unwrap();
    let (code, report, human) = m.doctor();
    assert_eq!(code, 1, "{human}");
    let project = m.path("project").canonicalize().unwrap();
    let f = finding(
        &report,
        Some("claude"),
        "error",
        &format!(
            "run `<project>/tools/hooks` ({}/tools/hooks), which does not exist",
            project.display()
        ),
    );
    assert_eq!(
        f["fix"],
        "build the binary at tools/hooks in the project (the entries name it there for every \
         clone), or `hooks install claude --project` to write a command that runs here"
    );
}

/// Running another program than the one a [`Command`] was made for.
trait ArgZeroFree {
    /// This command, running `program` instead, with the same arguments, environment and
    /// directory.
    fn arg0_free(&mut self, program: &Path) -> Command;
}

impl ArgZeroFree for Command {
    fn arg0_free(&mut self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.args(self.get_args());
        c.env_clear();
        for (k, v) in self.get_envs() {
            if let Some(v) = v {
                c.env(k, v);
            }
        }
        if let Some(dir) = self.get_current_dir() {
            c.current_dir(dir);
        }
        c
    }
}
