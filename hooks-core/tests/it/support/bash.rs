//! [`BashTool`], the one real tool of these tests: `bash -c` in a directory of its own, in its
//! own process group.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use hookwright::events::ToolInput;
use hookwright::tool::UpdateCallback;
use hookwright::{Tool, ToolError, ToolOutput};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio_util::sync::CancellationToken;

use super::process::kill_group;

/// A real tool that runs `bash -c <command>` in `cwd`, in its own process group.
///
/// Input: `{ "command": string }`. Every stdout line is sent to the progress callback as it
/// arrives. Success: one text chunk with the whole stdout and `details: { "exitCode": 0 }`; when
/// stderr is not empty the output also carries `isWarning: true` (an extra field). A non-zero
/// exit is a failure `exit code N: <stderr>`.
///
/// When the cancellation token fires (unless the tool was made with
/// [`BashTool::ignoring_token`]) the whole group is killed and the tool returns
/// [`ToolError::Cancelled`]; when the tool's future is dropped the whole group is killed too (a
/// tool that cleans up after itself). It counts the calls that started and keeps the token each
/// call received.
pub struct BashTool {
    parameters: Value,
    cwd: PathBuf,
    watch_token: bool,
    pub started: Arc<AtomicUsize>,
    pub tokens: Arc<Mutex<Vec<CancellationToken>>>,
}

impl BashTool {
    /// A tool running in `cwd` that watches its cancellation token.
    pub fn new(cwd: impl AsRef<Path>) -> Self {
        BashTool {
            parameters: json!({
                "type": "object",
                "properties": { "command": { "type": "string" } },
                "required": ["command"]
            }),
            cwd: cwd.as_ref().to_path_buf(),
            watch_token: true,
            started: Arc::default(),
            tokens: Arc::default(),
        }
    }

    /// A tool that never looks at its cancellation token (only dropping it stops it).
    pub fn ignoring_token(cwd: impl AsRef<Path>) -> Self {
        BashTool {
            watch_token: false,
            ..BashTool::new(cwd)
        }
    }
}

/// Kills a process group when dropped, unless disarmed.
struct GroupGuard {
    pgid: Option<i32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            kill_group(pgid);
        }
    }
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Runs a bash command in its own process group"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        input: &ToolInput,
        cancel: &CancellationToken,
        on_update: Option<&UpdateCallback>,
    ) -> Result<ToolOutput, ToolError> {
        self.tokens.lock().unwrap().push(cancel.clone());
        // A call cancelled before it starts changes nothing (the `Tool` contract).
        if self.watch_token && cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        self.started.fetch_add(1, Ordering::SeqCst);
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::failed("missing `command`"))?;
        let mut child = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .map_err(|e| ToolError::failed(format!("cannot start bash: {e}")))?;
        let mut guard = GroupGuard {
            pgid: child.id().and_then(|id| i32::try_from(id).ok()),
        };
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let run = async {
            let read_out = async {
                let mut lines = BufReader::new(stdout).lines();
                let mut out = String::new();
                while let Some(line) = lines.next_line().await? {
                    if let Some(update) = on_update {
                        update(ToolOutput::text(line.clone()));
                    }
                    out.push_str(&line);
                    out.push('\n');
                }
                Ok::<_, std::io::Error>(out)
            };
            let read_err = async {
                let mut err = String::new();
                stderr.read_to_string(&mut err).await.map(|_| err)
            };
            let (out, err) = tokio::try_join!(read_out, read_err)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            let status = child
                .wait()
                .await
                .map_err(|e| ToolError::failed(e.to_string()))?;
            Ok::<_, ToolError>((out, err, status))
        };
        let cancelled = async {
            if self.watch_token {
                cancel.cancelled().await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        let finished = tokio::select! {
            () = cancelled => None,
            res = run => Some(res),
        };
        let Some(finished) = finished else {
            // `guard` kills the group on the way out.
            return Err(ToolError::Cancelled);
        };
        let (out, err, status) = finished?;
        // The shell exited and was reaped: its pid (the group id) may be reused, so the guard
        // must not signal it any more.
        guard.pgid = None;
        let code = status.code().unwrap_or(-1);
        if code != 0 {
            return Err(ToolError::failed(format!(
                "exit code {code}: {}",
                err.trim_end()
            )));
        }
        let mut output = ToolOutput::text(out);
        output.details = Some(json!({ "exitCode": code }));
        if !err.is_empty() {
            output
                .extra
                .insert("isWarning".to_owned(), Value::Bool(true));
        }
        Ok(output)
    }
}
