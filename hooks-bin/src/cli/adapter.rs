//! `hooks AGENT EVENT`: one agent hook call through the command transport
//! ([`crate::transport::command`]), or handed to the running `hooks serve`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::TrustAllArgs;
use crate::agents::Agent;
use crate::call::{self, audit};
use crate::{serve, transport, trust};

/// Options of the adapter subcommands, `hooks AGENT EVENT` (one per agent: [`super::command`]).
#[derive(Debug, Clone, clap::Args)]
pub struct AdapterArgs {
    /// The agent's event name, e.g. `PreToolUse`.
    pub event: String,
    /// The working directory [default: the agent's project directory variable
    /// ([`Protocol::project_dir_env`](crate::agents::Protocol::project_dir_env)), else the
    /// input's `cwd`, else the current directory]; each agent's help names its variable.
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

/// `hooks claude|codex EVENT`: stdin in, one answer out ([`transport::command::serve`]).
pub(super) fn serve(agent: Agent, args: &AdapterArgs, trust: trust::TrustMode) -> ExitCode {
    let protocol = agent.protocol();
    let mut options = adapter_options(agent, args.cwd.clone(), trust);
    // Switched off, nothing is loaded, and the server is neither asked nor started
    // (`transport::command::serve` answers first).
    if !call::hooks_disabled() {
        // A config file that cannot be read fails the call as bad input does.
        match audit::Settings::load() {
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
    // A call handed to a running `hooks serve` is decided, and logged, there; with
    // `--via-server` it always is, the server started if need be.
    let hand_over = |input: &[u8]| {
        if args.via_server {
            Some(serve::forward::call(agent, &args.event, input, &options))
        } else {
            serve::socket::hand_over(agent, &args.event, input, &options)
        }
    };
    ExitCode::from(transport::command::serve(
        protocol,
        &args.event,
        &options,
        &hand_over,
    ))
}

/// The options of an adapter call of `agent` (`hooks AGENT EVENT`, `hooks explain`).
pub(super) fn adapter_options(
    agent: Agent,
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
