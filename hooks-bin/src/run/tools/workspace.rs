//! [`Workspace`]: the directory the tools are confined to.

use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use hookwright::ToolError;

/// The directory every tool path is resolved against and must stay inside.
///
/// A path is first checked, for the error message: relative paths are joined to the root, `.`
/// and `..` are applied lexically, then the longest existing prefix is resolved through symbolic
/// links (`canonicalize`). The result must be the root or below it; otherwise the tool fails
/// with `path "<path>" is outside the working directory <root>`.
///
/// The file is then used through a handle of the root opened once ([`Workspace::new`]), by the
/// checked path relative to it, with [`cap_std`]: each open resolves the path beneath the
/// root (`openat2` with `RESOLVE_BENEATH` on Linux, else one `openat` per component) and
/// refuses to leave it. So a directory swapped for a symbolic link to the outside between the
/// check and the use fails the call with the same message; the use is confined itself.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    dir: Dir,
}

impl Workspace {
    /// The workspace rooted at `root` (which must be an existing directory; it is
    /// canonicalized and opened).
    ///
    /// # Errors
    /// When `root` does not exist, cannot be resolved or opened, or is not a directory.
    pub fn new(root: &Path) -> io::Result<Self> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "it is not a directory",
            ));
        }
        let dir = Dir::open_ambient_dir(&root, ambient_authority())?;
        Ok(Workspace { root, dir })
    }

    /// The canonical root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root, or absolute) to an absolute path inside the
    /// workspace. The path need not exist (for `write`).
    ///
    /// # Errors
    /// A [`ToolError::Failed`] when the path is empty, starts with `~`, or escapes the workspace.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        if path.is_empty() {
            return Err(ToolError::failed("path is empty"));
        }
        if path.starts_with('~') {
            return Err(ToolError::failed(format!(
                "path \"{path}\" starts with `~`: give a path relative to the working directory {}",
                self.root.display()
            )));
        }
        let joined = self.root.join(path);
        let mut lexical = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    lexical.pop();
                }
                Component::CurDir => {}
                other => lexical.push(other),
            }
        }
        let resolved = canonicalize_existing_prefix(&lexical)
            .map_err(|e| ToolError::failed(format!("cannot resolve path \"{path}\": {e}")))?;
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(self.outside(path))
        }
    }

    /// The error of a path that leads outside the workspace.
    fn outside(&self, path: &str) -> ToolError {
        ToolError::failed(format!(
            "path \"{path}\" is outside the working directory {}",
            self.root.display()
        ))
    }

    /// `resolved` (from [`Workspace::resolve`]) relative to the root, as the handle methods
    /// take it (`.` for the root itself).
    pub(crate) fn beneath<'a>(&self, resolved: &'a Path) -> &'a Path {
        match resolved.strip_prefix(&self.root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel,
            _ => Path::new("."),
        }
    }

    /// The root's handle: every path given to it stays beneath the root.
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Opens `resolved` (from [`Workspace::resolve`]) with `options` through the root's handle,
    /// without blocking on a FIFO (`O_NONBLOCK`, which changes nothing for a regular file).
    ///
    /// # Errors
    /// What opening fails with; map it with [`Workspace::error`].
    pub(crate) fn open(
        &self,
        resolved: &Path,
        options: &mut OpenOptions,
    ) -> io::Result<std::fs::File> {
        cap_std::fs::OpenOptionsExt::custom_flags(
            options,
            rustix::fs::OFlags::NONBLOCK.bits().cast_signed(),
        );
        self.dir
            .open_with(self.beneath(resolved), options)
            .map(cap_std::fs::File::into_std)
    }

    /// The tool error for `e`, met while trying to `what` the file at `path` (as given): the
    /// outside-the-directory error when the path led out of the root (also when it only does
    /// now, a directory having been swapped for a link meanwhile), else `cannot <what>
    /// "<path>": <e>`.
    pub(crate) fn error(&self, what: &str, path: &str, e: &io::Error) -> ToolError {
        if is_escape(e) {
            return self.outside(path);
        }
        if let Err(now) = self.resolve(path) {
            return now;
        }
        ToolError::failed(format!("cannot {what} \"{path}\": {e}"))
    }

    /// `path` relative to the root, for display (`.` for the root itself).
    #[must_use]
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Whether `e` is [`cap_std`]'s refusal of a path that leads out of its directory: a
/// permission error of its own (not one from the system, which carries an OS error code).
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none()
}

/// Canonicalizes the longest prefix of `path` that exists and appends the rest unchanged (the
/// rest has no `.`/`..` left, so it cannot climb out).
fn canonicalize_existing_prefix(path: &Path) -> io::Result<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut canonical) => {
                for part in rest.iter().rev() {
                    canonical.push(part);
                }
                return Ok(canonical);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if existing.symlink_metadata().is_ok() {
                    // A dangling symbolic link: writing through it would land wherever it points.
                    return Err(io::Error::other(format!(
                        "{} is a symbolic link to a missing target",
                        existing.display()
                    )));
                }
                let Some(name) = existing.file_name().map(ToOwned::to_owned) else {
                    return Err(e);
                };
                rest.push(name);
                if !existing.pop() {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
}
