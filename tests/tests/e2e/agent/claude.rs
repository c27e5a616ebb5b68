//! Claude Code in print mode (`claude -p`), pointed at the scripted model server.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Agent, AgentRun, HookFailures, RUN_LIMIT, Sandbox, base_command};
use crate::install::CLAUDE;
use crate::model::{ModelServer, Step};
use crate::process::Finished;

/// A model turn calling Claude Code's `Read` tool on `path`.
pub(crate) fn read(path: &Path) -> Step {
    Step::tool("Read", json!({ "file_path": path }))
}

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
    /// `PATH` with the directory of Claude Code's binary first (for `hooks install`, which asks
    /// it for its version).
    pub(crate) fn path_with_binary(&self) -> PathBuf {
        super::path_with(&[&self.binary])
    }

    /// `claude -p PROMPT` in the sandbox against `server`, with `args` added.
    pub(crate) fn run_with_args(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
    ) -> ClaudeRun {
        self.run_in(sandbox, server, prompt, args, (None, &[]))
    }

    /// [`Claude::run_with_args`] with `dir` in front of `PATH` (stand-ins for programs Claude Code runs).
    pub(crate) fn run_with_path(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
        dir: Option<&Path>,
    ) -> ClaudeRun {
        self.run_in(sandbox, server, prompt, args, (dir, &[]))
    }

    /// [`Claude::run_with_args`] with `env` in Claude Code's environment (the agent's, which its hooks
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

    /// [`Claude::run_with_args`] with `dir` in front of `PATH` and `env` set.
    fn run_in(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
        (dir, env): (Option<&Path>, &[(&str, &str)]),
    ) -> ClaudeRun {
        let n = super::next_run();
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
        let finished = super::run_against(cmd, sandbox, server, &format!("claude-{n}"), RUN_LIMIT);
        let events = super::json_lines(&finished.stdout);
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
}

impl Agent for Claude {
    const NAME: &'static str = "claude";
    type Run = ClaudeRun;

    fn for_suite() -> Claude {
        Claude {
            binary: CLAUDE.for_suite(),
        }
    }

    /// Nothing: each run names the server in its environment.
    fn configure(_: &Sandbox, _: &ModelServer) {}

    /// `hooks install claude --project`, with this Claude Code first on `PATH`: install asks
    /// it for its version, and says which one it found.
    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        let path = self.path_with_binary();
        let installed = sandbox.hooks(
            &["install", "claude", "--project"],
            &[("PATH", path.as_path())],
        );
        assert!(
            installed.stdout.contains("Claude Code 2.1.328 ("),
            "install did not ask the Claude Code on PATH: {}",
            installed.stdout
        );
        installed
    }

    /// `.claude/settings.json` of the project.
    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".claude/settings.json")
    }

    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> ClaudeRun {
        self.run_with_args(sandbox, server, prompt, &[])
    }
}

impl AgentRun for ClaudeRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    fn answer(&self) -> Option<String> {
        self.result().map(str::to_owned)
    }

    /// A summary for assertion messages: exit, stderr, the last events and hook lines of the
    /// debug log.
    fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .debug_log
            .lines()
            .filter(|l| l.to_lowercase().contains("hook"))
            .collect();
        format!(
            "{}\nstderr:\n{}\nstream-json:\n{}\ndebug log (hook lines):\n{}",
            self.finished.summary(),
            self.finished.stderr,
            self.finished.stdout,
            hook_lines.join("\n")
        )
    }
}

/// Phrases of Claude Code's complaints about a hook's output.
const COMPLAINTS: [&str; 6] = [
    "hook error",
    "validation failed",
    "Failed with non-blocking",
    "non-blocking status code",
    "does not match",
    "Hook JSON output",
];

impl HookFailures for ClaudeRun {
    /// Debug-log lines in which Claude Code complains about a hook: an error or warning about a
    /// hook, or one of [`COMPLAINTS`].
    fn hook_failures(&self) -> Vec<String> {
        let bin = crate::host_binary::path().display().to_string();
        self.debug_log
            .lines()
            .filter(|l| {
                let about_hooks = l.replace(&bin, "<hooks>").to_lowercase().contains("hook");
                let bad = l.contains("[ERROR]") || l.contains("[WARN]");
                about_hooks && (bad || COMPLAINTS.iter().any(|c| l.contains(c)))
            })
            .map(str::to_owned)
            .collect()
    }
}
