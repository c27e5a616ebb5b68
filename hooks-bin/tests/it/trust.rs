//! End-to-end tests of trusted hook files (`hooks trust`, `hooks untrust`, `--trust-all`),
//! through the built binary with `HOME` and `HOOKS_CONFIG_DIR` in temporary directories.
//!
//! Every hook file here touches a marker file when it runs, so "it did not run" is checked on
//! the file system, not only in the output.

#![cfg(unix)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// A project, a home and a config directory, each temporary.
struct Env {
    root: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Env {
            root: tempfile::tempdir().expect("tempdir"),
        };
        for dir in ["home", "config", "project"] {
            std::fs::create_dir_all(env.root.path().join(dir)).expect("mkdir");
        }
        env
    }

    fn root(&self) -> PathBuf {
        self.root.path().canonicalize().expect("canonical")
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn config(&self) -> PathBuf {
        self.root().join("config")
    }

    fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    fn store(&self) -> PathBuf {
        self.config().join("trusted.json")
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.root().join(format!("ran-{name}"))
    }

    /// Writes an executable hook at `path` that touches the marker `name` and allows the call.
    fn hook(&self, path: &Path, name: &str) -> PathBuf {
        let body = format!(
            "#!/bin/sh\ntouch '{}'\nexit 0\n",
            self.marker(name).display()
        );
        executable(path, &body);
        path.to_path_buf()
    }

    /// Writes an executable hook at `path` that touches the marker `name` and blocks the call
    /// (exit 2, "blocked by the guard `name`" on stderr).
    fn guard(&self, path: &Path, name: &str) -> PathBuf {
        let body = format!(
            "#!/bin/sh\ntouch '{}'\necho 'blocked by the guard {name}' >&2\nexit 2\n",
            self.marker(name).display()
        );
        executable(path, &body);
        path.to_path_buf()
    }

    /// The project-level pre-hook `.xcsh/hooks/pre/bash.sh`.
    fn project_hook(&self) -> PathBuf {
        self.hook(&self.project().join(".xcsh/hooks/pre/bash.sh"), "project")
    }

    /// `hooks ARGS` in the project directory, with `stdin`.
    fn hooks(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.hooks_env(args, stdin, &[])
    }

    /// [`Env::hooks`] with these environment variables changed (`None`: unset).
    fn hooks_env(&self, args: &[&str], stdin: &[u8], env: &[(&str, Option<&str>)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
        command
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("HOOKS_CONFIG_DIR", self.config())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("USERPROFILE")
            .env("NO_COLOR", "1");
        for (name, value) in env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hooks binary starts");
        let mut pipe = child.stdin.take().expect("stdin");
        let _ = pipe.write_all(stdin);
        drop(pipe);
        child.wait_with_output().expect("the hooks binary runs")
    }

    fn list(&self, extra: &[&str]) -> (Value, Output) {
        self.list_env(extra, &[])
    }

    /// [`Env::list`] with these environment variables changed.
    fn list_env(&self, extra: &[&str], env: &[(&str, Option<&str>)]) -> (Value, Output) {
        let mut args = vec!["list", "--json"];
        args.extend_from_slice(extra);
        let out = self.hooks_env(&args, b"", env);
        let value = serde_json::from_slice(&out.stdout).expect("list --json prints JSON");
        (value, out)
    }

    /// `hooks run` of a script with one bash tool call.
    fn run(&self, extra: &[&str]) -> Output {
        self.run_env(extra, &[])
    }

    /// [`Env::run`] with these environment variables changed.
    fn run_env(&self, extra: &[&str], env: &[(&str, Option<&str>)]) -> Output {
        let script = self.root().join("script.jsonl");
        std::fs::write(
            &script,
            "{\"prompt\": \"go\", \"reply\": \"ok\"}\n{\"tool\": \"bash\", \"input\": {\"command\": \"echo hi\"}}\n",
        )
        .expect("write script");
        let script = script.display().to_string();
        let mut args = vec!["run", script.as_str(), "--no-ui"];
        args.extend_from_slice(extra);
        self.hooks_env(&args, b"", env)
    }

    /// `hooks AGENT SessionStart`.
    fn session_start(&self, agent: &str) -> Output {
        let input = json!({
            "session_id": "s",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": self.project(),
            "hook_event_name": "SessionStart",
            "source": "startup",
        });
        self.hooks(&[agent, "SessionStart"], input.to_string().as_bytes())
    }

    /// `hooks AGENT PreToolUse` for a harmless bash call.
    fn adapter(&self, agent: &str, extra: &[&str]) -> Output {
        self.adapter_env(agent, extra, &[])
    }

    /// [`Env::adapter`] with these environment variables changed.
    fn adapter_env(&self, agent: &str, extra: &[&str], env: &[(&str, Option<&str>)]) -> Output {
        let input = json!({
            "session_id": "s",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": self.project(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t",
        });
        let mut args = vec![agent, "PreToolUse"];
        args.extend_from_slice(extra);
        self.hooks_env(&args, input.to_string().as_bytes(), env)
    }
}

fn executable(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn file_hooks(list: &Value) -> Vec<String> {
    list["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .filter(|h| h["kind"] == "file")
        .map(|h| h["path"].as_str().expect("path").to_owned())
        .collect()
}

fn errors(list: &Value) -> Vec<String> {
    list["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["error"].as_str().expect("error").to_owned())
        .collect()
}

#[test]
fn untrusted_project_hook_does_not_run_and_says_how_to_trust_it() {
    let env = Env::new();
    let hook = env.project_hook();

    let (list, out) = env.list(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an untrusted file is a load error"
    );
    assert!(file_hooks(&list).is_empty(), "{list}");
    let errors = errors(&list);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("is a project hook file that is not trusted"));
    assert!(
        errors[0].contains(&format!("hooks trust {}", hook.display())),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("--trust-all"), "{}", errors[0]);
    let human = text(&env.hooks(&["list"], b"").stdout);
    assert!(human.contains("not trusted"), "{human}");

    let run = env.run(&[]);
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains("hooks trust"),
        "{stdout}\n{}",
        text(&run.stderr)
    );
    assert!(
        stdout.contains("tool bash"),
        "the tool call was made: {stdout}"
    );

    // The adapters fail closed: the guard that did not load blocks the call.
    for agent in ["claude", "codex"] {
        let out = env.adapter(agent, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{agent}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("not trusted"), "{stderr}");
        assert!(stderr.contains("hooks trust"), "{stderr}");
    }

    assert!(!env.marker("project").exists(), "the untrusted hook ran");
}

#[test]
fn adapters_look_for_hook_files_only_on_tool_events() {
    let env = Env::new();
    env.project_hook();
    for agent in ["claude", "codex"] {
        // A hook file only ever handles tool calls: on SessionStart the untrusted file is not
        // looked for, so it is no load error there (PreToolUse fails closed on it, above).
        let out = env.session_start(agent);
        assert_eq!(out.status.code(), Some(0), "{agent}: {}", text(&out.stderr));
        assert_eq!(env.adapter(agent, &[]).status.code(), Some(2), "{agent}");
    }
    assert!(!env.marker("project").exists(), "the untrusted hook ran");
}

#[test]
fn trusted_hook_runs_until_it_changes() {
    let env = Env::new();
    let hook = env.project_hook();

    let out = env.hooks(&["trust"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&hook.display().to_string()), "{stdout}");

    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(0), "{list}");
    assert_eq!(file_hooks(&list), [hook.display().to_string()]);
    assert!(
        !env.marker("project").exists(),
        "listing does not run hooks"
    );

    let run = env.run(&[]);
    assert!(run.status.success(), "{}", text(&run.stdout));
    assert!(env.marker("project").exists(), "the trusted hook ran");
    std::fs::remove_file(env.marker("project")).expect("rm marker");

    let out = env.adapter("claude", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(env.marker("project").exists(), "the trusted hook ran");
    std::fs::remove_file(env.marker("project")).expect("rm marker");

    // Edited after it was trusted: refused again, as changed.
    let mut body = std::fs::read_to_string(&hook).expect("read");
    body.push_str("# edited\n");
    std::fs::write(&hook, body).expect("edit");
    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(1));
    let errors = errors(&list);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("changed since it was trusted"),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("hooks trust"), "{}", errors[0]);
    env.run(&[]);
    let out = env.adapter("claude", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("changed since it was trusted"));
    assert!(!env.marker("project").exists(), "the changed hook ran");

    // Trusting it again (by path, relative to the working directory) lets it run.
    let out = env.hooks(&["trust", ".xcsh/hooks/pre/bash.sh"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("trusted again (changed)"));
    env.run(&[]);
    assert!(env.marker("project").exists());
}

#[test]
fn trust_all_skips_the_check() {
    let env = Env::new();
    env.project_hook();

    let (list, out) = env.list(&["--trust-all"]);
    assert_eq!(out.status.code(), Some(0), "{list}");
    assert_eq!(file_hooks(&list).len(), 1);

    let run = env.hooks(&["--trust-all", "list"], b"");
    assert_eq!(
        run.status.code(),
        Some(0),
        "also accepted before the command"
    );

    env.run(&["--trust-all"]);
    assert!(env.marker("project").exists(), "run --trust-all ran it");
    std::fs::remove_file(env.marker("project")).expect("rm marker");

    let out = env.adapter("claude", &["--trust-all"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(env.marker("project").exists(), "claude --trust-all ran it");
    assert!(!env.store().exists(), "--trust-all records nothing");
}

/// The child process of [`each_call_uses_the_trust_mode_it_is_given`], which names the project
/// in `HOOKS_TRUST_MODE_CHILD` (and sets `HOME` and `HOOKS_CONFIG_DIR`).
#[test]
#[ignore = "the child process of each_call_uses_the_trust_mode_it_is_given, which runs it"]
fn trust_mode_child() {
    use hookwright_cli::agents::claude::Claude;
    use hookwright_cli::call::{AdapterOptions, answer};
    use hookwright_cli::trust::TrustMode;
    let root = std::env::var_os("HOOKS_TRUST_MODE_CHILD")
        .map(PathBuf::from)
        .expect("HOOKS_TRUST_MODE_CHILD, set by the test that runs this child");
    let project = root.join("project");
    let marker = root.join("ran-project");
    let input = json!({
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t",
    })
    .to_string();
    let call = |trust: TrustMode| {
        let _ = std::fs::remove_file(&marker);
        let options = AdapterOptions {
            trust,
            ..AdapterOptions::default()
        };
        let outcome = answer(&Claude, "PreToolUse", input.as_bytes(), &options);
        (outcome.code, outcome.stderr, marker.exists())
    };
    for round in 0..2 {
        let (code, stderr, ran) = call(TrustMode::default());
        assert_eq!(code, 2, "round {round}, checked: {stderr}");
        assert!(stderr.contains("not trusted"), "round {round}: {stderr}");
        assert!(!ran, "round {round}: the untrusted file ran");
        let (code, stderr, ran) = call(TrustMode::All);
        assert_eq!(code, 0, "round {round}, trust all: {stderr}");
        assert!(ran, "round {round}: trust all did not run the file");
    }
    let loaded = hookwright_cli::call::load::load(&project, &[], &TrustMode::Check);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
}

/// One process serves calls with different trust modes (as a host serving several sessions
/// would): each call's mode is the one in its options, never one left behind by an earlier
/// call with `--trust-all`.
#[test]
fn each_call_uses_the_trust_mode_it_is_given() {
    let env = Env::new();
    env.project_hook();
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "trust::trust_mode_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("HOOKS_TRUST_MODE_CHILD", env.root())
        .env("HOME", env.home())
        .env("HOOKS_CONFIG_DIR", env.config())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("USERPROFILE")
        .output()
        .expect("the child test runs");
    let report = format!("{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("1 passed"),
        "the child ran its test: {report}"
    );
    assert!(!env.store().exists(), "nothing was trusted");
}

#[test]
fn trust_all_is_offered_only_by_the_commands_that_load_hook_files() {
    let env = Env::new();
    let offers = |command: &str| {
        let out = env.hooks(&[command, "--help"], b"");
        assert_eq!(out.status.code(), Some(0));
        text(&out.stdout)
            .lines()
            .any(|l| l.trim_start().starts_with("--trust-all"))
    };
    for command in ["list", "run", "claude", "codex"] {
        assert!(offers(command), "{command} --help offers --trust-all");
    }
    for command in ["install", "trust", "untrust"] {
        assert!(
            !offers(command),
            "{command} --help does not offer --trust-all"
        );
    }
    for args in [
        &["install", "claude", "--trust-all"][..],
        &["--trust-all", "install", "claude"],
        &["trust", "--trust-all"],
        &["--trust-all", "untrust", "x.sh"],
    ] {
        let out = env.hooks(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: a usage error");
        assert!(text(&out.stderr).contains("--trust-all"), "{args:?}");
    }
    assert!(!env.project().join(".claude").exists(), "nothing installed");
    assert!(!env.store().exists(), "nothing trusted");
}

#[test]
fn user_level_hook_files_run_without_trust() {
    let env = Env::new();
    env.hook(&env.home().join(".claude/hooks/pre/bash.sh"), "user");

    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(0), "{list}");
    assert_eq!(file_hooks(&list).len(), 1);
    env.run(&[]);
    assert!(env.marker("user").exists(), "the user-level hook ran");
    std::fs::remove_file(env.marker("user")).expect("rm marker");
    let out = env.adapter("claude", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(env.marker("user").exists());
}

#[test]
fn configured_paths_under_the_project_need_trust_and_others_do_not() {
    let env = Env::new();
    let inside = env.hook(&env.project().join("extra/pre/bash.sh"), "inside");
    let outside = env.hook(&env.root().join("outside/pre/bash.sh"), "outside");
    let inside_arg = inside.display().to_string();
    let outside_arg = outside.display().to_string();

    let (list, out) = env.list(&["--hook", &inside_arg, "--hook", &outside_arg]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(file_hooks(&list), std::slice::from_ref(&outside_arg));
    let errors = errors(&list);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains(&inside_arg), "{}", errors[0]);

    env.run(&["--hook", "extra/pre/bash.sh", "--hook", &outside_arg]);
    assert!(!env.marker("inside").exists(), "the untrusted --hook ran");
    assert!(
        env.marker("outside").exists(),
        "the --hook outside the project ran"
    );

    let out = env.hooks(&["trust", "extra/pre/bash.sh"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    env.run(&["--hook", "extra/pre/bash.sh"]);
    assert!(env.marker("inside").exists(), "the trusted --hook ran");
}

#[test]
fn malformed_trust_store_is_an_error_and_is_left_alone() {
    let env = Env::new();
    env.project_hook();
    let broken = b"{\"version\": 1,\n  \"files\": {\"/x\": \"not a hash\"}}\n";
    std::fs::write(env.store(), broken).expect("write store");
    let store = env.store().display().to_string();

    for args in [
        &["trust"][..],
        &["trust", ".xcsh/hooks/pre/bash.sh"],
        &["trust", "--list"],
        &["untrust", ".xcsh/hooks/pre/bash.sh"],
    ] {
        let out = env.hooks(args, b"");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("{store}:2:")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("SHA-256"), "{stderr}");
        assert_eq!(std::fs::read(env.store()).expect("read"), broken);
    }

    // The project hook cannot be checked, so it does not run; the error names the store.
    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(1));
    let errors = errors(&list);
    assert!(errors[0].contains(&format!("{store}:2:")), "{}", errors[0]);
    env.run(&[]);
    let out = env.adapter("claude", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!env.marker("project").exists(), "the unchecked hook ran");
    assert_eq!(std::fs::read(env.store()).expect("read"), broken);
}

#[test]
fn trust_list_and_untrust() {
    let env = Env::new();
    let hook = env.project_hook();
    let shown = hook.display().to_string();

    let out = env.hooks(&["trust", "--list"], b"");
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("(none)"),
        "{}",
        text(&out.stdout)
    );

    assert!(env.hooks(&["trust"], b"").status.success());
    let out = env.hooks(&["trust", "--list"], b"");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("ok"), "{stdout}");
    assert!(stdout.contains(&shown), "{stdout}");

    // Trusting again changes nothing.
    let out = env.hooks(&["trust", &shown], b"");
    assert!(text(&out.stdout).contains("already trusted"));

    let out = env.hooks(&["untrust", ".xcsh/hooks/pre/bash.sh"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("untrusted"));
    let (list, _) = env.list(&[]);
    assert!(errors(&list)[0].contains("not trusted"));

    let out = env.hooks(&["untrust", ".xcsh/hooks/pre/bash.sh"], b"");
    assert_eq!(out.status.code(), Some(1), "not trusted any more");
    assert!(text(&out.stderr).contains("was not trusted"));
}

#[test]
fn trusting_is_all_or_nothing() {
    let env = Env::new();
    env.project_hook();
    let out = env.hooks(&["trust", ".xcsh/hooks/pre/bash.sh", "missing.sh"], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("missing.sh"), "{stderr}");
    assert!(stderr.contains("nothing was trusted"), "{stderr}");
    assert!(!env.store().exists(), "nothing was written");

    let out = env.hooks(&["trust", ".xcsh"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("directory"));

    let out = env.hooks(&["trust", "--list", "x"], b"");
    assert_eq!(out.status.code(), Some(2), "--list takes no paths");
}

#[test]
fn the_store_records_canonical_paths_and_sha256() {
    use sha2::Digest as _;
    let env = Env::new();
    let hook = env.project_hook();
    // Through a symlinked working directory, the key is still the canonical path.
    let link = env.root().join("link");
    std::os::unix::fs::symlink(env.project(), &link).expect("symlink");
    let link_arg = link.display().to_string();
    let out = env.hooks(&["trust", "--cwd", &link_arg], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));

    let store: Value =
        serde_json::from_slice(&std::fs::read(env.store()).expect("store")).expect("JSON");
    let content = std::fs::read(&hook).expect("hook");
    let hash: String = sha2::Sha256::digest(&content)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        store,
        json!({"version": 1, "files": {hook.display().to_string(): hash}})
    );
    let (list, out) = env.list(&["--cwd", &link_arg]);
    assert_eq!(out.status.code(), Some(0), "{list}");
}

#[test]
fn config_dir_falls_back_to_xdg_then_home() {
    let env = Env::new();
    env.project_hook();
    let xdg = env.root().join("xdg");
    let run = |xdg: Option<&Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-examples"));
        command
            .args(["trust"])
            .current_dir(env.project())
            .env("HOME", env.home())
            .env_remove("HOOKS_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::null());
        if let Some(xdg) = xdg {
            command.env("XDG_CONFIG_HOME", xdg);
        }
        command.output().expect("runs")
    };
    assert!(run(Some(&xdg)).status.success());
    assert!(xdg.join("hooks/trusted.json").is_file());
    assert!(run(None).status.success());
    assert!(env.home().join(".config/hooks/trusted.json").is_file());
}

/// Every path under `dir`, sorted (relative to `dir`).
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).expect("under dir").to_path_buf());
        }
    }
    out.sort();
    out
}

/// The `discovered` entries of a `hooks list --json` for `path`.
fn discovered<'a>(list: &'a Value, path: &Path) -> Vec<&'a Value> {
    let path = path.display().to_string();
    list["discovered"]
        .as_array()
        .expect("discovered")
        .iter()
        .filter(|d| d["path"] == path.as_str())
        .collect()
}

#[test]
fn untrusted_project_file_never_shadows_a_user_file() {
    let env = Env::new();
    // The user's own guard blocks every bash call; the project ships a file with the same key
    // (`pre:bash:bash.sh`) from the higher-priority `native` provider.
    let user = env.guard(&env.home().join(".claude/hooks/pre/bash.sh"), "user");
    let project = env.project_hook();
    let user_shown = user.display().to_string();

    let run = env.run(&[]);
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains("blocked: blocked by the guard user"),
        "the user's guard still blocks the call: {stdout}\n{}",
        text(&run.stderr)
    );
    assert!(stdout.contains("not trusted"), "{stdout}");
    assert!(env.marker("user").exists(), "the user's guard ran");

    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(1), "{list}");
    assert_eq!(file_hooks(&list), std::slice::from_ref(&user_shown));
    let errors = errors(&list);
    assert_eq!(errors.len(), 1, "one error for the file: {errors:?}");
    assert!(errors[0].contains("not trusted"), "{}", errors[0]);
    let user_items = discovered(&list, &user);
    assert_eq!(user_items.len(), 1, "{list}");
    assert_eq!(user_items[0]["shadowed"], false, "{list}");
    let project_items = discovered(&list, &project);
    assert!(!project_items.is_empty(), "{list}");
    for item in project_items {
        assert_eq!(item["refused"], true, "{item}");
        assert_eq!(item["shadowed"], false, "{item}");
    }
    let human = text(&env.hooks(&["list"], b"").stdout);
    let user_line = human
        .lines()
        .find(|l| l.contains(&user_shown) && l.contains("claude (user)"))
        .unwrap_or_else(|| panic!("the user file is listed: {human}"));
    assert!(!user_line.contains("shadowed"), "{user_line}");

    // The adapters fail closed on the load error (and the project file never runs).
    for agent in ["claude", "codex"] {
        let out = env.adapter(agent, &[]);
        assert_eq!(out.status.code(), Some(2), "{agent}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("not trusted"), "{agent}");
    }
    assert!(!env.marker("project").exists(), "the untrusted file ran");

    // Once trusted, the project file takes its key again, as upstream: the user's is shadowed.
    assert!(env.hooks(&["trust"], b"").status.success());
    let (list, out) = env.list(&[]);
    assert_eq!(out.status.code(), Some(0), "{list}");
    assert_eq!(file_hooks(&list), [project.display().to_string()]);
    assert_eq!(discovered(&list, &user)[0]["shadowed"], true, "{list}");
}

#[test]
fn empty_or_relative_home_has_no_user_level() {
    let env = Env::new();
    let project_dir = env.project().display().to_string();
    // The project's own (untrusted) file, and files where a relative HOME=rel would put the
    // "user-level" directories (the commands run in the project directory).
    let project = env.hook(&env.project().join(".claude/hooks/pre/bash.sh"), "project");
    env.hook(&env.project().join("rel/.claude/hooks/pre/bash.sh"), "rel");
    env.hook(
        &env.project().join("rel/.xcsh/agent/hooks/pre/bash.sh"),
        "rel",
    );
    env.hook(&env.project().join("rel/.codex/hooks/pre-bash.js"), "rel");

    for home in [Some(""), Some("rel"), Some("./"), None] {
        let vars = [("HOME", home)];
        // Not taken as a user-level file: PreToolUse fails closed on it.
        let out = env.adapter_env("claude", &["--cwd", &project_dir], &vars);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "HOME={home:?}: {stderr}");
        assert!(stderr.contains("not trusted"), "HOME={home:?}: {stderr}");

        let (list, out) = env.list_env(&[], &vars);
        assert_eq!(out.status.code(), Some(1), "HOME={home:?}: {list}");
        assert!(file_hooks(&list).is_empty(), "HOME={home:?}: {list}");
        let discovered = list["discovered"].as_array().expect("discovered");
        assert!(
            discovered.iter().all(|d| d["level"] == "project"),
            "HOME={home:?}: no user level: {list}"
        );
        let paths: Vec<&str> = discovered
            .iter()
            .filter_map(|d| d["path"].as_str())
            .collect();
        assert!(
            paths.iter().all(|p| Path::new(p).is_absolute()),
            "{paths:?}"
        );
        let warnings: Vec<&Value> = list["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .collect();
        let no_home = warnings
            .iter()
            .filter(|w| w.as_str().is_some_and(|w| w.contains("no home directory")))
            .count();
        assert_eq!(no_home, 1, "said once: {warnings:?}");
        let human = text(&env.hooks_env(&["list"], b"", &vars).stdout);
        assert!(!human.contains("(user)"), "HOME={home:?}: {human}");

        let run = env.run_env(&[], &vars);
        let stdout = text(&run.stdout);
        assert_eq!(
            stdout.matches("no home directory").count(),
            1,
            "HOME={home:?}: {stdout}"
        );
        assert!(stdout.contains("not trusted"), "HOME={home:?}: {stdout}");

        // `~` in a --hook path has no home to expand to: a load error, not a path in the project.
        let (list, _) = env.list_env(&["--hook", "~/.claude/hooks/pre/bash.sh"], &vars);
        let errors = errors(&list);
        assert!(
            errors.iter().any(|e| e.contains("cannot expand `~`")),
            "HOME={home:?}: {errors:?}"
        );
    }
    assert!(!env.marker("project").exists(), "the untrusted file ran");
    assert!(
        !env.marker("rel").exists(),
        "a file under the relative home ran"
    );

    // Trusting works with an absolute config directory, and says there is no user level.
    let vars = [("HOME", Some(""))];
    let out = env.hooks_env(&["trust"], b"", &vars);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr).matches("no home directory").count(), 1);
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&project.display().to_string()), "{stdout}");
    assert!(
        !stdout.contains("/rel/"),
        "only the project's own file: {stdout}"
    );
    let out = env.adapter_env("claude", &[], &vars);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(env.marker("project").exists(), "the trusted file ran");
    assert!(!env.marker("rel").exists());
}

#[test]
fn trust_store_never_lands_under_a_relative_home() {
    let env = Env::new();
    env.project_hook();
    let home = env.home().display().to_string();
    let before = tree(&env.project());
    let cases: [&[(&str, Option<&str>)]; 6] = [
        &[("HOME", Some("rel")), ("HOOKS_CONFIG_DIR", None)],
        &[("HOME", Some("")), ("HOOKS_CONFIG_DIR", None)],
        &[("HOME", None), ("HOOKS_CONFIG_DIR", None)],
        &[
            ("HOME", Some("rel")),
            ("HOOKS_CONFIG_DIR", None),
            ("XDG_CONFIG_HOME", Some("xdg")),
        ],
        &[
            ("HOME", Some(&home)),
            ("HOOKS_CONFIG_DIR", Some("rel/config")),
        ],
        &[
            ("HOME", Some("rel")),
            ("HOOKS_CONFIG_DIR", Some("rel/config")),
        ],
    ];
    for vars in cases {
        for args in [
            &["trust"][..],
            &["trust", ".xcsh/hooks/pre/bash.sh"],
            &["trust", "--list"],
            &["untrust", ".xcsh/hooks/pre/bash.sh"],
        ] {
            let out = env.hooks_env(args, b"", vars);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{vars:?} {args:?}: {stderr}");
            let last = stderr.trim_end().lines().last().unwrap_or_default();
            assert!(
                last.contains("absolute path"),
                "{vars:?} {args:?}: {stderr}"
            );
            assert!(
                out.stdout.is_empty(),
                "{vars:?} {args:?}: {}",
                text(&out.stdout)
            );
        }
        // Without a trust store, the project file cannot be checked, so it does not load.
        let (list, out) = env.list_env(&[], vars);
        assert_eq!(out.status.code(), Some(1), "{vars:?}: {list}");
        assert!(file_hooks(&list).is_empty(), "{vars:?}: {list}");
    }
    assert_eq!(
        tree(&env.project()),
        before,
        "nothing was written in the project"
    );
    assert!(
        tree(&env.home()).is_empty(),
        "nothing was written in the home directory"
    );

    // A relative XDG_CONFIG_HOME is ignored (XDG spec): the store is under the absolute HOME.
    let vars = [
        ("HOME", Some(home.as_str())),
        ("HOOKS_CONFIG_DIR", None),
        ("XDG_CONFIG_HOME", Some("xdg")),
    ];
    let out = env.hooks_env(&["trust"], b"", &vars);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(env.home().join(".config/hooks/trusted.json").is_file());
    assert_eq!(
        tree(&env.project()),
        before,
        "nothing was written in the project"
    );
}
