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
//! A request on the socket is one call of the command adapter: the body is the agent's
//! input, the call's working directory, trust mode and audit mode are headers
//! ([`CWD_HEADER`], [`TRUST_HEADER`], [`MODE_HEADER`]: the adapter's own, which the server's
//! do not replace: a call is decided in the mode of the process the agent started), and the
//! answer
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

#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

use axum::http::HeaderMap;
#[cfg(unix)]
use axum::http::HeaderValue;

#[cfg(unix)]
use super::lock;
#[cfg(unix)]
use crate::adapters::Agent;
use crate::adapters::{AdapterOptions, Outcome};
use crate::trust::TrustMode;

/// The variable that keeps every call of the command adapter in its own process: set to `1`.
pub const NO_SERVER_ENV: &str = "HOOKS_NO_SERVER";

/// The header of the call's working directory (absolute, as the adapter resolved it).
pub const CWD_HEADER: &str = "x-hooks-cwd";

/// The header of the call's trust mode: `all` (`--trust-all`) or `check`.
pub const TRUST_HEADER: &str = "x-hooks-trust";

/// The header of the call's audit mode ([`crate::audit::Mode`]): `enforce` or `audit`.
pub const MODE_HEADER: &str = "x-hooks-mode";

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
#[cfg(unix)]
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

/// The options of a call that came in on the socket: `base` (the server's) with the call's
/// working directory, trust mode and audit mode from its headers, when it has them (the
/// decision log stays the server's).
///
/// # Errors
/// A header that is not what the adapter sends (names it).
pub fn call_options(headers: &HeaderMap, base: &AdapterOptions) -> Result<AdapterOptions, String> {
    let mut options = base.clone();
    if let Some(cwd) = headers.get(CWD_HEADER) {
        let cwd = path_of(cwd.as_bytes())
            .filter(|p| p.is_absolute())
            .ok_or_else(|| format!("{CWD_HEADER} must be an absolute path"))?;
        options.cwd = Some(cwd);
        options.project_dir = None;
    }
    if let Some(trust) = headers.get(TRUST_HEADER) {
        options.trust = match trust.as_bytes() {
            b"all" => TrustMode::All,
            b"check" => TrustMode::Check,
            _ => return Err(format!("{TRUST_HEADER} must be `all` or `check`")),
        };
    }
    if let Some(mode) = headers.get(MODE_HEADER) {
        options.audit.mode = match mode.as_bytes() {
            b"enforce" => crate::audit::Mode::Enforce,
            b"audit" => crate::audit::Mode::Audit,
            _ => return Err(format!("{MODE_HEADER} must be `enforce` or `audit`")),
        };
    }
    Ok(options)
}

#[cfg(unix)]
fn path_of(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> Option<PathBuf> {
    std::str::from_utf8(bytes).ok().map(PathBuf::from)
}

/// Hands one call of the command adapter (`agent`'s `event_name`, its input `input`, its
/// options `opts`) to this binary's server, if one runs: the server's [`Outcome`], or a
/// failure outcome when the server broke off after the connection; `None` when no server
/// of this build runs, or when it cannot be reached (the call runs in this process). See the
/// [module docs](self).
#[cfg(unix)]
#[must_use]
pub fn hand_over(
    agent: Agent,
    event_name: &str,
    input: &[u8],
    opts: &AdapterOptions,
) -> Option<Outcome> {
    use crate::adapters::resident;

    if std::env::var_os(NO_SERVER_ENV).is_some_and(|v| v == "1") {
        return None;
    }
    let binary = std::env::current_exe().ok()?;
    let endpoint = super::Endpoint::of(&binary, None);
    // A server of another build (the binary was rebuilt or reinstalled at this path since it
    // started) would answer with its code, not this one's: the call runs here.
    let ours = super::build::Build::running().ok();
    match lock::state(&endpoint.lock) {
        Ok(lock::State::Held(Some(r))) if super::build::same(r.build.as_ref(), ours.as_ref()) => {}
        _ => return None,
    }
    let protocol = agent.protocol();
    // Decoded here as well: input the adapter refuses is refused without the server, and the
    // server gets the working directory resolved in this process (its own is `/`).
    let call = match resident::prepare(protocol, event_name, input, opts) {
        Ok(call) => call,
        Err(refused) => return Some(refused.outcome),
    };
    let cwd = HeaderValue::from_bytes(call.cwd().as_os_str().as_encoded_bytes()).ok()?;
    let trust = match opts.trust {
        TrustMode::All => "all",
        TrustMode::Check => "check",
        TrustMode::CheckWith(_) => return None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    runtime.block_on(async {
        let stream = tokio::net::UnixStream::connect(&endpoint.socket)
            .await
            .ok()?;
        let request = hyper::Request::post(format!("/{agent}/{event_name}"))
            .header(hyper::header::HOST, "localhost")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(CWD_HEADER, cwd)
            .header(TRUST_HEADER, trust)
            .header(MODE_HEADER, opts.audit.mode.as_str())
            .body(http_body_util::Full::new(
                hyper::body::Bytes::copy_from_slice(input),
            ))
            .ok()?;
        let bound = super::forward::CALL_TIMEOUT;
        let answered = tokio::time::timeout(bound, super::forward::exchange(stream, request))
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {} s", bound.as_secs_f64())));
        let why = match answered {
            Ok((200, body)) => match serde_json::from_slice::<Outcome>(&body) {
                Ok(outcome) => return Some(outcome),
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
        Some(Outcome::failure(
            protocol,
            event_name,
            &super::http::blocked(protocol, event_name, &why),
        ))
    })
}

/// Without unix sockets, every call runs in its own process.
#[cfg(not(unix))]
#[must_use]
pub fn hand_over(
    _agent: crate::adapters::Agent,
    _event_name: &str,
    _input: &[u8],
    _opts: &AdapterOptions,
) -> Option<Outcome> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (axum::http::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn a_socket_call_brings_its_own_working_directory_and_trust_mode() {
        let base = AdapterOptions {
            project_dir: Some("/elsewhere".into()),
            ..AdapterOptions::default()
        };
        let got = call_options(
            &headers(&[(CWD_HEADER, "/work/p"), (TRUST_HEADER, "all")]),
            &base,
        )
        .unwrap();
        assert_eq!(got.cwd, Some(PathBuf::from("/work/p")));
        assert_eq!(
            got.project_dir, None,
            "the call's directory is resolved already"
        );
        assert_eq!(got.trust, TrustMode::All);
        let kept = call_options(&HeaderMap::new(), &base).unwrap();
        assert_eq!(
            (kept.cwd, kept.project_dir, kept.trust),
            (None, base.project_dir.clone(), TrustMode::Check)
        );
    }

    #[test]
    fn a_socket_call_with_a_relative_directory_or_an_unknown_trust_mode_is_refused() {
        let base = AdapterOptions::default();
        let relative = call_options(&headers(&[(CWD_HEADER, "p")]), &base).unwrap_err();
        assert_eq!(relative, "x-hooks-cwd must be an absolute path");
        let trust = call_options(&headers(&[(TRUST_HEADER, "yes")]), &base).unwrap_err();
        assert_eq!(trust, "x-hooks-trust must be `all` or `check`");
        let mode = call_options(&headers(&[(MODE_HEADER, "lenient")]), &base).unwrap_err();
        assert_eq!(mode, "x-hooks-mode must be `enforce` or `audit`");
    }

    #[test]
    fn a_socket_call_is_decided_in_the_mode_of_the_adapter_that_sent_it() {
        let base = AdapterOptions::default();
        let audit = call_options(&headers(&[(MODE_HEADER, "audit")]), &base).unwrap();
        assert_eq!(audit.audit.mode, crate::audit::Mode::Audit);
        let mut auditing = base.clone();
        auditing.audit.mode = crate::audit::Mode::Audit;
        let enforce = call_options(&headers(&[(MODE_HEADER, "enforce")]), &auditing).unwrap();
        assert_eq!(enforce.audit.mode, crate::audit::Mode::Enforce);
    }
}
