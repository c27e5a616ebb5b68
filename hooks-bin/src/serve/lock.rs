//! One server per user and binary: the lock file `serve-<BINARY>.lock` in the runtime
//! directory (`$XDG_RUNTIME_DIR/hooks` when that is absolute, else
//! `<temp dir>/hooks-<uid>`, made mode 0700), locked (`flock`) by the running server for its
//! whole life and holding its pid, port and build ([`super::build`]); `<BINARY>` is a digest of the binary's path, so
//! an author's own binary and this one run a server each. The port is derived from the lock
//! file's path ([`default_port`]), so `hooks install --http` can write the URL before the
//! server runs, and two runtime directories do not share a port.

use std::fs;
use std::io::{self, Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::build::Build;

/// What the lock file says of the running server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Running {
    /// The server's process id.
    pub pid: u32,
    /// The loopback port it listens on.
    pub port: u16,
    /// The build of the binary it runs (`None`: unknown, in a lock file of an older build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
}

/// The held lock of the running server: the file stays locked until this is dropped.
#[derive(Debug)]
pub struct Lock {
    /// Held open, and so locked, for the server's life.
    _file: fs::File,
    path: PathBuf,
}

/// The state of the lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// No server holds it.
    Free,
    /// A server holds it (what it wrote, if it could be read).
    Held(Option<Running>),
}

/// The runtime directory: `$XDG_RUNTIME_DIR/hooks` if `XDG_RUNTIME_DIR` is absolute, else
/// `<temp dir>/hooks-<uid>`.
#[must_use]
pub fn runtime_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("hooks"),
        _ => std::env::temp_dir().join(format!("hooks-{}", uid())),
    }
}

fn uid() -> u32 {
    #[cfg(unix)]
    {
        rustix::process::getuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// A short digest of the binary's path (12 hex digits).
#[must_use]
pub fn binary_tag(binary: &Path) -> String {
    let digest = crate::trust::sha256_hex(binary.as_os_str().as_encoded_bytes());
    digest[..12].to_owned()
}

/// The lock file of `binary` in `dir`.
#[must_use]
pub fn lock_path(dir: &Path, binary: &Path) -> PathBuf {
    dir.join(format!("serve-{}.lock", binary_tag(binary)))
}

/// The unix socket of `binary`'s server in `dir`, beside its lock file.
#[must_use]
pub fn socket_path(dir: &Path, binary: &Path) -> PathBuf {
    dir.join(format!("serve-{}.sock", binary_tag(binary)))
}

/// The first port [`default_port`] may choose.
pub const PORTS_FROM: u16 = 20_000;

/// One past the last port [`default_port`] may choose: the first of Linux's default ephemeral
/// range (`net.ipv4.ip_local_port_range` is `32768 60999`), from which the kernel picks the
/// local port of every outgoing connection and of every listener bound to port 0. A derived
/// port inside that range is taken, now and then, by whatever connection happens to get it.
pub const PORTS_UNTIL: u16 = 32_768;

/// The port of the server whose lock file is `lock` ([`lock_path`]: the runtime directory and
/// the binary): in [`PORTS_FROM`]..[`PORTS_UNTIL`], from the user id and that path, so that it
/// is the same for every run of the same binary by the same user, and two runtime
/// directories (two servers of one binary) do not share a port.
#[must_use]
pub fn default_port(lock: &Path) -> u16 {
    let digest = crate::trust::sha256_hex(format!("{}:{}", uid(), lock.display()).as_bytes());
    let n = u32::from_str_radix(&digest[..8], 16).unwrap_or(0);
    let span = u32::from(PORTS_UNTIL - PORTS_FROM);
    PORTS_FROM + u16::try_from(n % span).unwrap_or(0)
}

/// Makes `dir` (mode 0700) if missing.
///
/// # Errors
/// It cannot be made.
pub fn make_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

impl Lock {
    /// Takes the lock at `path` for a server about to listen on `port` (the file is made if
    /// missing, with its directory), and records this process's pid, `port` and build.
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when another server holds it (its pid and port in the
    /// message when readable); other I/O errors.
    pub fn acquire(path: &Path, port: u16) -> io::Result<Lock> {
        if let Some(dir) = path.parent() {
            make_private_dir(dir)?;
        }
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let held = read_running(&mut file)
                    .map(|r| format!(" (pid {}, port {})", r.pid, r.port))
                    .unwrap_or_default();
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "a server is already running{held}; lock file {}",
                        path.display()
                    ),
                ));
            }
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
        let running = Running {
            pid: std::process::id(),
            port,
            build: Build::running().ok(),
        };
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(
            serde_json::to_string(&running)
                .map_err(io::Error::other)?
                .as_bytes(),
        )?;
        file.sync_all()?;
        Ok(Lock {
            _file: file,
            path: path.to_path_buf(),
        })
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether a server holds the lock at `path`, and what it wrote.
///
/// # Errors
/// The file exists and cannot be opened or examined.
pub fn state(path: &Path) -> io::Result<State> {
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(State::Free),
        Err(e) => return Err(e),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(State::Free),
        Err(fs::TryLockError::WouldBlock) => Ok(State::Held(read_running(&mut file))),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

fn read_running(file: &mut fs::File) -> Option<Running> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.take(4096).read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ports_stay_below_the_ephemeral_range() {
        for i in 0..2_000 {
            let lock = lock_path(
                Path::new("/run/user/1000/hooks"),
                Path::new(&format!("/opt/tool-{i}/bin/hooks")),
            );
            let port = default_port(&lock);
            assert!((PORTS_FROM..PORTS_UNTIL).contains(&port), "{port}");
        }
    }

    #[test]
    fn the_lock_records_the_servers_build_and_an_older_lock_file_reads_as_an_unknown_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("serve-x.lock");
        let _held = Lock::acquire(&path, 20_001).unwrap();
        let State::Held(Some(running)) = state(&path).unwrap() else {
            panic!("not held")
        };
        assert_eq!(running.build, Some(Build::running().unwrap()));
        let older: Running = serde_json::from_str(r#"{"pid":7,"port":20001}"#).unwrap();
        assert_eq!(older.build, None);
    }

    #[test]
    fn the_derived_port_is_the_same_for_the_same_binary_and_runtime_directory() {
        let run = Path::new("/run/user/1000/hooks");
        let lock = lock_path(run, Path::new("/usr/local/bin/hooks"));
        assert_eq!(default_port(&lock), default_port(&lock));
        let other_binary = lock_path(run, Path::new("/home/me/.cargo/bin/hooks"));
        assert_ne!(default_port(&lock), default_port(&other_binary));
        let other_dir = lock_path(
            Path::new("/tmp/sandbox/hooks-1000"),
            Path::new("/usr/local/bin/hooks"),
        );
        assert_ne!(default_port(&lock), default_port(&other_dir));
    }
}
