//! Which build of the binary a process runs: the identity of the binary's file (device,
//! inode, size and modification time), one `stat`. Rebuilding or reinstalling the binary at
//! the same path (`cargo install` writes a new file and renames it over the old one) changes
//! it, so the server's lock file ([`super::lock::Running::build`]) tells a caller whether the
//! running server answers with the caller's code or with an older one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The identity of a binary's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The device of the file.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time: seconds since the epoch...
    pub mtime_s: i64,
    /// ... and nanoseconds.
    pub mtime_ns: u32,
}

impl Build {
    /// The identity of the file at `path` (followed if a symbolic link).
    ///
    /// # Errors
    /// The file cannot be examined.
    pub fn of(path: &Path) -> io::Result<Build> {
        Ok(Build::of_metadata(&fs::metadata(path)?))
    }

    /// The build this process runs: on Linux the file it was started from (`/proc/self/exe`,
    /// even after that file was replaced), elsewhere the file at its path now.
    ///
    /// # Errors
    /// That file cannot be examined.
    pub fn running() -> io::Result<Build> {
        #[cfg(target_os = "linux")]
        {
            Build::of(Path::new("/proc/self/exe"))
        }
        #[cfg(not(target_os = "linux"))]
        {
            Build::of(&std::env::current_exe()?)
        }
    }

    fn of_metadata(meta: &fs::Metadata) -> Build {
        use std::os::unix::fs::MetadataExt as _;
        Build {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_s: meta.mtime(),
            mtime_ns: u32::try_from(meta.mtime_nsec()).unwrap_or(0),
        }
    }
}

/// Whether a server whose lock file records `theirs` runs `ours`, this process's build: not
/// when either is unknown (a lock file written before builds were recorded is of an older
/// build).
#[must_use]
pub fn same(theirs: Option<&Build>, ours: Option<&Build>) -> bool {
    theirs.is_some() && theirs == ours
}

/// Whether a server whose lock file records `theirs` runs an older build than `ours`: this
/// process's build is known and differs.
#[must_use]
pub fn older(theirs: Option<&Build>, ours: Option<&Build>) -> bool {
    ours.is_some() && theirs != ours
}

/// The server's watch on its own binary's file: [`Watch::check`] says once, on stderr, that
/// the file at the binary's path is no longer the build this process runs.
#[derive(Debug)]
pub struct Watch {
    path: PathBuf,
    at_start: Build,
    next: Mutex<Instant>,
    said: AtomicBool,
}

/// How often [`Watch::check`] looks at the file at most.
const EVERY: Duration = Duration::from_secs(1);

impl Watch {
    /// A watch on `path`, the binary this process was started from; `None` when this
    /// process's build cannot be found.
    #[must_use]
    pub fn new(path: &Path) -> Option<Watch> {
        Some(Watch {
            path: path.to_path_buf(),
            at_start: Build::running().ok()?,
            next: Mutex::new(Instant::now()),
            said: AtomicBool::new(false),
        })
    }

    /// At most once a second (one `stat`): whether the file at the path is another build
    /// than this process's (replaced or removed), said on stderr the first time only.
    pub fn check(&self) {
        if self.said.load(Ordering::Relaxed) {
            return;
        }
        {
            let Ok(mut next) = self.next.lock() else {
                return;
            };
            let now = Instant::now();
            if now < *next {
                return;
            }
            *next = now + EVERY;
        }
        if Build::of(&self.path).ok() != Some(self.at_start)
            && !self.said.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "hooks serve: {} was replaced by another build (or removed); this server (pid \
                 {}) goes on answering with its own, older one until it is stopped (`hooks serve --stop`; the next \
                 `hooks claude SessionStart --via-server` replaces it)",
                self.path.display(),
                std::process::id()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_the_same_only_when_both_are_known_and_equal() {
        let a = Build::of(&std::env::current_exe().unwrap()).ok();
        assert!(a.is_some());
        let b = a.map(|b| Build {
            size: b.size + 1,
            ..b
        });
        assert!(same(a.as_ref(), a.as_ref()));
        assert!(!same(None, a.as_ref()), "a lock file without a build");
        assert!(!same(None, None));
        assert!(!same(b.as_ref(), a.as_ref()));
        assert!(older(None, a.as_ref()) && older(b.as_ref(), a.as_ref()));
        assert!(!older(a.as_ref(), a.as_ref()) && !older(a.as_ref(), None));
    }
}
