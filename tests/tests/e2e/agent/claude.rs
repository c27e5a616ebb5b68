//! Claude Code in print mode (`claude -p`), pointed at the scripted model server.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

use super::{RUN_LIMIT, Sandbox, base_command};
use crate::install::CLAUDE;
use crate::model::ModelServer;
use crate::process::{self, Finished};

/// An installed Claude Code.
pub(crate) struct Claude {
    binary: PathBuf,
}

/// One `claude -p` run.
#[derive(Debug)]
pub(crate) struct ClaudeRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Its stdout, one `stream-json` event per line.
    pub(crate) events: Vec<Value>,
    /// Its `--debug-file` (hook calls, their times and any complaint about their output).
    pub(crate) debug_log: String,
}

impl Claude {
    /// Claude Code for a suite, or `None` when the suite is skipped (see
    /// [`crate::install::Package::for_suite`]).
    pub(crate) fn for_suite() -> Option<Claude> {
        CLAUDE.for_suite().map(|binary| Claude { binary })
    }

    /// `PATH` with the directory of Claude Code's binary first (for `hooks install`, which asks
    /// it for its version).
    pub(crate) fn path_with_binary(&self) -> std::path::PathBuf {
        let dir = self.binary.parent().expect("the binary's directory");
        std::env::join_paths(
            std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
        )
        .map(std::path::PathBuf::from)
        .expect("PATH")
    }

    /// `hooks install claude --project` in the sandbox's project, with this Claude Code first
    /// on `PATH` (install asks it for its version).
    pub(crate) fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        let dir = self.binary.parent().expect("the binary's directory");
        let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("PATH");
        sandbox.hooks(
            &["install", "claude", "--project"],
            &[("PATH", std::path::Path::new(&path))],
        )
    }

    /// `claude -p PROMPT` in the sandbox against `server`, with `args` added.
    pub(crate) fn run(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
    ) -> ClaudeRun {
        self.run_in(sandbox, server, prompt, args, (None, &[]))
    }

    /// [`Claude::run`] with `dir` in front of `PATH` (stand-ins for programs Claude Code runs).
    pub(crate) fn run_with_path(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
        dir: Option<&std::path::Path>,
    ) -> ClaudeRun {
        self.run_in(sandbox, server, prompt, args, (dir, &[]))
    }

    /// [`Claude::run`] with `env` in Claude Code's environment (the agent's, which its hooks
    /// see).
    pub(crate) fn run_with_env(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> ClaudeRun {
        self.run_in(sandbox, server, prompt, &[], (None, env))
    }

    /// [`Claude::run`] with `dir` in front of `PATH` and `env` set.
    fn run_in(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
        (dir, env): (Option<&std::path::Path>, &[(&str, &str)]),
    ) -> ClaudeRun {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let debug_file = sandbox.root().join(format!("claude-debug-{n}.log"));
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("ANTHROPIC_BASE_URL", server.url())
            .env("ANTHROPIC_API_KEY", "e2e-dummy-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("IS_SANDBOX", "1")
            .envs(env.iter().copied());
        if let Some(dir) = dir {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&path));
            cmd.env("PATH", std::env::join_paths(dirs).expect("PATH entries"));
        }
        cmd.args(["-p", prompt])
            .args(["--output-format", "stream-json", "--verbose"])
            .arg("--dangerously-skip-permissions")
            .arg("--debug-file")
            .arg(&debug_file)
            .args(args);
        let finished = process::run_bounded(cmd, sandbox.root(), &format!("claude-{n}"), RUN_LIMIT);
        server.save_log(sandbox.root());
        if !finished.leftovers.is_empty() {
            crate::report(&format!(
                "claude left processes running, killed: {:?}",
                finished.leftovers
            ));
        }
        let events = finished
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        ClaudeRun {
            debug_log: fs::read_to_string(&debug_file).unwrap_or_default(),
            events,
            finished,
        }
    }
}

impl ClaudeRun {
    /// The `result` event's text (the final answer), if any.
    pub(crate) fn result(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "result")
            .and_then(|e| e["result"].as_str())
    }

    /// Debug-log lines containing `needle`.
    pub(crate) fn debug_lines(&self, needle: &str) -> Vec<&str> {
        self.debug_log
            .lines()
            .filter(|l| l.contains(needle))
            .collect()
    }

    /// A summary for assertion messages: exit, stderr, the last events and hook lines of the
    /// debug log.
    pub(crate) fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .debug_log
            .lines()
            .filter(|l| l.to_lowercase().contains("hook"))
            .collect();
        format!(
            "exit {:?} after {:.1} s\nstderr:\n{}\nstream-json:\n{}\ndebug log (hook lines):\n{}",
            self.finished.status,
            self.finished.elapsed.as_secs_f64(),
            self.finished.stderr,
            self.finished.stdout,
            hook_lines.join("\n")
        )
    }
}
