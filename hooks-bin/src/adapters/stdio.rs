//! The process side of `hooks claude EVENT` / `hooks codex EVENT`: the call served on the
//! process's own stdin, stdout and stderr.
//!
//! A failure here (a stdin that cannot be read) exits with [`Agent::failure_code`], like every
//! other failure of the call.

use std::io;

use super::{AdapterOptions, Agent, claude, codex, read_input, silence_panic_output};

/// Serves one call of `agent` for the event named `event_name` on the process's stdin, stdout
/// and stderr (see the [module docs](self)); returns the exit code.
#[must_use]
pub fn serve(agent: Agent, event_name: &str, opts: &AdapterOptions) -> u8 {
    silence_panic_output();
    let mut err = io::stderr().lock();
    let input = match read_input(&mut io::stdin().lock()) {
        Ok(input) => input,
        Err(e) => return agent.fail(event_name, &format!("cannot read stdin: {e}"), &mut err),
    };
    let mut out = io::stdout().lock();
    match agent {
        Agent::Codex => codex::run(event_name, &input, &mut out, &mut err, opts),
        _ => claude::run(event_name, &input, &mut out, &mut err, opts),
    }
}
