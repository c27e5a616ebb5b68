//! Qwen Code in headless mode (`qwen -p`), with the scripted model server as its OpenAI
//! (Chat Completions) provider.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

use super::{RUN_LIMIT, Sandbox, base_command};
use crate::fixtures;
use crate::install::QWEN;
use crate::model::ModelServer;
use crate::process::{self, Finished};

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
    /// Qwen Code for a suite, or `None` when the suite is skipped (see
    /// [`crate::install::Package::for_suite`]).
    pub(crate) fn for_suite() -> Option<Qwen> {
        QWEN.for_suite().map(|binary| Qwen { binary })
    }

    /// The user settings file, `~/.qwen/settings.json`.
    pub(crate) fn user_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".qwen/settings.json")
    }

    /// The project settings file, `.qwen/settings.json`.
    pub(crate) fn project_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".qwen/settings.json")
    }

    /// Writes the user settings of an offline run: no usage statistics, telemetry or update
    /// checks, and none of the background memory agents (they would ask the model after the
    /// turn).
    pub(crate) fn configure(sandbox: &Sandbox) {
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

    /// `qwen -p PROMPT` in the sandbox against `server`.
    pub(crate) fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> QwenRun {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
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
        let finished = process::run_bounded(cmd, sandbox.root(), &format!("qwen-{n}"), RUN_LIMIT);
        server.save_log(sandbox.root());
        if !finished.leftovers.is_empty() {
            crate::report(&format!(
                "qwen left processes running, killed: {:?}",
                finished.leftovers
            ));
        }
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

/// The session debug logs in `dir` (not `latest`, a link to the newest).
fn debug_logs(dir: &std::path::Path) -> Vec<PathBuf> {
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

    /// Debug-log lines in which Qwen Code reports a hook failure (`[WARN] [TRUSTED_HOOKS]
    /// Hook(s) [NAME] failed for event EVENT`, `Hook execution error: ...`).
    pub(crate) fn hook_failures(&self) -> Vec<&str> {
        self.debug_log
            .lines()
            .filter(|l| {
                l.contains("[TRUSTED_HOOKS]")
                    && (l.contains("failed for event") || l.contains("Hook execution error"))
            })
            .collect()
    }

    /// A summary for assertion messages: exit, stderr, the result and the debug log's hook
    /// warnings.
    pub(crate) fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .debug_log
            .lines()
            .filter(|l| l.contains("HOOK") && (l.contains("[WARN]") || l.contains("[ERROR]")))
            .collect();
        format!(
            "exit {:?} after {:.1} s\nstderr:\n{}\nresult: {}\ndebug log (hook warnings):\n{}",
            self.finished.status,
            self.finished.elapsed.as_secs_f64(),
            self.finished.stderr,
            self.result().map(Value::to_string).unwrap_or_default(),
            hook_lines.join("\n")
        )
    }
}
