//! Shell-style hook files run as real hooks, through the real `HookToolWrapper` around a real
//! tool (`bash -c`), with real scripts in temporary directories.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::BashTool;
use hookwright::events::{SessionEntry, ToolInput};
use hookwright::loader::{DiscoveryOptions, NoCompiledHooks, discover_and_load_hooks};
use hookwright::{
    HookError, HookRunner, HookToolWrapper, SessionManager, Tool, ToolError, ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Session {
    file: PathBuf,
    cwd: PathBuf,
}

impl SessionManager for Session {
    fn session_file(&self) -> Option<PathBuf> {
        Some(self.file.clone())
    }
    fn session_id(&self) -> String {
        "sess-1".to_owned()
    }
    fn cwd(&self) -> PathBuf {
        self.cwd.clone()
    }
    fn entries(&self) -> Vec<SessionEntry> {
        Vec::new()
    }
    fn leaf_id(&self) -> Option<String> {
        None
    }
}

/// A project directory with hook files under `.claude/hooks/{pre,post}` and a home directory.
struct Project {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Project {
            _dir: dir,
            cwd,
            home,
        }
    }

    /// Writes an executable `#!/bin/sh` script `.claude/hooks/<kind>/<name>`.
    fn script(&self, kind: &str, name: &str, body: &str) -> PathBuf {
        let dir = self.cwd.join(".claude/hooks").join(kind);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn wrapper(
        &self,
        timeout: Duration,
    ) -> (HookToolWrapper<BashTool>, Arc<Mutex<Vec<HookError>>>) {
        let options = DiscoveryOptions::new(&self.home)
            .with_compiled(NoCompiledHooks)
            .with_shell_timeout(timeout);
        let loaded = discover_and_load_hooks::<&str>(&[], &self.cwd, &options);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        let session = Arc::new(Session {
            file: self.cwd.join("session.jsonl"),
            cwd: self.cwd.clone(),
        });
        let runner = HookRunner::new(loaded.hooks, &self.cwd, session);
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        let _subscription = runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
        let tool = BashTool::new(&self.cwd);
        (HookToolWrapper::new(tool, Arc::new(runner)), errors)
    }
}

fn bash(command: &str) -> ToolInput {
    json!({ "command": command })
        .as_object()
        .unwrap()
        .clone()
        .into()
}

async fn call(wrapper: &HookToolWrapper<BashTool>, command: &str) -> Result<ToolOutput, ToolError> {
    wrapper
        .execute("call-1", &bash(command), &CancellationToken::new(), None)
        .await
}

const SECOND: Duration = Duration::from_secs(5);

#[tokio::test]
async fn silent_pre_hook_allows_and_sees_claude_input() {
    let p = Project::new();
    p.script(
        "pre",
        "bash.sh",
        "cat > \"$CLAUDE_PROJECT_DIR/input.json\"\npwd > where.txt",
    );
    let (wrapper, _) = p.wrapper(SECOND);
    let out = call(&wrapper, "echo hi").await.unwrap();
    assert_eq!(out.text_content(), "hi\n");

    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(p.cwd.join("input.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"], json!({"command": "echo hi"}));
    assert_eq!(input["tool_use_id"], "call-1");
    assert_eq!(input["session_id"], "sess-1");
    assert_eq!(input["cwd"], p.cwd.to_str().unwrap());
    assert_eq!(
        input["transcript_path"],
        p.cwd.join("session.jsonl").to_str().unwrap()
    );
    let pwd = std::fs::read_to_string(p.cwd.join("where.txt")).unwrap();
    assert_eq!(Path::new(pwd.trim()), p.cwd);
}

#[tokio::test]
async fn deny_by_json_blocks_with_the_reason_and_the_tool_does_not_run() {
    let p = Project::new();
    p.script(
        "pre",
        "bash.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no touching"}}'"#,
    );
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "touch ran").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "no touching".into()
        }
    );
    assert!(!p.cwd.join("ran").exists());
}

#[tokio::test]
async fn top_level_decision_block_blocks() {
    let p = Project::new();
    p.script(
        "pre",
        "*.sh",
        r#"echo '{"decision":"block","reason":"legacy says no"}'"#,
    );
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "echo hi").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "legacy says no".into()
        }
    );
}

#[tokio::test]
async fn exit_2_blocks_with_trimmed_stderr() {
    let p = Project::new();
    p.script("pre", "bash.sh", "echo '  rm is not allowed  ' >&2\nexit 2");
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "echo hi").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "rm is not allowed".into()
        }
    );
}

#[tokio::test]
async fn exit_2_without_stderr_blocks_naming_the_file() {
    let p = Project::new();
    let file = p.script("pre", "bash.sh", "exit 2");
    let (wrapper, _) = p.wrapper(SECOND);
    let ToolError::Blocked { reason } = call(&wrapper, "echo hi").await.unwrap_err() else {
        panic!("expected a block");
    };
    assert!(reason.contains(file.to_str().unwrap()), "{reason}");
}

#[tokio::test]
async fn exit_1_is_a_handler_error_that_blocks() {
    let p = Project::new();
    let file = p.script("pre", "bash.sh", "echo oops >&2\nexit 1");
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "touch ran").await.unwrap_err();
    assert!(matches!(err, ToolError::Hook(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(file.to_str().unwrap()), "{text}");
    assert!(
        text.contains("exit code 1") && text.contains("oops"),
        "{text}"
    );
    assert!(!p.cwd.join("ran").exists());
}

#[tokio::test]
async fn invalid_json_is_a_handler_error() {
    let p = Project::new();
    let file = p.script("pre", "bash.sh", "echo '{\"decision\": '");
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "echo hi").await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ToolError::Hook(_)), "{err:?}");
    assert!(
        text.contains("invalid JSON") && text.contains(file.to_str().unwrap()),
        "{text}"
    );
}

#[tokio::test]
async fn plain_text_and_allow_are_no_opinion() {
    let p = Project::new();
    p.script("pre", "*.sh", "echo 'just a note'");
    p.script(
        "pre",
        "bash.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#,
    );
    let (wrapper, _) = p.wrapper(SECOND);
    assert_eq!(
        call(&wrapper, "echo ok").await.unwrap().text_content(),
        "ok\n"
    );
}

#[tokio::test]
async fn a_hook_for_another_tool_is_not_run() {
    let p = Project::new();
    p.script("pre", "read.sh", "exit 2");
    p.script("pre", "Glob", "exit 2");
    let (wrapper, _) = p.wrapper(SECOND);
    assert_eq!(
        call(&wrapper, "echo ok").await.unwrap().text_content(),
        "ok\n"
    );
}

#[cfg(target_os = "linux")]
fn alive(pid_file: &Path) -> bool {
    // No pid file: the hook was stopped before it started that process.
    let Ok(pid) = std::fs::read_to_string(pid_file) else {
        return false;
    };
    let status = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
    // Gone, or a zombie waiting for its parent.
    status.is_ok_and(|s| !s.contains(") Z "))
}

/// Waits (up to a few seconds, for a loaded machine) until the process is gone.
#[cfg(target_os = "linux")]
fn assert_gone(pid_file: &Path) {
    // SIGKILL is delivered at once; give the kernel a moment to tear the process down.
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid_file) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid_file), "{}", pid_file.display());
}

#[tokio::test]
async fn timeout_is_a_handler_error_and_kills_the_process_group() {
    let p = Project::new();
    let file = p.script(
        "pre",
        "bash.sh",
        "sleep 30 &\necho $! > \"$CLAUDE_PROJECT_DIR/child.pid\"\necho $$ > \"$CLAUDE_PROJECT_DIR/hook.pid\"\nwait",
    );
    let (wrapper, _) = p.wrapper(Duration::from_millis(300));
    let started = Instant::now();
    let err = call(&wrapper, "touch ran").await.unwrap_err();
    // Far below the hook's own 30 s sleep; generous for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let text = err.to_string();
    assert!(
        text.contains("timed out after 300 ms") && text.contains(file.to_str().unwrap()),
        "{text}"
    );
    assert!(!p.cwd.join("ran").exists());
    #[cfg(target_os = "linux")]
    {
        assert_gone(&p.cwd.join("hook.pid"));
        assert_gone(&p.cwd.join("child.pid"));
    }
}

#[tokio::test]
async fn dropping_the_call_kills_the_hook() {
    let p = Project::new();
    p.script(
        "pre",
        "bash.sh",
        "sleep 30 &\necho $! > \"$CLAUDE_PROJECT_DIR/child.pid\"\necho $$ > \"$CLAUDE_PROJECT_DIR/hook.pid\"\nwait",
    );
    let (wrapper, _) = p.wrapper(SECOND);
    let attempt = tokio::time::timeout(Duration::from_millis(300), call(&wrapper, "echo hi")).await;
    assert!(attempt.is_err(), "the call should still be running");
    #[cfg(target_os = "linux")]
    for pid_file in [p.cwd.join("hook.pid"), p.cwd.join("child.pid")] {
        assert_gone(&pid_file);
    }
}

/// Processes a hook started in the background, named by the pid files it wrote: each one still
/// running `sleep` is SIGKILLed when this is dropped, so a failing test leaves nothing behind.
#[cfg(target_os = "linux")]
struct Sleepers(Vec<PathBuf>);

#[cfg(target_os = "linux")]
impl Drop for Sleepers {
    fn drop(&mut self) {
        for file in &self.0 {
            let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
            else {
                continue;
            };
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline.starts_with(b"sleep\0") {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

/// A hook body that runs `command` in the background and exits once it wrote `child.pid` (from
/// then on, it has left the hook's process group).
#[cfg(target_os = "linux")]
fn escape(command: &str) -> String {
    format!("{command} &\nwhile [ ! -s child.pid ]; do sleep 0.01; done")
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn hook_file_setsid_child_does_not_outlive_the_call() {
    let p = Project::new();
    let pid_file = p.cwd.join("child.pid");
    let _sleepers = Sleepers(vec![pid_file.clone()]);
    p.script(
        "pre",
        "bash.sh",
        &escape("setsid sh -c 'echo $$ > child.pid; exec sleep 30' >/dev/null 2>&1"),
    );
    let (wrapper, _) = p.wrapper(Duration::from_secs(20));
    assert_eq!(
        call(&wrapper, "echo hi").await.unwrap().text_content(),
        "hi\n"
    );
    assert_gone(&pid_file);
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn hook_file_that_exits_returns_though_an_escaped_child_holds_its_output() {
    let p = Project::new();
    let _sleepers = Sleepers(vec![p.cwd.join("child.pid")]);
    // Out of the group, orphaned, with an empty environment: it cannot be found, and it keeps
    // the hook's stdout and stderr open.
    p.script(
        "pre",
        "bash.sh",
        &escape("env -i setsid sh -c 'echo $$ > child.pid; exec sleep 30'"),
    );
    let (wrapper, _) = p.wrapper(Duration::from_secs(20));
    let started = Instant::now();
    let out = call(&wrapper, "echo hi").await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.unwrap().text_content(), "hi\n");
}

#[tokio::test]
async fn stdout_past_the_limit_is_a_handler_error() {
    let p = Project::new();
    p.script("pre", "bash.sh", "head -c 2000000 /dev/zero | tr '\\0' 'x'");
    let (wrapper, _) = p.wrapper(SECOND);
    let text = call(&wrapper, "echo hi").await.unwrap_err().to_string();
    assert!(text.contains("more than 1048576 bytes"), "{text}");
}

#[tokio::test]
async fn post_hook_rewrites_the_text_content() {
    let p = Project::new();
    p.script(
        "post",
        "bash.sh",
        "cat > \"$CLAUDE_PROJECT_DIR/input.json\"\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"updatedToolOutput\":\"[redacted]\"}}'",
    );
    let (wrapper, errors) = p.wrapper(SECOND);
    let out = call(&wrapper, "echo API_KEY=123").await.unwrap();
    assert_eq!(out.text_content(), "[redacted]");
    assert!(errors.lock().unwrap().is_empty());

    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(p.cwd.join("input.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_response"]["stdout"], "API_KEY=123\n");
    assert_eq!(
        input["tool_response"]["content"][0]["text"],
        "API_KEY=123\n"
    );
}

#[tokio::test]
async fn post_hook_object_form_and_silence() {
    let p = Project::new();
    p.script(
        "post",
        "*",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"short"}}}'"#,
    );
    let (wrapper, _) = p.wrapper(SECOND);
    assert_eq!(
        call(&wrapper, "echo long").await.unwrap().text_content(),
        "short"
    );

    let q = Project::new();
    q.script("post", "bash.sh", "true");
    let (wrapper, _) = q.wrapper(SECOND);
    assert_eq!(
        call(&wrapper, "echo same").await.unwrap().text_content(),
        "same\n"
    );
}

#[tokio::test]
async fn failing_post_hook_is_reported_and_changes_nothing() {
    let p = Project::new();
    let file = p.script("post", "bash.sh", "echo broken >&2\nexit 3");
    let (wrapper, errors) = p.wrapper(SECOND);
    let out = call(&wrapper, "echo kept").await.unwrap();
    assert_eq!(out.text_content(), "kept\n");
    let errors = errors.lock().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].event, "tool_result");
    assert_eq!(errors[0].hook_path, file.to_str().unwrap());
    assert!(errors[0].error.contains("exit code 3") && errors[0].error.contains("broken"));
}

#[tokio::test]
async fn a_hook_named_with_claude_spelling_applies() {
    let p = Project::new();
    p.script("pre", "Bash.sh", "echo 'claude name' >&2\nexit 2");
    let (wrapper, _) = p.wrapper(SECOND);
    let err = call(&wrapper, "echo hi").await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Blocked {
            reason: "claude name".into()
        }
    );
}

#[tokio::test]
async fn the_hosts_policy_is_asked_again_before_each_run_and_a_refusal_blocks_without_running() {
    use hookwright::loader::FileCandidate;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let project = Project::new();
    let ran = project.cwd.join("ran.txt");
    project.script(
        "pre",
        "bash.sh",
        &format!("echo run >> '{}'", ran.display()),
    );
    let (refuse, asked) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let (refusing, counting) = (Arc::clone(&refuse), Arc::clone(&asked));
    let policy = move |file: &FileCandidate<'_>| {
        counting.fetch_add(1, Ordering::SeqCst);
        if refusing.load(Ordering::SeqCst) {
            Err(format!("{} is refused now", file.path.display()))
        } else {
            Ok(())
        }
    };
    let options = DiscoveryOptions::new(&project.home)
        .with_compiled(NoCompiledHooks)
        .with_policy(policy);
    let loaded = discover_and_load_hooks::<&str>(&[], &project.cwd, &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let session = Arc::new(Session {
        file: project.cwd.join("session.jsonl"),
        cwd: project.cwd.clone(),
    });
    let runner = Arc::new(HookRunner::new(loaded.hooks, &project.cwd, session));
    let wrapper = HookToolWrapper::new(BashTool::new(&project.cwd), Arc::clone(&runner));
    assert!(call(&wrapper, "true").await.is_ok());
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "run\n");
    let at_load_and_first_run = asked.load(Ordering::SeqCst);
    assert!(at_load_and_first_run >= 2, "{at_load_and_first_run}");

    refuse.store(true, Ordering::SeqCst);
    let blocked = call(&wrapper, "true").await.unwrap_err().to_string();
    assert!(
        blocked.contains("was not run") && blocked.contains("is refused now"),
        "{blocked}"
    );
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "run\n", "it ran");
}
