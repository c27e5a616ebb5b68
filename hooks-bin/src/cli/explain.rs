//! `hooks explain AGENT EVENT [--input FILE] [--json]`: one agent hook call, as `hooks AGENT
//! EVENT` would serve it, with what happened inside: every handler that ran, in order, with
//! its hook, `file:line`, outcome and time ([`crate::call::trace`]), the combined decision, and the exact
//! stdout, stderr and exit code the agent would get. The call goes through the adapter's own
//! path ([`crate::call::answer_call`]); only the handlers are wrapped to be timed.
//!
//! It writes no settings or session file and runs no agent tool (the adapter never does);
//! the hooks themselves run as they would for the agent, so a hook that writes a file or
//! starts a process of its own still does.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use crate::agents::Agent;
use crate::call::AdapterOptions;
use crate::call::trace::{HandlerRun, Runs};
use crate::trust::TrustMode;

/// The help text after the options.
pub const EXPLAIN_HELP: &str = "Reads one hook input of the agent (the JSON it writes on a \
hook's stdin) from stdin or --input, serves it as `hooks AGENT EVENT` would, and prints every \
handler that ran, in order, with its hook, file:line, outcome and time, the combined \
decision, and the exact stdout, stderr and exit code the agent would get. No agent tool runs \
and no settings or session file is written; the hooks run as they would for the agent.\n\n\
Exit status: 0 the call was explained (whatever the agent would get); 1 the input cannot be \
read, or the config file is invalid; 2 invalid usage.";

/// Options of `hooks explain`.
#[derive(Debug, Clone, clap::Args)]
pub struct ExplainArgs {
    /// The agent (`claude`, `codex`, ...: every `hooks AGENT EVENT`).
    #[arg(value_parser = crate::cli::agent_names())]
    pub agent: String,
    /// The agent's event name, e.g. `PreToolUse`.
    pub event: String,
    /// Read the input from FILE instead of stdin.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The working directory, as for `hooks AGENT EVENT`.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// What one explained call gave.
#[derive(Debug)]
pub struct Explained {
    /// The handlers that ran, in order.
    pub runs: Vec<HandlerRun>,
    /// The combined decision, as text (`None`: no opinion, or the call failed first).
    pub decision: Option<String>,
    /// What the agent would get.
    pub outcome: crate::call::Outcome,
}

/// Serves `input` for `agent`'s event `event_name` through the adapter with every handler
/// traced ([`AdapterOptions::runs`]); `options` as for the adapter.
#[must_use]
pub fn explain(
    agent: Agent,
    event_name: &str,
    input: &[u8],
    options: &AdapterOptions,
) -> Explained {
    let protocol = agent.protocol();
    let mut opts = options.clone();
    opts.runs = Some(Runs::default());
    let answered = crate::call::answer_call(protocol, event_name, input, &opts);
    Explained {
        runs: answered.runs,
        decision: answered.decision.map(|d| format!("{d:?}")),
        outcome: answered.outcome,
    }
}

/// `hooks explain`.
#[must_use]
pub fn run(args: &ExplainArgs, trust: TrustMode) -> ExitCode {
    let agent: Agent = match args.agent.parse() {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("hooks explain: {e}");
            return ExitCode::from(2);
        }
    };
    let input = match &args.input {
        Some(path) => std::fs::File::open(path).and_then(|mut f| crate::json::read_bounded(&mut f)),
        None => crate::json::read_bounded(&mut io::stdin().lock()),
    };
    let input = match input {
        Ok(input) => input,
        Err(e) => {
            let from = args
                .input
                .as_ref()
                .map_or_else(|| "stdin".to_owned(), |p| p.display().to_string());
            eprintln!("hooks explain: cannot read {from}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut options = crate::cli::adapter::adapter_options(agent, args.cwd.clone(), trust);
    // The mode applies as for the agent's call; explain writes no decision log.
    match crate::call::audit::Settings::load() {
        Ok(settings) => {
            options.audit = crate::call::audit::Settings {
                log: None,
                log_unplaced: None,
                place: None,
                in_enforce: false,
                ..settings
            };
        }
        Err(e) => {
            eprintln!("hooks explain: invalid configuration: {e}");
            return ExitCode::FAILURE;
        }
    }
    let explained = explain(agent, &args.event, &input, &options);
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(out, "{}", to_json(agent, &args.event, &explained))
    } else {
        human(agent, &args.event, &explained, &mut out)
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hooks explain: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `--json` form: one object.
#[must_use]
pub fn to_json(agent: Agent, event: &str, e: &Explained) -> serde_json::Value {
    json!({
        "agent": agent.as_str(),
        "event": event,
        "handlers": e.runs,
        "decision": e.decision,
        "exitCode": e.outcome.code,
        "stdout": e.outcome.stdout,
        "stderr": e.outcome.stderr,
    })
}

fn human(agent: Agent, event: &str, e: &Explained, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "hooks {agent} {event}")?;
    if e.runs.is_empty() {
        writeln!(out, "Handlers: none ran.")?;
    } else {
        writeln!(out, "Handlers, in the order they ran:")?;
    }
    for (i, run) in e.runs.iter().enumerate() {
        let what = match (run.outcome, &run.result, &run.error) {
            ("result", Some(result), _) => format!("result {result}"),
            ("error", _, Some(error)) => format!("error: {error}"),
            (other, _, _) => other.to_owned(),
        };
        writeln!(
            out,
            "  {}. {} {} ({}) on {}: {what} [{}.{:03} ms]",
            i + 1,
            run.hook,
            run.handler,
            run.location.as_deref().unwrap_or("position unknown"),
            run.event,
            run.micros / 1000,
            run.micros % 1000
        )?;
    }
    writeln!(
        out,
        "Combined: {}",
        e.decision.as_deref().unwrap_or("no opinion")
    )?;
    writeln!(out, "The agent gets: exit {}", e.outcome.code)?;
    let shown = |s: &str| {
        if s.is_empty() {
            "(empty)".to_owned()
        } else {
            s.trim_end_matches('\n').to_owned()
        }
    };
    writeln!(out, "stdout: {}", shown(&e.outcome.stdout))?;
    writeln!(out, "stderr: {}", shown(&e.outcome.stderr))
}
