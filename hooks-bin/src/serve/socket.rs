//! The unix socket of `hooks serve`, and the command adapter's hand-over through it.
//!
//! # The server's side
//!
//! Beside the lock file the server listens on `serve-<BINARY>.sock` ([`lock::socket_path`])
//! with the same routes and handlers as on 127.0.0.1 ([`super::http`]). The socket is made
//! mode 0600 in the runtime directory (mode 0700): only the user can connect, and that is
//! its authentication, so a request on it carries no secret and no `Host` is checked. The
//! lock decides who owns the file: a server that holds the lock removes a socket left by a
//! server that was killed and binds a new one ([`bind`]), and removes it when it exits
//! cleanly ([`SocketFile`]).
//!
//! Both ends check the other through the kernel before anything is sent
//! ([`verify::socket_peer`], `SO_PEERCRED`): the server closes a connection of another user
//! at once ([`super::connections`]), and the adapter hands its call only to the process the
//! lock file names, running as this user.
//!
//! A request on the socket is one call of the command adapter: the body is the agent's
//! input, the call's working directory, trust mode and audit mode are headers
//! ([`super::call_headers`]: the adapter's own, which the server's do not replace: a call is
//! decided in the mode of the process the agent started), and the answer
//! is the adapter's [`Outcome`] itself as JSON (`{"code", "stdout", "stderr"}`), which the
//! adapter writes as if it had run the call.
//!
//! # The adapter's side ([`hand_over`])
//!
//! `hooks AGENT EVENT` (every agent's command adapter) hands its call to the server when one
//! runs for this binary and build (the lock is held, records the build this process runs,
//! and the socket accepts the connection), so that its session's hooks keep their state;
//! else it runs the call in its own process, with the same answer. A server started before
//! the binary was rebuilt or reinstalled at its path, or whose lock file records no build,
//! answers with older code: the call runs in its own process, never there. It never starts a server: a resident process is the user's choice
//! (`hooks serve --detach`), and without one every call is answered in process as before.
//! Once connected, the server owns the call: a server that dies or breaks off after the
//! connection fails the call by the agent's rule for a failure
//! ([`Outcome::failure`]: on Codex's `PreToolUse`, exit 2, blocked), and the hooks are never
//! run a second time in the adapter's process, since the server may have run part of them.
//! `HOOKS_NO_SERVER=1` ([`NO_SERVER_ENV`]) keeps every call in its own process;
//! `HOOKS_DISABLE=1` is checked before either.
//!
//! The hooks run in the server's process: its environment (`HOME`, `PATH`, the variables it
//! was started with) is theirs, not the agent's.

use std::path::Path;
use std::path::PathBuf;

use axum::http::HeaderValue;

use super::call_headers::{CWD_HEADER, MODE_HEADER, TRUST_HEADER};
use super::{lock, verify};
use crate::agents::Agent;
use crate::call::{AdapterOptions, Outcome};
use crate::trust::TrustMode;

/// The variable that keeps every call of the command adapter in its own process: set to `1`.
pub const NO_SERVER_ENV: &str = "HOOKS_NO_SERVER";

/// The socket's file, removed when this is dropped (the server exits cleanly).
#[derive(Debug)]
pub struct SocketFile(PathBuf);

impl SocketFile {
    /// The socket's path.
    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ignored = std::fs::remove_file(&self.0);
    }
}

/// Binds the server's socket at `path` (mode 0600), replacing the file a killed server left
/// there: call it only while holding the lock ([`lock::Lock`]).
///
/// # Errors
/// The old file cannot be removed, or the socket cannot be bound (a path longer than the
/// system's limit for a socket, about 100 bytes) or made private.
///
/// # Panics
/// Outside a tokio runtime.
pub fn bind(path: &Path) -> std::io::Result<(tokio::net::UnixListener, SocketFile)> {
    use std::os::unix::fs::PermissionsExt as _;
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = tokio::net::UnixListener::bind(path)?;
    let file = SocketFile(path.to_path_buf());
    // The directory is 0700, so nobody else could connect before this.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok((listener, file))
}

/// Hands one call of the command adapter (`agent`'s `event_name`, its input `input`, its
/// options `opts`) to this binary's server, if one runs: the server's [`Outcome`], or a
/// failure outcome when the server broke off after the connection; `None` when no server
/// of this build runs, or when it cannot be reached or is not the server the lock file names
/// (the call runs in this process). See the [module docs](self).
#[must_use]
pub fn hand_over(
    agent: Agent,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Option<Outcome> {
    if std::env::var_os(NO_SERVER_ENV).is_some_and(|v| v == "1") {
        return None;
    }
    let binary = std::env::current_exe().ok()?;
    let endpoint = super::Endpoint::of(&binary, None).ok()?;
    // A server of another build (the binary was rebuilt or reinstalled at this path since it
    // started) would answer with its code, not this one's: the call runs here.
    let ours = super::build::Build::running().ok();
    let running = match lock::state(&endpoint.lock) {
        Ok(lock::State::Held(Some(r))) if super::build::same(r.build.as_ref(), ours.as_ref()) => r,
        _ => return None,
    };
    match call(&endpoint, &running, agent, event_name, input, opts) {
        Ok(outcome) => Some(outcome),
        Err(Unanswered::NotConnected(_)) => None,
        Err(Unanswered::BrokeOff(outcome)) => Some(outcome),
    }
}

/// Why [`call`] gave no answer of the server's.
#[derive(Debug)]
pub enum Unanswered {
    /// Nothing was sent: the socket does not accept a connection, or its other end is not
    /// the server `running` names (another user's, another process's: [`verify::socket_peer`]).
    NotConnected(String),
    /// The server owned the call and broke off (or refused it): the call's failure, by the
    /// agent's rule.
    BrokeOff(Outcome),
}

/// Sends one call of the command adapter (`agent`'s `event_name`, its input `input`, its
/// options `opts`) to the server `running` on `endpoint`'s socket, once the kernel says its
/// other end is that server's process of this user ([`verify::socket_peer`]); the server's
/// [`Outcome`]. Input the adapter refuses is refused here, without the server
/// (`Ok` with that failure).
///
/// # Errors
/// [`Unanswered`]: nothing was sent, or the server broke off.
pub fn call(
    endpoint: &super::Endpoint,
    running: &lock::Running,
    agent: Agent,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Result<Outcome, Unanswered> {
    use crate::call::pipeline;

    let protocol = agent.protocol();
    // Decoded here as well: input the adapter refuses is refused without the server, and the
    // server gets the working directory resolved in this process (its own is `/`).
    let call = match pipeline::prepare(protocol, event_name, input, opts) {
        Ok(call) => call,
        Err(refused) => return Ok(refused.outcome),
    };
    let not_connected = |why: String| Unanswered::NotConnected(why);
    let cwd = HeaderValue::from_bytes(call.cwd().as_os_str().as_encoded_bytes())
        .map_err(|e| not_connected(format!("the working directory is no header value: {e}")))?;
    let trust = match opts.trust {
        TrustMode::All => "all",
        TrustMode::Check => "check",
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| not_connected(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let stream = tokio::net::UnixStream::connect(&endpoint.socket)
            .await
            .map_err(|e| not_connected(format!("{}: {e}", endpoint.socket.display())))?;
        verify::socket_peer(&stream, Some(running.pid))
            .map_err(|why| not_connected(format!("{}: {why}", endpoint.socket.display())))?;
        let request = hyper::Request::post(format!("/{agent}/{event_name}"))
            .header(hyper::header::HOST, "localhost")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(CWD_HEADER, cwd)
            .header(TRUST_HEADER, trust)
            .header(MODE_HEADER, opts.audit.mode.as_str())
            .body(http_body_util::Full::new(
                hyper::body::Bytes::copy_from_slice(input),
            ))
            .map_err(|e| not_connected(format!("cannot make the request: {e}")))?;
        let bound = super::client::CALL_TIMEOUT;
        let answered = tokio::time::timeout(bound, super::client::exchange(stream, request))
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {} s", bound.as_secs_f64())));
        let why = match answered {
            Ok((200, body)) => match serde_json::from_slice::<Outcome>(&body) {
                Ok(outcome) => return Ok(outcome),
                Err(e) => format!("its answer is not an outcome: {e}"),
            },
            Ok((status, body)) => {
                format!(
                    "it answered {status}: {}",
                    String::from_utf8_lossy(&body).trim_end()
                )
            }
            Err(e) => e,
        };
        let why = format!(
            "hooks serve ({}) failed during the call: {why}",
            endpoint.socket.display()
        );
        Err(Unanswered::BrokeOff(Outcome::failure(
            protocol,
            event_name,
            &super::client::blocked(protocol, event_name, &why),
        )))
    })
}
