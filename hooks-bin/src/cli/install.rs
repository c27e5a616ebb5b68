//! `hooks install` and `hooks uninstall`: their options and runs ([`crate::install`] does the
//! work).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::agents::{AgentKind, ExtensionAgent};
use crate::install::extension;
use crate::install::{self, HttpHooks, Scope, Target};
use crate::{home, serve, trust};

/// Where `install` and `uninstall` act, the options both take.
#[derive(Debug, Clone, clap::Args)]
pub struct PlacementArgs {
    /// The agent, and the file written for it (`target_help`, from the list of agents).
    #[arg(value_parser = targets(), help = target_help())]
    pub target: String,
    /// The project in the working directory (the default): its settings file, and for
    /// Claude Code's `--http` entries `.claude/settings.local.json`.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// The user's home directory.
    #[arg(long)]
    pub user: bool,
    /// Print the change as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Options of `hooks install`.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallArgs {
    /// The agent and where.
    #[command(flatten)]
    pub place: PlacementArgs,
    /// The installed Claude Code's version (e.g. 2.1.328), instead of asking the `claude` on
    /// PATH: from 2.1.295 on, gating entries get `"onFailure": "block"`.
    #[arg(long, value_name = "VERSION")]
    pub claude_version: Option<String>,
    /// Codex: trust the installed entries in the user's `config.toml` (as Codex's `/hooks`
    /// review does), so that Codex runs them without asking and without
    /// `--dangerously-bypass-hook-trust`.
    #[arg(long)]
    pub trust: bool,
    /// Claude only: HTTP hooks to `hooks serve` (one runner per session, no process per
    /// call), `SessionStart` a command that starts the server; written with the secret into
    /// `.claude/settings.local.json` (project) or `~/.claude/settings.json` (user), mode 0600.
    #[arg(long)]
    pub http: bool,
    /// The bare name the entries run, found on PATH by each teammate's agent (it must be
    /// this binary's name and, on PATH here, this binary). Without it a project install
    /// writes the bare name when it is on PATH here, else a path relative to the project
    /// when the binary is inside it (through the agent's project-directory variable), else
    /// the absolute path, and says which and why.
    #[arg(long, value_name = "NAME", conflicts_with = "http")]
    pub command: Option<String>,
    /// With --command: write the name even when it is not on PATH here (the entries fail on
    /// this machine until it is).
    #[arg(long, requires = "command")]
    pub allow_missing: bool,
}

/// Options of `hooks uninstall`: any agent `install` takes (for pi and oh-my-pi: their bridge
/// extension), and where.
#[derive(Debug, Clone, clap::Args)]
pub struct UninstallArgs {
    /// The agent and where.
    #[command(flatten)]
    pub place: PlacementArgs,
}

/// What `install` and `uninstall` take: every agent of the list.
fn targets() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(AgentKind::ALL.iter().map(|a| a.as_str()))
}

/// The help of `install`'s and `uninstall`'s TARGET: each agent of the list with the file
/// written for it in a project (and for the user, when it is elsewhere).
fn target_help() -> String {
    let targets: Vec<String> = AgentKind::ALL
        .iter()
        .map(|&agent| match agent {
            AgentKind::Command(agent) => {
                let shape = agent.protocol().install();
                let user = shape.user_dir.map_or_else(String::new, |dir| {
                    format!(", user {}", file_in(&format!("~/{dir}"), shape.file))
                });
                format!("`{agent}` ({}{user})", file_in(shape.dir, shape.file))
            }
            AgentKind::Extension(agent) => format!(
                "`{agent}` (the bridge extension, {})",
                file_in(agent.spec().config_dir, "extensions/hooks.ts")
            ),
        })
        .collect();
    targets.join(", ")
}

/// `` `DIR/FILE` ``.
fn file_in(dir: &str, file: &str) -> String {
    format!("`{dir}/{file}`")
}

/// What `hooks --help` says of `install`: the agents of the bridge named from the list.
pub(super) fn install_about() -> String {
    let (names, targets): (Vec<&str>, Vec<String>) = ExtensionAgent::all()
        .map(|agent| (agent.spec().display_name, format!("`{agent}`")))
        .unzip();
    format!(
        "Register this binary in an agent's hook settings for the events the hooks handle \
         (merging; a backup is kept; idempotent), or put the bridge extension where {} loads \
         it ({})",
        names.join(" or "),
        targets.join(", ")
    )
}

/// The names of the agents of the bridge: `pi or omp`.
fn bridge_names() -> String {
    let names: Vec<&str> = ExtensionAgent::all().map(ExtensionAgent::as_str).collect();
    names.join(" or ")
}

/// What an install or uninstall acts on: pi's or oh-my-pi's bridge extension, or an agent's
/// settings file.
enum Of {
    Bridge(ExtensionAgent),
    Settings(Target),
}

/// Where `install` and `uninstall` act: what, the scope, the project directory, this binary
/// and the home directory.
struct Placement {
    of: Of,
    scope: Scope,
    cwd: PathBuf,
    binary: PathBuf,
    home: PathBuf,
}

impl PlacementArgs {
    /// The placement these options name, or the message and exit code of why not: 2 for an
    /// unknown target, 1 when no directory or binary path can be had.
    fn resolve(&self) -> Result<Placement, (String, u8)> {
        let of = match self.target.parse::<AgentKind>().map_err(|e| (e, 2))? {
            AgentKind::Extension(bridge) => Of::Bridge(bridge),
            AgentKind::Command(agent) => Of::Settings(agent),
        };
        let scope = if self.user {
            Scope::User
        } else {
            Scope::Project
        };
        let failed = |e: String| (e, 1);
        let cwd = match &self.cwd {
            Some(cwd) => cwd.clone(),
            None => {
                std::env::current_dir().map_err(|e| failed(format!("no current directory: {e}")))?
            }
        };
        let binary = std::env::current_exe()
            .map_err(|e| failed(format!("cannot find this binary's path: {e}")))?;
        // No absolute home: an empty path, which a user-level install refuses (`NoHome`).
        let home = home::home_dir().unwrap_or_default();
        Ok(Placement {
            of,
            scope,
            cwd,
            binary,
            home,
        })
    }
}

/// `hooks install`: the bridge extension for pi and oh-my-pi, else the agent's settings file.
pub(super) fn install(args: &InstallArgs) -> ExitCode {
    let fail = |e: &dyn std::fmt::Display, code: u8| {
        eprintln!("hooks install: {e}");
        ExitCode::from(code)
    };
    let p = match args.place.resolve() {
        Ok(placement) => placement,
        Err((e, code)) => return fail(&e, code),
    };
    let mut out = std::io::stdout().lock();
    let target = match p.of {
        Of::Bridge(agent) => {
            if args.claude_version.is_some() || args.trust || args.http || args.command.is_some() {
                let e = format!(
                    "--claude-version, --trust, --http and --command are not options of {} \
                     (their bridge has none)",
                    bridge_names()
                );
                return fail(&e, 2);
            }
            let dry_run = args.place.dry_run;
            return match extension::run(
                agent, p.scope, dry_run, &p.binary, &p.cwd, &p.home, &mut out,
            ) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => fail(&e, e.exit_code()),
            };
        }
        Of::Settings(target) => target,
    };
    let http = if args.http {
        if !install::takes_http(target) {
            return fail(
                &"--http is for claude only (codex has command hooks only)",
                2,
            );
        }
        let secret = trust::config_dir()
            .map_err(|e| e.to_string())
            .and_then(|dir| serve::Secret::load_or_create(&dir));
        match secret {
            Ok(secret) => Some(HttpHooks {
                url: serve::Endpoint::default_url(&p.binary),
                secret: secret.as_str().to_owned(),
            }),
            Err(e) => return fail(&format!("no secret for hooks serve: {e}"), 1),
        }
    } else {
        None
    };
    let options = install::Options {
        dry_run: args.place.dry_run,
        agent_version: args.claude_version.clone(),
        trust: args.trust,
        http,
        command: args.command.clone(),
        allow_missing: args.allow_missing,
    };
    match install::run(
        target, p.scope, &options, &p.binary, &p.cwd, &p.home, &mut out,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, e.exit_code()),
    }
}

/// `hooks uninstall`: exactly the entries (or the bridge extension) `install` made.
pub(super) fn uninstall(args: &UninstallArgs) -> ExitCode {
    let fail = |e: &dyn std::fmt::Display, code: u8| {
        eprintln!("hooks uninstall: {e}");
        ExitCode::from(code)
    };
    let p = match args.place.resolve() {
        Ok(placement) => placement,
        Err((e, code)) => return fail(&e, code),
    };
    let dry_run = args.place.dry_run;
    let mut out = std::io::stdout().lock();
    let target = match p.of {
        Of::Bridge(agent) => {
            return match extension::uninstall(
                agent, p.scope, dry_run, &p.binary, &p.cwd, &p.home, &mut out,
            ) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => fail(&e, e.exit_code()),
            };
        }
        Of::Settings(target) => target,
    };
    // `--http`'s entries are recognised by the server's URL; the secret is not compared.
    let http = install::takes_http(target).then(|| HttpHooks {
        url: serve::Endpoint::default_url(&p.binary),
        secret: String::new(),
    });
    let options = install::Options {
        dry_run,
        http,
        ..install::Options::default()
    };
    match install::uninstall(
        target, p.scope, &options, &p.binary, &p.cwd, &p.home, &mut out,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, e.exit_code()),
    }
}
