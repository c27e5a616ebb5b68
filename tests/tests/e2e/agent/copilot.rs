//! Copilot CLI in prompt mode (`copilot -p`), offline with a BYOK provider: the scripted model
//! server as an OpenAI Chat Completions endpoint, no GitHub login.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Agent, AgentRun, Folder, HookFailures, RUN_LIMIT, Recorded, Sandbox, base_command};
use crate::fixtures::{self, Recorder};
use crate::install::{COPILOT, cache_dir};
use crate::model::ModelServer;
use crate::process::Finished;

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

impl Copilot {
    /// A user hook file in Copilot's own format, `~/.copilot/hooks/NAME.json`.
    pub(crate) fn user_hooks(sandbox: &Sandbox, name: &str) -> PathBuf {
        sandbox.home.join(format!(".copilot/hooks/{name}.json"))
    }

    /// A project hook file, `.github/hooks/NAME.json`.
    pub(crate) fn project_hooks(sandbox: &Sandbox, name: &str) -> PathBuf {
        sandbox.project.join(format!(".github/hooks/{name}.json"))
    }

    /// `copilot -p PROMPT` in the sandbox against `server`, with `env` added; trusted
    /// (`--trust-folder`: the project's configuration, `.github/hooks`, loads for this run) or
    /// not.
    pub(crate) fn run_in(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        folder: Folder,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> CopilotRun {
        let n = super::next_run();
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
        let finished = super::run_against(cmd, sandbox, server, &format!("copilot-{n}"), RUN_LIMIT);
        let events = super::json_lines(&finished.stdout);
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
            super::json_lines(&fs::read_to_string(session_log).unwrap_or_default())
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

/// Adds `handler` to `event` in a hook file of Copilot's own format, creating it when missing.
pub(crate) fn add_native(path: &Path, event: &str, handler: Value) {
    let mut file = fixtures::read_settings_or_empty(path);
    file["version"] = json!(1);
    let mut handlers = file["hooks"][event].as_array().cloned().unwrap_or_default();
    handlers.push(handler);
    file["hooks"][event] = Value::Array(handlers);
    fs::create_dir_all(path.parent().expect("hook file directory")).expect("mkdir");
    fixtures::write_settings(path, &file);
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
    pub(crate) fn message(&self) -> Option<&str> {
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
}

impl Agent for Copilot {
    const NAME: &'static str = "copilot";
    type Run = CopilotRun;

    fn for_suite() -> Copilot {
        let binary = COPILOT.for_suite();
        let runtime = COPILOT.xdg_cache_in(&cache_dir()).join("copilot/pkg");
        Copilot { binary, runtime }
    }

    /// Nothing: each run names the server in its environment.
    fn configure(_: &Sandbox, _: &ModelServer) {}

    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        sandbox.hooks(&["install", "copilot", "--project"], &[])
    }

    /// `.github/hooks/hooks.json`.
    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        Copilot::project_hooks(sandbox, "hooks")
    }

    /// With the folder trusted, so that the project's hooks load.
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> CopilotRun {
        self.run_in(sandbox, server, Folder::Trusted, prompt, &[])
    }
}

impl Recorded for Copilot {
    const GATE: &'static str = "preToolUse";

    /// `~/.copilot/hooks/e2e.json`.
    fn user_hooks(sandbox: &Sandbox) -> PathBuf {
        Copilot::user_hooks(sandbox, "e2e")
    }

    /// `.github/hooks/e2e.json`.
    fn project_hooks(sandbox: &Sandbox) -> PathBuf {
        Copilot::project_hooks(sandbox, "e2e")
    }

    /// In Copilot's own format.
    fn add_hook(path: &Path, event: &str, handler: Value) {
        add_native(path, event, handler);
    }

    /// With a 30 s timeout.
    fn recorder_handler(recorder: &Recorder, event: &str) -> Value {
        json!({"type": "command", "bash": recorder.command(event), "timeoutSec": 30})
    }

    /// Untrusted: Copilot CLI runs the user's hooks in any folder.
    fn run_recorded(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> CopilotRun {
        self.run_in(sandbox, server, Folder::Untrusted, prompt, &[])
    }
}

impl AgentRun for CopilotRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    /// The last `assistant.message`.
    fn answer(&self) -> Option<String> {
        self.message().map(str::to_owned)
    }

    /// A summary for assertion messages: exit, stderr, the hook runs and the log's hook
    /// warnings and errors.
    fn evidence(&self) -> String {
        let log: Vec<&str> = self
            .log
            .lines()
            .filter(|l| l.contains("hook") && (l.contains("[WARNING]") || l.contains("[ERROR]")))
            .collect();
        format!(
            "{}\nstderr:\n{}\nhook runs: {:?}\nfailed hooks: {:#?}\nlog:\n{}",
            self.finished.summary(),
            self.finished.stderr,
            self.hook_runs(),
            self.failed_hooks(),
            log.join("\n")
        )
    }
}

impl HookFailures for CopilotRun {
    /// The failed `hook.end` records ([`CopilotRun::failed_hooks`]) and the log's warnings and
    /// errors about a hook command (`[rust:hooks]`).
    fn hook_failures(&self) -> Vec<String> {
        let mut failures = self.failed_hooks();
        failures.extend(
            self.log_lines("[rust:hooks]")
                .into_iter()
                .filter(|l| l.contains("[ERROR]") || l.contains("[WARNING]"))
                .map(str::to_owned),
        );
        failures
    }
}
