//! Whether the resident server that `install --http` entries post to answers: its lock file
//! (pid, port), a connection to its port, and the secret the entries carry.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use crate::serve::Endpoint;
use crate::serve::lock::{self, State};
use crate::serve::secret::Secret;

/// How long a connection to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// What was found about this binary's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// It runs and accepts connections on `port`.
    Listening {
        /// Its pid.
        pid: u32,
        /// Its port.
        port: u16,
    },
    /// A process holds the lock, but its port does not accept a connection (or its lock file
    /// cannot be read).
    Unreachable(String),
    /// No server runs.
    NotRunning,
}

/// The state of `binary`'s server ([`Endpoint::of`] with the default port).
#[must_use]
pub fn state(binary: &Path) -> ServerState {
    let endpoint = Endpoint::of(binary, None);
    match lock::state(&endpoint.lock) {
        Ok(State::Free) => ServerState::NotRunning,
        Ok(State::Held(None)) => ServerState::Unreachable(format!(
            "a server holds {} but its pid and port cannot be read",
            endpoint.lock.display()
        )),
        Ok(State::Held(Some(running))) => {
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, running.port));
            match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
                Ok(_) => ServerState::Listening {
                    pid: running.pid,
                    port: running.port,
                },
                Err(e) => ServerState::Unreachable(format!(
                    "the server (pid {}) does not accept a connection on 127.0.0.1:{}: {e}",
                    running.pid, running.port
                )),
            }
        }
        Err(e) => ServerState::Unreachable(format!("{}: {e}", endpoint.lock.display())),
    }
}

/// Whether the `Authorization` header `header` carries the server's secret (the one in the
/// config directory, which the server reads when it starts), or why not.
///
/// # Errors
/// The secret file is missing or unreadable, or `header` carries another secret.
pub fn check_secret(header: Option<&str>) -> Result<(), String> {
    let dir = crate::trust::config_dir().map_err(|e| e.to_string())?;
    let path = Secret::path_in(&dir);
    let secret = Secret::load(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "the secret file {} does not exist (the server would make a new one)",
                path.display()
            )
        } else {
            format!("the secret file {}: {e}", path.display())
        }
    })?;
    match header {
        Some(value) if secret.authorizes(value.as_bytes()) => Ok(()),
        Some(_) => Err(format!(
            "their Authorization header is not the secret in {}, so the server refuses them",
            path.display()
        )),
        None => Err("they carry no Authorization header, so the server refuses them".to_owned()),
    }
}
