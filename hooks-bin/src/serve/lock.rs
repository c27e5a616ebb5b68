//! One server per user and binary: the lock file `serve-<BINARY>.lock` in the runtime
//! directory ([`super::runtime_dir`]: the user's own, mode 0700), locked (`flock`) by the
//! running server for its whole life; `<BINARY>` is a digest of the binary's path, so an
//! author's own binary and this one run a server each. The file is opened without following a
//! symbolic link and must be the user's regular file ([`open_own`]). A server takes the lock
//! first ([`Lock::take`]: the file is empty), then binds its port and socket, and only then
//! writes its pid, port and build ([`Lock::record`], [`super::build`]): a reader never sees a
//! port recorded by a server that could not bind it, and a server that cannot bind exits,
//! which lets the lock go. The port is derived from the lock file's path in the usual runtime
//! directory ([`default_port`]), so `hooks install --http` can write the URL before the server
//! runs, and two runtime directories do not share a port.

use std::fs;
use std::io::{self, Read as _, Seek as _, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
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
    file: fs::File,
    path: PathBuf,
}

/// The state of the lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// No server holds it.
    Free,
    /// A server holds it: what it wrote, or `None` when that cannot be read, or the server
    /// does not listen yet (the file is empty until it does: [`Lock::record`]).
    Held(Option<Running>),
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
    let digest = crate::trust::sha256_hex(
        format!("{}:{}", super::runtime_dir::uid(), lock.display()).as_bytes(),
    );
    let n = u32::from_str_radix(&digest[..8], 16).unwrap_or(0);
    let span = u32::from(PORTS_UNTIL - PORTS_FROM);
    PORTS_FROM + u16::try_from(n % span).unwrap_or(0)
}

impl Lock {
    /// Takes the lock at `path` for a server about to listen (the file is made, mode 0600, if
    /// missing; its directory must exist and be private: [`super::runtime_dir`]), and empties
    /// it: until [`Lock::record`], readers see the lock held by a server that is not
    /// listening yet ([`State::Held`] with `None`).
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when another server holds it (its pid and port in the
    /// message when readable); a lock file that is a symbolic link, not a regular file or
    /// not the user's ([`open_own`]); other I/O errors.
    pub fn take(path: &Path) -> io::Result<Lock> {
        let mut file = open_own(path, true)?;
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
        file.set_len(0)?;
        file.sync_all()?;
        Ok(Lock {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Records this process's pid, `port` and build: from now on readers see the server as
    /// running. Call it once the server listens, and only then.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn record(&mut self, port: u16) -> io::Result<()> {
        let running = Running {
            pid: std::process::id(),
            port,
            build: Build::running().ok(),
        };
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(
            serde_json::to_string(&running)
                .map_err(io::Error::other)?
                .as_bytes(),
        )?;
        self.file.sync_all()
    }

    /// [`Lock::take`], then [`Lock::record`] of `port` at once (for a test's stand-in server).
    ///
    /// # Errors
    /// As those.
    pub fn acquire(path: &Path, port: u16) -> io::Result<Lock> {
        let mut lock = Lock::take(path)?;
        lock.record(port)?;
        Ok(lock)
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Opens the lock file at `path` without following a symbolic link (`O_NOFOLLOW`), made mode
/// 0600 when `create` and missing, and checks it is a regular file of the user's.
///
/// # Errors
/// It cannot be opened (`NotFound` when missing and not `create`; a symbolic link is refused
/// by the system), or it is not a regular file owned by the user (`PermissionDenied`).
pub fn open_own(path: &Path, create: bool) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    if create {
        options.write(true).create(true).truncate(false);
    }
    options.mode(0o600);
    options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed());
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is a symbolic link; it is not followed", path.display()),
            )
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    let me = super::runtime_dir::uid();
    if !meta.is_file() || meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a regular file of this user's (uid {}, not {me})",
                path.display(),
                meta.uid()
            ),
        ));
    }
    Ok(file)
}

/// Opens (appending; made mode 0600 when missing) the log file of a server started in the
/// background, without following a symbolic link.
///
/// # Errors
/// It cannot be opened, or it is a symbolic link.
pub fn open_log(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).append(true);
    options.mode(0o600);
    options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed());
    options.open(path)
}

/// Whether a server holds the lock at `path`, and what it wrote.
///
/// # Errors
/// The file exists and cannot be opened or examined.
pub fn state(path: &Path) -> io::Result<State> {
    let mut file = match open_own(path, false) {
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
