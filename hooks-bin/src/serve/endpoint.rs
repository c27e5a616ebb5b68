//! [`Endpoint`]: where one binary's server lives for this user: its runtime directory
//! ([`super::runtime_dir`]), lock file, unix socket, log file and loopback port.

use std::path::{Path, PathBuf};

use super::lock;
use super::runtime_dir::{self, RuntimeDir};

/// Where this binary's server lives: its lock file, socket and port.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The binary.
    pub binary: PathBuf,
    /// The runtime directory in use.
    pub dir: RuntimeDir,
    /// The lock file.
    pub lock: PathBuf,
    /// The unix socket ([`super::socket`]).
    pub socket: PathBuf,
    /// The port.
    pub port: u16,
}

impl Endpoint {
    /// The endpoint of `binary`'s server on `port` (default: [`Endpoint::default_port`]), in
    /// the runtime directory [`RuntimeDir::find`] gives (nothing is made).
    ///
    /// # Errors
    /// No private runtime directory can be had.
    pub fn of(binary: &Path, port: Option<u16>) -> Result<Endpoint, String> {
        let dir = RuntimeDir::find()?;
        Ok(Endpoint {
            binary: binary.to_path_buf(),
            port: port.unwrap_or_else(|| Endpoint::default_port(binary)),
            lock: lock::lock_path(&dir.path, binary),
            socket: lock::socket_path(&dir.path, binary),
            dir,
        })
    }

    /// The port `binary`'s server listens on by default: derived from its lock file in the
    /// usual runtime directory ([`lock::default_port`]), whichever directory is in use, so the
    /// URL `install --http` writes stays the server's.
    #[must_use]
    pub fn default_port(binary: &Path) -> u16 {
        lock::default_port(&lock::lock_path(&runtime_dir::usual(), binary))
    }

    /// `http://127.0.0.1:PORT` of `binary`'s server on its default port.
    #[must_use]
    pub fn default_url(binary: &Path) -> String {
        format!("http://127.0.0.1:{}", Endpoint::default_port(binary))
    }

    /// `http://127.0.0.1:PORT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The log file of a server started in the background, beside the lock file.
    #[must_use]
    pub fn log(&self) -> PathBuf {
        self.lock.with_extension("log")
    }
}
