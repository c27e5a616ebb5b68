//! Codex in exec mode (`codex exec`), pointed at the scripted model server.

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Agent, AgentRun, RUN_LIMIT, Sandbox, base_command};
use crate::install::CODEX;
use crate::model::ModelServer;
use crate::process::{self, Finished};
use crate::timing::{HookTime, HookTimes};

/// An installed Codex.
pub(crate) struct Codex {
    binary: PathBuf,
}

/// One `codex exec` run.
#[derive(Debug)]
pub(crate) struct CodexRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Its stdout, one `--json` event per line.
    pub(crate) events: Vec<Value>,
}

/// Whether Codex may run hooks nobody has trusted (`--dangerously-bypass-hook-trust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trust {
    /// Bypass the trust check: hooks run as installed.
    Bypass,
    /// Leave it to `config.toml`, as a user's run would.
    Config,
}

impl Codex {
    /// `$CODEX_HOME` of the sandbox.
    pub(crate) fn home(sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(".codex")
    }

    /// Writes `config.toml` pointing Codex at `server` (`extra` TOML appended at the top
    /// level, before the tables).
    pub(crate) fn configure_with(sandbox: &Sandbox, server: &ModelServer, extra: &str) {
        let home = Codex::home(sandbox);
        fs::create_dir_all(&home).expect("CODEX_HOME");
        let config = format!(
            "model = \"e2e-model\"\n\
             model_provider = \"e2e\"\n\
             {extra}\n\
             [model_providers.e2e]\n\
             name = \"e2e\"\n\
             base_url = \"{}/v1\"\n\
             wire_api = \"responses\"\n\
             env_key = \"E2E_API_KEY\"\n\
             request_max_retries = 0\n\
             stream_max_retries = 0\n",
            server.url()
        );
        fs::write(home.join("config.toml"), config).expect("write config.toml");
    }

    /// Trusts every command hook in the sandbox's `hooks.json` the way Codex's own review does:
    /// one `[hooks.state."<hooks.json>:<event>:<group>:<handler>"]` table per handler, with
    /// `trusted_hash` = [`trust_hash`] of it, appended to `config.toml`.
    pub(crate) fn trust_hooks(sandbox: &Sandbox) {
        let home = Codex::home(sandbox);
        let hooks_json = Codex::installed_hooks(sandbox);
        let hooks: Value =
            serde_json::from_str(&fs::read_to_string(&hooks_json).expect("read hooks.json"))
                .expect("parse hooks.json");
        let mut tables = String::new();
        for (event, groups) in hooks["hooks"].as_object().into_iter().flatten() {
            let label = snake_case(event);
            for (i, group) in groups.as_array().into_iter().flatten().enumerate() {
                for (j, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                    let key = format!("{}:{label}:{i}:{j}", hooks_json.display());
                    let hash = trust_hash(&label, group["matcher"].as_str(), handler);
                    tables.push_str(&format!(
                        "\n[hooks.state.{}]\ntrusted_hash = \"{hash}\"\n",
                        Value::String(key)
                    ));
                }
            }
        }
        let config = home.join("config.toml");
        let mut text = fs::read_to_string(&config).expect("read config.toml");
        text.push_str(&tables);
        fs::write(&config, text).expect("write config.toml");
    }

    /// `hooks install codex --user --trust`: the hooks installed and trusted in the sandbox's
    /// `config.toml`.
    pub(crate) fn install_trusted_hooks(sandbox: &Sandbox) -> Finished {
        let home = Codex::home(sandbox);
        sandbox.hooks(
            &["install", "codex", "--user", "--trust"],
            &[("CODEX_HOME", &home)],
        )
    }

    /// `codex exec FLAGS [ARGS] PROMPT` in the sandbox (`ARGS` such as `resume --last` come
    /// after the flags) (configured for `server` by
    /// [`Codex::configure_with`]).
    pub(crate) fn exec(
        &self,
        sandbox: &Sandbox,
        server: &ModelServer,
        trust: Trust,
        args: &[&str],
        prompt: &str,
    ) -> CodexRun {
        let n = super::next_run();
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("CODEX_HOME", Codex::home(sandbox))
            .env("E2E_API_KEY", "e2e-dummy-key")
            .arg("exec")
            .args(["--json", "--skip-git-repo-check", "--color", "never"])
            .arg("--dangerously-bypass-approvals-and-sandbox");
        if trust == Trust::Bypass {
            cmd.arg("--dangerously-bypass-hook-trust");
        }
        cmd.arg("-C").arg(&sandbox.project).args(args).arg(prompt);
        let finished = super::run_against(cmd, sandbox, server, &format!("codex-{n}"), RUN_LIMIT);
        let events = super::json_lines(&finished.stdout);
        CodexRun { finished, events }
    }
}

/// `PreToolUse` -> `pre_tool_use`: the event label in Codex's trust keys and hashes.
pub(crate) fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The hash Codex 0.169.0 trusts a command hook by (`currentHash` in its `hooks/list`): SHA-256
/// of the compact JSON, keys sorted, of the normalised hook identity
/// `{"event_name": LABEL, "hooks": [{"async": BOOL, "command": CMD, "timeout": SECS (600 when
/// unset), "type": "command", ["statusMessage": MSG]}], ["matcher": M]}`, as `sha256:<hex>`.
/// The path of `hooks.json` is part of the trust key, not of the hash.
pub(crate) fn trust_hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    use sha2::{Digest, Sha256};
    let mut normalised = serde_json::Map::new();
    normalised.insert(
        "async".into(),
        json!(handler["async"].as_bool().unwrap_or(false)),
    );
    normalised.insert("command".into(), handler["command"].clone());
    normalised.insert(
        "timeout".into(),
        json!(handler["timeout"].as_u64().unwrap_or(600).max(1)),
    );
    normalised.insert("type".into(), json!("command"));
    if let Some(message) = handler["statusMessage"].as_str() {
        normalised.insert("statusMessage".into(), json!(message));
    }
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), json!(label));
    identity.insert("hooks".into(), json!([normalised]));
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), json!(matcher));
    }
    let canonical = sorted(&Value::Object(identity)).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `value` with every object's keys in sorted order (Codex's canonical JSON).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

impl Codex {
    /// `codex app-server` in the sandbox with `requests` (JSON-RPC lines) on stdin, kept open
    /// until it printed a line that `answered` accepts; it exits at the end of its input.
    pub(crate) fn app_server(
        &self,
        sandbox: &Sandbox,
        requests: &[u8],
        answered: &dyn Fn(&str) -> bool,
    ) -> Finished {
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("CODEX_HOME", Codex::home(sandbox))
            .env("E2E_API_KEY", "e2e-dummy-key")
            .arg("app-server");
        let input = process::Input::UntilAnswer(requests, answered);
        process::run_bounded_with_input(cmd, &input, sandbox.root(), "app-server", RUN_LIMIT)
    }
}

/// One turn through `codex app-server` (the backend of Codex's TUI and app): its JSON-RPC
/// messages, in order.
#[derive(Debug)]
pub(crate) struct AppServerTurn {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// Every JSON message it printed.
    pub(crate) messages: Vec<Value>,
}

impl AppServerTurn {
    /// The hook runs reported with `hook/completed` for `event` (`userPromptSubmit`, ...), in
    /// order: `{eventName, status, entries: [{kind, text}], ...}`.
    pub(crate) fn hook_runs(&self, event: &str) -> Vec<&Value> {
        self.messages
            .iter()
            .filter(|m| m["method"] == "hook/completed" && m["params"]["run"]["eventName"] == event)
            .map(|m| &m["params"]["run"])
            .collect()
    }

    /// The texts of the entries of kind `kind` in every hook run of `event`.
    pub(crate) fn entries(&self, event: &str, kind: &str) -> Vec<String> {
        self.hook_runs(event)
            .iter()
            .flat_map(|run| run["entries"].as_array().cloned().unwrap_or_default())
            .filter(|e| e["kind"] == kind)
            .filter_map(|e| e["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// The time of every hook run, from the `durationMs` Codex reports in `hook/completed`:
    /// the event is its `eventName` (`preToolUse`), the command the run's `id` (it names the
    /// handler's place: `pre-tool-use:4:<hooks.json>`), the status 0 for `completed`, 2 for
    /// `blocked`, else -1.
    pub(crate) fn hook_times(&self) -> HookTimes {
        HookTimes(
            self.messages
                .iter()
                .filter(|m| m["method"] == "hook/completed")
                .map(|m| &m["params"]["run"])
                .map(|run| HookTime {
                    event: run["eventName"].as_str().unwrap_or_default().to_owned(),
                    command: run["id"].as_str().unwrap_or_default().to_owned(),
                    status: match run["status"].as_str() {
                        Some("completed") => 0,
                        Some("blocked") => 2,
                        _ => -1,
                    },
                    ms: run["durationMs"].as_u64().unwrap_or(0),
                })
                .collect(),
        )
    }

    /// The `turn/completed` notification's turn, if the turn completed.
    pub(crate) fn completed_turn(&self) -> Option<&Value> {
        self.messages
            .iter()
            .find(|m| m["method"] == "turn/completed")
            .map(|m| &m["params"]["turn"])
    }

    /// A summary for assertion messages.
    pub(crate) fn evidence(&self) -> String {
        format!(
            "{}\nstderr:\n{}\nmessages:\n{}",
            self.finished.summary(),
            self.finished.stderr,
            self.finished.stdout,
        )
    }
}

impl Codex {
    /// One turn with `prompt` in a new thread of `codex app-server` in the sandbox (configured
    /// for a model server by [`Codex::configure_with`]; approvals off, no sandbox): `initialize`,
    /// `thread/start`, `turn/start`, and the end of input once the turn completed. Hooks run
    /// only when trusted (the app server has no bypass).
    pub(crate) fn app_server_turn(&self, sandbox: &Sandbox, prompt: &str) -> AppServerTurn {
        let mut cmd = base_command(&self.binary, sandbox);
        cmd.env("CODEX_HOME", Codex::home(sandbox))
            .env("E2E_API_KEY", "e2e-dummy-key")
            .arg("app-server")
            .args(["-c", "approval_policy=\"never\""])
            .args(["-c", "sandbox_mode=\"danger-full-access\""]);
        let line = |v: Value| format!("{v}\n");
        let mut opening = line(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"clientInfo": {"name": "hooks-e2e", "version": "0"}}}));
        opening.push_str(&line(json!({"jsonrpc": "2.0", "method": "initialized"})));
        opening.push_str(&line(
            json!({"jsonrpc": "2.0", "id": 2, "method": "thread/start",
            "params": {"cwd": sandbox.project}}),
        ));
        let conversation = |stdout: &str| -> Option<Vec<u8>> {
            let messages = super::json_lines(stdout);
            if messages
                .iter()
                .any(|m| m["method"] == "turn/completed" || m["id"] == 3 && m["error"].is_object())
            {
                return None;
            }
            let mut input = opening.clone();
            if let Some(thread) = messages
                .iter()
                .find(|m| m["id"] == 2)
                .and_then(|m| m["result"]["thread"]["id"].as_str())
            {
                input.push_str(&line(
                    json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start",
                    "params": {"threadId": thread,
                               "input": [{"type": "text", "text": prompt, "text_elements": []}]}}),
                ));
            }
            Some(input.into_bytes())
        };
        let finished = process::run_bounded_with_input(
            cmd,
            &process::Input::Conversation(&conversation),
            sandbox.root(),
            "app-server-turn",
            RUN_LIMIT,
        );
        let messages = super::json_lines(&finished.stdout);
        AppServerTurn { finished, messages }
    }
}

impl Agent for Codex {
    const NAME: &'static str = "codex";
    type Run = CodexRun;

    fn for_suite() -> Codex {
        Codex {
            binary: CODEX.for_suite(),
        }
    }

    /// [`Codex::configure_with`] no more configuration.
    fn configure(sandbox: &Sandbox, server: &ModelServer) {
        Codex::configure_with(sandbox, server, "");
    }

    /// `hooks install codex` at user scope, under the sandbox's `CODEX_HOME`.
    fn install_hooks(&self, sandbox: &Sandbox) -> Finished {
        let home = Codex::home(sandbox);
        sandbox.hooks(&["install", "codex", "--user"], &[("CODEX_HOME", &home)])
    }

    /// `$CODEX_HOME/hooks.json`.
    fn installed_hooks(sandbox: &Sandbox) -> PathBuf {
        Codex::home(sandbox).join("hooks.json")
    }

    /// `codex exec` with the hook trust check bypassed.
    fn run(&self, sandbox: &Sandbox, server: &ModelServer, prompt: &str) -> CodexRun {
        self.exec(sandbox, server, Trust::Bypass, &[], prompt)
    }
}

impl AgentRun for CodexRun {
    fn finished(&self) -> &Finished {
        &self.finished
    }

    /// The last `agent_message` item's text.
    fn answer(&self) -> Option<String> {
        self.events
            .iter()
            .rev()
            .find(|e| e["item"]["type"] == "agent_message")
            .and_then(|e| e["item"]["text"].as_str())
            .map(str::to_owned)
    }

    /// A summary for assertion messages: exit, stderr and the events.
    fn evidence(&self) -> String {
        format!(
            "{}\nstderr:\n{}\nevents:\n{}",
            self.finished.summary(),
            self.finished.stderr,
            self.finished.stdout,
        )
    }
}
