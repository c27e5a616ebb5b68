//! How `hooks serve` accepts its connections and keeps a flood of them from starving the
//! user's calls.
//!
//! The loopback port can be reached by every local user. A connection that has not yet
//! presented the secret (unproven) costs the server a descriptor and a task, so such
//! connections are bounded in number and time:
//!
//! - one that has not presented the secret within [`Limits::prove_within`] (5 s) of its
//!   accept is closed, whatever it is doing (a request line sent a byte at a time included);
//! - at most [`Limits::max_unproven`] (1,024, and a quarter of the descriptors the process
//!   may open) are open at once: accepting one more closes the oldest unproven one, so a new
//!   connection, the user's agent's among them, is always accepted and read at once, and a
//!   flood must open that many more connections before its headers are read to close it;
//! - a request without the secret is answered (401, 421) and its connection closed;
//! - an accept that fails for want of descriptors closes the oldest unproven connection.
//!
//! A connection that presented the secret (or, on the unix socket, whose other end the kernel
//! says runs as this user, checked before anything is read) is the user's: it stays open
//! between its requests for as long as the agent's HTTP client keeps it (closing an idle one
//! would race the client's next request on it, which the agent would read as a failed hook)
//! and is never closed to make room. The unix socket drops a connection of another user at
//! once.
//!
//! On shutdown the listeners stop accepting, unproven connections are closed, and the
//! server waits for the requests in flight ([`GracefulShutdown`]).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::Locked as _;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, header};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// The bounds on connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long a connection may take to present the secret.
    pub prove_within: Duration,
    /// The most unproven connections open at once.
    pub max_unproven: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            prove_within: Duration::from_secs(5),
            max_unproven: 1024,
        }
    }
}

impl Limits {
    /// The limits for a process that may hold `descriptors` open files: at most a quarter of
    /// them for unproven connections.
    #[must_use]
    pub fn for_descriptors(descriptors: u64) -> Limits {
        let default = Limits::default();
        let quarter = usize::try_from(descriptors / 4).unwrap_or(usize::MAX);
        Limits {
            max_unproven: default.max_unproven.min(quarter.max(1)),
            ..default
        }
    }
}

/// What a request may do, by its head.
#[derive(Debug)]
pub enum Admission {
    /// It carries the secret (or came on the socket): its connection is the user's.
    Proven,
    /// It may be answered without the secret (the proof): its connection stays unproven.
    Open,
    /// It is answered with this, and its connection closed.
    Refused(Response<Body>),
}

/// Decides a request's [`Admission`] from its head.
pub type Gate = Arc<dyn Fn(&Request<Incoming>) -> Admission + Send + Sync>;

/// The unproven connections, oldest first.
#[derive(Debug)]
struct Unproven {
    max: usize,
    next: AtomicU64,
    open: Mutex<BTreeMap<u64, CancellationToken>>,
}

impl Unproven {
    fn new(max: usize) -> Self {
        Unproven {
            max,
            next: AtomicU64::new(0),
            open: Mutex::new(BTreeMap::new()),
        }
    }

    /// A new unproven connection; the oldest ones past the bound are closed.
    fn admit(&self) -> (u64, CancellationToken) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        let mut open = self.open.locked();
        open.insert(id, token.clone());
        while open.len() > self.max {
            if let Some((_, oldest)) = open.pop_first() {
                oldest.cancel();
            }
        }
        (id, token)
    }

    /// The connection `id` is proven or closed: it is no longer counted.
    fn forget(&self, id: u64) {
        self.open.locked().remove(&id);
    }

    fn close_oldest(&self) {
        if let Some((_, oldest)) = self.open.locked().pop_first() {
            oldest.cancel();
        }
    }

    fn close_all(&self) {
        for (_, token) in std::mem::take(&mut *self.open.locked()) {
            token.cancel();
        }
    }
}

/// The connections of one listener.
struct Accepting {
    router: Router,
    gate: Gate,
    limits: Limits,
    unproven: Arc<Unproven>,
    graceful: GracefulShutdown,
}

impl Accepting {
    fn new(router: Router, gate: Gate, limits: Limits) -> Self {
        Accepting {
            router,
            gate,
            limits,
            unproven: Arc::new(Unproven::new(limits.max_unproven)),
            graceful: GracefulShutdown::new(),
        }
    }

    /// An accept failed with `e`: out of descriptors, the oldest unproven connection makes
    /// room; then a short pause, so that a lasting error does not spin.
    async fn accept_failed(&self, e: &std::io::Error) {
        let out_of_descriptors = matches!(
            e.raw_os_error(),
            Some(code) if code == rustix::io::Errno::MFILE.raw_os_error()
                || code == rustix::io::Errno::NFILE.raw_os_error()
        );
        if out_of_descriptors {
            self.unproven.close_oldest();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    /// Serves the connection `io`, proven from the start when `proven`.
    fn spawn<I>(&self, io: I, proven: bool)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let ticket = (!proven).then(|| self.unproven.admit());
        let id = ticket.as_ref().map(|(id, _)| *id);
        // Cancelled when the connection first presents the secret.
        let proven_now = CancellationToken::new();
        let (router, gate, unproven) = (
            self.router.clone(),
            Arc::clone(&self.gate),
            Arc::clone(&self.unproven),
        );
        let marked = proven_now.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let admission = gate(&request);
            if matches!(admission, Admission::Proven)
                && let Some(id) = id
                && !marked.is_cancelled()
            {
                marked.cancel();
                unproven.forget(id);
            }
            let router = router.clone();
            async move {
                match admission {
                    Admission::Proven | Admission::Open => {
                        router.oneshot(request.map(Body::new)).await
                    }
                    Admission::Refused(mut response) => {
                        response
                            .headers_mut()
                            .insert(header::CONNECTION, HeaderValue::from_static("close"));
                        Ok::<_, Infallible>(response)
                    }
                }
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        // The deadline of an unproven connection is ours (`prove_within`), whatever it sends.
        builder.header_read_timeout(None).keep_alive(true);
        let connection = self
            .graceful
            .watch(builder.serve_connection(TokioIo::new(io), service));
        let (unproven, prove_within) = (Arc::clone(&self.unproven), self.limits.prove_within);
        tokio::spawn(async move {
            let Some((id, closed)) = ticket else {
                let _ = connection.await;
                return;
            };
            let mut connection = std::pin::pin!(connection);
            // Until it is proven: closed to make room, or at the deadline. Once proven, only
            // the connection is polled.
            let go_on = tokio::select! {
                _ = &mut connection => false,
                () = closed.cancelled() => false,
                () = proven_now.cancelled() => true,
                () = tokio::time::sleep(prove_within) => proven_now.is_cancelled(),
            };
            unproven.forget(id);
            if go_on {
                let _ = connection.await;
            }
        });
    }

    /// Stops: every unproven connection closed, then the requests in flight awaited.
    async fn finish(self) {
        self.unproven.close_all();
        self.graceful.shutdown().await;
    }
}

/// Serves the loopback `listener` with `router`, each request admitted by `gate`, within
/// `limits`, until `stop` is cancelled; then every unproven connection is closed and the
/// requests in flight are awaited.
///
/// # Errors
/// Never so far: accept errors are waited out; the type leaves room for the listener's.
pub async fn serve_tcp(
    listener: tokio::net::TcpListener,
    router: Router,
    gate: Gate,
    limits: Limits,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let accepting = Accepting::new(router, gate, limits);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        match accepted {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                accepting.spawn(stream, false);
            }
            Err(e) => accepting.accept_failed(&e).await,
        }
    }
    drop(listener);
    accepting.finish().await;
    Ok(())
}

/// Serves the unix socket `listener` with `router` until `stop` is cancelled: a connection
/// whose other end is not this user ([`super::verify::socket_peer`]) is closed before anything
/// is read; every other one is proven.
///
/// # Errors
/// Never so far: accept errors are waited out.
pub async fn serve_unix(
    listener: tokio::net::UnixListener,
    router: Router,
    limits: Limits,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let gate: Gate = Arc::new(|_| Admission::Proven);
    let accepting = Accepting::new(router, gate, limits);
    let mut said = false;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        match accepted {
            Ok((stream, _)) => match super::verify::socket_peer(&stream, None) {
                Ok(()) => accepting.spawn(stream, true),
                Err(why) => {
                    if !std::mem::replace(&mut said, true) {
                        eprintln!("hooks serve: a connection on the socket was closed: {why}");
                    }
                }
            },
            Err(e) => accepting.accept_failed(&e).await,
        }
    }
    drop(listener);
    accepting.finish().await;
    Ok(())
}
