//! The `hooks` command line: its commands ([`Cli`], [`Command`]), one adapter subcommand per
//! agent made from the list of agents ([`command`], [`adapter`]), and one module per
//! subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::call::audit;
use crate::transport::stdio;
use crate::trust::TrustMode;
use crate::{run, serve};

pub mod adapter;
pub mod doctor;
pub mod explain;
pub mod install;
pub mod list;
pub mod log;
pub mod new;
pub mod trust;

use self::adapter::AdapterArgs;
use self::install::{InstallArgs, UninstallArgs};

/// The `hooks` command line.
#[derive(Debug, Parser)]
#[command(
    name = "hooks",
    version,
    about = "Run, inspect and serve compiled agent hooks.",
    long_about = "Run, inspect and serve compiled agent hooks: the hooks linked into this binary \
                  (`list` shows them) plus the hook files discovered for the working directory. \
                  To serve hooks of your own, `new NAME` creates a bundle crate whose host \
                  binary is this command with your hooks linked in.",
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
    /// Register this binary in an agent's hook settings, or put the bridge extension in
    /// place (its help: `install::install_about`, from the list of agents).
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
    /// Create a bundle crate: its host binary, one guard, its tests, a README and a CI
    /// workflow (`cargo test` inside it passes at once).
    #[command(after_help = new::NEW_HELP)]
    New(new::NewArgs),
    /// Summarize the decision log (audit mode's, or `[log] enabled = true`'s) per agent,
    /// event, tool and handler: calls, blocks, rewrites, what audit mode would have blocked
    /// or rewritten, errors, time; filter it (`--since`, `--agent`, `--session`, `--denied`)
    /// and follow it (`-f`), as a table or as JSON (`--json`).
    #[command(after_help = log::LOG_HELP)]
    Log(log::LogArgs),
}

/// `--trust-all`, an option of the commands that load hook files (`list`, `run`, `claude`,
/// `codex`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TrustAllArgs {
    /// Run project-level hook files without checking that they are trusted (e.g. in CI).
    #[arg(long)]
    pub trust_all: bool,
}

/// The agents' names, as a value parser.
pub(crate) fn agent_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::agents::Agent::ALL.iter().map(|a| a.as_str()))
}

/// The `hooks` command line: [`Cli`]'s commands, and one adapter subcommand per agent
/// (`hooks AGENT EVENT`), made from the list of agents ([`crate::agents::Agent::ALL`]): its help
/// names the agent, the events its protocol serves and its exit status ([`crate::agents::AgentCli`]).
#[must_use]
pub fn command() -> clap::Command {
    use clap::{Args as _, CommandFactory as _};
    let mut cli =
        Cli::command().mut_subcommand("install", |sub| sub.about(install::install_about()));
    for &agent in crate::agents::Agent::ALL {
        let protocol = agent.protocol();
        let about = protocol.cli();
        let events: Vec<&str> = protocol.events().iter().map(|e| e.name).collect();
        let (last, rest) = events.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
        let help = format!(
            "EVENT is {} or {last}.\n\n{}",
            rest.join(", "),
            about.exit_status
        );
        let cwd = match protocol.project_dir_env() {
            Some(var) => format!("`{var}`, else the input's `cwd`"),
            None => "the input's `cwd`".to_owned(),
        };
        let sub = AdapterArgs::augment_args(clap::Command::new(agent.as_str()))
            .mut_arg("cwd", |arg| {
                arg.help(format!(
                    "The working directory [default: {cwd}, else the current directory]"
                ))
            })
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
        agent: crate::agents::Agent,
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
            let agent = name.parse::<crate::agents::Agent>().ok()?;
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
                TrustMode::All
            } else {
                TrustMode::Check
            };
            return adapter::serve(agent, &args, trust);
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
        | Command::Untrust(_)
        | Command::New(_)
        | Command::Log(_) => {
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
        TrustMode::All
    } else {
        TrustMode::Check
    };
    match cli.command {
        Command::List { args, .. } => list::run(&args, &trust),
        Command::Run { args, .. } => run::run(&args, &trust),
        Command::Explain { args, .. } => explain::run(&args, trust),
        Command::Install(args) => install::install(&args),
        Command::Uninstall(args) => install::uninstall(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Trust(args) => trust::run_trust(&args),
        Command::Untrust(args) => trust::run_untrust(&args),
        Command::New(args) => new::run(&args),
        Command::Log(args) => log::run(&args),
        Command::Serve(args) if args.stdio => match audit::Settings::load() {
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
        Command::Serve(args) => serve::control::run(&args, trust),
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
        .and_then(|(name, args)| Some((name.parse::<crate::agents::Agent>().ok()?, args)))
    else {
        return 2;
    };
    let event = args.get_one::<String>("event").map_or("", String::as_str);
    crate::transport::command::reject(agent.protocol(), event)
}
