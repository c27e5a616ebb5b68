//! `hooks claude EVENT --via-server`: a command hook that hands its call to this user's
//! `hooks serve` (starting it in the background when it does not run), so that the call
//! reaches the session's resident runner. `hooks install claude --http` writes it for
//! `SessionStart`, which Claude Code does not send to HTTP hooks: the session's first call
//! starts the server, builds the session and answers with what `session_start` sent.
//!
//! The call goes over the unix socket, as the command adapter's hand-over does
//! ([`super::socket::call`]): only to the server the lock file names, once the kernel says the
//! socket's other end is that process of this user; with the call's own working directory
//! (`CLAUDE_PROJECT_DIR`: the session's project root, which its session file records), trust
//! mode and audit mode. No secret is sent. The server's [`Outcome`] is written back as the
//! command adapter writes its own. A server that cannot be started or reached fails the call
//! by the agent's rule, naming what to run.

use super::control::{ServeArgs, ensure_running};
use super::socket::{self, Unanswered};
use crate::agents::Agent;
use crate::call::{AdapterOptions, Outcome};

/// One call of `agent`'s `event_name` with the input `input` and the adapter's options
/// `opts`, served by this user's server (started when it does not run): its [`Outcome`], or
/// the call's failure when the server cannot be started or reached. The command transport
/// reads the input and writes the outcome ([`crate::transport::command::serve`]).
#[must_use]
pub fn call(agent: Agent, event_name: &str, input: &[u8], opts: &AdapterOptions) -> Outcome {
    forward(agent, event_name, input, opts)
        .unwrap_or_else(|why| Outcome::failure(agent.protocol(), event_name, &why))
}

fn forward(
    agent: Agent,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Result<Outcome, String> {
    let binary = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let endpoint =
        super::Endpoint::of(&binary, None).map_err(|e| format!("hooks serve cannot run: {e}"))?;
    if let Some(why) = &endpoint.dir.fallback {
        eprintln!("hooks serve: {why}");
    }
    let running = ensure_running(&endpoint, &ServeArgs::default()).map_err(|e| {
        format!(
            "hooks serve is not running and could not be started ({e}); run `{} serve` to see why",
            binary.display()
        )
    })?;
    match socket::call(&endpoint, &running, agent, event_name, input, opts) {
        Ok(outcome) | Err(Unanswered::BrokeOff(outcome)) => Ok(outcome),
        Err(Unanswered::NotConnected(why)) => Err(format!(
            "hooks serve (pid {}) could not be asked: {why}",
            running.pid
        )),
    }
}
