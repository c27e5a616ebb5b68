//! [`Sessions`]: one [`HookRunner`] per agent session, kept alive across the session's calls,
//! for any transport (the HTTP server of `hooks serve`, the JSON-RPC bridge on stdio).
//!
//! # Lifetime of a session
//!
//! A session is named by a [`SessionKey`]: the agent (`claude`) and the agent's own session id.
//!
//! - **Built on its first call.** [`Sessions::enter`] finds the session, or builds it with the
//!   `open` closure the caller gives (the transport makes the runner: its hooks, its working
//!   directory, its own [`Host`](hookwright::Host) with `initialize`), then emits
//!   `session_start` on it, once. [`Entered::started`] tells the call that did so.
//! - **Alive across calls.** Later calls with the same key get the same runner, so what its
//!   hooks keep lasts as long as the agent's session.
//! - **Ended** by the first of:
//!   - the agent ending it: the call that handled the agent's session-end event (and emitted
//!     `session_shutdown` itself) calls [`Entered::close`]; [`Sessions::end`] emits it and
//!     ends the session from outside a call;
//!   - an idle timeout ([`SessionsConfig::idle_timeout`], default 1 h since its last call
//!     ended): `session_shutdown` is emitted;
//!   - the bound on live sessions ([`SessionsConfig::max_sessions`]): building one more ends
//!     the least recently used other session first, emitting `session_shutdown`;
//!   - [`Sessions::abandon`], for a session whose call the transport gave up on (it hangs):
//!     the session leaves the set at once, and `session_shutdown` is emitted if that call
//!     ever returns within [`SessionsConfig::shutdown_timeout`];
//!   - [`Sessions::shutdown_all`] (`SIGTERM`): every session, at once, each emitting
//!     `session_shutdown`; no session is built afterwards.
//!
//!   A call for an ended session's key builds a new session (with `session_start` again).
//!   [`SessionsConfig::on_end`] is told of each end, why, and whether `session_shutdown`
//!   completed in time.
//!
//! # Order and concurrency
//!
//! The calls of one session are serialised in arrival order: [`Sessions::enter`] waits for
//! the session's previous calls (a fair queue), and the session is the caller's until its
//! [`Entered`] is dropped. Calls of different sessions run concurrently; no lock is held
//! while a session is built or a hook runs except that session's own.
//!
//! `session_shutdown` waits for the call in progress (up to
//! [`SessionsConfig::shutdown_timeout`]) and is itself bounded by the same timeout.
//!
//! # Use
//!
//! ```
//! # async fn demo() -> Result<(), hookwright_cli::serve::SessionError> {
//! use std::sync::Arc;
//! use hookwright_cli::serve::{Session, SessionKey, Sessions, SessionsConfig};
//! use hookwright::{HookRunner, JsonlSessionStore};
//! use hookwright::events::TurnStartEvent;
//!
//! let sessions: Sessions<()> = Sessions::new(SessionsConfig::default());
//! let key = SessionKey::new("claude", "0b1c2d3e");
//! let call = sessions
//!     .enter(key, || {
//!         let cwd = std::env::temp_dir();
//!         let store = Arc::new(JsonlSessionStore::in_memory_with_id(&cwd, "0b1c2d3e"));
//!         let runner = Arc::new(HookRunner::new(Vec::new(), &cwd, store));
//!         // runner.initialize(MyHost { .. }); the transport's own host
//!         Ok(Session { runner, data: () })
//!     })
//!     .await?;
//! assert!(call.started()); // session_start was emitted by this call
//! call.runner.emit(&TurnStartEvent::default()).await;
//! drop(call); // the next call of the session may run
//! sessions.shutdown_all().await; // session_shutdown for every live session
//! # Ok(()) }
//! # tokio::runtime::Runtime::new().unwrap().block_on(demo()).unwrap();
//! ```
//!
//! A [`Sessions`] must be made inside a tokio runtime (it spawns the task that ends idle
//! sessions); it is cheap to clone (clones share the sessions). Dropping the last clone drops
//! the live sessions without `session_shutdown`: call [`Sessions::shutdown_all`] first.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::sync::Locked as _;
use hookwright::HookRunner;
use hookwright::events::{SessionShutdownEvent, SessionStartEvent};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// The name of one agent session: the agent (as `hooks` spells it: `claude`) and the agent's
/// session id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    /// The agent: `claude`, `codex`, `pi`.
    pub agent: String,
    /// The agent's session id.
    pub id: String,
}

impl SessionKey {
    /// The session `id` of `agent`.
    #[must_use]
    pub fn new(agent: impl Into<String>, id: impl Into<String>) -> Self {
        SessionKey {
            agent: agent.into(),
            id: id.into(),
        }
    }
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.agent, self.id)
    }
}

/// A live session: its runner (built and initialized by the transport) and what else the
/// transport keeps per session (`data`: collectors of what the hooks sent, a channel to the
/// agent, `()`).
#[derive(Debug)]
pub struct Session<D> {
    /// The session's runner. Shared, so that a transport can run a call that the agent nests
    /// inside another of the same session without the session's order (a command waiting for
    /// a session action, while the agent emits the events of that action): it clones the
    /// runner and drops its [`Entered`].
    pub runner: Arc<HookRunner>,
    /// The transport's own state of the session.
    pub data: D,
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EndReason {
    /// The agent ended it ([`Entered::close`], [`Sessions::end`]).
    Agent,
    /// No call for [`SessionsConfig::idle_timeout`].
    Idle,
    /// The least recently used session when one more was built past
    /// [`SessionsConfig::max_sessions`].
    Evicted,
    /// A call of it was given up ([`Sessions::abandon`]).
    Abandoned,
    /// [`Sessions::shutdown_all`].
    Shutdown,
}

impl EndReason {
    /// `agent`, `idle`, `evicted`, `abandoned` or `shutdown`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Agent => "agent",
            EndReason::Idle => "idle",
            EndReason::Evicted => "evicted",
            EndReason::Abandoned => "abandoned",
            EndReason::Shutdown => "shutdown",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a session ended, for [`SessionsConfig::on_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// Why.
    pub reason: EndReason,
    /// Whether `session_shutdown` ran to its end in time (or was emitted by the call that
    /// closed the session, or the session never got a runner). `false`: a call of the
    /// session did not return within [`SessionsConfig::shutdown_timeout`], or
    /// `session_shutdown` itself did not.
    pub clean: bool,
}

/// Told of every session that ends.
pub type OnEnd = Arc<dyn Fn(&SessionKey, Ending) + Send + Sync>;

/// The limits of a [`Sessions`].
#[derive(Clone)]
pub struct SessionsConfig {
    /// A session without a call for this long is ended (default 1 h).
    pub idle_timeout: Duration,
    /// The most sessions alive at once (default 1024); at least 1.
    pub max_sessions: usize,
    /// How long ending a session waits for its call in progress, and then for
    /// `session_shutdown` (default 5 s each).
    pub shutdown_timeout: Duration,
    /// Told of every session that ends (default: nobody).
    pub on_end: Option<OnEnd>,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            idle_timeout: Duration::from_secs(3600),
            max_sessions: 1024,
            shutdown_timeout: Duration::from_secs(5),
            on_end: None,
        }
    }
}

impl fmt::Debug for SessionsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionsConfig")
            .field("idle_timeout", &self.idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("on_end", &self.on_end.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

/// Why [`Sessions::enter`] gave no session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The `open` closure failed; the message is its error.
    #[error("{0}")]
    Open(String),
    /// [`Sessions::shutdown_all`] was called.
    #[error("the server is shutting down")]
    ShuttingDown,
}

/// One session in the set: its runner behind the lock that orders its calls.
struct Slot<D> {
    key: SessionKey,
    /// `None` until the first call has built the session, and after it ended.
    state: Arc<AsyncMutex<Option<Session<D>>>>,
    /// When its last call ended (or began), in nanoseconds since [`Inner::epoch`].
    last_used: AtomicU64,
    /// Set, under the map's lock, when the slot leaves the map: a call that waited for it
    /// goes again and builds a new session.
    closed: AtomicBool,
}

struct Inner<D> {
    config: SessionsConfig,
    slots: Mutex<HashMap<SessionKey, Arc<Slot<D>>>>,
    epoch: Instant,
    closing: AtomicBool,
}

/// The live sessions of one server: each built on its first call, ended by the agent, the
/// idle timeout, the bound or the server's shutdown (`session_shutdown` on each).
pub struct Sessions<D> {
    inner: Arc<Inner<D>>,
}

impl<D> Clone for Sessions<D> {
    fn clone(&self) -> Self {
        Sessions {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<D> fmt::Debug for Sessions<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let live = self.inner.slots.locked().len();
        f.debug_struct("Sessions")
            .field("config", &self.inner.config)
            .field("live", &live)
            .finish()
    }
}

/// A call's hold on its session: the session is this call's until it is dropped (see
/// [`Sessions::enter`]). Dereferences to the [`Session`].
pub struct Entered<D: Send + Sync + 'static> {
    slot: Arc<Slot<D>>,
    guard: OwnedMutexGuard<Option<Session<D>>>,
    started: bool,
    inner: Weak<Inner<D>>,
}

impl<D: Send + Sync + 'static> Entered<D> {
    /// Whether this call built the session (and `session_start` was just emitted on it).
    #[must_use]
    pub fn started(&self) -> bool {
        self.started
    }

    /// The session's key.
    #[must_use]
    pub fn key(&self) -> &SessionKey {
        &self.slot.key
    }

    /// Ends the session: this call handled the agent's session-end event and emitted
    /// `session_shutdown` itself. The runner is dropped; a later call with the same key
    /// builds a new session.
    pub fn close(mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.remove(&self.slot);
        }
        self.slot.closed.store(true, Ordering::Release);
        drop(self.guard.take());
        if let Some(on_end) = self.inner.upgrade().and_then(|i| i.config.on_end.clone()) {
            on_end(
                &self.slot.key,
                Ending {
                    reason: EndReason::Agent,
                    clean: true,
                },
            );
        }
    }
}

impl<D: Send + Sync + 'static> Deref for Entered<D> {
    type Target = Session<D>;

    fn deref(&self) -> &Session<D> {
        self.guard
            .as_ref()
            .expect("an entered session has its runner until it is closed")
    }
}

impl<D: Send + Sync + 'static> Drop for Entered<D> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            self.slot.last_used.store(inner.now(), Ordering::Relaxed);
        }
    }
}

impl<D: Send + Sync + 'static> fmt::Debug for Entered<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entered")
            .field("key", &self.slot.key)
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

impl<D: Send + Sync + 'static> Sessions<D> {
    /// An empty set with `config`'s limits.
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns the task that ends idle sessions).
    #[must_use]
    pub fn new(config: SessionsConfig) -> Self {
        let inner = Arc::new(Inner {
            config: SessionsConfig {
                max_sessions: config.max_sessions.max(1),
                ..config
            },
            slots: Mutex::new(HashMap::new()),
            epoch: Instant::now(),
            closing: AtomicBool::new(false),
        });
        tokio::spawn(reap_idle(Arc::downgrade(&inner)));
        Sessions { inner }
    }

    /// The limits in force.
    #[must_use]
    pub fn config(&self) -> &SessionsConfig {
        &self.inner.config
    }

    /// Waits for the session `key` to be free (after the calls that arrived before this one),
    /// building it with `open` if it is not alive (and emitting `session_start` on it), and
    /// gives it to this call until the [`Entered`] is dropped.
    ///
    /// `open` runs at most once, only when this call builds the session; it runs on the
    /// caller's task, holding only this session's lock.
    ///
    /// # Errors
    /// [`SessionError::Open`] when `open` fails (nothing is kept: the next call tries
    /// again); [`SessionError::ShuttingDown`] after [`Sessions::shutdown_all`].
    pub async fn enter<F>(&self, key: SessionKey, open: F) -> Result<Entered<D>, SessionError>
    where
        F: FnOnce() -> Result<Session<D>, String>,
    {
        let mut open = Some(open);
        loop {
            let slot = self.inner.slot(&key)?;
            let mut guard = Arc::clone(&slot.state).lock_owned().await;
            if slot.closed.load(Ordering::Acquire) {
                // Ended while this call waited for it: build a new one.
                continue;
            }
            let mut started = false;
            if guard.is_none() {
                let open = open
                    .take()
                    .expect("a session is built at most once per call");
                match open() {
                    Ok(session) => {
                        let session = guard.insert(session);
                        let _ = session.runner.emit(&SessionStartEvent {}).await;
                        started = true;
                    }
                    Err(e) => {
                        self.inner.remove(&slot);
                        slot.closed.store(true, Ordering::Release);
                        return Err(SessionError::Open(e));
                    }
                }
            }
            return Ok(Entered {
                slot,
                guard,
                started,
                inner: Arc::downgrade(&self.inner),
            });
        }
    }

    /// Ends the session `key` if it is alive: waits for its call in progress, emits
    /// `session_shutdown` and drops it. Returns whether it was alive.
    pub async fn end(&self, key: &SessionKey) -> bool {
        match self.inner.take(key) {
            Some(slot) => {
                self.inner.end(slot, EndReason::Agent).await;
                true
            }
            None => false,
        }
    }

    /// Takes the session `key` out of the set at once, because a call of it is given up (it
    /// hangs): the next call with its key builds a new session. `session_shutdown` is emitted
    /// in the background once the hung call returns (if it does, within
    /// [`SessionsConfig::shutdown_timeout`]). Returns whether it was alive.
    pub fn abandon(&self, key: &SessionKey) -> bool {
        match self.inner.take(key) {
            Some(slot) => {
                tokio::spawn(end_owned(
                    Arc::clone(&self.inner),
                    slot,
                    EndReason::Abandoned,
                ));
                true
            }
            None => false,
        }
    }

    /// Ends every live session (each waiting for its call in progress, then emitting
    /// `session_shutdown`, all at once) and refuses to build new ones. Returns how many
    /// ended.
    pub async fn shutdown_all(&self) -> usize {
        self.inner.closing.store(true, Ordering::Release);
        let slots: Vec<Arc<Slot<D>>> = {
            let mut map = self.inner.slots.locked();
            map.drain()
                .map(|(_, slot)| slot)
                .inspect(|slot| slot.closed.store(true, Ordering::Release))
                .collect()
        };
        let count = slots.len();
        let mut tasks = tokio::task::JoinSet::new();
        for slot in slots {
            tasks.spawn(end_owned(
                Arc::clone(&self.inner),
                slot,
                EndReason::Shutdown,
            ));
        }
        while tasks.join_next().await.is_some() {}
        count
    }

    /// How many sessions are alive.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.slots.locked().len()
    }

    /// Whether no session is alive.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the session `key` is alive.
    #[must_use]
    pub fn contains(&self, key: &SessionKey) -> bool {
        self.inner.slots.locked().contains_key(key)
    }

    /// The keys of the live sessions, sorted.
    #[must_use]
    pub fn keys(&self) -> Vec<SessionKey> {
        let mut keys: Vec<SessionKey> = self.inner.slots.locked().keys().cloned().collect();
        keys.sort();
        keys
    }
}

impl<D: Send + Sync + 'static> Inner<D> {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The slot of `key`, made if there is none (ending the least recently used other one when
    /// that makes one too many); touched.
    fn slot(self: &Arc<Self>, key: &SessionKey) -> Result<Arc<Slot<D>>, SessionError> {
        if self.closing.load(Ordering::Acquire) {
            return Err(SessionError::ShuttingDown);
        }
        let now = self.now();
        let mut map = self.slots.locked();
        if let Some(slot) = map.get(key) {
            slot.last_used.store(now, Ordering::Relaxed);
            return Ok(Arc::clone(slot));
        }
        let slot = Arc::new(Slot {
            key: key.clone(),
            state: Arc::new(AsyncMutex::new(None)),
            last_used: AtomicU64::new(now),
            closed: AtomicBool::new(false),
        });
        map.insert(key.clone(), Arc::clone(&slot));
        while map.len() > self.config.max_sessions {
            let Some(oldest) = map
                .values()
                .filter(|s| s.key != *key)
                .min_by_key(|s| s.last_used.load(Ordering::Relaxed))
                .map(|s| s.key.clone())
            else {
                break;
            };
            if let Some(victim) = map.remove(&oldest) {
                victim.closed.store(true, Ordering::Release);
                tokio::spawn(end_owned(Arc::clone(self), victim, EndReason::Evicted));
            }
        }
        Ok(slot)
    }

    /// Takes `key`'s slot out of the map, marked closed.
    fn take(&self, key: &SessionKey) -> Option<Arc<Slot<D>>> {
        let slot = self.slots.locked().remove(key)?;
        slot.closed.store(true, Ordering::Release);
        Some(slot)
    }

    /// Removes `slot` from the map if it is still the one there.
    fn remove(&self, slot: &Arc<Slot<D>>) {
        let mut map = self.slots.locked();
        if map.get(&slot.key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            map.remove(&slot.key);
        }
    }

    /// Ends a slot already taken out of the map: waits for its call in progress, emits
    /// `session_shutdown` (each bounded by the shutdown timeout), and says so.
    async fn end(&self, slot: Arc<Slot<D>>, reason: EndReason) {
        let bound = self.config.shutdown_timeout;
        let clean = match tokio::time::timeout(bound, Arc::clone(&slot.state).lock_owned()).await {
            Err(_) => false,
            Ok(mut guard) => match guard.take() {
                Some(session) => {
                    tokio::time::timeout(bound, session.runner.emit(&SessionShutdownEvent {}))
                        .await
                        .is_ok()
                }
                None => true,
            },
        };
        if let Some(on_end) = &self.config.on_end {
            on_end(&slot.key, Ending { reason, clean });
        }
    }
}

async fn end_owned<D: Send + Sync + 'static>(
    inner: Arc<Inner<D>>,
    slot: Arc<Slot<D>>,
    reason: EndReason,
) {
    inner.end(slot, reason).await;
}

/// Ends the sessions idle for longer than the idle timeout, checking a few times per
/// timeout (at most once a minute, at least every 10 ms); stops when the set is dropped.
async fn reap_idle<D: Send + Sync + 'static>(inner: Weak<Inner<D>>) {
    let period = match inner.upgrade() {
        Some(inner) => (inner.config.idle_timeout / 4)
            .clamp(Duration::from_millis(10), Duration::from_secs(60)),
        None => return,
    };
    loop {
        tokio::time::sleep(period).await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        let idle_nanos = u64::try_from(inner.config.idle_timeout.as_nanos()).unwrap_or(u64::MAX);
        let now = inner.now();
        let idle: Vec<Arc<Slot<D>>> = {
            let mut map = inner.slots.locked();
            let keys: Vec<SessionKey> = map
                .values()
                .filter(|s| now.saturating_sub(s.last_used.load(Ordering::Relaxed)) >= idle_nanos)
                // A session with a call in progress is not idle, however long the call.
                .filter(|s| s.state.try_lock().is_ok())
                .map(|s| s.key.clone())
                .collect();
            keys.iter()
                .filter_map(|k| map.remove(k))
                .inspect(|slot| slot.closed.store(true, Ordering::Release))
                .collect()
        };
        for slot in idle {
            tokio::spawn(end_owned(Arc::clone(&inner), slot, EndReason::Idle));
        }
    }
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
