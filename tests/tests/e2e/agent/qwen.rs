//! Qwen Code in headless mode (`qwen -p`), with the scripted model server as its OpenAI
//! (Chat Completions) provider.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Agent, AgentRun, HookFailures, RUN_LIMIT, Recorded, Sandbox, base_command};
use crate::fixtures::{self, Recorder};
use crate::install::QWEN;
use crate::model::ModelServer;
use crate::process::Finished;

/// An installed Qwen Code.
pub(crate) struct Qwen {
    binary: PathBuf,
}

/// One `qwen -p` run.
#[derive(Debug)]
pub(crate) struct QwenRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Its stdout, the `--output-format json` array of messages (`system`, `assistant`,
    /// `user`, `result`); empty when it printed none.
    pub(crate) output: Vec<Value>,
    /// Its debug log (`QWEN_DEBUG_LOG_FILE=1`: `~/.qwen/debug/SESSION.txt`), where hook
    /// failures are `[WARN] [TRUSTED_HOOKS]` lines.
    pub(crate) debug_log: String,
}

impl Qwen {
    /// The user settings file, `~/.qwen/settings.json`.
    pub(crate) fn user_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".qwen/settings.json")
    }

    /// The project settings file, `.qwen/settings.json`.
    pub(crate) fn project_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".qwen/settings.json")
    }
}

/// The session debug logs in `dir` (not `latest`, a link to the newest).
fn debug_logs(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect()
}

impl QwenRun {
    /// The `result` message.
    pub(crate) fn result(&self) -> Option<&Value> {
        self.output.iter().rev().find(|m| m["type"] == "result")
    }
}

impl Agent for Qwen {
    const NAME: &'static str = "qwen";
    type Run = QwenRun;

    fn for_suite() -> Qwen {
        Qwen {
            binary: QWEN.for_suite(),
        }
    }

    /// Writes the user settings of an offline run: no usage statistics, telemetry or update
    /// checks, and none of the background memory agents (they would ask the model after the
    /// turn).
    fn configure(sandbox: &Sandbox, _: &ModelServer) {
        let settings = Qwen::user_settings(sandbox);
        for (pointer, value) in [
            ("/privacy/usageStatisticsEnabled", json!(false)),
            ("/telemetry/enabled", json!(false)),
            ("/general/enableAutoUpdate", json!(false)),
            ("/memory/enableManagedAutoMemory", json!(false)),
            ("/memory/enableManagedAutoDream", json!(false)),
            ("/memory/enableAutoSkill", json!(false)),
        ] {
            fixtures::set_setting(&settings, pointer, value);
        }
    }

    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        sandbox.hooks(&["install", "qwen", "--project"], &[])
    }

    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        Qwen::project_settings(sandbox)
    }

    /// `qwen -p PROMPT` in the sandbox against `server`.
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> QwenRun {
        let n = super::next_run();
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("OPENAI_API_KEY", "e2e-dummy-key")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("OPENAI_MODEL", "e2e-model")
            .env("QWEN_USAGE_STATISTICS_ENABLED", "0")
            .env("QWEN_TELEMETRY_ENABLED", "0")
            .env("QWEN_DEBUG_LOG_FILE", "1")
            .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
            .args(["-p", prompt])
            .args(["--auth-type", "openai", "--approval-mode", "yolo"])
            .args(["--output-format", "json"]);
        let debug_dir = sandbox.home.join(".qwen/debug");
        let before: Vec<PathBuf> = debug_logs(&debug_dir);
        let finished = super::run_against(cmd, sandbox, server, &format!("qwen-{n}"), RUN_LIMIT);
        let output = serde_json::from_str::<Value>(finished.stdout.trim())
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default();
        let debug_log = debug_logs(&debug_dir)
            .into_iter()
            .filter(|p| !before.contains(p))
            .map(|p| fs::read_to_string(p).unwrap_or_default())
            .collect();
        QwenRun {
            finished,
            output,
            debug_log,
        }
    }
}

impl Recorded for Qwen {
    const GATE: &'static str = "PreToolUse";

    fn user_hooks(sandbox: &Sandbox) -> PathBuf {
        Qwen::user_settings(sandbox)
    }

    fn project_hooks(sandbox: &Sandbox) -> PathBuf {
        Qwen::project_settings(sandbox)
    }

    /// In a group of its own.
    fn add_hook(path: &Path, event: &str, handler: Value) {
        fixtures::add_group(path, event, json!({ "hooks": [handler] }));
    }

    /// Named `rec-EVENT`, with a 30 s timeout.
    fn recorder_handler(recorder: &Recorder, event: &str) -> Value {
        json!({
            "type": "command", "command": recorder.command(event),
            "name": format!("rec-{event}"), "timeout": 30,
        })
    }
}

impl AgentRun for QwenRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    /// The `result` message's text.
    fn answer(&self) -> Option<String> {
        self.result()
            .and_then(|r| r["result"].as_str())
            .map(str::to_owned)
    }

    /// A summary for assertion messages: exit, stderr, the result and the debug log's hook
    /// warnings.
    fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .debug_log
            .lines()
            .filter(|l| l.contains("HOOK") && (l.contains("[WARN]") || l.contains("[ERROR]")))
            .collect();
        format!(
            "{}\nstderr:\n{}\nresult: {}\ndebug log (hook warnings):\n{}",
            self.finished.summary(),
            self.finished.stderr,
            self.result().map(Value::to_string).unwrap_or_default(),
            hook_lines.join("\n")
        )
    }
}

impl HookFailures for QwenRun {
    /// Debug-log lines in which Qwen Code reports a hook failure (`[WARN] [TRUSTED_HOOKS]
    /// Hook(s) [NAME] failed for event EVENT`, `Hook execution error: ...`).
    fn hook_failures(&self) -> Vec<String> {
        self.debug_log
            .lines()
            .filter(|l| {
                l.contains("[TRUSTED_HOOKS]")
                    && (l.contains("failed for event") || l.contains("Hook execution error"))
            })
            .map(str::to_owned)
            .collect()
    }
}
