//! `hooks doctor [--project DIR] [--json]`: whether the hooks installed for each agent on this
//! machine really run, and the command that fixes each thing that keeps one from running.
//!
//! For every agent of the list ([`AgentKind::ALL`]) that runs hook commands it looks for the executable on `PATH` (asked `--version`,
//! killed after 5 s) and the config directories (the user's, the project's); an agent with
//! neither, and no entry of ours, is only listed as not found. Then, in each settings file
//! `install` writes for it (project and user; Claude Code's `settings.local.json` too), it
//! finds this binary's entries by install's own rule ([`install::find_ours`]) and checks:
//!
//! - the binary each command entry runs exists, is executable, and is this binary (the same
//!   file after symlinks), or says which it is;
//! - the fail-closed key against the agent's version (Claude Code's `"onFailure": "block"`,
//!   read from 2.1.295 on): missing on a version that reads it, or present on one that does
//!   not;
//! - HTTP entries (`install claude --http`): `hooks serve` runs (its lock file) and accepts a
//!   connection, and the entries carry the secret of `<config dir>/serve-secret`; the file
//!   holding them (and its backup) is not tracked by git (an error: its next commit carries
//!   the secret) and, in a work tree, ignored (else a warning) ([`install::git`]);
//! - Codex: each entry is trusted in `config.toml` as it is now (Codex skips an untrusted one
//!   without a word), and a project's `.codex/hooks.json` is in a trusted project;
//! - the agent's hooks are switched on: Claude Code's `disableAllHooks`, Codex's `hooks`
//!   feature, Gemini CLI's `hooksConfig.enabled`.
//!
//! For pi and oh-my-pi, the bridge extension `install` puts in place ([`bridge`]: it starts
//! this binary, and is the bridge this version writes). Then the project hook files
//! discovered for the project that are untrusted or changed since trusted ([`crate::trust`]), and this binary's kill switch
//! (`HOOKS_DISABLE=1`) in the environment doctor runs in.
//!
//! A gating hook is one on an event that can block a tool call or a prompt
//! ([`Mapping::is_gating`](crate::agents::Mapping::is_gating): `PreToolUse`, `PostToolUse`,
//! `UserPromptSubmit`, `PreCompact`, Gemini CLI's `BeforeModel` and their counterparts). The
//! exit status is 1 when any gating hook would not run or git tracks a file holding the
//! secret ([`Finding::leaks_secret`]), else 0 (warnings included); 2 on invalid usage.
//! Nothing is written.

pub mod agent;
pub mod bridge;
pub mod entries;
pub mod finding;
pub mod server;
pub mod switch;

use std::cell::OnceCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agents::{Agent, AgentKind, ExtensionAgent};
use crate::install;
pub(crate) use crate::install::Scope;
use crate::text::shell_quote;
use crate::trust::{self, TrustStatus, TrustStore};
pub use finding::{AgentReport, Finding, Level, Report};
use server::ServerState;

/// What `hooks doctor --help` adds.
pub const DOCTOR_HELP: &str = "For each agent found on this machine (its executable on PATH, \
asked --version for at most 5 s; its config directories) and each entry of this binary in its \
settings (project and user): the binary exists and is this one; the agent's version reads the \
fail-closed key the entry has (Claude Code's onFailure, 2.1.295 and later); the agent's hooks \
are switched on (disableAllHooks, Codex's hooks feature, Gemini's hooksConfig.enabled); Codex \
trusts the entries (config.toml); `hooks serve` answers where HTTP entries post to it, with \
their secret, and git does not track (or, in a work tree, ignores) the file holding it; the pi and oh-my-pi bridges start this binary; and the project hook files are \
trusted and unchanged. Each finding comes with the \
command that fixes it. Nothing is written.\n\nA gating hook is one on an event that can block a \
tool call or a prompt (PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, BeforeModel and \
their counterparts).\n\nExit status: 0 every gating hook runs (warnings may remain); 1 a gating \
hook would not run, or git tracks a file holding the secret; 2 invalid usage, e.g. a --project that does not exist.";

/// Options of `hooks doctor`.
#[derive(Debug, Clone, clap::Args)]
pub struct DoctorArgs {
    /// The project whose settings and hook files to check [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What the checks run against.
#[derive(Debug)]
pub struct Context {
    /// This binary, as it runs.
    pub binary: PathBuf,
    /// This binary after symlinks (what an entry's binary is compared with).
    pub canonical_binary: PathBuf,
    /// The project directory (canonical).
    pub project: PathBuf,
    /// Whether the project was given (`--project`): fixes then name it.
    pub explicit_project: bool,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// `PATH`, where the agents are looked for.
    pub path_var: Option<OsString>,
    server: OnceCell<ServerState>,
}

impl Context {
    /// The context of `binary` for `project` (canonical), in this process's environment.
    #[must_use]
    pub fn new(binary: PathBuf, project: PathBuf, explicit_project: bool) -> Context {
        Context {
            canonical_binary: binary.canonicalize().unwrap_or_else(|_| binary.clone()),
            binary,
            project,
            explicit_project,
            home: crate::home::home_dir(),
            path_var: std::env::var_os("PATH"),
            server: OnceCell::new(),
        }
    }

    /// `hooks ARGS`, with this binary's own name.
    fn command(&self, args: &str) -> String {
        let name = self
            .binary
            .file_name()
            .map_or_else(|| "hooks".into(), |n| n.to_string_lossy());
        format!("{name} {args}")
    }

    /// The install that puts `agent`'s entries right in `scope` (for Codex with `--trust`:
    /// an entry it changes needs Codex's trust again).
    fn install(&self, agent: Agent, scope: Scope) -> String {
        let mut args = format!("install {} --{scope}", agent.as_str());
        if agent.protocol().install().trusts_entries {
            args.push_str(" --trust");
        }
        self.in_project(args, scope)
    }

    /// `hooks ARGS`, with `--cwd` naming the project when it was given and `scope` is it.
    fn in_project(&self, mut args: String, scope: Scope) -> String {
        if scope == Scope::Project && self.explicit_project {
            args.push_str(&format!(
                " --cwd {}",
                shell_quote(&self.project.display().to_string())
            ));
        }
        self.command(&args)
    }

    /// The install of `agent`'s bridge in `scope`.
    fn install_bridge(&self, agent: ExtensionAgent, scope: Scope) -> String {
        self.in_project(format!("install {agent} --{scope}"), scope)
    }

    /// The install of Claude Code's HTTP entries in `scope`.
    fn install_http(&self, scope: Scope) -> String {
        format!("{} --http", self.install(Agent::Claude, scope))
    }

    /// The state of this binary's server, found once.
    fn server(&self) -> ServerState {
        self.server
            .get_or_init(|| server::state(&self.binary))
            .clone()
    }

    /// Codex's `config.toml`: in `$CODEX_HOME`, else `~/.codex`.
    fn codex_config_path(&self) -> Option<PathBuf> {
        let home = self.home.clone().unwrap_or_default();
        install::user_settings_path(
            Agent::Codex,
            std::env::var_os("CODEX_HOME").as_deref(),
            &home,
        )
        .ok()
        .map(|hooks| hooks.with_file_name("config.toml"))
    }
}

/// Runs every check ([module docs](self)).
#[must_use]
pub fn diagnose(ctx: &Context) -> Report {
    let mut report = Report {
        binary: ctx.binary.clone(),
        project: ctx.project.clone(),
        agents: Vec::new(),
        not_found: Vec::new(),
        findings: Vec::new(),
    };
    let mut bridges = Vec::new();
    for &agent in AgentKind::ALL {
        let agent = match agent {
            AgentKind::Command(agent) => agent,
            AgentKind::Extension(agent) => {
                bridge::check(ctx, agent, &mut bridges);
                continue;
            }
        };
        let presence = agent::look_for(
            agent,
            ctx.path_var.as_deref(),
            ctx.home.as_deref(),
            &ctx.project,
        );
        let mut findings = Vec::new();
        let mut found = Vec::new();
        for scope in [Scope::Project, Scope::User] {
            for file in entries::files(ctx, agent, scope) {
                found.extend(entries::check_file(
                    ctx,
                    agent,
                    scope,
                    &file,
                    presence.version.as_ref(),
                    &mut findings,
                ));
            }
        }
        let gating = found.iter().any(|f| f.event.mapping.is_gating());
        switch::check(ctx, agent, gating, &mut findings);
        if presence.executable.is_none() && presence.config_dirs.is_empty() && found.is_empty() {
            report.not_found.push(agent);
            continue;
        }
        if found.is_empty() {
            findings.insert(
                0,
                Finding::ok(format!(
                    "no entry of this binary in its settings (nothing to check; to add them: \
                     {})",
                    ctx.install(agent, Scope::Project)
                )),
            );
        }
        report.agents.push(AgentReport {
            agent,
            executable: presence.executable,
            version: presence.version,
            version_error: presence.version_error,
            config_dirs: presence.config_dirs,
            findings,
        });
    }
    if ctx.home.is_none() {
        report.findings.push(Finding::warn(
            "no home directory (HOME is unset, empty or relative): the user-level settings \
             were not checked",
        ));
    }
    report.findings.append(&mut bridges);
    project_files(ctx, &mut report.findings);
    switch::kill_switch(&mut report.findings);
    report
}

/// The project hook files that need trust and are untrusted or changed since.
fn project_files(ctx: &Context, out: &mut Vec<Finding>) {
    let files = trust::project_hook_files(&ctx.project, &crate::home::discovery_options());
    if files.is_empty() {
        return;
    }
    let store = match TrustStore::open_default() {
        Ok(store) => store,
        Err(e) => {
            out.push(Finding::error(
                format!("the trust store: {e}: no project hook file runs"),
                true,
            ));
            return;
        }
    };
    let mut trusted = 0;
    for file in &files {
        let shown = file.display();
        match store.status(file) {
            Ok(TrustStatus::Trusted) => trusted += 1,
            Ok(TrustStatus::Untrusted) => out.push(
                Finding::error(
                    format!(
                        "{shown}: a project hook file that is not trusted: its hooks do not run"
                    ),
                    true,
                )
                .fix(trust::trust_hint(file)),
            ),
            Ok(TrustStatus::Changed { .. }) => out.push(
                Finding::error(
                    format!(
                        "{shown}: changed since it was trusted: its hooks do not run until it \
                         is trusted again"
                    ),
                    true,
                )
                .fix(trust::trust_hint(file)),
            ),
            Err(e) => out.push(Finding::error(format!("{shown}: {e}"), true)),
        }
    }
    if trusted > 0 {
        out.push(Finding::ok(format!(
            "{trusted} of {} project hook files trusted ({})",
            files.len(),
            store.path().display()
        )));
    }
}

/// `hooks doctor`.
#[must_use]
pub fn run(args: &DoctorArgs) -> ExitCode {
    let ctx = match context(args) {
        Ok(ctx) => ctx,
        Err(why) => {
            eprintln!("hooks doctor: {why}");
            return ExitCode::from(2);
        }
    };
    let report = diagnose(&ctx);
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.human());
    }
    ExitCode::from(report.exit_code())
}

/// The context of this binary for the project `args` name (else the current directory).
fn context(args: &DoctorArgs) -> Result<Context, String> {
    let binary =
        std::env::current_exe().map_err(|e| format!("cannot find this binary's path: {e}"))?;
    let dir = (args.project.clone().map_or_else(std::env::current_dir, Ok))
        .map_err(|e| format!("no current directory: {e}"))?;
    let project = project_dir(&dir)?;
    Ok(Context::new(binary, project, args.project.is_some()))
}

/// `dir`, canonical, when it is a directory.
fn project_dir(dir: &Path) -> Result<PathBuf, String> {
    let canonical = dir
        .canonicalize()
        .map_err(|e| format!("cannot use {} as the project: {e}", dir.display()))?;
    if canonical.is_dir() {
        Ok(canonical)
    } else {
        Err(format!("{} is not a directory", dir.display()))
    }
}
