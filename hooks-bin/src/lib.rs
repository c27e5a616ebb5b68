//! The `hooks` host, as a library.
//!
//! `hooks` links compiled hook bundles (by default the `examples` crate) and exposes them:
//! list them, drive a session through them with real tools, serve them to Claude Code and
//! Codex. An author's own binary gets every command for their bundle:
//!
//! ```ignore
//! use my_hooks as _; // link the bundle: its #[hook] functions register themselves
//!
//! fn main() -> std::process::ExitCode {
//!     hooks_bin::main()
//! }
//! ```
//!
//! | command | what it does | exit status |
//! | --- | --- | --- |
//! | `hooks list [--json] [--cwd DIR]` | the hooks that load, in dispatch order ([`list`]) | 0; 1 when a hook failed to load |
//! | `hooks run SCRIPT.jsonl [--session-dir DIR] [--cwd DIR] [--json] [--no-ui]` | drives a session ([`run`]) | 0; 1 an action failed; 2 invalid script |
//! | `hooks claude\|codex\|gemini\|copilot\|qwen\|droid\|cursor EVENT` | serve one agent hook call ([`agents`], [`call`], [`transport::command`]), handed to the running `hooks serve` over its unix socket when one runs (`HOOKS_NO_SERVER=1`: never; [`serve::socket`]) | the agent's protocol: 0; 2 blocks (every failure on a gating event); 1 a failure on an observational event |
//! | `hooks install claude\|codex\|gemini\|copilot\|qwen\|droid\|cursor\|pi\|omp [--project\|--user] [--dry-run] [--claude-version V] [--trust]` | register this binary with the agent ([`install`]; pi and oh-my-pi get the bridge extension, [`install::extension`]) | 0; 1 on failure; 2 invalid usage |
//! | `hooks explain AGENT EVENT [--input FILE] [--json] [--cwd DIR]` | one agent call with every handler that ran, its outcome and time, and the agent's answer ([`explain`]) | 0 explained; 1 the input or the config file cannot be read; 2 invalid usage |
//! | `hooks uninstall AGENT [--project\|--user] [--dry-run]` (every agent `install` takes) | remove this binary's entries from the agent's settings ([`install::uninstall`]; pi and oh-my-pi: the bridge extension, [`install::extension::uninstall`]) | 0; 1 on failure; 2 invalid usage |
//! | `hooks doctor [--project DIR] [--json]` | for each agent on this machine and each entry of this binary in its settings: the binary, the agent's version and switches, Codex's trust, the server of HTTP entries and whether git would commit their secret, project hook files; each finding with its fix ([`doctor`]) | 0 every gating hook runs; 1 a gating hook would not run, or git tracks a file holding the secret; 2 invalid usage |
//! | `hooks serve [--status\|--stop\|--detach] [--port N] [--idle-timeout S] [--max-sessions N] [--call-timeout S]` | serve the hooks over HTTP on 127.0.0.1 and a unix socket in the runtime directory, one runner per agent session ([`serve`]) | 0; 1 not running (`--status`) or cannot serve |
//! | `hooks serve --stdio` | serve the hooks over JSON-RPC 2.0 on stdin and stdout, one session per client session id ([`stdio`]) | 0 at the end of input or on SIGTERM; 1 it could not start |
//! | `hooks trust [PATH...]` / `hooks trust --list` / `hooks untrust PATH...` | record, list or remove trusted project hook files ([`trust`]) | 0; 1 a file or the store cannot be read or written; 2 the store is malformed, or no config directory |
//!
//! | environment / config file | what it does |
//! | --- | --- |
//! | `HOOKS_DISABLE=1` | every adapter call (and `hooks serve`'s) answers "no opinion" at once, nothing runs ([`call::hooks_disabled`]) |
//! | `HOOKS_MODE=audit` / `mode = "audit"` in `<config dir>/config.toml` | the adapters and `hooks serve` compute and log every decision and give the agent "no opinion" (exit 0) ([`call::audit`]); `HOOKS_MODE=enforce` overrides the file; another value, or a malformed file, fails the call as bad input does |
//! | `[log] enabled = true` in `config.toml` (always on in audit mode) | the decision log, one JSON line per call, `$XDG_STATE_HOME/hooks/decisions.jsonl` (else `~/.local/state/hooks/`) or `[log] path`, rotated past `max_bytes` keeping `keep` files ([`call::audit::log`]) |
//! | `HOOKS_CONFIG_DIR` | the config directory (trust store, serve secret, `config.toml`) instead of `$XDG_CONFIG_HOME/hooks` or `~/.config/hooks` ([`trust`]) |
//!
//! Project-level hook files (found under the working directory) run only when trusted
//! ([`trust`]); `--trust-all` (an option of `list`, `run`, `claude`, `codex`, also accepted
//! before them: `hooks --trust-all run ...`; and of `serve`) skips that check, e.g. in CI. Usage errors (an
//! unknown option, a missing argument) exit with 2, except for `hooks claude|codex EVENT` on an
//! observational event, where every failure exits 1 ([`agents::Protocol::failure_code`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod agents;
pub mod call;
pub mod doctor;
pub mod explain;
pub mod home;
pub mod install;
pub mod json;
pub mod list;
pub mod run;
pub mod sanitize;
pub mod serve;
pub mod stdio;
mod text;
pub mod transport;
pub mod trust;

/// The `hooks` command line.
#[derive(Debug, Parser)]
#[command(
    name = "hooks",
    version,
    about = "Run, inspect and serve compiled agent hooks.",
    long_about = "Run, inspect and serve compiled agent hooks: the hooks linked into this binary \
                  plus the hook files discovered for the working directory.",
    after_help = "Exit status: 0 success; 1 a failure (see each command's help); 2 invalid usage \
                  or input. The agent adapters follow their agent's protocol; in audit mode \
                  (HOOKS_MODE=audit, or mode = \"audit\" in the config directory's config.toml) \
                  they exit 0 with no opinion after logging what they would have answered, and \
                  an invalid mode or config file fails a call as bad input does."
)]
pub struct Cli {
    /// Run project-level hook files without checking that they are trusted (for `list`,
    /// `run` and the agent adapters; e.g. in CI).
    #[arg(long)]
    pub trust_all: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the hooks that load, in dispatch order: handlers per event, commands, renderers,
    /// discovered hook files, load errors.
    #[command(after_help = list::LIST_HELP)]
    List {
        /// The options of `hooks list`.
        #[command(flatten)]
        args: list::ListArgs,
        /// `--trust-all`.
        #[command(flatten)]
        trust: TrustAllArgs,
    },
    /// Drive one agent session through the hooks, with real tools and no model.
    #[command(after_help = run::RUN_HELP)]
    Run {
        /// The options of `hooks run`.
        #[command(flatten)]
        args: run::RunArgs,
        /// `--trust-all`.
        #[command(flatten)]
        trust: TrustAllArgs,
    },
    /// Explain one agent hook call: every handler that ran, in order, with its hook,
    /// `file:line`, outcome and time, and the exact answer and exit code the agent would get.
    #[command(after_help = explain::EXPLAIN_HELP)]
    Explain {
        /// The options of `hooks explain`.
        #[command(flatten)]
        args: explain::ExplainArgs,
        /// `--trust-all`.
        #[command(flatten)]
        trust: TrustAllArgs,
    },
    /// Register this binary in an agent's hook settings for the events the hooks handle
    /// (merging; a backup is kept; idempotent), or put the bridge extension where pi or
    /// oh-my-pi loads it (`pi`, `omp`).
    #[command(
        after_help = "Exit status: 0 installed (or nothing to do); 1 the settings \
        file could not be read, parsed or written, or no home directory for --user (nothing \
        was changed); 2 invalid usage, e.g. a --cwd that does not exist."
    )]
    Install(InstallArgs),
    /// Remove this binary's entries from an agent's settings (exactly those
    /// `install` counts as its own, `--http`'s too; a backup is kept; idempotent).
    #[command(
        after_help = "Exit status: 0 removed (or nothing to remove); 1 the settings \
        file could not be read, parsed or written, or no home directory for --user (nothing \
        was changed in that file); 2 invalid usage, e.g. a --cwd that does not exist."
    )]
    Uninstall(UninstallArgs),
    /// Check that the hooks installed for each agent on this machine run: the entries'
    /// binary, the agent's version and switches, Codex's trust, the server of HTTP entries,
    /// project hook files; each finding with the command that fixes it.
    #[command(after_help = doctor::DOCTOR_HELP)]
    Doctor(doctor::DoctorArgs),
    /// Trust project hook files: record the SHA-256 of each (default: every project hook file
    /// discovered for the working directory), so that they run; `--list` shows the store.
    #[command(after_help = trust::TRUST_HELP)]
    Trust(trust::TrustArgs),
    /// Serve the hooks to agents over HTTP on 127.0.0.1 with one runner per agent session,
    /// until SIGTERM; or say whether it runs (`--status`), stop it (`--stop`), start it in
    /// the background (`--detach`); or, with `--stdio`, to one resident client over JSON-RPC
    /// 2.0 on stdin and stdout (the pi and oh-my-pi bridge starts it).
    #[command(after_help = serve::SERVE_HELP)]
    Serve(serve::ServeArgs),
    /// Remove hook files from the trust store, so that they no longer run.
    #[command(after_help = trust::UNTRUST_HELP)]
    Untrust(trust::UntrustArgs),
}

/// `--trust-all`, an option of the commands that load hook files (`list`, `run`, `claude`,
/// `codex`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TrustAllArgs {
    /// Run project-level hook files without checking that they are trusted (e.g. in CI).
    #[arg(long)]
    pub trust_all: bool,
}

/// Options of the adapter subcommands, `hooks AGENT EVENT` (one per agent: [`command`]).
#[derive(Debug, Clone, clap::Args)]
pub struct AdapterArgs {
    /// The agent's event name, e.g. `PreToolUse`.
    pub event: String,
    /// The working directory [default: the agent's project directory variable
    /// (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`, `COPILOT_PROJECT_DIR`, `QWEN_PROJECT_DIR`,
    /// `FACTORY_PROJECT_DIR`), else the input's `cwd`, else the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// `--trust-all`.
    #[command(flatten)]
    pub trust: TrustAllArgs,
    /// Hand the call to this user's `hooks serve` (started in the background when it does
    /// not run) instead of running the hooks in this process: what `install --http` writes
    /// for `SessionStart`, which Claude Code does not send over HTTP.
    #[arg(long)]
    pub via_server: bool,
}

/// Options of `hooks install`.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallArgs {
    /// `claude` (`.claude/settings.json`), `codex` (`.codex/hooks.json`), `gemini`
    /// (`.gemini/settings.json`), `copilot` (`.github/hooks/hooks.json`, user
    /// `~/.copilot/hooks/hooks.json`), `qwen` (`.qwen/settings.json`), `droid`
    /// (`.factory/settings.json`), `cursor` (`.cursor/hooks.json`), or `pi` / `omp` (the
    /// bridge extension, `.pi/extensions/hooks.ts` / `.omp/extensions/hooks.ts`).
    #[arg(value_parser = install_targets())]
    pub target: String,
    /// Install into the project in the working directory (the default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Install into the user's home directory.
    #[arg(long)]
    pub user: bool,
    /// Print the change as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
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
}

/// Options of `hooks uninstall`.
#[derive(Debug, Clone, clap::Args)]
pub struct UninstallArgs {
    /// The agent whose settings to clean: any agent `install` takes (`pi` / `omp`: their
    /// bridge extension).
    #[arg(value_parser = install_targets())]
    pub target: String,
    /// Uninstall from the project in the working directory (the default): its settings
    /// file, and for Claude Code also `.claude/settings.local.json` (`--http`).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Uninstall from the user's home directory.
    #[arg(long)]
    pub user: bool,
    /// Print the change as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// What `install` and `uninstall` take: the agents' names and the bridge's agents'.
fn install_targets() -> clap::builder::PossibleValuesParser {
    let agents = agents::Agent::ALL.iter().map(|a| a.as_str());
    let bridges = install::extension::ExtensionAgent::ALL
        .iter()
        .map(|a| a.as_str());
    clap::builder::PossibleValuesParser::new(agents.chain(bridges))
}

/// The agents' names, as a value parser.
fn agent_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(agents::Agent::ALL.iter().map(|a| a.as_str()))
}

/// The `hooks` command line: [`Cli`]'s commands, and one adapter subcommand per agent
/// (`hooks AGENT EVENT`), made from the list of agents ([`agents::Agent::ALL`]): its help
/// names the agent, the events its protocol serves and its exit status ([`agents::AgentCli`]).
#[must_use]
pub fn command() -> clap::Command {
    use clap::{Args as _, CommandFactory as _};
    let mut cli = Cli::command();
    for &agent in agents::Agent::ALL {
        let protocol = agent.protocol();
        let about = protocol.cli();
        let events: Vec<&str> = protocol.events().iter().map(|e| e.name).collect();
        let (last, rest) = events.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
        let help = format!(
            "EVENT is {} or {last}.\n\n{}",
            rest.join(", "),
            about.exit_status
        );
        let sub = AdapterArgs::augment_args(clap::Command::new(agent.as_str()))
            .about(format!(
                "Serve one {} hook call{}: read its JSON from stdin, answer on stdout.",
                about.display_name, about.about_note
            ))
            .after_help(help);
        cli = cli.subcommand(sub);
    }
    cli
}

/// What the command line asks for: one of [`Cli`]'s commands, or an agent's adapter call.
enum Parsed {
    Cli(Cli),
    Adapter {
        agent: agents::Agent,
        args: AdapterArgs,
        trust_all: bool,
    },
}

/// Runs the `hooks` command line (`std::env::args`).
#[must_use]
pub fn main() -> ExitCode {
    use clap::FromArgMatches as _;
    let parsed = command().try_get_matches().and_then(|matches| {
        let adapter = matches.subcommand().and_then(|(name, sub)| {
            let agent = name.parse::<agents::Agent>().ok()?;
            Some(AdapterArgs::from_arg_matches(sub).map(|args| (agent, args)))
        });
        match adapter {
            Some(adapter) => adapter.map(|(agent, args)| Parsed::Adapter {
                agent,
                args,
                trust_all: matches.get_flag("trust_all"),
            }),
            None => Cli::from_arg_matches(&matches).map(Parsed::Cli),
        }
    });
    let cli = match parsed {
        Ok(Parsed::Cli(cli)) => cli,
        Ok(Parsed::Adapter {
            agent,
            args,
            trust_all,
        }) => {
            let trust = if trust_all || args.trust.trust_all {
                trust::TrustMode::All
            } else {
                trust::TrustMode::Check
            };
            return serve(agent, &args, trust);
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { usage_error() } else { 0 });
        }
    };
    let trust_all = match &cli.command {
        Command::List { trust, .. }
        | Command::Run { trust, .. }
        | Command::Explain { trust, .. } => trust.trust_all,
        Command::Serve(args) => args.trust_all,
        Command::Install(_)
        | Command::Uninstall(_)
        | Command::Doctor(_)
        | Command::Trust(_)
        | Command::Untrust(_) => {
            if cli.trust_all {
                eprintln!(
                    "hooks: --trust-all is an option of list, run, serve and the agent adapters only"
                );
                return ExitCode::from(2);
            }
            false
        }
    };
    // Given to every load of this command, which is the only place it is decided.
    let trust = if cli.trust_all || trust_all {
        trust::TrustMode::All
    } else {
        trust::TrustMode::Check
    };
    match cli.command {
        Command::List { args, .. } => list::run(&args, &trust),
        Command::Run { args, .. } => run::run(&args, &trust),
        Command::Explain { args, .. } => explain::run(&args, trust),
        Command::Install(args) => install_cmd(&args),
        Command::Uninstall(args) => uninstall_cmd(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Trust(args) => trust::run_trust(&args),
        Command::Untrust(args) => trust::run_untrust(&args),
        Command::Serve(args) if args.stdio => match call::audit::Settings::load() {
            Ok(settings) => {
                if let Some(why) = &settings.log_unplaced {
                    eprintln!("hooks serve --stdio: decision log: {why}");
                }
                stdio::serve(stdio::StdioOptions {
                    trust,
                    mode: settings.mode,
                    log: settings.log,
                    ..stdio::StdioOptions::default()
                })
            }
            Err(e) => {
                eprintln!("hooks serve --stdio: invalid configuration: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Serve(args) => serve::cli::run(&args, trust),
    }
}

/// Ends a run whose command line clap rejected (its error is printed): exit 2, except on an
/// adapter call, which fails like any other failure of that call ([`transport::command::reject`]):
/// exit 1 on an observational event (`hooks claude Stop --bogus`; exit 2 on `Stop` would make
/// the agent go on), and on Codex's `PreCompact` exit 0 with the answer that holds the
/// compaction. Returns the exit code.
fn usage_error() -> u8 {
    // What clap can make of the arguments despite the error.
    let Ok(matches) = command().ignore_errors(true).try_get_matches() else {
        return 2;
    };
    let Some((agent, args)) = matches
        .subcommand()
        .and_then(|(name, args)| Some((name.parse::<agents::Agent>().ok()?, args)))
    else {
        return 2;
    };
    let event = args.get_one::<String>("event").map_or("", String::as_str);
    transport::command::reject(agent.protocol(), event)
}

/// `hooks claude|codex EVENT`: stdin in, one answer out ([`transport::command::serve`]).
fn serve(agent: agents::Agent, args: &AdapterArgs, trust: trust::TrustMode) -> ExitCode {
    let protocol = agent.protocol();
    let mut options = adapter_options(agent, args.cwd.clone(), trust);
    if args.via_server
        && let Some(off) = call::disabled_outcome(protocol, &args.event)
    {
        // Switched off, the server is neither asked nor started.
        eprint!("{}", off.stderr);
        return ExitCode::from(off.code);
    }
    if !call::hooks_disabled() {
        // A config file that cannot be read fails the call as bad input does.
        match call::audit::Settings::load() {
            Ok(settings) => {
                options.runs = settings.log.is_some().then(call::trace::Runs::default);
                options.audit = settings;
            }
            Err(e) => {
                let reason = format!("invalid configuration: {e}");
                let code = transport::command::fail(
                    protocol,
                    &args.event,
                    &reason,
                    &mut std::io::stderr(),
                );
                return ExitCode::from(code);
            }
        }
    }
    if args.via_server {
        return ExitCode::from(serve::forward::run(agent, &args.event, &options));
    }
    // A call handed to a running `hooks serve` is decided, and logged, there.
    let hand_over = |input: &[u8]| serve::socket::hand_over(agent, &args.event, input, &options);
    ExitCode::from(transport::command::serve(
        protocol,
        &args.event,
        &options,
        Some(&hand_over),
    ))
}

/// The options of an adapter call of `agent` (`hooks AGENT EVENT`, `hooks explain`).
fn adapter_options(
    agent: agents::Agent,
    cwd: Option<PathBuf>,
    trust: trust::TrustMode,
) -> call::AdapterOptions {
    // Claude Code runs hook commands with the project root in `CLAUDE_PROJECT_DIR`; the
    // input's `cwd` follows the session's `cd`.
    let project_dir = agent
        .protocol()
        .project_dir_env()
        .and_then(std::env::var_os)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from);
    call::AdapterOptions {
        cwd,
        project_dir,
        trust,
        ..call::AdapterOptions::default()
    }
}

/// `hooks install`.
fn install_cmd(args: &InstallArgs) -> ExitCode {
    if let Ok(agent) = args.target.parse::<install::extension::ExtensionAgent>() {
        return install_bridge_cmd(agent, args);
    }
    let target: install::Target = match args.target.parse() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hooks install: {e}");
            return ExitCode::from(2);
        }
    };
    let Placement {
        scope,
        cwd,
        binary,
        home,
    } = match Placement::of(args.user, args.cwd.as_deref()) {
        Ok(placement) => placement,
        Err(e) => {
            eprintln!("hooks install: {e}");
            return ExitCode::FAILURE;
        }
    };
    let http = if args.http {
        if !install::takes_http(target) {
            eprintln!("hooks install: --http is for claude only (codex has command hooks only)");
            return ExitCode::from(2);
        }
        let secret = trust::config_dir()
            .map_err(|e| e.to_string())
            .and_then(|dir| serve::Secret::load_or_create(&dir));
        match secret {
            Ok(secret) => Some(install::HttpHooks {
                url: serve::Endpoint::default_url(&binary),
                secret: secret.as_str().to_owned(),
            }),
            Err(e) => {
                eprintln!("hooks install: no secret for hooks serve: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    let options = install::Options {
        dry_run: args.dry_run,
        agent_version: args.claude_version.clone(),
        trust: args.trust,
        http,
    };
    match install::run(target, scope, &options, &binary, &cwd, &home, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hooks install: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Where `install` and `uninstall` act: the scope, the project directory, this binary and the
/// home directory.
struct Placement {
    scope: install::Scope,
    cwd: std::path::PathBuf,
    binary: std::path::PathBuf,
    home: std::path::PathBuf,
}

impl Placement {
    /// The user scope when `user`, else the project's; `cwd` or the current directory.
    fn of(user: bool, cwd: Option<&std::path::Path>) -> Result<Placement, String> {
        let scope = if user {
            install::Scope::User
        } else {
            install::Scope::Project
        };
        let cwd = match cwd {
            Some(cwd) => cwd.to_path_buf(),
            None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
        };
        let binary =
            std::env::current_exe().map_err(|e| format!("cannot find this binary's path: {e}"))?;
        // No absolute home: an empty path, which a user-level install refuses (`NoHome`).
        let home = home::home_dir().unwrap_or_default();
        Ok(Placement {
            scope,
            cwd,
            binary,
            home,
        })
    }
}

/// `hooks uninstall`.
fn uninstall_cmd(args: &UninstallArgs) -> ExitCode {
    let fail = |e: &dyn std::fmt::Display, code: u8| {
        eprintln!("hooks uninstall: {e}");
        ExitCode::from(code)
    };
    // pi and oh-my-pi have the bridge extension; the others a settings file.
    let target = match args.target.parse::<install::extension::ExtensionAgent>() {
        Ok(bridge) => Err(bridge),
        Err(_) => match args.target.parse::<install::Target>() {
            Ok(target) => Ok(target),
            Err(e) => return fail(&e, 2),
        },
    };
    let Placement {
        scope,
        cwd,
        binary,
        home,
    } = match Placement::of(args.user, args.cwd.as_deref()) {
        Ok(placement) => placement,
        Err(e) => return fail(&e, 1),
    };
    let mut out = std::io::stdout().lock();
    let target = match target {
        Ok(target) => target,
        Err(agent) => {
            let removed = install::extension::uninstall(
                agent,
                scope,
                args.dry_run,
                &binary,
                &cwd,
                &home,
                &mut out,
            );
            return match removed {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => fail(&e, e.exit_code()),
            };
        }
    };
    // `--http`'s entries are recognised by the server's URL; the secret is not compared.
    let http = install::takes_http(target).then(|| install::HttpHooks {
        url: serve::Endpoint::default_url(&binary),
        secret: String::new(),
    });
    let options = install::Options {
        dry_run: args.dry_run,
        http,
        ..install::Options::default()
    };
    match install::uninstall(target, scope, &options, &binary, &cwd, &home, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, e.exit_code()),
    }
}

/// `hooks install pi|omp`.
fn install_bridge_cmd(agent: install::extension::ExtensionAgent, args: &InstallArgs) -> ExitCode {
    if args.claude_version.is_some() || args.trust {
        eprintln!(
            "hooks install: --claude-version and --trust are options of claude and codex only"
        );
        return ExitCode::from(2);
    }
    let Placement {
        scope,
        cwd,
        binary,
        home,
    } = match Placement::of(args.user, args.cwd.as_deref()) {
        Ok(placement) => placement,
        Err(e) => {
            eprintln!("hooks install: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    match install::extension::run(agent, scope, args.dry_run, &binary, &cwd, &home, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hooks install: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
