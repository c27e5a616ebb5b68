//! Copilot CLI in prompt mode (`copilot -p`), offline with a BYOK provider: the scripted model
//! server as an OpenAI Chat Completions endpoint, no GitHub login.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

use super::{RUN_LIMIT, Sandbox, base_command};
use crate::install::{COPILOT, cache_dir};
use crate::model::ModelServer;
use crate::process::{self, Finished};

/// The model Copilot CLI is told it talks to (a name it knows, for its token limits).
pub(crate) const MODEL: &str = "gpt-4.1";

/// An installed Copilot CLI.
pub(crate) struct Copilot {
    binary: PathBuf,
    /// Its unpacked runtime (`copilot/pkg` under the install's own cache).
    runtime: PathBuf,
}

/// One `copilot -p` run.
#[derive(Debug)]
pub(crate) struct CopilotRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Its stdout, one `--output-format json` event per line.
    pub(crate) events: Vec<Value>,
    /// The session's own event log (`~/.copilot/session-state/ID/events.jsonl`), where each
    /// hook run is a `hook.start` and a `hook.end` (with `success` and any `error`).
    pub(crate) session_events: Vec<Value>,
    /// Its log files (`--log-dir`, `--log-level all`), concatenated.
    pub(crate) log: String,
}

/// Whether the run trusts the project folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Folder {
    /// `--trust-folder`: the project's configuration (`.github/hooks`) loads for this run.
    Trusted,
    /// Not trusted, as on a user's first run in a new folder.
    Untrusted,
}

impl Copilot {
    /// Copilot CLI for a suite, or `None` when the suite is skipped (see
    /// [`crate::install::Package::for_suite`]).
    pub(crate) fn for_suite() -> Option<Copilot> {
        let binary = COPILOT.for_suite()?;
        let runtime = COPILOT.xdg_cache_in(&cache_dir()).join("copilot/pkg");
        Some(Copilot { binary, runtime })
    }

    /// A user hook file in Copilot's own format, `~/.copilot/hooks/NAME.json`.
    pub(crate) fn user_hooks(sandbox: &Sandbox, name: &str) -> PathBuf {
        sandbox.home.join(format!(".copilot/hooks/{name}.json"))
    }

    /// A project hook file, `.github/hooks/NAME.json`.
    pub(crate) fn project_hooks(sandbox: &Sandbox, name: &str) -> PathBuf {
        sandbox.project.join(format!(".github/hooks/{name}.json"))
    }

    /// `copilot -p PROMPT` in the sandbox against `server`, with `env` and `args` added.
    pub(crate) fn run(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        folder: Folder,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> CopilotRun {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let xdg_cache = sandbox.root().join("xdg-cache");
        link_runtime(&self.runtime, &xdg_cache);
        let log_dir = sandbox.root().join(format!("copilot-logs-{n}"));
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("XDG_CACHE_HOME", &xdg_cache)
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", server.url()))
            .env("COPILOT_PROVIDER_TYPE", "openai")
            .env("COPILOT_PROVIDER_WIRE_API", "completions")
            .env("COPILOT_PROVIDER_API_KEY", "e2e-dummy-key")
            .env("COPILOT_MODEL", MODEL)
            .env("COPILOT_AUTO_UPDATE", "false")
            .envs(env.iter().copied())
            .args(["-p", prompt])
            .args(["--allow-all", "--no-ask-user", "--output-format", "json"])
            .args(["--no-auto-update", "--disable-client-telemetry"])
            .args(["--log-level", "all", "--log-dir"])
            .arg(&log_dir);
        if folder == Folder::Trusted {
            cmd.arg("--trust-folder");
        }
        let finished =
            process::run_bounded(cmd, sandbox.root(), &format!("copilot-{n}"), RUN_LIMIT);
        server.save_log(sandbox.root());
        if !finished.leftovers.is_empty() {
            crate::report(&format!(
                "copilot left processes running, killed: {:?}",
                finished.leftovers
            ));
        }
        let events = json_lines(&finished.stdout);
        let session_id = events
            .iter()
            .rev()
            .find(|e| e["type"] == "result")
            .and_then(|e| e["sessionId"].as_str())
            .unwrap_or("");
        let session_log = sandbox
            .home
            .join(".copilot/session-state")
            .join(session_id)
            .join("events.jsonl");
        let session_events = if session_id.is_empty() {
            Vec::new()
        } else {
            json_lines(&fs::read_to_string(session_log).unwrap_or_default())
        };
        let mut log = String::new();
        for entry in fs::read_dir(&log_dir).into_iter().flatten().flatten() {
            log.push_str(&fs::read_to_string(entry.path()).unwrap_or_default());
        }
        CopilotRun {
            finished,
            events,
            session_events,
            log,
        }
    }
}

/// Points `xdg_cache/copilot/pkg` at the shared unpacked runtime, so a fresh sandbox does not
/// unpack its own 235 MB copy.
fn link_runtime(runtime: &Path, xdg_cache: &Path) {
    let link = xdg_cache.join("copilot/pkg");
    if link.exists() {
        return;
    }
    fs::create_dir_all(xdg_cache.join("copilot")).expect("XDG cache directory");
    if runtime.is_dir() {
        std::os::unix::fs::symlink(runtime, &link).expect("link the Copilot runtime");
    }
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

impl CopilotRun {
    /// The `hook.end` records of the session log that report a failure, as JSON text.
    pub(crate) fn failed_hooks(&self) -> Vec<String> {
        self.session_events
            .iter()
            .filter(|e| e["type"] == "hook.end" && e["data"]["success"] != Value::Bool(true))
            .map(|e| e["data"].to_string())
            .collect()
    }

    /// The `hook.end` records of the session log, as `(hookType, success)`.
    pub(crate) fn hook_runs(&self) -> Vec<(String, bool)> {
        self.session_events
            .iter()
            .filter(|e| e["type"] == "hook.end")
            .map(|e| {
                (
                    e["data"]["hookType"].as_str().unwrap_or("?").to_owned(),
                    e["data"]["success"] == Value::Bool(true),
                )
            })
            .collect()
    }

    /// The `result` event's exit code.
    pub(crate) fn result_exit_code(&self) -> Option<i64> {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "result")
            .and_then(|e| e["exitCode"].as_i64())
    }

    /// The last `assistant.message` content.
    pub(crate) fn answer(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "assistant.message")
            .and_then(|e| e["data"]["content"].as_str())
    }

    /// Log lines containing `needle`.
    pub(crate) fn log_lines(&self, needle: &str) -> Vec<&str> {
        self.log.lines().filter(|l| l.contains(needle)).collect()
    }

    /// A summary for assertion messages: exit, stderr, the hook runs and the log's hook
    /// warnings and errors.
    pub(crate) fn evidence(&self) -> String {
        let log: Vec<&str> = self
            .log
            .lines()
            .filter(|l| l.contains("hook") && (l.contains("[WARNING]") || l.contains("[ERROR]")))
            .collect();
        format!(
            "exit {:?} after {:.1} s\nstderr:\n{}\nhook runs: {:?}\nfailed hooks: {:#?}\nlog:\n{}",
            self.finished.status,
            self.finished.elapsed.as_secs_f64(),
            self.finished.stderr,
            self.hook_runs(),
            self.failed_hooks(),
            log.join("\n")
        )
    }
}
