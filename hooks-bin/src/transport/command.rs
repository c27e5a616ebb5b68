//! The command transport: `hooks claude EVENT` / `hooks codex EVENT`, one hook call per process,
//! the input on stdin, the [`Outcome`] of [`answer_call`] as the exit code, stdout and stderr.
//!
//! Before anything is read, a gating call ([`Protocol::is_gating`]) checks that its stdout can
//! carry an answer: a stdout that is `/dev/null` fails the call (exit 2, the reason on stderr),
//! because a `deny` written there would be lost and the agent would read the empty stdout and
//! exit 0 as "no opinion", letting the tool call through. A stdout the agent closed shows up
//! the same way: the Rust runtime opens `/dev/null` on a standard descriptor that is closed
//! when the process starts, so the check is whether descriptor 1 is `/dev/null` (the same
//! character device). Observational calls are not checked: there is no decision to lose, and
//! their hooks (a logger on `Stop`) still run.
//!
//! A stdin that cannot be read fails like every other failure of the call
//! ([`Outcome::failure`]). Where the answer cannot reach the agent (an unusable stdout, an
//! answer that cannot be written) the call exits with [`Protocol::failure_code`] even where a
//! failure would otherwise answer instead ([`Protocol::failure_answer`]): the exit code is all
//! the agent can read.

use std::io::{self, Write};

use std::time::{Instant, SystemTime};

use crate::agents::Protocol;
use crate::call::audit::log::DecisionLog;
use crate::call::audit::record::Record;
use crate::call::{AdapterOptions, Outcome, answer_call, disabled_outcome, hooks_disabled};
use crate::json;

/// Serves one call of `protocol` for the event named `event_name`: `input` is the bytes read
/// from stdin (bounded: [`json::read_bounded`]); the answer goes to `out`, a failure line to
/// `err`. In audit mode the agent gets "no opinion" ([`crate::call::audited`]); when the
/// decision log is written ([`AdapterOptions::audit`]), its line is appended after the answer
/// was written and flushed (a log that cannot be written is said on `err`, and changes
/// nothing else).
/// Returns the exit code.
pub fn run(
    protocol: &dyn Protocol,
    event_name: &str,
    input: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
    opts: &AdapterOptions,
) -> u8 {
    let (start, clock) = (SystemTime::now(), Instant::now());
    let mut answered = answer_call(protocol, event_name, input, opts);
    let code = deliver(answered.outcome.clone(), protocol, event_name, out, err);
    let settings = &opts.audit;
    if let Some(why) = &settings.log_unplaced {
        let _ignored = writeln!(err, "hooks: decision log: {why}");
    }
    if let Some(log) = settings.log.clone()
        && !hooks_disabled()
    {
        let took = (start, clock.elapsed());
        let record = Record::new(
            protocol.name(),
            event_name,
            settings.mode,
            took,
            &mut answered,
        );
        DecisionLog::new(log).write(&record.line(), err);
    }
    code
}

/// Writes `outcome`'s answer to `out` and its line to `err`; returns the exit code. An answer
/// that cannot be written is a failure of its own.
fn deliver(
    mut outcome: Outcome,
    protocol: &dyn Protocol,
    event_name: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    if !outcome.stdout.is_empty()
        && let Err(e) = out
            .write_all(outcome.stdout.as_bytes())
            .and_then(|()| out.flush())
    {
        // The answer is lost, a failure's answer too: the exit code is all that is left.
        outcome = if outcome.stderr.is_empty() {
            let reason = format!("cannot write the answer to stdout: {e}");
            Outcome::exit_failure(protocol, event_name, &reason)
        } else {
            Outcome {
                code: protocol.failure_code(event_name),
                ..outcome
            }
        };
    }
    report(&outcome, err)
}

/// Hands a call's input to a resident host: its [`Outcome`], or `None` to run the call in this
/// process ([`crate::serve::socket::hand_over`]).
pub type HandOver<'a> = &'a dyn Fn(&[u8]) -> Option<Outcome>;

/// Serves one call of `protocol` for the event named `event_name` on the process's stdin,
/// stdout and stderr (see the [module docs](self)), in this process or, when `hand_over`
/// takes it, in a resident host (after the kill switch and the check of stdout, with the
/// input read here); returns the exit code.
#[must_use]
pub fn serve(
    protocol: &dyn Protocol,
    event_name: &str,
    opts: &AdapterOptions,
    hand_over: HandOver<'_>,
) -> u8 {
    silence_panic_output();
    let mut err = io::stderr().lock();
    // Switched off, nothing is checked or read: no opinion.
    if let Some(off) = disabled_outcome(protocol, event_name) {
        return report(&off, &mut err);
    }
    if protocol.is_gating(event_name)
        && let Some(why) = stdout_unusable()
    {
        // Nothing written can be read: the exit code is all there is.
        return report(&Outcome::exit_failure(protocol, event_name, &why), &mut err);
    }
    let mut out = io::stdout().lock();
    let input = match json::read_bounded(&mut io::stdin().lock()) {
        Ok(input) => input,
        Err(e) => {
            let reason = format!("cannot read stdin: {e}");
            let failed = Outcome::failure(protocol, event_name, &reason);
            return deliver(failed, protocol, event_name, &mut out, &mut err);
        }
    };
    match hand_over(&input) {
        Some(outcome) => deliver(outcome, protocol, event_name, &mut out, &mut err),
        None => run(protocol, event_name, &input, &mut out, &mut err, opts),
    }
}

/// Fails the call for `event_name` whose command line was rejected (the rejection is printed
/// already) like any other failure of the call, on the process's stdout; returns the exit
/// code.
#[must_use]
pub fn reject(protocol: &dyn Protocol, event_name: &str) -> u8 {
    fail(
        protocol,
        event_name,
        "invalid command line",
        &mut io::sink(),
    )
}

/// Fails the call for `event_name` for `reason` (a config file that cannot be read) before
/// its input is read, like any other failure of the call, on the process's stdout; the line
/// goes to `err`. Returns the exit code.
#[must_use]
pub fn fail(protocol: &dyn Protocol, event_name: &str, reason: &str, err: &mut dyn Write) -> u8 {
    if let Some(off) = disabled_outcome(protocol, event_name) {
        return report(&off, &mut io::stderr().lock());
    }
    if protocol.is_gating(event_name) && stdout_unusable().is_some() {
        return report(&Outcome::exit_failure(protocol, event_name, reason), err);
    }
    let failed = Outcome::failure(protocol, event_name, reason);
    deliver(failed, protocol, event_name, &mut io::stdout().lock(), err)
}

/// Makes panics print nothing: handler panics are caught and reported as one stderr line, and
/// the default panic message would add lines that the agent shows as the block reason.
fn silence_panic_output() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// Writes the outcome's stderr line (a failure's, or the kill switch's), if any, to `err` (a write error is ignored: there is
/// nowhere left to report it) and returns its exit code.
fn report(outcome: &Outcome, err: &mut dyn Write) -> u8 {
    if !outcome.stderr.is_empty() {
        let _ignored = err
            .write_all(outcome.stderr.as_bytes())
            .and_then(|()| err.flush());
    }
    outcome.code
}

/// Why the process's stdout cannot carry an answer, if it cannot: it is `/dev/null` (or was
/// closed, which the Rust runtime turned into `/dev/null`), or it cannot even be examined.
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
