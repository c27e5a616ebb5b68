//! Calls of a resident host (`hooks serve`): the same steps as [`answer()`](super::answer())
//! (the same decoding, emission and encoding, so the same answer for the same input), split
//! so that the runner outlives the call and is kept per agent session by the transport
//! ([`crate::serve::Sessions`]).
//!
//! 1. [`prepare`] checks the event name, decodes the input and finds the working directory;
//! 2. the transport finds the call's session by [`Prepared::session_id`], or builds it with
//!    [`open`] (its hooks loaded for [`Prepared::cwd`]), which emits `session_start` once;
//! 3. [`run`] emits the call's events on that session and gives the [`Outcome`].
//!
//! Where this differs from a fresh process per call, by design: `session_start` is emitted
//! once per session, when it is built, so the agent's `SessionStart` (source `startup`)
//! answers with what that emission sent and a repeated one of a live session emits nothing
//! again (a resume, clear, fork or compaction is emitted as a process would); a session
//! built by another call (the server restarted mid-session) answers that
//! call without what its `session_start` sent. Every hook file is loaded when the session
//! is built (a fresh process loads them only for the tool events, the only ones they
//! handle).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::{HookRunner, JsonlSessionStore};

use super::answer::{outcome, unknown_event, working_dir};
use super::emit::{self, Reply};
use super::protocol::{AgentEvent, Call, Mapping, Protocol, Request, StartSource};
use super::session::Session;
use super::{AdapterOptions, Outcome, bundle_or_error};
use crate::serve::Tables;

/// What a resident host keeps per agent session besides its runner: the collectors of what
/// its hooks report, send and notify, and the agent it serves.
pub struct Resident {
    session: Session,
}

impl std::fmt::Debug for Resident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resident").finish_non_exhaustive()
    }
}

/// One call, decoded and not yet run ([`prepare`]).
#[derive(Debug)]
pub struct Prepared {
    event: AgentEvent,
    request: Request,
    cwd: PathBuf,
}

impl Prepared {
    /// The agent's session id, when its input had one.
    #[must_use]
    pub fn session_id(&self) -> Option<&str> {
        self.request
            .session_id
            .as_deref()
            .filter(|id| !id.is_empty())
    }

    /// The directory the call's hooks are loaded for.
    #[must_use]
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The call's event.
    #[must_use]
    pub fn event(&self) -> AgentEvent {
        self.event
    }

    /// Whether this call ends the agent's session (its session-end event): the transport
    /// drops the session after [`run`].
    #[must_use]
    pub fn ends_session(&self) -> bool {
        self.event.mapping == Mapping::SessionEnd
    }
}

/// Checks the event name, decodes `input` and finds the working directory, as
/// [`answer()`](super::answer()) does.
///
/// # Errors
/// The call's failure [`Outcome`], the same as [`answer()`](super::answer())'s for that input.
pub fn prepare(
    protocol: &dyn Protocol,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Result<Prepared, Outcome> {
    let Some(event) = protocol.event(event_name) else {
        return Err(Outcome::failure(
            protocol,
            event_name,
            &unknown_event(protocol, event_name),
        ));
    };
    let decoded = catch_unwind(AssertUnwindSafe(|| {
        let request = protocol
            .decode(event, input)
            .map_err(|e| format!("invalid input: {e}"))?;
        let cwd = working_dir(opts, &request)?;
        Ok::<_, String>(Prepared {
            event,
            request,
            cwd,
        })
    }))
    .unwrap_or_else(|payload| {
        let message = hooks_core::HandlerError::from_panic(&*payload);
        Err(format!("internal error: the adapter panicked: {message}"))
    });
    decoded.map_err(|failure| outcome(protocol, event, event_name, Reply::failure(failure)))
}

/// Builds the session of `call`: its hooks (from `opts`, else the linked bundle and the hook
/// files for [`Prepared::cwd`]; over the table `tables` keeps when they are compiled-in hooks
/// alone), a runner over them with the agent's adapter host, and the collectors, its entries
/// in `store` (its file: [`crate::serve::SessionFiles`]), else in memory. The runner is not
/// yet started (the transport emits `session_start`).
///
/// # Errors
/// The hooks cannot be loaded (`cannot load hooks: ...`).
pub fn open(
    protocol: &dyn Protocol,
    call: &Prepared,
    opts: &AdapterOptions,
    tables: &Tables,
    store: Option<JsonlSessionStore>,
) -> Result<(Arc<HookRunner>, Resident), String> {
    let hooks = match &opts.hooks {
        Some(factory) => factory(&call.cwd),
        None => bundle_or_error(crate::load::load(&call.cwd, &[], &opts.trust)),
    }
    .map_err(|e| format!("cannot load hooks: {e}"))?;
    let (agent, cwd, timeout) = (protocol.name(), &call.cwd, opts.handler_timeout);
    let table = tables.table_for(hooks);
    let session = match store {
        Some(store) => Session::with_store(agent, &table, cwd, store, timeout),
        None => Session::new(agent, &table, cwd, call.session_id(), timeout),
    }
    .map_err(|e| e.to_string())?;
    Ok((Arc::clone(&session.runner), Resident { session }))
}

/// Runs `call` on its session `resident`; `started`: this call built the session (and
/// `session_start` was just emitted on it). Gives the call's [`Outcome`].
pub async fn run(
    protocol: &dyn Protocol,
    call: Prepared,
    resident: &Resident,
    started: bool,
) -> Outcome {
    let s = &resident.session;
    let event = call.event;
    let reply = match call.request.call {
        Call::SessionStart(StartSource::Startup) if started => emit::started(s),
        // A live session started once already.
        Call::SessionStart(StartSource::Startup) => Reply::default(),
        // A resume, clear, fork or compaction: as in a process of its own.
        other => {
            // Each call answers with what its own hooks reported and sent, as in a process
            // of its own: nothing left from an earlier call (a note sent after a tool ran)
            // or from the `session_start` that built the session.
            s.clear();
            emit::emit(other, s).await
        }
    };
    outcome(protocol, event, event.name, reply)
}

/// Runs `call` on a runner of its own, `resident` (a call without a session id, which no
/// later call can join): every event of the call is emitted, `session_start` included, as a
/// fresh process would.
pub async fn run_alone(protocol: &dyn Protocol, call: Prepared, resident: &Resident) -> Outcome {
    let event = call.event;
    let reply = emit::emit(call.request.call, &resident.session).await;
    outcome(protocol, event, event.name, reply)
}
