//! Gemini CLI in headless mode (`gemini -p`), pointed at the scripted model server.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

use super::{RUN_LIMIT, Sandbox, base_command};
use crate::fixtures;
use crate::install::GEMINI;
use crate::model::ModelServer;
use crate::process::{self, Finished};

/// The model named on the command line: an explicit model skips Gemini CLI's model router, a
/// utility call before each turn.
pub(crate) const MODEL: &str = "gemini-2.5-flash";

/// An installed Gemini CLI.
pub(crate) struct Gemini {
    binary: PathBuf,
}

/// One `gemini -p` run.
#[derive(Debug)]
pub(crate) struct GeminiRun {
    /// The process's exit and output (`--debug` writes its log, hook runs included, to
    /// stderr).
    pub(crate) finished: Finished,
    /// Its stdout, one `--output-format json` object (`session_id`, `response`, `stats`,
    /// `warnings` when there are any); `Null` when it printed none.
    pub(crate) output: Value,
}

/// Whether the run trusts the project folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Folder {
    /// `GEMINI_CLI_TRUST_WORKSPACE=true`: trusted for this run.
    Trusted,
    /// Left to folder trust (on by default), as a user's first run in a new folder.
    Untrusted,
}

impl Gemini {
    /// Gemini CLI for a suite, or `None` when the suite is skipped (see
    /// [`crate::install::Package::for_suite`]).
    pub(crate) fn for_suite() -> Option<Gemini> {
        GEMINI.for_suite().map(|binary| Gemini { binary })
    }

    /// The user settings file, `~/.gemini/settings.json`.
    pub(crate) fn user_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".gemini/settings.json")
    }

    /// The project settings file, `.gemini/settings.json`.
    pub(crate) fn project_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".gemini/settings.json")
    }

    /// Writes the user settings an offline run needs: API-key auth (for
    /// `GOOGLE_GEMINI_BASE_URL`), and no usage statistics, telemetry or update checks.
    pub(crate) fn configure(sandbox: &Sandbox) {
        let settings = Gemini::user_settings(sandbox);
        for (pointer, value) in [
            ("/security/auth/selectedType", json!("gemini-api-key")),
            ("/privacy/usageStatisticsEnabled", json!(false)),
            ("/telemetry/enabled", json!(false)),
            ("/general/enableAutoUpdate", json!(false)),
            ("/general/enableAutoUpdateNotification", json!(false)),
        ] {
            fixtures::set_setting(&settings, pointer, value);
        }
    }

    /// `gemini -p PROMPT` in the sandbox against `server`, with `args` added.
    pub(crate) fn run(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        folder: Folder,
        prompt: &str,
        args: &[&str],
    ) -> GeminiRun {
        self.run_for(sandbox, server, folder, prompt, args, RUN_LIMIT)
    }

    /// [`Gemini::run`] killed after `limit`.
    pub(crate) fn run_for(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        folder: Folder,
        prompt: &str,
        args: &[&str],
        limit: std::time::Duration,
    ) -> GeminiRun {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("GOOGLE_GEMINI_BASE_URL", server.url())
            .env("GEMINI_API_KEY", "e2e-dummy-key")
            .env("GEMINI_TELEMETRY_ENABLED", "false");
        if folder == Folder::Trusted {
            cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        }
        cmd.args(["-p", prompt])
            .args(["--approval-mode", "yolo", "--output-format", "json"])
            .args(["-m", MODEL, "--debug"])
            .args(args);
        let finished = process::run_bounded(cmd, sandbox.root(), &format!("gemini-{n}"), limit);
        server.save_log(sandbox.root());
        if !finished.leftovers.is_empty() {
            crate::report(&format!(
                "gemini left processes running, killed: {:?}",
                finished.leftovers
            ));
        }
        let output = serde_json::from_str(finished.stdout.trim()).unwrap_or(Value::Null);
        GeminiRun { finished, output }
    }
}

impl GeminiRun {
    /// The final answer (`response`).
    pub(crate) fn response(&self) -> Option<&str> {
        self.output["response"].as_str()
    }

    /// The `warnings` of the JSON output.
    pub(crate) fn warnings(&self) -> Vec<&str> {
        self.output["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    /// Stderr lines (the `--debug` log) that contain `needle`.
    pub(crate) fn log_lines(&self, needle: &str) -> Vec<&str> {
        self.finished
            .stderr
            .lines()
            .filter(|l| l.contains(needle))
            .collect()
    }

    /// Stderr lines in which Gemini CLI reports a failed hook (`Hook(s) [NAME] failed for event
    /// EVENT`, `Hook execution error: ...`).
    pub(crate) fn hook_failures(&self) -> Vec<&str> {
        self.finished
            .stderr
            .lines()
            .filter(|l| {
                (l.contains("Hook(s) [") && l.contains("failed for event"))
                    || l.contains("Hook execution error")
            })
            .collect()
    }

    /// A summary for assertion messages: exit, the JSON output and the hook lines of stderr.
    pub(crate) fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .finished
            .stderr
            .lines()
            .filter(|l| l.to_lowercase().contains("hook"))
            .collect();
        format!(
            "exit {:?} after {:.1} s\nstdout:\n{}\nstderr (hook lines):\n{}",
            self.finished.status,
            self.finished.elapsed.as_secs_f64(),
            self.finished.stdout,
            hook_lines.join("\n")
        )
    }
}
