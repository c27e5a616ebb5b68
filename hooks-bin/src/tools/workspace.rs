//! [`Workspace`]: the directory the tools are confined to.

use std::io;
use std::path::{Component, Path, PathBuf};

use hooks_core::ToolError;

/// The directory every tool path is resolved against and must stay inside.
///
/// A path is resolved like this: relative paths are joined to the root, `.` and `..` are
/// applied lexically, then the longest existing prefix is resolved through symbolic links
/// (`canonicalize`). The result must be the root or below it; otherwise the tool fails with
/// `path "<path>" is outside the working directory <root>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace rooted at `root` (which must be an existing directory; it is
    /// canonicalized).
    ///
    /// # Errors
    /// When `root` does not exist, cannot be resolved or is not a directory.
    pub fn new(root: &Path) -> io::Result<Self> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "it is not a directory",
            ));
        }
        Ok(Workspace { root })
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
            Err(ToolError::failed(format!(
                "path \"{path}\" is outside the working directory {}",
                self.root.display()
            )))
        }
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
