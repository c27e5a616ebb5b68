//! `hooks install claude --http`: HTTP hook entries to `hooks serve` (with `onFailure: block`
//! on the gating events), `SessionStart` a command that starts the server and hands it the
//! call, the secret only in a file that is not committed (mode 0600).

use crate::common;

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use hookwright_cli::agents::hook_json::{
    POST_TOOL_USE, PRE_TOOL_USE, SESSION_END, SESSION_START, STOP, USER_PROMPT_SUBMIT,
};
use hookwright_cli::install::{HttpHooks, Install, LOCAL_SETTINGS, Target};

const BIN: &str = env!("CARGO_BIN_EXE_hooks-examples");

fn http() -> HttpHooks {
    HttpHooks {
        url: "http://127.0.0.1:4242".into(),
        secret: "ab".repeat(32),
    }
}

fn plan(path: &Path, http: Option<HttpHooks>) -> Install {
    Install {
        target: Target::Claude,
        path: path.to_path_buf(),
        binary: PathBuf::from("/opt/hooks/bin/hooks"),
        command: None,
        dry_run: false,
        on_failure_block: false,
        http,
    }
}

/// The URL of `event`'s entry: the route, and the command that starts the server for
/// Claude Code to show when it cannot reach it.
fn url(event: &str) -> String {
    format!(
        "http://127.0.0.1:4242/claude/{event}?if-unreachable=run+/opt/hooks/bin/hooks+serve+--detach"
    )
}

fn entries(path: &Path, event: &str) -> Vec<Value> {
    let settings: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .collect()
}

#[test]
fn http_install_writes_http_hooks_blocking_on_failure_where_they_gate_and_a_command_session_start()
{
    let dir = common::workdir();
    let path = dir.path().join(".claude").join("settings.local.json");
    let events = [
        PRE_TOOL_USE,
        POST_TOOL_USE,
        USER_PROMPT_SUBMIT,
        SESSION_START,
        SESSION_END,
        STOP,
    ];
    plan(&path, Some(http()))
        .apply(&events, &mut Vec::new())
        .unwrap();
    // The session's audit mode and kill switch travel with each call.
    let headers = json!({"Authorization": format!("Bearer {}", "ab".repeat(32)),
                         "X-Hooks-Mode": "$HOOKS_MODE", "X-Hooks-Disable": "$HOOKS_DISABLE"});
    let env = json!(["HOOKS_MODE", "HOOKS_DISABLE"]);
    for event in ["PreToolUse", "PostToolUse", "UserPromptSubmit"] {
        assert_eq!(
            entries(&path, event),
            [
                json!({"type": "http", "url": url(event), "headers": headers,
                    "allowedEnvVars": env, "timeout": 60, "onFailure": "block"})
            ],
            "{event}"
        );
    }
    for event in ["SessionEnd", "Stop"] {
        assert_eq!(
            entries(&path, event),
            [
                json!({"type": "http", "url": url(event), "headers": headers,
                    "allowedEnvVars": env, "timeout": 60})
            ],
            "{event}: observational, no onFailure"
        );
    }
    assert_eq!(
        entries(&path, "SessionStart"),
        [json!({"type": "command", "command": "/opt/hooks/bin/hooks",
                "args": ["claude", "SessionStart", "--via-server"]})]
    );
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the file holds the secret");
    // Idempotent.
    let mut out = Vec::new();
    let report = plan(&path, Some(http())).apply(&events, &mut out).unwrap();
    assert!(!report.written, "{}", String::from_utf8_lossy(&out));
}

#[test]
fn an_http_entry_without_the_sessions_switches_or_with_another_secret_is_replaced_on_install() {
    let dir = common::workdir();
    let path = dir.path().join("settings.json");
    let older = |headers: Value| {
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url("PreToolUse"),
            "headers": headers, "timeout": 60, "onFailure": "block"}]}]}})
    };
    let stale = [
        json!({"Authorization": format!("Bearer {}", "ab".repeat(32))}),
        json!({"Authorization": format!("Bearer {}", "cd".repeat(32)),
               "X-Hooks-Mode": "$HOOKS_MODE", "X-Hooks-Disable": "$HOOKS_DISABLE"}),
    ];
    for headers in stale {
        fs::write(&path, older(headers.clone()).to_string()).unwrap();
        let mut out = Vec::new();
        let report = plan(&path, Some(http()))
            .apply(&[PRE_TOOL_USE], &mut out)
            .unwrap();
        assert!(
            report.written,
            "{headers}: {}",
            String::from_utf8_lossy(&out)
        );
        let pre = entries(&path, "PreToolUse");
        assert_eq!(pre.len(), 1, "{pre:?}");
        assert_eq!(pre[0]["headers"]["X-Hooks-Mode"], "$HOOKS_MODE", "{pre:?}");
        assert_eq!(
            pre[0]["headers"]["Authorization"],
            format!("Bearer {}", "ab".repeat(32))
        );
        assert_eq!(
            pre[0]["allowedEnvVars"],
            json!(["HOOKS_MODE", "HOOKS_DISABLE"])
        );
    }
}

#[test]
fn http_install_replaces_this_binarys_command_hooks_instead_of_running_both() {
    let dir = common::workdir();
    let path = dir.path().join("settings.json");
    let events = [PRE_TOOL_USE, SESSION_START];
    plan(&path, None).apply(&events, &mut Vec::new()).unwrap();
    plan(&path, Some(http()))
        .apply(&events, &mut Vec::new())
        .unwrap();
    let pre = entries(&path, "PreToolUse");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(pre[0]["type"], "http");
    let start = entries(&path, "SessionStart");
    assert_eq!(start.len(), 1, "{start:?}");
    assert_eq!(
        start[0]["args"],
        json!(["claude", "SessionStart", "--via-server"])
    );
}

#[test]
fn an_http_entry_of_an_older_install_is_replaced_by_one_that_names_how_to_start_the_server() {
    let dir = common::workdir();
    let path = dir.path().join("settings.json");
    let old = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http",
        "url": "http://127.0.0.1:4242/claude/PreToolUse", "timeout": 60}]}]}});
    fs::write(&path, old.to_string()).unwrap();
    let mut out = Vec::new();
    plan(&path, Some(http()))
        .apply(&[PRE_TOOL_USE], &mut out)
        .unwrap();
    let pre = entries(&path, "PreToolUse");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(
        pre[0]["url"],
        url("PreToolUse"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

#[test]
fn the_recovery_query_keeps_a_binary_path_readable_and_encodes_what_a_query_cannot_hold() {
    let hooks = http();
    assert_eq!(
        hooks.entry_url(Target::Claude, "/a b/my-hooks_1.2~x/h&q", PRE_TOOL_USE),
        "http://127.0.0.1:4242/claude/PreToolUse?if-unreachable=run+/a%20b/my-hooks_1.2~x/h%26q+serve+--detach"
    );
}

/// A scratch user for the built binary.
struct User {
    dir: tempfile::TempDir,
}

impl User {
    fn new() -> User {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["config", "run", "home", "project"] {
            fs::create_dir(dir.path().join(sub)).unwrap();
        }
        User { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_of(BIN, args)
    }

    /// `binary` with `args`, in this user's directories.
    fn command_of(&self, binary: &str, args: &[&str]) -> Command {
        let mut c = Command::new(binary);
        c.args(args)
            .env("HOOKS_CONFIG_DIR", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("XDG_STATE_HOME", self.path("home"))
            .env("HOME", self.path("home"))
            // The git that install asks reads no configuration of the machine's.
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("XDG_CONFIG_HOME")
            .current_dir(self.path("project"));
        c
    }

    fn hooks(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn hooks_with(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    fn input(&self, event: &str, extra: Value) -> Vec<u8> {
        common::input(event, &self.path("project"), extra)
    }

    fn running_pid(&self) -> Option<i32> {
        let out = self.hooks(&["serve", "--status"]);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let pid = said.strip_prefix("running: pid ")?.split(',').next()?;
        pid.parse().ok()
    }
}

impl Drop for User {
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

#[test]
fn install_http_keeps_the_secret_out_of_the_committed_project_settings() {
    let user = User::new();
    let out = user.hooks(&["install", "claude", "--http"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let claude = user.path("project").join(".claude");
    assert!(
        !claude.join("settings.json").exists(),
        "the committed file is not written"
    );
    let local = fs::read_to_string(claude.join("settings.local.json")).unwrap();
    let secret = fs::read_to_string(user.path("config").join("serve-secret")).unwrap();
    assert!(local.contains(&format!("Bearer {secret}")), "{local}");
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&user.path("config").join("serve-secret")), 0o600);
    assert_eq!(mode(&claude.join("settings.local.json")), 0o600);
    let out = user.hooks(&["install", "codex", "--http"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// The default `hooks` links the guards alone, which handle `tool_call` and no `session_start`:
/// the `SessionStart` entry that starts the server is written all the same, or no session
/// would start it and every HTTP call (each gating one blocked) would fail.
#[test]
fn install_http_writes_the_session_start_starter_when_no_hook_handles_session_start() {
    let user = User::new();
    let guards = env!("CARGO_BIN_EXE_hooks");
    let out = user
        .command_of(guards, &["install", "claude", "--http"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let local = user.path("project").join(".claude/settings.local.json");
    let start = entries(&local, "SessionStart");
    assert_eq!(
        start,
        [json!({
            "type": "command",
            "command": guards,
            "args": ["claude", "SessionStart", "--via-server"],
        })],
        "{}",
        text(&out)
    );
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        let entry = entries(&local, event);
        assert_eq!(entry.len(), 1, "{event}");
        assert_eq!(entry[0]["type"], "http", "{event}");
    }
    let settings: Value = serde_json::from_str(&fs::read_to_string(&local).unwrap()).unwrap();
    let mut events: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
    events.sort();
    assert_eq!(
        events,
        [
            "PostToolUse",
            "PostToolUseFailure",
            "PreToolUse",
            "SessionStart"
        ],
        "only the guards' events and the starter"
    );
}

#[test]
fn session_start_via_server_starts_the_server_which_a_kill_9_loses_and_the_next_start_brings_back()
{
    let user = User::new();
    assert_eq!(user.running_pid(), None);
    let start = user.input("SessionStart", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pid = user
        .running_pid()
        .expect("the session start started the server");
    // The server has the session: a PreToolUse over HTTP goes to it (the examples' guard).
    let deny = user.input(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
    );
    let out = user.hooks_with(&["claude", "PreToolUse", "--via-server"], &deny);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
        "{}",
        text(&out)
    );
    // kill -9: the lock goes with the process.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while user.running_pid().is_some() {
        assert!(
            Instant::now() < deadline,
            "the killed server still holds the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let again = user
        .running_pid()
        .expect("the next session start brought it back");
    assert_ne!(again, pid);
}

/// Another tool's entries, in a Claude Code settings file.
const OTHERS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {"hooks": [{"type": "command", "command": "other-guard"}]},
      {"hooks": [{"type": "http", "url": "http://127.0.0.1:9/claude/PreToolUse"}]}
    ]
  }
}
"#;

/// The entries of `files` per event: this binary's (a command running it, or an HTTP entry
/// to its server's route) and the others', as JSON text.
fn ours_and_others(files: &[PathBuf], server: &str) -> (Vec<(String, Value)>, Vec<String>) {
    let (mut ours, mut others) = (Vec::new(), Vec::new());
    for path in files.iter().filter(|p| p.exists()) {
        let settings: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        for (event, groups) in settings["hooks"].as_object().unwrap() {
            for entry in groups
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["hooks"].as_array().unwrap())
            {
                let url = entry["url"].as_str().unwrap_or_default();
                if entry["command"] == BIN || url.starts_with(&format!("{server}/claude/")) {
                    ours.push((event.clone(), entry.clone()));
                } else {
                    others.push(entry.to_string());
                }
            }
        }
    }
    (ours, others)
}

/// `hooks install claude ARGS` for `user`, which must succeed; its output.
fn install(user: &User, args: &[&str]) -> String {
    let mut all = vec!["install", "claude", "--claude-version=2.1.328"];
    all.extend_from_slice(args);
    let out = user.hooks(&all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    text(&out)
}

/// Checks that every event has exactly one entry of ours in `files`, of the form `http` says
/// (HTTP entries but a `--via-server` SessionStart, else plain commands), and the other
/// tool's two entries are still there, once each.
fn assert_one_of_ours_per_event(files: &[PathBuf], server: &str, http: bool, said: &str) {
    let (ours, others) = ours_and_others(files, server);
    assert!(!ours.is_empty(), "{said}");
    let mut events: Vec<&str> = ours.iter().map(|(e, _)| e.as_str()).collect();
    events.sort_unstable();
    let count = events.len();
    events.dedup();
    assert_eq!(
        count,
        events.len(),
        "two entries of ours for an event: {ours:#?}\n{said}"
    );
    for (event, entry) in &ours {
        let via_server = entry["args"].as_array().is_some_and(|a| a.len() == 3);
        let form = match (entry["type"].as_str(), via_server) {
            (Some("http"), _) => "http",
            (Some("command"), true) => "via-server",
            _ => "command",
        };
        let expected = match (http, event.as_str()) {
            (true, "SessionStart") => "via-server",
            (true, _) => "http",
            (false, _) => "command",
        };
        assert_eq!(form, expected, "{event}: {entry}\n{said}");
    }
    let mut others = others;
    others.sort();
    assert_eq!(
        others,
        [
            r#"{"type":"command","command":"other-guard"}"#,
            r#"{"type":"http","url":"http://127.0.0.1:9/claude/PreToolUse"}"#
        ],
        "the other tool's entries stay, once each"
    );
}

#[test]
fn a_plain_install_after_install_http_replaces_the_http_entries_with_command_entries() {
    let user = User::new();
    let claude = user.path("project").join(".claude");
    let home = user.path("home").join(".claude");
    for dir in [&claude, &home] {
        fs::create_dir_all(dir).unwrap();
    }
    let project = [claude.join("settings.json"), claude.join(LOCAL_SETTINGS)];
    let user_file = [home.join("settings.json")];
    for file in [&project[1], &user_file[0]] {
        fs::write(file, OTHERS).unwrap();
    }
    let server = endpoint_url(&user);
    // The user's file holds both forms in one file; the project's in two.
    install(&user, &["--http", "--user"]);
    install(&user, &["--http"]);
    assert_one_of_ours_per_event(&user_file, &server, true, "--http --user");
    assert_one_of_ours_per_event(&project, &server, true, "--http");
    let said = install(&user, &["--user"]);
    assert_one_of_ours_per_event(&user_file, &server, false, &said);
    let said = install(&user, &[]);
    assert_one_of_ours_per_event(&project, &server, false, &said);
    assert!(
        said.contains("settings.local.json"),
        "says what it removed: {said}"
    );
}

#[test]
fn install_http_after_a_plain_install_replaces_the_command_entries_with_http_entries() {
    let user = User::new();
    let claude = user.path("project").join(".claude");
    let home = user.path("home").join(".claude");
    for dir in [&claude, &home] {
        fs::create_dir_all(dir).unwrap();
    }
    let project = [claude.join("settings.json"), claude.join(LOCAL_SETTINGS)];
    let user_file = [home.join("settings.json")];
    for file in [&project[0], &user_file[0]] {
        fs::write(file, OTHERS).unwrap();
    }
    let server = endpoint_url(&user);
    install(&user, &["--user"]);
    install(&user, &[]);
    assert_one_of_ours_per_event(&user_file, &server, false, "--user");
    assert_one_of_ours_per_event(&project, &server, false, "plain");
    let said = install(&user, &["--http", "--user"]);
    assert_one_of_ours_per_event(&user_file, &server, true, &said);
    let said = install(&user, &["--http"]);
    assert_one_of_ours_per_event(&project, &server, true, &said);
    assert!(
        said.contains("settings.json"),
        "says what it removed: {said}"
    );
}

/// The URL of the built binary's server, as `install --http` writes it.
/// The URL of the server `user`'s commands derive (from their runtime directory).
fn endpoint_url(user: &User) -> String {
    use hookwright_cli::serve::lock;
    let lock = lock::lock_path(&user.path("run").join("hooks"), Path::new(BIN));
    format!("http://127.0.0.1:{}", lock::default_port(&lock))
}

/// `git ARGS` in `dir`, isolated from the machine's git configuration; must succeed; its
/// stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A `user` whose project is a fresh git repository with one commit.
fn user_in_a_repository() -> User {
    let user = User::new();
    let project = user.path("project");
    git(&project, &["init", "-q", "."]);
    fs::write(project.join("README"), "a project\n").unwrap();
    git(&project, &["add", "README"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    user
}

#[test]
fn install_http_in_a_git_repository_makes_git_ignore_the_file_with_the_secret_and_its_backup() {
    let user = user_in_a_repository();
    let project = user.path("project");
    // An existing personal file, so that the install also leaves a backup.
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::write(project.join(".claude").join(LOCAL_SETTINGS), "{}\n").unwrap();
    let said = install(&user, &["--http"]);
    assert!(
        project.join(".claude/settings.local.json.bak").exists(),
        "{said}"
    );
    git(&project, &["add", "-A"]);
    let status = git(&project, &["status", "--porcelain"]);
    assert!(
        !status.contains("settings.local.json"),
        "git add -A leaves out the file holding the secret and its backup: {status}"
    );
    assert!(
        said.contains("info/exclude"),
        "says where the rule went: {said}"
    );
    let exclude = fs::read_to_string(project.join(".git/info/exclude")).unwrap();
    assert!(
        exclude.contains("\n/.claude/settings.local.json\n/.claude/settings.local.json.bak\n"),
        "{exclude}"
    );
    install(&user, &["--http"]);
    let again = fs::read_to_string(project.join(".git/info/exclude")).unwrap();
    assert_eq!(
        again, exclude,
        "an install that finds them ignored adds nothing"
    );
}

#[test]
fn install_http_refuses_a_tracked_settings_local_json_writing_nothing_and_names_the_fix() {
    let user = user_in_a_repository();
    let project = user.path("project");
    let local = project.join(".claude").join(LOCAL_SETTINGS);
    fs::create_dir_all(local.parent().unwrap()).unwrap();
    fs::write(&local, "{}\n").unwrap();
    git(&project, &["add", ".claude/settings.local.json"]);
    git(&project, &["commit", "-q", "-m", "personal settings"]);
    let exclude = fs::read_to_string(project.join(".git/info/exclude")).unwrap_or_default();
    let out = user.hooks(&["install", "claude", "--http", "--claude-version=2.1.328"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("is tracked by git"), "{said}");
    assert!(
        said.contains("rm --cached -- .claude/settings.local.json") && said.contains("commit"),
        "names the fix: {said}"
    );
    assert_eq!(
        fs::read_to_string(&local).unwrap(),
        "{}\n",
        "nothing written"
    );
    assert!(!project.join(".claude/settings.local.json.bak").exists());
    assert!(!project.join(".claude/settings.json").exists());
    assert_eq!(
        fs::read_to_string(project.join(".git/info/exclude")).unwrap_or_default(),
        exclude
    );
    // The fix it names, then the install goes through and git leaves the file out.
    git(
        &project,
        &["rm", "-q", "--cached", "--", ".claude/settings.local.json"],
    );
    git(
        &project,
        &[
            "commit",
            "-q",
            "-m",
            "Stop tracking .claude/settings.local.json",
        ],
    );
    install(&user, &["--http"]);
    git(&project, &["add", "-A"]);
    let status = git(&project, &["status", "--porcelain"]);
    assert!(!status.contains("settings.local.json"), "{status}");
}

#[test]
fn install_http_dry_run_in_a_git_repository_says_which_rules_it_would_add_and_adds_none() {
    let user = user_in_a_repository();
    let project = user.path("project");
    let exclude = fs::read_to_string(project.join(".git/info/exclude")).unwrap_or_default();
    let said = install(&user, &["--http", "--dry-run"]);
    assert!(
        said.contains(
            "Would add `/.claude/settings.local.json` and `/.claude/settings.local.json.bak` to"
        ),
        "{said}"
    );
    assert_eq!(
        fs::read_to_string(project.join(".git/info/exclude")).unwrap_or_default(),
        exclude
    );
    assert!(!project.join(".claude").exists());
}

#[test]
fn install_http_in_a_git_repository_without_git_on_path_is_refused() {
    let user = user_in_a_repository();
    let project = user.path("project");
    let empty = tempfile::tempdir().unwrap();
    let out = user
        .command(&["install", "claude", "--http", "--claude-version=2.1.328"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("`git` cannot be run"), "{said}");
    assert!(!project.join(".claude").exists(), "nothing written: {said}");
}
