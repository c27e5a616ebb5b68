//! Gemini CLI in headless mode (`gemini -p`), pointed at the scripted model server.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Agent, AgentRun, Folder, HookFailures, RUN_LIMIT, Recorded, Sandbox, base_command};
use crate::fixtures::{self, Recorder};
use crate::install::GEMINI;
use crate::model::ModelServer;
use crate::process::Finished;

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

impl Gemini {
    /// The user settings file, `~/.gemini/settings.json`.
    pub(crate) fn user_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".gemini/settings.json")
    }

    /// The project settings file, `.gemini/settings.json`.
    pub(crate) fn project_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".gemini/settings.json")
    }

    /// `gemini -p PROMPT` in the sandbox against `server`, the folder trusted
    /// (`GEMINI_CLI_TRUST_WORKSPACE=true`) or left to folder trust (on by default), killed
    /// after `limit`.
    pub(crate) fn run_in(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        folder: Folder,
        prompt: &str,
        limit: std::time::Duration,
    ) -> GeminiRun {
        let n = super::next_run();
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("GOOGLE_GEMINI_BASE_URL", server.url())
            .env("GEMINI_API_KEY", "e2e-dummy-key")
            .env("GEMINI_TELEMETRY_ENABLED", "false");
        if folder == Folder::Trusted {
            cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        }
        cmd.args(["-p", prompt])
            .args(["--approval-mode", "yolo", "--output-format", "json"])
            .args(["-m", MODEL, "--debug"]);
        let finished = super::run_against(cmd, sandbox, server, &format!("gemini-{n}"), limit);
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
}

impl Agent for Gemini {
    const NAME: &'static str = "gemini";
    type Run = GeminiRun;

    fn for_suite() -> Gemini {
        Gemini {
            binary: GEMINI.for_suite(),
        }
    }

    /// Writes the user settings an offline run needs: API-key auth (for
    /// `GOOGLE_GEMINI_BASE_URL`, set by each run), and no usage statistics, telemetry or update
    /// checks.
    fn configure(sandbox: &Sandbox, _: &ModelServer) {
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

    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        sandbox.hooks(&["install", "gemini", "--project"], &[])
    }

    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        Gemini::project_settings(sandbox)
    }

    /// In a trusted folder.
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> GeminiRun {
        self.run_in(sandbox, server, Folder::Trusted, prompt, RUN_LIMIT)
    }
}

impl Recorded for Gemini {
    const GATE: &'static str = "BeforeTool";

    fn user_hooks(sandbox: &Sandbox) -> PathBuf {
        Gemini::user_settings(sandbox)
    }

    fn project_hooks(sandbox: &Sandbox) -> PathBuf {
        Gemini::project_settings(sandbox)
    }

    /// In a group of its own.
    fn add_hook(path: &Path, event: &str, handler: Value) {
        fixtures::add_group(path, event, json!({ "hooks": [handler] }));
    }

    /// Named `rec-EVENT`, with a 30 s timeout (in ms).
    fn recorder_handler(recorder: &Recorder, event: &str) -> Value {
        json!({
            "type": "command", "command": recorder.command(event),
            "name": format!("rec-{event}"), "timeout": 30_000,
        })
    }
}

impl AgentRun for GeminiRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    fn answer(&self) -> Option<String> {
        self.response().map(str::to_owned)
    }

    /// A summary for assertion messages: exit, the JSON output and the hook lines of stderr.
    fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .finished
            .stderr
            .lines()
            .filter(|l| l.to_lowercase().contains("hook"))
            .collect();
        format!(
            "{}\nstdout:\n{}\nstderr (hook lines):\n{}",
            self.finished.summary(),
            self.finished.stdout,
            hook_lines.join("\n")
        )
    }
}

impl HookFailures for GeminiRun {
    /// Stderr lines in which Gemini CLI reports a failed hook (`Hook(s) [NAME] failed for event
    /// EVENT`, `Hook execution error: ...`).
    fn hook_failures(&self) -> Vec<String> {
        self.finished
            .stderr
            .lines()
            .filter(|l| {
                (l.contains("Hook(s) [") && l.contains("failed for event"))
                    || l.contains("Hook execution error")
            })
            .map(str::to_owned)
            .collect()
    }
}
