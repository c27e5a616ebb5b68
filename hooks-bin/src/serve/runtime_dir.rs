//! The runtime directory of `hooks serve`: where its lock file, unix socket and log live.
//!
//! Whoever can write into it can plant a lock file that names their own port and pid, and a
//! socket that answers in place of the server, so it is used only when it is the user's own:
//! a directory (not a symbolic link: `lstat`), owned by the user, and mode 0700 (no bit for
//! the group or others). The usual place is `$XDG_RUNTIME_DIR/hooks` when `XDG_RUNTIME_DIR`
//! is absolute, else `<temp dir>/hooks-<uid>`, which another local user can make first in a
//! shared `/tmp`. When the usual place exists and is not private, the fallback
//! `<state dir>/hooks/run` is used (the state directory is `$XDG_STATE_HOME` when absolute,
//! else `~/.local/state`: the user's own), and [`RuntimeDir::fallback`] says why, in one line
//! that the commands print. Both are found the same way by every process of the user, so a
//! server and its clients agree; the port stays the one derived from the usual place
//! ([`super::lock::default_port`]), so installed HTTP entries keep working.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The directory in use, and why it is not the usual one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeDir {
    /// The directory.
    pub path: PathBuf,
    /// The usual directory, always (the port is derived from it).
    pub usual: PathBuf,
    /// When [`RuntimeDir::path`] is the fallback: the line that says why the usual one is
    /// not used.
    pub fallback: Option<String>,
}

/// The user's id.
#[must_use]
pub fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The usual runtime directory: `$XDG_RUNTIME_DIR/hooks` if `XDG_RUNTIME_DIR` is absolute,
/// else `<temp dir>/hooks-<uid>`.
#[must_use]
pub fn usual() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("hooks"),
        _ => std::env::temp_dir().join(format!("hooks-{}", uid())),
    }
}

/// The fallback runtime directory: `<state dir>/hooks/run`.
///
/// # Errors
/// Neither an absolute `XDG_STATE_HOME` nor a home directory.
pub fn fallback() -> Result<PathBuf, String> {
    let state =
        crate::home::state_dir().ok_or("no absolute XDG_STATE_HOME and no home directory")?;
    Ok(state.join("hooks").join("run"))
}

impl RuntimeDir {
    /// The directory to use, without making it: the usual one when it is missing or private,
    /// else the fallback when that is missing or private.
    ///
    /// # Errors
    /// Neither may be used (the message says why for each), or one cannot be examined.
    pub fn find() -> Result<RuntimeDir, String> {
        let usual = usual();
        let why = match problem(&usual) {
            Ok(None) => {
                return Ok(RuntimeDir {
                    path: usual.clone(),
                    usual,
                    fallback: None,
                });
            }
            Ok(Some(why)) => why,
            Err(e) => format!("{} cannot be examined: {e}", usual.display()),
        };
        let other = fallback().map_err(|e| format!("{why}, and there is no fallback: {e}"))?;
        match problem(&other) {
            Ok(None) => Ok(RuntimeDir {
                fallback: Some(format!(
                    "the runtime directory {why}, so it is not used: {} is used instead (remove \
                     {} to use it again)",
                    other.display(),
                    usual.display()
                )),
                path: other,
                usual,
            }),
            Ok(Some(also)) => Err(format!("the runtime directory {why}; the fallback {also}")),
            Err(e) => Err(format!(
                "the runtime directory {why}; the fallback {} cannot be examined: {e}",
                other.display()
            )),
        }
    }

    /// Makes the directory if it is missing (mode 0700, with its missing parents), then
    /// checks it again: it must be private now.
    ///
    /// # Errors
    /// It cannot be made, or is not private (made by someone else meanwhile).
    pub fn make(&self) -> Result<(), String> {
        make_private(&self.path)
    }
}

/// Makes `dir` (mode 0700, with its missing parents, also 0700) if missing, then checks that
/// it is the user's private directory ([`problem`]).
///
/// # Errors
/// It cannot be made, or it is not private.
pub fn make_private(dir: &Path) -> Result<(), String> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot make {}: {e}", dir.display())),
    }
    match problem(dir) {
        Ok(None) if dir.is_dir() => Ok(()),
        Ok(None) => Err(format!("{} vanished after it was made", dir.display())),
        Ok(Some(why)) => Err(format!("the runtime directory {why}")),
        Err(e) => Err(format!("{} cannot be examined: {e}", dir.display())),
    }
}

/// Why `dir` may not be used as a runtime directory (`"<dir> is ..."`), or `None` when it is
/// missing or the user's private directory: a directory itself (not a link to one), owned by
/// the user, with no permission bit for the group or others.
///
/// # Errors
/// It cannot be examined (other than missing).
pub fn problem(dir: &Path) -> io::Result<Option<String>> {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(judge(dir, &meta, uid()))
}

fn judge(dir: &Path, meta: &fs::Metadata, me: u32) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let shown = dir.display();
    if meta.file_type().is_symlink() {
        return Some(format!("{shown} is a symbolic link"));
    }
    if !meta.is_dir() {
        return Some(format!("{shown} is not a directory"));
    }
    if meta.uid() != me {
        return Some(format!(
            "{shown} is owned by uid {}, not by this user (uid {me})",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Some(format!(
            "{shown} has mode {mode:04o}: others may write or look into it (it must be 0700)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn only_the_users_own_mode_0700_directory_is_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        assert_eq!(problem(&dir).unwrap(), None, "missing: it will be made");
        make_private(&dir).unwrap();
        assert_eq!(problem(&dir).unwrap(), None);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let why = problem(&dir).unwrap().unwrap();
        assert!(why.contains("mode 0777"), "{why}");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o710)).unwrap();
        assert!(problem(&dir).unwrap().is_some(), "a group bit");
        assert!(
            make_private(&dir).is_err(),
            "an existing open directory is not fixed"
        );
        let link = tmp.path().join("link");
        let private = tmp.path().join("private");
        make_private(&private).unwrap();
        std::os::unix::fs::symlink(&private, &link).unwrap();
        let why = problem(&link).unwrap().unwrap();
        assert!(why.contains("symbolic link"), "{why}");
        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(problem(&file).unwrap().unwrap().contains("not a directory"));
        let meta = fs::symlink_metadata(&private).unwrap();
        let why = judge(&private, &meta, uid() + 1).unwrap();
        assert!(why.contains("owned by uid"), "{why}");
    }
}
