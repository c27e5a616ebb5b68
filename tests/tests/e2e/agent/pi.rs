//! pi 0.73.1 (node) and oh-my-pi 18.2.3 (bun) in print mode, pointed at the scripted model
//! server over Anthropic Messages, with a stand-in extension ([`Probe`], `pi_probe.ts`) that
//! logs every event it gets and answers what the scenario tells it.
//!
//! Both agents keep their configuration under the sandbox's `HOME` (`~/.pi/agent`,
//! `~/.omp/agent`). Every run has `PI_OFFLINE=1`, `PI_TELEMETRY=0` and `HTTP(S)_PROXY` set to a
//! closed port on 127.0.0.1 with `NO_PROXY=127.0.0.1,localhost`: both agents send their
//! fetches through that proxy (pi installs undici's `EnvHttpProxyAgent`, bun's fetch reads the
//! variables), so what is not the model server (oh-my-pi's model catalog refresh) is refused
//! on the loopback instead of leaving the machine, and no name is looked up.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{RUN_LIMIT, Sandbox, base_command};
use crate::install::{OMP, PI, Package};
use crate::model::{ModelServer, Step};
use crate::process::{self, Finished};

/// The stand-in extension's source.
const PROBE_SOURCE: &str = include_str!("pi_probe.ts");

/// Which of the two agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// pi (`@mariozechner/pi-coding-agent`).
    Pi,
    /// oh-my-pi (`@oh-my-pi/pi-coding-agent`).
    Omp,
}

impl Flavor {
    fn package(self) -> &'static Package {
        match self {
            Flavor::Pi => &PI,
            Flavor::Omp => &OMP,
        }
    }

    /// `pi` or `omp`: the fixture directory and log prefix.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Flavor::Pi => "pi",
            Flavor::Omp => "omp",
        }
    }

    /// The configuration directory's name, in the project and in `HOME`.
    pub(crate) fn config_dir(self) -> &'static str {
        match self {
            Flavor::Pi => ".pi",
            Flavor::Omp => ".omp",
        }
    }

    /// The shell tool as the agent offers it over Anthropic Messages (oh-my-pi prefixes its
    /// tool names with `_` there and requires an `i` argument).
    pub(crate) fn shell_tool(self) -> &'static str {
        match self {
            Flavor::Pi => "bash",
            Flavor::Omp => "_bash",
        }
    }

    /// A model turn calling the shell tool with `command`.
    pub(crate) fn shell(self, command: &str) -> Step {
        let input = match self {
            Flavor::Pi => json!({ "command": command }),
            Flavor::Omp => json!({ "command": command, "i": "e2e" }),
        };
        Step::tool(self.shell_tool(), input)
    }
}

/// An installed pi or oh-my-pi.
pub(crate) struct PiAgent {
    /// Which one.
    pub(crate) flavor: Flavor,
    binary: PathBuf,
    runtime: Option<PathBuf>,
}

/// One print-mode run.
#[derive(Debug)]
pub(crate) struct PiRun {
    /// The process's exit and output.
    pub(crate) finished: Finished,
    /// When it was started.
    pub(crate) started: SystemTime,
}

/// Where a copy of the probe is put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// `<project>/.pi/extensions/` (`.omp` for oh-my-pi).
    Project,
    /// `~/.pi/agent/extensions/` (`~/.omp/agent/extensions/`).
    User,
    /// Anywhere, named on the command line with `-e PATH`.
    Flag,
}

impl PiAgent {
    /// The agent for a suite (see [`crate::install::Package::for_suite`]).
    pub(crate) fn for_suite(flavor: Flavor) -> PiAgent {
        let package = flavor.package();
        let binary = package.for_suite();
        PiAgent {
            flavor,
            runtime: package.runtime_for(&binary),
            binary,
        }
    }

    /// `~/.pi/agent` (`~/.omp/agent`) of the sandbox.
    pub(crate) fn agent_dir(&self, sandbox: &Sandbox) -> PathBuf {
        sandbox.home.join(self.flavor.config_dir()).join("agent")
    }

    /// Points the agent at `server` (provider `e2e`, model `e2e-model`, a 200,000-token
    /// window); `settings` is oh-my-pi YAML appended to its `config.yml` (ignored for pi).
    pub(crate) fn configure(&self, sandbox: &Sandbox, server: &ModelServer, settings: &str) {
        let dir = self.agent_dir(sandbox);
        fs::create_dir_all(&dir).expect("agent dir");
        match self.flavor {
            Flavor::Pi => {
                let models = json!({"providers": {"e2e": {
                    "baseUrl": server.url(), "api": "anthropic-messages", "apiKey": "e2e-dummy-key",
                    "models": [{"id": "e2e-model", "contextWindow": 200_000, "maxTokens": 4096}],
                }}});
                fs::write(dir.join("models.json"), models.to_string()).expect("models.json");
            }
            Flavor::Omp => {
                let models = format!(
                    "providers:\n  e2e:\n    baseUrl: {}\n    apiKey: e2e-dummy-key\n    \
                     api: anthropic-messages\n    models:\n      - id: e2e-model\n        \
                     name: e2e model\n        contextWindow: 200000\n        maxTokens: 4096\n",
                    server.url()
                );
                fs::write(dir.join("models.yml"), models).expect("models.yml");
                let config = format!(
                    "startup:\n  checkUpdate: false\nmarketplace:\n  autoUpdate: off\n{settings}"
                );
                fs::write(dir.join("config.yml"), config).expect("config.yml");
            }
        }
    }

    /// `AGENT -p PROMPTS...` in the sandbox's project with the probe's environment and
    /// `args` (model selection is added here; `--no-session` or `--session-dir` is the
    /// caller's).
    pub(crate) fn run(
        &self,
        sandbox: &Sandbox,
        probe: &Probe,
        args: &[&str],
        prompts: &[&str],
    ) -> PiRun {
        self.run_with_env(sandbox, probe, args, prompts, &[], RUN_LIMIT)
    }

    /// [`PiAgent::run`] with more environment, killed after `limit`.
    pub(crate) fn run_with_env(
        &self,
        sandbox: &Sandbox,
        probe: &Probe,
        args: &[&str],
        prompts: &[&str],
        env: &[(&str, &str)],
        limit: Duration,
    ) -> PiRun {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let mut cmd = match &self.runtime {
            Some(runtime) => {
                let mut cmd = base_command(runtime, sandbox);
                cmd.arg(&self.binary);
                cmd
            }
            None => base_command(&self.binary, sandbox),
        };
        let proxy = format!("http://127.0.0.1:{}", closed_port());
        cmd.env("PI_OFFLINE", "1")
            .env("PI_TELEMETRY", "0")
            .env("PI_NO_TITLE", "1")
            .env("PI_NOTIFICATIONS", "off")
            .env("HTTP_PROXY", &proxy)
            .env("HTTPS_PROXY", &proxy)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("E2E_PROBE_LOG", &probe.log)
            .env("E2E_PROBE_SCENARIO", &probe.scenario);
        for (k, v) in env {
            cmd.env(k, v);
        }
        match self.flavor {
            Flavor::Pi => cmd.args(["--provider", "e2e", "--model", "e2e-model"]),
            Flavor::Omp => cmd.args(["--model", "e2e/e2e-model", "--yolo"]),
        };
        cmd.args(args).arg("-p").args(prompts);
        let started = SystemTime::now();
        let name = format!("{}-{n}", self.flavor.name());
        let finished = process::run_bounded(cmd, sandbox.root(), &name, limit);
        PiRun { finished, started }
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then let go).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

impl PiRun {
    /// A summary for assertion messages.
    pub(crate) fn evidence(&self) -> String {
        format!(
            "{}\nstdout:\n{}\nstderr:\n{}\nleft running: {:?}",
            self.finished.summary(),
            self.finished.stdout,
            self.finished.stderr,
            self.finished.leftovers,
        )
    }

    /// How long the agent took from its start to loading the probe (`loaded` line of `log`).
    pub(crate) fn time_to_extension(&self, log: &[Value]) -> Option<Duration> {
        let loaded = log.iter().find(|l| l["what"] == "loaded")?["data"]["epochMs"].as_u64()?;
        let started =
            u64::try_from(self.started.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()?;
        Some(Duration::from_millis(loaded.saturating_sub(started)))
    }
}

/// The stand-in extension of one scenario: its scenario file and its log, in the sandbox.
pub(crate) struct Probe {
    /// The JSON lines it writes.
    pub(crate) log: PathBuf,
    /// The scenario it reads.
    pub(crate) scenario: PathBuf,
}

impl Probe {
    /// Writes `scenario` (see `pi_probe.ts`) into the sandbox.
    pub(crate) fn new(sandbox: &Sandbox, scenario: &Value) -> Probe {
        let scenario_path = sandbox.root().join("probe-scenario.json");
        fs::write(&scenario_path, scenario.to_string()).expect("write the probe scenario");
        Probe {
            log: sandbox.root().join("probe.jsonl"),
            scenario: scenario_path,
        }
    }

    /// Puts a copy of the probe named `name` at `place` for `agent`; returns its path.
    pub(crate) fn install(
        &self,
        agent: &PiAgent,
        sandbox: &Sandbox,
        place: Place,
        name: &str,
    ) -> PathBuf {
        let dir = match place {
            Place::Project => sandbox
                .project
                .join(agent.flavor.config_dir())
                .join("extensions"),
            Place::User => agent.agent_dir(sandbox).join("extensions"),
            Place::Flag => sandbox.root().join("flag-extensions"),
        };
        fs::create_dir_all(&dir).expect("extension directory");
        let path = dir.join(format!("probe-{name}.ts"));
        fs::write(&path, PROBE_SOURCE.replace("__PROBE_NAME__", name)).expect("write the probe");
        path
    }

    /// Every line it logged so far.
    pub(crate) fn lines(&self) -> Vec<Value> {
        super::json_lines(&fs::read_to_string(&self.log).unwrap_or_default())
    }
}

/// The lines of `log` for `event` as the agent delivered it (not the handler's own lines).
pub(crate) fn deliveries<'a>(log: &'a [Value], event: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|l| l["event"] == event && l.get("phase").is_none())
        .collect()
}

/// The names of the events in `log` in delivery order, keeping only those in `among`.
pub(crate) fn order(log: &[Value], among: &[&str]) -> Vec<String> {
    log.iter()
        .filter(|l| l.get("phase").is_none())
        .filter_map(|l| l["event"].as_str())
        .filter(|e| among.contains(e))
        .map(str::to_owned)
        .collect()
}

/// The `probe.log(what, data)` data lines of `log` named `what`.
pub(crate) fn notes<'a>(log: &'a [Value], what: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|l| l["event"] == "probe" && l["what"] == what)
        .map(|l| &l["data"])
        .collect()
}
