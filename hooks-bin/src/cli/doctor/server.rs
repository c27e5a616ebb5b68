//! Whether the resident server that `install --http` entries post to answers, and whether
//! what listens on its port is this user's server: its lock file (pid, port), the proof the
//! listener gives of holding the secret ([`crate::serve::proof`]), and the secret the entries
//! carry.

use std::path::Path;

use crate::serve::lock::{self, State};
use crate::serve::proof::{self, Disproof};
use crate::serve::secret::Secret;
use crate::serve::{Endpoint, verify};

/// What was found about this binary's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// It runs and proved on `port` that it holds the secret.
    Listening {
        /// Its pid.
        pid: u32,
        /// Its port.
        port: u16,
    },
    /// Something that is not this user's server listens on `port`, where the entries post.
    Foreign {
        /// The port.
        port: u16,
        /// What was found (the owner's uid, what it answered).
        why: String,
    },
    /// A process holds the lock, but its port does not accept a connection (or its lock file
    /// cannot be read, or no runtime directory can be had).
    Unreachable(String),
    /// No server runs, and nothing listens on its port.
    NotRunning,
}

/// The state of `binary`'s server ([`Endpoint::of`] with the default port).
#[must_use]
pub fn state(binary: &Path) -> ServerState {
    let endpoint = match Endpoint::of(binary, None) {
        Ok(endpoint) => endpoint,
        Err(e) => return ServerState::Unreachable(e),
    };
    let secret = load_secret();
    match lock::state(&endpoint.lock) {
        Ok(State::Free) => match listener(endpoint.port, secret.as_ref()) {
            Ok(pid) => ServerState::Foreign {
                port: endpoint.port,
                why: format!(
                    "a process (pid {pid}) that holds no lock file of this binary proves it holds \
                     this user's secret there: a server of another runtime directory or binary"
                ),
            },
            Err(Disproof::Nothing(_)) => ServerState::NotRunning,
            Err(Disproof::Foreign(why)) => ServerState::Foreign {
                port: endpoint.port,
                why,
            },
        },
        Ok(State::Held(None)) => ServerState::Unreachable(format!(
            "a server holds {} but records no pid and port (it is starting, or the file cannot \
             be read)",
            endpoint.lock.display()
        )),
        Ok(State::Held(Some(running))) => match listener(running.port, secret.as_ref()) {
            Ok(pid) if pid == running.pid => ServerState::Listening {
                pid,
                port: running.port,
            },
            Ok(pid) => ServerState::Foreign {
                port: running.port,
                why: format!(
                    "the lock file names pid {}, but pid {pid} answers there",
                    running.pid
                ),
            },
            Err(Disproof::Nothing(e)) => ServerState::Unreachable(format!(
                "the server (pid {}) does not accept a connection on 127.0.0.1:{}: {e}",
                running.pid, running.port
            )),
            Err(Disproof::Foreign(why)) => ServerState::Foreign {
                port: running.port,
                why,
            },
        },
        Err(e) => ServerState::Unreachable(format!("{}: {e}", endpoint.lock.display())),
    }
}

/// The pid of what listens on `port` once it proved it holds `secret`.
fn listener(port: u16, secret: Option<&Secret>) -> Result<u32, Disproof> {
    let owner = || {
        verify::listener_uid(port).map_or_else(String::new, |uid| {
            let me = crate::serve::runtime_dir::uid();
            if uid == me {
                format!(" (it runs as this user, uid {uid})")
            } else {
                format!(" (it runs as uid {uid}, another user)")
            }
        })
    };
    let foreign = |why: String| {
        Disproof::Foreign(format!(
            "what listens on 127.0.0.1:{port}{} is not this user's hooks server: {why}",
            owner()
        ))
    };
    match secret {
        Some(secret) => proof::ask(port, secret).map_err(|e| match e {
            Disproof::Foreign(why) => foreign(why),
            nothing @ Disproof::Nothing(_) => nothing,
        }),
        None => match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(_) => Err(foreign(
                "this user has no secret yet, which the server makes when it starts".to_owned(),
            )),
            Err(e) => Err(Disproof::Nothing(e.to_string())),
        },
    }
}

fn load_secret() -> Option<Secret> {
    let dir = crate::trust::config_dir().ok()?;
    Secret::load(&Secret::path_in(&dir)).ok()
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
