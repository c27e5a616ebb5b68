//! The one pipeline of an agent's call, for every transport: the command adapter
//! ([`answer()`], a runner of the call's own), `hooks serve` over HTTP and its unix socket (a
//! runner kept per agent session by [`crate::serve::Sessions`]), `hooks explain`.
//!
//! 1. [`prepare`] checks the event name, decodes the input and finds the working directory;
//! 2. the transport finds the call's session by [`Prepared::session_id`], or builds it with
//!    [`open`] (its hooks loaded, as [`Load`] says, for the session's project root), and a
//!    resident transport emits `session_start` once;
//! 3. [`run`] (a resident session) or [`run_alone`] (a call of its own) emits the call's events
//!    and gives the [`Outcome`].
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

use hookwright::{HookRunner, HookTable, JsonlSessionStore, SessionManager};

use super::audit::Mode;
use super::emit::{self, Reply};
use super::outcome::{Answered, CallFacts, Outcome, outcome, unknown_event, working_dir};
use super::session::Session;
use super::trace::{self, Runs};
use super::{AdapterOptions, Tables, bundle_or_error, load_bundle_for};
use crate::agents::{AgentEvent, Call, Mapping, Protocol, Request, StartSource};
use crate::sync::Locked as _;

/// What a resident host keeps per agent session besides its runner: the collectors of what
/// its hooks report, send and notify, and the agent it serves.
pub struct Resident {
    session: Session,
    /// The session's handlers record what they did here when the decision log is written.
    runs: Option<Runs>,
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
    facts: CallFacts,
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

    /// What the call is about (session, tool, our event), for the decision log.
    #[must_use]
    pub fn facts(&self) -> &CallFacts {
        &self.facts
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
/// The call's failure, the same as [`answer_call`]'s for that input.
pub fn prepare(
    protocol: &dyn Protocol,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Result<Prepared, Box<Answered>> {
    let refused = |failed| {
        let facts = CallFacts::default();
        Box::new(Answered::failed(
            protocol,
            event_name,
            failed,
            facts,
            opts.audit.mode,
        ))
    };
    let Some(event) = protocol.event(event_name) else {
        let reason = unknown_event(protocol, event_name);
        return Err(refused(Outcome::failure(protocol, event_name, &reason)));
    };
    let decoded = unpanicked(|| {
        let request = protocol
            .decode(event, input)
            .map_err(|e| format!("invalid input: {e}"))?;
        let facts = CallFacts::of(&request, opts.audit.log.is_some());
        let cwd = working_dir(opts, &request)?;
        Ok(Prepared {
            event,
            request,
            cwd,
            facts,
        })
    });
    decoded.map_err(|failure| {
        refused(outcome(
            protocol,
            event,
            event_name,
            Reply::failure(failure),
        ))
    })
}

/// Which hooks [`open`] loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// Everything the session may ever use: a resident session serves every event.
    Everything,
    /// What the call's event can use ([`load_bundle_for`]): a call of its own process looks for
    /// hook files only on the tool events, the only ones they handle.
    ForEvent,
}

/// Builds the session of `call`: its hooks (from `opts`, else the linked bundle and the hook
/// files for its project root; over the table `tables` keeps when they are compiled-in hooks
/// alone), a runner over them with the agent's adapter host, and the collectors, its entries
/// in `store` (its file: [`crate::serve::SessionFiles`]), else in memory. The runner is not
/// yet started (the transport emits `session_start`).
///
/// The project root is the directory the session's file records, which is the working
/// directory of the call that first built the session (for Claude Code's `SessionStart
/// --via-server`, `CLAUDE_PROJECT_DIR`): a session rebuilt later (after a restart of the
/// server, its idle timeout or an eviction) by a call whose `cwd` is a subdirectory (over
/// HTTP there is no `CLAUDE_PROJECT_DIR`) loads the same project hook files as before. Without
/// a file, or when that directory is gone, it is [`Prepared::cwd`].
///
/// # Errors
/// The hooks cannot be loaded (`cannot load hooks: ...`).
pub fn open(
    protocol: &dyn Protocol,
    call: &Prepared,
    opts: &AdapterOptions,
    load: Load,
    tables: &Tables,
    store: Option<JsonlSessionStore>,
) -> Result<(Arc<HookRunner>, Resident), String> {
    let recorded = store
        .as_ref()
        .map(SessionManager::cwd)
        .filter(|root| root.is_dir());
    let root = recorded.as_deref().unwrap_or(&call.cwd);
    let mut hooks = match (&opts.hooks, load) {
        (Some(factory), _) => factory(root),
        (None, Load::Everything) => {
            bundle_or_error(crate::call::load::load(root, &[], &opts.trust))
        }
        (None, Load::ForEvent) => load_bundle_for(root, call.event, &opts.trust),
    }
    .map_err(|e| format!("cannot load hooks: {e}"))?;
    // The caller's collector (the command adapter's, `hooks explain`'s), else the session's own
    // when the decision log is written.
    let runs = opts
        .runs
        .clone()
        .or_else(|| opts.audit.log.is_some().then(Runs::default));
    if let Some(runs) = &runs {
        trace::trace(&mut hooks, runs, opts.handler_timeout);
    }
    let (agent, cwd, timeout) = (protocol.name(), root, opts.handler_timeout);
    // Traced hooks record into this session's `runs`: a table of their own, never shared.
    let table = if runs.is_some() {
        HookTable::new(hooks)
    } else {
        tables.table_for(hooks)
    };
    let session = match store {
        Some(store) => Session::with_store(agent, &table, cwd, store, timeout),
        None => Session::new(agent, &table, cwd, call.session_id(), timeout),
    }
    .map_err(|e| e.to_string())?;
    Ok((Arc::clone(&session.runner), Resident { session, runs }))
}

/// Runs `call` on its session `resident`; `started`: this call built the session (and
/// `session_start` was just emitted on it); `mode`: enforce or audit. Gives what the call
/// gave ([`Answered`]; the handlers that ran, when the decision log is written).
pub async fn run(
    protocol: &dyn Protocol,
    call: Prepared,
    resident: &Resident,
    started: bool,
    mode: Mode,
) -> Answered {
    let s = &resident.session;
    let event = call.event;
    if !started {
        // What the session's handlers did before this call is not this call's.
        drain(resident);
    }
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
    answered(protocol, event, reply, call.facts, resident, mode)
}

/// The [`Answered`] of a call of `event` on `resident` whose hooks gave `reply`.
fn answered(
    protocol: &dyn Protocol,
    event: AgentEvent,
    reply: Reply,
    facts: CallFacts,
    resident: &Resident,
    mode: Mode,
) -> Answered {
    let decision = reply.decision.clone();
    let enforced = outcome(protocol, event, event.name, reply);
    let runs = resident.runs.as_ref();
    Answered::new(
        protocol,
        event.name,
        enforced,
        decision,
        facts,
        (mode, runs),
    )
}

/// Forgets what the handlers of `resident` recorded.
fn drain(resident: &Resident) {
    if let Some(runs) = &resident.runs {
        runs.locked().clear();
    }
}

/// Runs `call` on a runner of its own, `resident` (a call without a session id, which no
/// later call can join): every event of the call is emitted, `session_start` included, as a
/// fresh process would.
pub async fn run_alone(
    protocol: &dyn Protocol,
    call: Prepared,
    resident: &Resident,
    mode: Mode,
) -> Answered {
    let event = call.event;
    let reply = emit::emit(call.request.call, &resident.session).await;
    answered(protocol, event, reply, call.facts, resident, mode)
}

/// Serves one call of `protocol` for the event named `event_name` with the input `input`; see
/// the [adapter docs](super). Never panics: a panic of the adapter is a failure. With the
/// hooks switched off ([`super::disabled_outcome`]) it answers "no opinion" at once.
#[must_use]
pub fn answer(
    protocol: &dyn Protocol,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Outcome {
    answer_call(protocol, event_name, input, opts).outcome
}

/// [`answer`], with everything the call gave ([`Answered`]).
#[must_use]
pub fn answer_call(
    protocol: &dyn Protocol,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Answered {
    let mode = opts.audit.mode;
    let runs = opts.runs.as_ref();
    if let Some(off) = super::disabled_outcome(protocol, event_name) {
        return Answered::new(
            protocol,
            event_name,
            off.clone(),
            None,
            CallFacts::default(),
            (crate::call::audit::Mode::Enforce, None),
        );
    }
    // An unknown event, or input the protocol refuses: failed before any hook ran.
    let call = match prepare(protocol, event_name, input, opts) {
        Ok(call) => call,
        Err(refused) => return *refused,
    };
    let (event, facts) = (call.event(), call.facts().clone());
    // The same steps as a resident host's, on a runner of this call's own, with the hooks the
    // call's event can use; a panic anywhere fails the call.
    let answered = unpanicked(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("internal error: cannot start the runtime: {e}"))?;
        let load = Load::ForEvent;
        let (_runner, alone) = open(protocol, &call, opts, load, &Tables::new(), None)?;
        Ok(runtime.block_on(run_alone(protocol, call, &alone, mode)))
    });
    answered.unwrap_or_else(|failure| {
        let failed = outcome(protocol, event, event_name, Reply::failure(failure));
        Answered::new(protocol, event_name, failed, None, facts, (mode, runs))
    })
}

/// `f()`, a panic in it the failure `internal error: the adapter panicked: ...`.
fn unpanicked<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panicked(&*payload)))
}

/// The failure of a call whose adapter panicked with `payload`.
pub(crate) fn panicked(payload: &(dyn std::any::Any + Send)) -> String {
    let message = hookwright::HandlerError::from_panic(payload);
    format!("internal error: the adapter panicked: {message}")
}
