//! The process side of `hooks claude EVENT` / `hooks codex EVENT`: the call served on the
//! process's own stdin, stdout and stderr.
//!
//! Before anything is read, a gating call ([`Agent::is_gating`]) checks that its stdout can
//! carry an answer: a stdout that is `/dev/null` fails the call (exit 2, the reason on stderr),
//! because a `deny` written there would be lost and the agent would read the empty stdout and
//! exit 0 as "no opinion", letting the tool call through. A stdout the agent closed shows up
//! the same way: the Rust runtime opens `/dev/null` on a standard descriptor that is closed
//! when the process starts, so the check is whether descriptor 1 is `/dev/null` (the same
//! character device). Observational calls are not checked: there is no decision to lose, and
//! their hooks (a logger on `Stop`) still run.
//!
//! A failure here (an unusable stdout, a stdin that cannot be read) exits with
//! [`Agent::failure_code`], like every other failure of the call.

use std::io;

use super::{AdapterOptions, Agent, claude, codex, read_input, silence_panic_output};

/// Serves one call of `agent` for the event named `event_name` on the process's stdin, stdout
/// and stderr (see the [module docs](self)); returns the exit code.
#[must_use]
pub fn serve(agent: Agent, event_name: &str, opts: &AdapterOptions) -> u8 {
    silence_panic_output();
    let mut err = io::stderr().lock();
    if agent.is_gating(event_name)
        && let Some(why) = stdout_unusable()
    {
        return agent.fail(event_name, &why, &mut err);
    }
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

/// Why the process's stdout cannot carry an answer, if it cannot: it is `/dev/null` (or was
/// closed, which the Rust runtime turned into `/dev/null`), or it cannot even be examined.
#[cfg(unix)]
fn stdout_unusable() -> Option<String> {
    use rustix::fs::{FileType, fstat, stat};
    let out = match fstat(io::stdout()) {
        Ok(out) => out,
        Err(e) => {
            return Some(format!(
                "stdout cannot be examined ({e}); no answer could be given"
            ));
        }
    };
    let is_char_device = |mode| FileType::from_raw_mode(mode) == FileType::CharacterDevice;
    let null = stat("/dev/null").ok()?;
    (is_char_device(out.st_mode) && is_char_device(null.st_mode) && out.st_rdev == null.st_rdev)
        .then(|| {
            "stdout is closed or /dev/null, so no answer could reach the agent; run the \
             adapter with stdout captured"
                .to_owned()
        })
}

/// Elsewhere stdout is not examined.
#[cfg(not(unix))]
fn stdout_unusable() -> Option<String> {
    None
}
