//! Where `hooks run` writes session files: `--session-dir` (the user's, created as needed), or
//! the default `.hooks/sessions` under the working directory, git-ignored and never reached
//! through a symbolic link the project ships.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::DEFAULT_SESSION_DIR;

/// The session directory of a run in `cwd`: `given` (relative to the current directory),
/// created with its parents, or the default one ([`default_session_dir`]).
///
/// # Errors
/// The directory cannot be used (the message names it and says why).
pub(super) fn prepare(given: Option<&Path>, cwd: &Path) -> Result<PathBuf, String> {
    match given {
        Some(dir) => {
            let dir = if dir.is_absolute() {
                dir.to_path_buf()
            } else {
                std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |d| d.join(dir))
            };
            create_dir(&dir, "the session directory")?;
            Ok(dir)
        }
        None => default_session_dir(cwd),
    }
}

/// `<cwd>/.hooks/sessions`, with a `.hooks/.gitignore` that ignores everything in it, so runs
/// leave nothing for git to pick up.
///
/// Both directories are inside the project, which could ship either as a symbolic link to have
/// session files written elsewhere: each is created, or used when it is a directory, never
/// followed when it is a link (refused, dangling or not). The `.gitignore` is only created,
/// never written through whatever holds its name (a link included): that is left as it is.
/// (`--cwd` itself, and a `--session-dir`, are the user's and may be links.)
fn default_session_dir(cwd: &Path) -> Result<PathBuf, String> {
    let base = cwd.join(".hooks");
    create_dir_here(&base, "the parent of the default session directory")?;
    let ignore = base.join(".gitignore");
    match std::fs::File::create_new(&ignore) {
        Ok(mut file) => file
            .write_all(b"# Written by `hooks run`: session files stay out of git.\n*\n")
            .map_err(|e| format!("cannot write {}: {e}", ignore.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot write {}: {e}", ignore.display())),
    }
    let dir = cwd.join(DEFAULT_SESSION_DIR);
    create_dir_here(&dir, "the default session directory")?;
    Ok(dir)
}

/// Creates the directory `dir` (whose parent exists) unless it is a directory already; a
/// symbolic link at `dir` is refused, not followed (`mkdir` does not follow one either).
fn create_dir_here(dir: &Path, used_as: &str) -> Result<(), String> {
    let refuse = |reason: &str| format!("cannot use {} as {used_as}: {reason}", dir.display());
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match dir.symlink_metadata() {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(meta) if meta.is_symlink() => Err(refuse(
                "it is a symbolic link, which the default session directory does not follow \
                     (give --session-dir DIR to write sessions elsewhere)",
            )),
            Ok(_) => Err(refuse("it is not a directory")),
            Err(e) => Err(refuse(&e.to_string())),
        },
        Err(e) => Err(refuse(&e.to_string())),
    }
}

/// Creates `dir` and its parents; the error names `dir`, what it was to be used `as`, and what
/// is wrong with it.
fn create_dir(dir: &Path, used_as: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| {
        // `create_dir_all` only fails on an existing path when it is not a directory.
        let reason = if dir.exists() {
            "it is not a directory".to_owned()
        } else {
            e.to_string()
        };
        format!("cannot use {} as {used_as}: {reason}", dir.display())
    })
}
