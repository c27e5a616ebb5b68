//! Shell-style hook files run as real hooks: a `pre` file becomes a `tool_call` handler, a
//! `post` file a `tool_result` handler, speaking Claude Code's `PreToolUse`/`PostToolUse`
//! protocol (see [`super::claude`]).
//!
//! Before each run the host's [`FilePolicy`] is asked about the file
//! again ([`ShellHook::policy`]): a hook held by a long-lived runner (a resident host keeps
//! one per agent session for hours) runs only what the host accepts now, not what it
//! accepted when the hooks were loaded; a refusal fails the run with the policy's reason.
//!
//! The file is run directly (no shell) in the loader's working directory with
//! `CLAUDE_PROJECT_DIR` set to it and one JSON object on stdin, the way [`crate::exec`] runs a
//! command: when it exits, times out (SIGKILL, no SIGTERM first), or the handler's future is
//! dropped, every process it started that can be found is killed (the process group, and on
//! Linux also what left it, unless that also lost its parent and dropped `HOOKS_PROCESS_TREE`
//! from its environment before the call's first signal: [`crate::exec`] says exactly which), and
//! output is read for half a second more at most. stdout and stderr are each kept up to [`OUTPUT_LIMIT`] bytes; the rest is read and
//! discarded.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::process::Command;

use super::capability::FileCandidate;
use super::capability::Level;
use super::claude::{
    HookExit, HookRun, HookSession, OUTPUT_LIMIT, decide_post_tool_use, decide_pre_tool_use,
    post_tool_use_input, pre_tool_use_input, replace_text_content, tool_matches,
};
use super::policy::FilePolicy;
use crate::api::{HookApi, LoadedHook};
use crate::context::HookContext;
use crate::events::{ToolCallEvent, ToolCallEventResult, ToolResultEvent, ToolResultEventResult};
use crate::exec::run::{Capture, RunError, Spec, run};
use crate::handler::{Handler, HandlerError, HandlerInfo};

/// The default limit for one run of a hook file: 60 seconds.
pub const DEFAULT_SHELL_TIMEOUT: Duration = Duration::from_secs(60);

/// The host's policy, asked about a hook file before each run, with what it is told of the
/// file besides its path and working directory.
#[derive(Clone)]
pub struct RunPolicy {
    policy: Arc<dyn FilePolicy>,
    levels: Vec<Level>,
}

impl RunPolicy {
    /// `policy`, for a file discovery reported at `levels`.
    #[must_use]
    pub fn new(policy: Arc<dyn FilePolicy>, levels: Vec<Level>) -> Self {
        RunPolicy { policy, levels }
    }

    /// The policy's verdict on `file`, run in `cwd`, now.
    ///
    /// # Errors
    /// The policy refuses it: its reason.
    pub fn check(&self, file: &Path, cwd: &Path) -> Result<(), String> {
        self.policy.check(&FileCandidate {
            path: file,
            levels: &self.levels,
            cwd,
        })
    }
}

impl std::fmt::Debug for RunPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunPolicy")
            .field("levels", &self.levels)
            .finish_non_exhaustive()
    }
}

impl PartialEq for RunPolicy {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.policy, &other.policy) && self.levels == other.levels
    }
}

impl Eq for RunPolicy {}

/// A hook file and how to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellHook {
    /// The executable file.
    pub file: PathBuf,
    /// The tool it applies to: `*`, our name (`bash`) or Claude's (`Bash`).
    pub tool: String,
    /// The working directory of the process (and `CLAUDE_PROJECT_DIR`).
    pub cwd: PathBuf,
    /// How long one run may take before it is killed.
    pub timeout: Duration,
    /// The host's policy, asked before each run (`None`: every run is accepted).
    pub policy: Option<RunPolicy>,
}

impl ShellHook {
    fn session(&self, ctx: &HookContext) -> HookSession {
        let manager = ctx.session_manager();
        HookSession {
            session_id: manager.session_id(),
            transcript_path: manager.session_file(),
            cwd: self.cwd.clone(),
        }
    }

    fn handler_info(&self) -> HandlerInfo {
        let name = self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        HandlerInfo::named(name)
    }

    async fn run(&self, input: &serde_json::Value) -> Result<HookRun, HandlerError> {
        if let Some(policy) = &self.policy {
            policy.check(&self.file, &self.cwd).map_err(|why| {
                HandlerError::new(format!("hook {} was not run: {why}", self.file.display()))
            })?;
        }
        let stdin = serde_json::to_vec(input).map_err(|e| {
            HandlerError::new(format!(
                "hook {}: cannot encode its input: {e}",
                self.file.display()
            ))
        })?;
        run_hook_file(&self.file, &self.cwd, stdin, self.timeout)
            .await
            .map_err(|e| {
                HandlerError::new(format!(
                    "hook {} could not be run: {e}",
                    self.file.display()
                ))
            })
    }

    /// The `tool_call` decision for `event` (`Ok(None)` for another tool).
    ///
    /// # Errors
    /// The hook failed (see [`decide_pre_tool_use`]).
    pub async fn pre(
        &self,
        event: &ToolCallEvent,
        ctx: &HookContext,
    ) -> Result<Option<ToolCallEventResult>, HandlerError> {
        if !tool_matches(&self.tool, &event.tool_name) {
            return Ok(None);
        }
        let run = self
            .run(&pre_tool_use_input(event, &self.session(ctx)))
            .await?;
        decide_pre_tool_use(&run, &self.file).map_err(HandlerError::new)
    }

    /// The `tool_result` override for `event` (`Ok(None)` for another tool, a failed call, or
    /// no `updatedToolOutput`).
    ///
    /// # Errors
    /// The hook failed (see [`decide_post_tool_use`]).
    pub async fn post(
        &self,
        event: &ToolResultEvent,
        ctx: &HookContext,
    ) -> Result<Option<ToolResultEventResult>, HandlerError> {
        if event.failed() || !tool_matches(&self.tool, &event.tool_name) {
            return Ok(None);
        }
        let run = self
            .run(&post_tool_use_input(event, &self.session(ctx)))
            .await?;
        let text = decide_post_tool_use(&run, &self.file).map_err(HandlerError::new)?;
        Ok(text.map(|text| ToolResultEventResult {
            content: Some(replace_text_content(&event.content, &text)),
            ..ToolResultEventResult::default()
        }))
    }
}

/// A loaded hook (path `path`, resolved path `hook.file`) with one `tool_call` handler when
/// `pre`, else one `tool_result` handler, named after the file.
#[must_use]
pub fn shell_hook(path: String, pre: bool, hook: ShellHook) -> LoadedHook {
    let info = hook.handler_info();
    let mut api = HookApi::new(path, hook.cwd.clone()).with_resolved_path(hook.file.clone());
    let hook = Arc::new(hook);
    if pre {
        let handler = Handler::<ToolCallEvent>::boxed(move |event, ctx| {
            let hook = Arc::clone(&hook);
            Box::pin(async move { hook.pre(event, ctx).await })
        });
        api.on_handler(handler, info);
    } else {
        let handler = Handler::<ToolResultEvent>::boxed(move |event, ctx| {
            let hook = Arc::clone(&hook);
            Box::pin(async move { hook.post(event, ctx).await })
        });
        api.on_handler(handler, info);
    }
    api.finish()
}

/// Runs `file` (no shell) in `cwd` with `CLAUDE_PROJECT_DIR=cwd`, writes `stdin` to it, and
/// collects its output, as [`crate::exec`] runs a command: when it exits, after `timeout` (with
/// SIGKILL at once), or when the returned future is dropped, every process it started that can
/// be found is killed.
///
/// # Errors
/// The file could not be started, or reading its output or waiting for it failed.
pub async fn run_hook_file(
    file: &Path,
    cwd: &Path,
    stdin: Vec<u8>,
    timeout: Duration,
) -> io::Result<HookRun> {
    let mut command = Command::new(file);
    command.current_dir(cwd).env("CLAUDE_PROJECT_DIR", cwd);
    let capture = Capture {
        limit: OUTPUT_LIMIT,
        stop_past_limit: false,
    };
    let spec = Spec {
        stdin: Some(stdin),
        stdout: capture,
        stderr: capture,
        term_grace: None,
    };
    let finished = run(command, spec, tokio::time::sleep(timeout))
        .await
        .map_err(|(RunError::Spawn(e) | RunError::Io(e))| e)?;
    let exit = if finished.stopped {
        HookExit::TimedOut(timeout)
    } else {
        let status = finished
            .status
            .ok_or_else(|| io::Error::other("the hook's exit status is unknown"))?;
        exit_of(status)
    };
    Ok(HookRun {
        exit,
        stdout: finished.stdout.bytes,
        stderr: finished.stderr.bytes,
        stdout_truncated: finished.stdout.truncated,
    })
}

fn exit_of(status: std::process::ExitStatus) -> HookExit {
    if let Some(code) = status.code() {
        return HookExit::Code(code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return HookExit::Signal(signal);
        }
    }
    HookExit::Code(-1)
}
