//! What proves that a process, or the other end of a connection, is this user's `hooks serve`
//! before it is signalled or told anything.
//!
//! - A process named by the lock file ([`server_process`]) is signalled (`--stop`, a session
//!   start replacing an older build) only when it runs as this user, from this binary's path,
//!   and holds the lock file open, that is when it is the server that took the lock. A pid in
//!   a lock file is only a claim.
//! - A connection on the unix socket is used only when the kernel says the other end runs as
//!   this user ([`socket_peer`], `SO_PEERCRED`), on both ends: the server drops a client of
//!   another user at once, and a client hands its call only to the pid the lock file records.
//! - A listener on the loopback port proves it holds the user's secret without the client
//!   sending it ([`super::proof`]).

use std::path::Path;

use super::runtime_dir::uid;

/// Whether the process `pid` is this user's server of `binary` holding the lock file `lock`
/// (on Linux, from `/proc`: its owner, its executable's path, its open files; elsewhere the
/// lock file's word is taken); why not otherwise.
///
/// # Errors
/// It is not (or no longer) such a process, or that cannot be told on this system.
pub fn server_process(pid: u32, binary: &Path, lock: &Path) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        linux::server_process(pid, binary, lock)
    }
    // Elsewhere the claim is the lock file's alone, which is the user's own regular file in
    // the user's private runtime directory (checked when it was opened).
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, binary, lock);
        Ok(())
    }
}

/// Whether the other end of `stream` runs as this user and, when `pid` is given, is that
/// process; why not otherwise.
///
/// # Errors
/// Its credentials cannot be read, or they are another user's or another process's.
pub fn socket_peer(stream: &tokio::net::UnixStream, pid: Option<u32>) -> Result<(), String> {
    let cred = stream
        .peer_cred()
        .map_err(|e| format!("the credentials of its other end cannot be read: {e}"))?;
    let me = uid();
    if cred.uid() != me {
        return Err(format!(
            "its other end runs as uid {}, not as this user (uid {me})",
            cred.uid()
        ));
    }
    if let Some(pid) = pid {
        let theirs = cred.pid().and_then(|p| u32::try_from(p).ok());
        if theirs != Some(pid) {
            return Err(format!(
                "its other end is pid {}, not the server the lock file names (pid {pid})",
                theirs.map_or_else(|| "unknown".to_owned(), |p| p.to_string())
            ));
        }
    }
    Ok(())
}

/// The user id of the process that listens on TCP port `port` of this machine's IPv4
/// loopback (or of every address), from the kernel's socket table (`/proc/net/tcp`, Linux
/// only); `None` when nothing does or it cannot be told.
#[must_use]
pub fn listener_uid(port: u16) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
        linux::listener_uid(&table, port)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = port;
        None
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs;
    use std::os::unix::fs::MetadataExt as _;
    use std::path::{Path, PathBuf};

    use super::uid;

    /// In the text of `/proc/net/tcp`: the uid of the socket listening (state `0A`) on
    /// 127.0.0.1 or 0.0.0.0 at `port`.
    pub(super) fn listener_uid(table: &str, port: u16) -> Option<u32> {
        let wanted = [
            format!("0100007F:{port:04X}"),
            format!("00000000:{port:04X}"),
        ];
        table.lines().skip(1).find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, state, uid) = (fields.get(1)?, fields.get(3)?, fields.get(7)?);
            (*state == "0A" && wanted.iter().any(|w| w == local))
                .then(|| uid.parse().ok())
                .flatten()
        })
    }

    pub(super) fn server_process(pid: u32, binary: &Path, lock: &Path) -> Result<(), String> {
        let proc = PathBuf::from(format!("/proc/{pid}"));
        let not = |why: String| Err(format!("pid {pid} is not this user's hooks server: {why}"));
        let owner = match fs::metadata(&proc) {
            Ok(meta) => meta.uid(),
            Err(e) => return not(format!("no such process ({e})")),
        };
        let me = uid();
        if owner != me {
            return not(format!("it runs as uid {owner}, not as uid {me}"));
        }
        let exe = match fs::read_link(proc.join("exe")) {
            Ok(exe) => exe,
            Err(e) => return not(format!("its executable cannot be read ({e})")),
        };
        // A binary replaced (rebuilt, reinstalled) since the process started reads
        // `PATH (deleted)`.
        let shown = exe.to_string_lossy();
        let path = Path::new(shown.strip_suffix(" (deleted)").unwrap_or(&shown));
        if path != binary {
            return not(format!(
                "it runs {}, not {}",
                path.display(),
                binary.display()
            ));
        }
        let lock_id = match fs::metadata(lock) {
            Ok(meta) => (meta.dev(), meta.ino()),
            Err(e) => return not(format!("the lock file cannot be examined ({e})")),
        };
        let fds = match fs::read_dir(proc.join("fd")) {
            Ok(fds) => fds,
            Err(e) => return not(format!("its open files cannot be read ({e})")),
        };
        let holds = fds.filter_map(Result::ok).any(|fd| {
            fs::metadata(fd.path()).is_ok_and(|meta| (meta.dev(), meta.ino()) == lock_id)
        });
        if holds {
            Ok(())
        } else {
            not(format!("it does not hold {} open", lock.display()))
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_listeners_uid_is_read_from_the_kernels_socket_table() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(listener_uid(port), Some(uid()));
        drop(listener);
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   \
             0: 0100007F:4E21 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 1 1 0 100 0 0 10 0\n   \
             1: 0100007F:4E22 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1002        0 2 1 0 100 0 0 10 0\n";
        assert_eq!(linux::listener_uid(table, 20001), Some(1001));
        assert_eq!(linux::listener_uid(table, 20002), None, "not listening");
        assert_eq!(linux::listener_uid(table, 20003), None);
    }

    #[test]
    fn a_process_that_does_not_hold_the_lock_is_not_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("serve-x.lock");
        std::fs::write(&lock, "").unwrap();
        let me = std::process::id();
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let why = server_process(me, &exe, &lock).unwrap_err();
        assert!(why.contains("does not hold"), "{why}");
        let held = std::fs::File::open(&lock).unwrap();
        assert_eq!(server_process(me, &exe, &lock), Ok(()));
        let why = server_process(me, Path::new("/usr/bin/hooks"), &lock).unwrap_err();
        assert!(why.contains("not /usr/bin/hooks"), "{why}");
        drop(held);
        let why = server_process(1, &exe, &lock).unwrap_err();
        assert!(
            why.starts_with("pid 1 is not this user's hooks server"),
            "{why}"
        );
    }
}
