//! Issue 7, item 3: cancellation reaches tools and `exec`. Cancelling a wrapped tool call stops
//! the tool and every process it started (children and grandchildren), the wrapper returns
//! promptly with `ToolError::Cancelled`, and `tool_result` handlers see `isError: true`.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{
    BashTool, DropFlag, eventually, group_members, hook_in, input, read_pid, runner_in,
};
use hookwright::events::*;
use hookwright::exec::{ExecOptions, exec_command};
use hookwright::tool::UpdateCallback;
use hookwright::{HookContext, HookToolWrapper, Tool, ToolError, ToolOutput};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A missing protection makes a test fail (the scripts sleep 30 s) instead of hanging.
const TEST_LIMIT: Duration = Duration::from_secs(20);

/// How long the wrapper may take to return once the call is cancelled.
const PROMPT: Duration = Duration::from_millis(3_000);

async fn bounded<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(TEST_LIMIT, fut)
        .await
        .expect("the test ran past its limit: cancellation did not stop the call")
}

/// The `tool_result` events the handlers saw.
type Seen = Arc<Mutex<Vec<ToolResultEvent>>>;

/// A runner in `dir` with one hook that allows every call and records every `tool_result`.
fn recording_runner(dir: &Path) -> (Arc<hookwright::HookRunner>, Seen) {
    let seen: Seen = Arc::default();
    let s = Arc::clone(&seen);
    let runner = runner_in(
        dir,
        vec![hook_in(dir, "hooks/observe.rs", move |api| {
            api.on(|_e: &ToolCallEvent, _c: &HookContext| ToolCallEventResult {
                block: Some(false),
                reason: None,
            });
            api.on(move |e: &ToolResultEvent, _c: &HookContext| {
                s.lock().unwrap().push(e.clone());
            });
        })],
    );
    (Arc::new(runner), seen)
}

/// A script that records its process group, starts a grandchild that would write `early`
/// after a second, and would write `marker` after 30 s.
fn script() -> String {
    "echo $$ > pgid; (sleep 1; touch early) & sleep 30; touch marker".to_owned()
}

/// Runs `tool` (wrapped) on [`script`], cancels the call once the script runs, and checks
/// everything issue 7 asks for.
async fn check_cancellation<T: Tool>(
    dir: &Path,
    tool: T,
    runner: Arc<hookwright::HookRunner>,
    seen: &Seen,
) {
    let wrapper = HookToolWrapper::new(tool, runner);
    let cancel = CancellationToken::new();
    let args = input(json!({ "command": script() }));
    let call = wrapper.execute("call-1", &args, &cancel, None);
    let pgid_file = dir.join("pgid");
    let canceller = async {
        let pgid = read_pid(&pgid_file, Duration::from_secs(10))
            .await
            .expect("the script started");
        // Once the script has reached `sleep 30` and started its grandchild.
        let running = eventually(Duration::from_secs(10), || group_members(pgid).len() >= 2).await;
        assert!(running, "the shell and its children run");
        cancel.cancel();
        (pgid, Instant::now())
    };
    let (outcome, (pgid, cancelled_at)) = tokio::join!(call, canceller);
    let took = cancelled_at.elapsed();

    assert!(
        matches!(outcome, Err(ToolError::Cancelled)),
        "expected a cancellation error, got {outcome:?}"
    );
    assert!(
        took < PROMPT,
        "the wrapper returned {took:?} after the cancel"
    );
    let gone = eventually(Duration::from_secs(5), || group_members(pgid).is_empty()).await;
    assert!(
        gone,
        "the tool's processes are still alive: {:?}",
        group_members(pgid)
    );

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "one tool_result for the cancelled call");
    assert_eq!(seen[0].is_error, Some(true));
    assert_eq!(seen[0].tool_call_id, "call-1");
    assert_eq!(
        seen[0].content,
        [Content::text(ToolError::Cancelled.to_string())]
    );

    // Past the moment the grandchild would have written `early`: nothing was written.
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    assert!(
        !dir.join("early").exists(),
        "a grandchild survived the cancel"
    );
    assert!(
        !dir.join("marker").exists(),
        "the script survived the cancel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_wrapped_call_stops_the_tool_and_its_whole_process_tree() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, seen) = recording_runner(dir.path());
        let tool = BashTool::new(dir.path());
        let tokens = Arc::clone(&tool.tokens);
        check_cancellation(dir.path(), tool, runner, &seen).await;
        // The tool received the caller's token (or a child of it), which is now cancelled.
        let tokens = tokens.lock().unwrap();
        assert_eq!(tokens.len(), 1);
        assert!(tokens[0].is_cancelled(), "the token reached the tool");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wrapper_returns_promptly_even_if_the_tool_ignores_its_token() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, seen) = recording_runner(dir.path());
        check_cancellation(
            dir.path(),
            BashTool::ignoring_token(dir.path()),
            runner,
            &seen,
        )
        .await;
    })
    .await;
}

/// A tool that runs its command through [`exec_command`] with the call's token.
struct ExecTool {
    cwd: PathBuf,
    parameters: Value,
    result: Arc<Mutex<Option<hookwright::ExecResult>>>,
}

impl Tool for ExecTool {
    fn name(&self) -> &str {
        "exec"
    }
    fn description(&self) -> &str {
        "Runs a command through exec"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    async fn execute(
        &self,
        _call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        _on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        let command = input.get("command").and_then(Value::as_str).unwrap_or("");
        let options = ExecOptions {
            cancel: Some(cancel.clone()),
            ..ExecOptions::default()
        };
        let result = exec_command(
            "bash",
            &["-c".to_owned(), command.to_owned()],
            &self.cwd,
            options,
        )
        .await
        .map_err(|e| ToolError::failed(e.to_string()))?;
        *self.result.lock().unwrap() = Some(result.clone());
        if result.killed {
            return Err(ToolError::Cancelled);
        }
        Ok(ToolOutput::text(result.stdout))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_wrapped_exec_tool_kills_the_exec_process_group() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, seen) = recording_runner(dir.path());
        let tool = ExecTool {
            cwd: dir.path().to_path_buf(),
            parameters: json!({ "type": "object" }),
            result: Arc::default(),
        };
        check_cancellation(dir.path(), tool, runner, &seen).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_with_a_cancelled_token_kills_the_group_and_reports_killed() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let options = ExecOptions {
            cancel: Some(cancel.clone()),
            ..ExecOptions::default()
        };
        let args = ["-c".to_owned(), script()];
        let run = exec_command("bash", &args, dir.path(), options);
        let pgid_file = dir.path().join("pgid");
        let canceller = async {
            let pgid = read_pid(&pgid_file, Duration::from_secs(10)).await.unwrap();
            // Once the script's children run.
            let running =
                eventually(Duration::from_secs(10), || group_members(pgid).len() >= 2).await;
            assert!(running, "the shell and its children run");
            cancel.cancel();
            (pgid, Instant::now())
        };
        let (result, (pgid, cancelled_at)) = tokio::join!(run, canceller);
        let result = result.expect("a cancelled exec resolves");
        assert!(result.killed);
        // SIGTERM ends `bash` and `sleep` at once (the 1 s SIGKILL grace is not needed).
        assert!(cancelled_at.elapsed() < Duration::from_millis(4_000));
        assert!(eventually(Duration::from_secs(5), || group_members(pgid).is_empty()).await);
        tokio::time::sleep(Duration::from_millis(1_300)).await;
        assert!(!dir.path().join("early").exists());
        assert!(!dir.path().join("marker").exists());
    })
    .await;
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_never_runs_the_tool() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let (runner, seen) = recording_runner(dir.path());
        let tool = BashTool::new(dir.path());
        let started = Arc::clone(&tool.started);
        let wrapper = HookToolWrapper::new(tool, runner);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let outcome = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "touch ran" })),
                &cancel,
                None,
            )
            .await;
        assert!(matches!(outcome, Err(ToolError::Cancelled)), "{outcome:?}");
        assert_eq!(started.load(Ordering::SeqCst), 0, "the tool never started");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!dir.path().join("ran").exists());
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].is_error, Some(true));
    })
    .await;
}

/// Cancelling while a `tool_call` handler is still deciding (a gate with no timeout that
/// hangs): the wrapper returns promptly, the gate's future is dropped, the tool never starts.
#[tokio::test]
async fn a_call_cancelled_while_a_gate_hangs_returns_promptly_and_never_runs_the_tool() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let gate_done = Arc::new(AtomicUsize::new(0));
        let gate_dropped = Arc::new(AtomicBool::new(false));
        let (g, d) = (Arc::clone(&gate_done), Arc::clone(&gate_dropped));
        let runner = runner_in(
            dir.path(),
            vec![hook_in(dir.path(), "hooks/slow-gate.rs", move |api| {
                api.on_async(move |_e: &ToolCallEvent, _c: &HookContext| {
                    let g = Arc::clone(&g);
                    let guard = DropFlag(Arc::clone(&d));
                    Box::pin(async move {
                        let _guard = guard;
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        g.fetch_add(1, Ordering::SeqCst);
                    })
                });
            })],
        );
        let tool = BashTool::new(dir.path());
        let started = Arc::clone(&tool.started);
        let wrapper = HookToolWrapper::new(tool, Arc::new(runner));
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        let cancelled_at = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            c.cancel();
            Instant::now()
        });
        let outcome = wrapper
            .execute(
                "call-1",
                &input(json!({ "command": "touch ran" })),
                &cancel,
                None,
            )
            .await;
        let took = cancelled_at.await.unwrap().elapsed();
        assert!(matches!(outcome, Err(ToolError::Cancelled)), "{outcome:?}");
        assert!(
            took < PROMPT,
            "the wrapper returned {took:?} after the cancel"
        );
        assert!(
            gate_dropped.load(Ordering::SeqCst),
            "the gate's future was dropped"
        );
        assert_eq!(gate_done.load(Ordering::SeqCst), 0);
        assert_eq!(started.load(Ordering::SeqCst), 0, "the tool never started");
        assert!(!dir.path().join("ran").exists());
    })
    .await;
}
