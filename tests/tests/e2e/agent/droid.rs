//! Factory Droid in exec mode (`droid exec`), with the scripted model server as a custom
//! Chat Completions model; offline (`FACTORY_AIRGAP_ENABLED`), no login.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Agent, AgentRun, HookFailures, RUN_LIMIT, Recorded, Sandbox, base_command};
use crate::fixtures::{self, Recorder};
use crate::install::DROID;
use crate::model::ModelServer;
use crate::process::Finished;

/// The custom model's display name; Droid names the model `custom:<name>-<index>`.
const MODEL_NAME: &str = "E2E";

/// An installed Factory Droid.
pub(crate) struct Droid {
    binary: PathBuf,
}

/// One `droid exec` run.
#[derive(Debug)]
pub(crate) struct DroidRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Its stdout, the `-o json` result object; `Null` when it printed none.
    pub(crate) output: Value,
    /// Its log (`~/.factory/logs/droid-log-single.log`), where each hook command's exit code
    /// and stderr is an `[Hooks] Command completed` line.
    pub(crate) log: String,
}

impl Droid {
    /// The user settings file, `~/.factory/settings.json`.
    pub(crate) fn user_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".factory/settings.json")
    }

    /// The project settings file, `.factory/settings.json`.
    pub(crate) fn project_settings(sandbox: &Sandbox) -> PathBuf {
        sandbox.project.join(".factory/settings.json")
    }
}

impl DroidRun {
    /// The final answer (`result`).
    pub(crate) fn result(&self) -> Option<&str> {
        self.output["result"].as_str()
    }

    /// The exit codes of the hook commands, from the log's `[Hooks] Command completed` lines.
    pub(crate) fn hook_exit_codes(&self) -> Vec<i64> {
        self.log
            .lines()
            .filter(|l| l.contains("[Hooks] Command completed"))
            .filter_map(|l| {
                let context = l.split_once("Context: ")?.1;
                serde_json::from_str::<Value>(context).ok()?["exitCode"].as_i64()
            })
            .collect()
    }
}

impl Agent for Droid {
    const NAME: &'static str = "droid";
    type Run = DroidRun;

    fn for_suite() -> Droid {
        Droid {
            binary: DROID.for_suite(),
        }
    }

    /// Writes the user settings that make `server` the custom model.
    fn configure(sandbox: &Sandbox, server: &ModelServer) {
        fixtures::set_setting(
            &Droid::user_settings(sandbox),
            "/customModels",
            json!([{
                "model": "e2e-model", "displayName": MODEL_NAME,
                "baseUrl": format!("{}/v1", server.url()), "apiKey": "e2e-dummy-key",
                "provider": "generic-chat-completion-api", "maxOutputTokens": 1024,
            }]),
        );
    }

    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        sandbox.hooks(&["install", "droid", "--project"], &[])
    }

    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        Droid::project_settings(sandbox)
    }

    /// `droid exec PROMPT` in the sandbox (configured for `server` by [`Agent::configure`]).
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> DroidRun {
        let n = super::next_run();
        let log_path = sandbox.home.join(".factory/logs/droid-log-single.log");
        let logged_before = fs::read_to_string(&log_path).map_or(0, |l| l.len());
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("FACTORY_AIRGAP_ENABLED", "true")
            .env("FACTORY_DROID_AUTO_UPDATE_ENABLED", "false")
            .env("FACTORY_DISABLE_DYNAMIC_CONFIG", "true")
            .env("FACTORY_DISABLE_KEYRING", "true")
            .args(["exec", "--skip-permissions-unsafe"])
            .args(["-m", &format!("custom:{MODEL_NAME}-0"), "-o", "json"])
            .arg(prompt);
        let finished = super::run_against(cmd, sandbox, server, &format!("droid-{n}"), RUN_LIMIT);
        let output = serde_json::from_str(finished.stdout.trim()).unwrap_or(Value::Null);
        let log = fs::read_to_string(&log_path)
            .map(|l| l.get(logged_before..).unwrap_or_default().to_owned())
            .unwrap_or_default();
        DroidRun {
            finished,
            output,
            log,
        }
    }
}

impl Recorded for Droid {
    const GATE: &'static str = "PreToolUse";

    fn user_hooks(sandbox: &Sandbox) -> PathBuf {
        Droid::user_settings(sandbox)
    }

    fn project_hooks(sandbox: &Sandbox) -> PathBuf {
        Droid::project_settings(sandbox)
    }

    /// In a group of its own.
    fn add_hook(path: &Path, event: &str, handler: Value) {
        fixtures::add_group(path, event, json!({ "hooks": [handler] }));
    }

    /// With a 30 s timeout (Droid's handlers have no name).
    fn recorder_handler(recorder: &Recorder, event: &str) -> Value {
        json!({"type": "command", "command": recorder.command(event), "timeout": 30})
    }
}

impl AgentRun for DroidRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    fn answer(&self) -> Option<String> {
        self.result().map(str::to_owned)
    }

    /// A summary for assertion messages: exit, stdout, stderr and the log's hook lines.
    fn evidence(&self) -> String {
        let hook_lines: Vec<&str> = self
            .log
            .lines()
            .filter(|l| l.contains("[Hooks]"))
            .map(|l| l.split(",\"tags\"").next().unwrap_or(l))
            .collect();
        format!(
            "{}\nstdout:\n{}\nstderr:\n{}\nlog (hook lines):\n{}",
            self.finished.summary(),
            self.finished.stdout,
            self.finished.stderr,
            hook_lines.join("\n")
        )
    }
}

impl HookFailures for DroidRun {
    /// The hook commands that exited other than 0 ([`DroidRun::hook_exit_codes`]), and a line
    /// when no hook command completed at all (the hooks did not run).
    fn hook_failures(&self) -> Vec<String> {
        let codes = self.hook_exit_codes();
        if codes.is_empty() {
            return vec!["no hook command completed".to_owned()];
        }
        codes
            .iter()
            .filter(|&&c| c != 0)
            .map(|c| format!("a hook command exited {c}"))
            .collect()
    }
}
