//! One finding of `hooks doctor`, and the report they make: per agent, then the rest, as text
//! for humans or one JSON object for machines.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::agents::{Agent, ExtensionAgent};

/// How bad a finding is (in JSON: [`Level::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// As it should be.
    Ok,
    /// Works, but not as installed or not as safely as it could.
    Warn,
    /// Broken: a hook does not run, or not as installed.
    Error,
}

impl Level {
    /// `ok`, `warn` or `error`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// One thing `hooks doctor` found: its level, one line, and the command that fixes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// How bad it is.
    pub level: Level,
    /// Whether a gating hook (one on an event that can block a tool call or a prompt:
    /// [`Mapping::is_gating`](crate::agents::Mapping::is_gating)) would not run because of
    /// it: any such error makes `hooks doctor` exit 1.
    pub gating: bool,
    /// Whether the secret of `hooks serve` is in a file git tracks because of it, so that a
    /// commit carries it: any such error makes `hooks doctor` exit 1 too.
    pub leaks_secret: bool,
    /// What was found, one line.
    pub message: String,
    /// The command (or the one edit) that fixes it.
    pub fix: Option<String>,
}

impl Finding {
    /// A finding that all is well.
    #[must_use]
    pub fn ok(message: impl Into<String>) -> Finding {
        Finding {
            level: Level::Ok,
            gating: false,
            leaks_secret: false,
            message: message.into(),
            fix: None,
        }
    }

    /// A warning.
    #[must_use]
    pub fn warn(message: impl Into<String>) -> Finding {
        Finding {
            level: Level::Warn,
            ..Finding::ok(message)
        }
    }

    /// An error; `gating`: a gating hook would not run because of it.
    #[must_use]
    pub fn error(message: impl Into<String>, gating: bool) -> Finding {
        Finding {
            level: Level::Error,
            gating,
            ..Finding::ok(message)
        }
    }

    /// An error: the secret of `hooks serve` is in a file git tracks.
    #[must_use]
    pub fn leak(message: impl Into<String>) -> Finding {
        Finding {
            leaks_secret: true,
            ..Finding::error(message, false)
        }
    }

    /// This finding, with the command that fixes it.
    #[must_use]
    pub fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }
}

/// What `hooks doctor` found about one agent.
#[derive(Debug, Clone)]
pub struct AgentReport {
    /// The agent.
    pub agent: Agent,
    /// Its executable on `PATH`, if there is one.
    pub executable: Option<PathBuf>,
    /// The version it printed (`--version`).
    pub version: Option<semver::Version>,
    /// Why its version could not be read, when it could not.
    pub version_error: Option<String>,
    /// Its config directories that exist (the user's, the project's).
    pub config_dirs: Vec<PathBuf>,
    /// The findings, in the order checked.
    pub findings: Vec<Finding>,
}

/// Everything `hooks doctor` found.
#[derive(Debug, Clone)]
pub struct Report {
    /// This binary.
    pub binary: PathBuf,
    /// The project directory checked.
    pub project: PathBuf,
    /// The agents found on this machine (an executable on `PATH`, a config directory, or an
    /// entry of ours), in [`Agent::ALL`] order.
    pub agents: Vec<AgentReport>,
    /// The agents not found.
    pub not_found: Vec<Agent>,
    /// The findings about no one agent (project hook files, the kill switch).
    pub findings: Vec<Finding>,
}

impl Report {
    /// Every finding, the agents' first.
    pub fn all(&self) -> impl Iterator<Item = &Finding> {
        self.agents
            .iter()
            .flat_map(|a| &a.findings)
            .chain(&self.findings)
    }

    /// 1 when a gating hook would not run (an error finding that is [`Finding::gating`]) or
    /// the secret of `hooks serve` is in a file git tracks ([`Finding::leaks_secret`]), else 0.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        u8::from(
            self.all()
                .any(|f| f.level == Level::Error && (f.gating || f.leaks_secret)),
        )
    }

    /// The report as text: a heading per agent found with its findings, one per line with
    /// its fix below, the agents not found, then a count.
    #[must_use]
    pub fn human(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "hooks doctor: {} (project {})",
            self.binary.display(),
            self.project.display()
        );
        if self.agents.is_empty() {
            let _ = writeln!(
                out,
                "\nNo agent found: none of {} is on PATH, and none has a config directory or \
                 an entry of this binary. Nothing to check.",
                Agent::ALL
                    .iter()
                    .map(|a| a.executable())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for agent in &self.agents {
            let _ = writeln!(out, "\n{}", heading(agent));
            for finding in &agent.findings {
                line(&mut out, finding);
            }
        }
        if !self.findings.is_empty() {
            let bridges: Vec<&str> = ExtensionAgent::all()
                .map(|agent| agent.spec().display_name)
                .collect();
            let _ = writeln!(
                out,
                "\n{} bridges, project hook files, environment",
                bridges.join(" and ")
            );
            for finding in &self.findings {
                line(&mut out, finding);
            }
        }
        if !self.agents.is_empty() && !self.not_found.is_empty() {
            let names: Vec<&str> = self.not_found.iter().map(|a| a.display_name()).collect();
            let _ = writeln!(out, "\nNot found: {}.", names.join(", "));
        }
        let count = |level| self.all().filter(|f| f.level == level).count();
        let (errors, warnings) = (count(Level::Error), count(Level::Warn));
        let gating = self
            .all()
            .filter(|f| f.level == Level::Error && f.gating)
            .count();
        let leaks = self
            .all()
            .filter(|f| f.level == Level::Error && f.leaks_secret)
            .count();
        let _ = write!(
            out,
            "\n{errors} {}, {warnings} {}: {}",
            plural(errors, "error", "errors"),
            plural(warnings, "warning", "warnings"),
            if gating == 0 {
                "every gating hook runs".to_owned()
            } else {
                format!(
                    "{gating} {} a gating hook from running",
                    plural(gating, "keeps", "keep")
                )
            }
        );
        if leaks > 0 {
            let _ = write!(
                out,
                "; {leaks} {} the secret of `hooks serve` in a file git tracks",
                plural(leaks, "puts", "put")
            );
        }
        let _ = writeln!(
            out,
            "{}",
            if self.exit_code() == 0 {
                "."
            } else {
                " (exit 1)."
            }
        );
        out
    }

    /// The report as one JSON object: `binary`, `project`, `exit`, `agents` (each with
    /// `agent`, `name`, `executable`, `version`, `version_error`, `config_dirs`,
    /// `findings`), `not_found`, `findings`; a finding is `{level, gating, leaks_secret, message,
    /// fix}`.
    #[must_use]
    pub fn json(&self) -> Value {
        json!({
            "binary": self.binary,
            "project": self.project,
            "exit": self.exit_code(),
            "agents": self.agents.iter().map(|a| json!({
                "agent": a.agent.as_str(),
                "name": a.agent.display_name(),
                "executable": a.executable,
                "version": a.version.as_ref().map(ToString::to_string),
                "version_error": a.version_error,
                "config_dirs": a.config_dirs,
                "findings": a.findings,
            })).collect::<Vec<_>>(),
            "not_found": self.not_found.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
            "findings": self.findings,
        })
    }
}

/// `Claude Code 2.1.328 (/usr/bin/claude)`, or what is known instead.
fn heading(agent: &AgentReport) -> String {
    let name = agent.agent.display_name();
    match (&agent.executable, &agent.version, &agent.version_error) {
        (Some(path), Some(version), _) => format!("{name} {version} ({})", path.display()),
        (Some(path), None, why) => format!(
            "{name} ({}; version unknown: {})",
            path.display(),
            why.as_deref().unwrap_or("not read")
        ),
        (None, ..) => format!("{name} (`{}` is not on PATH)", agent.agent.executable()),
    }
}

fn line(out: &mut String, finding: &Finding) {
    let _ = writeln!(out, "  {:<5}  {}", finding.level.as_str(), finding.message);
    if let Some(fix) = &finding.fix {
        let _ = writeln!(out, "         fix: {fix}");
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}
