//! Reading and writing a settings file: bounded reads, atomic writes with a backup.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hookwright::loader::path::normalize_lexically;
use jsonc_parser::cst::CstRootNode;
use similar::TextDiff;

use super::InstallError;
use super::merge::parse_settings;
use crate::json;

/// The file's text, `None` when it does not exist. Bounded like every other input.
pub(super) fn read_settings(path: &Path) -> Result<Option<String>, InstallError> {
    let read_err = |source| InstallError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            dangling_symlink(path)?;
            return Ok(None);
        }
        Err(e) => return Err(read_err(e)),
    };
    let bytes = json::read_bounded(&mut file).map_err(read_err)?;
    Ok(Some(
        json::text(&bytes, &path.display().to_string())?.to_owned(),
    ))
}

/// For a `path` that does not exist: the error naming `path`, or the directory on the way to
/// it, that is a symlink to nothing.
fn dangling_symlink(path: &Path) -> Result<(), InstallError> {
    for p in path.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        if fs::metadata(p).is_ok() {
            break;
        }
        if let Ok(target) = fs::read_link(p) {
            let dir = p.parent().unwrap_or(Path::new(""));
            return Err(InstallError::DanglingSymlink {
                link: p.to_path_buf(),
                target: normalize_lexically(&dir.join(target)),
            });
        }
    }
    Ok(())
}

/// `new_text`, or the text of `path`'s backup (`NAME.bak`) when that holds the same JSON value:
/// an uninstall right after an install gives the file back byte for byte, formatting the
/// install changed included (inserting into a one-line object spreads it over lines). Only
/// whitespace and layout can differ between two texts of one value, so nothing the agent
/// reads changes.
pub(super) fn as_before(path: &Path, new_text: String) -> String {
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    let backup = target.with_file_name(name);
    // A backup in a repository is anyone's file: read only a regular file of a settings file's
    // size (not a link to `/dev/zero`, not a file of gigabytes).
    let limit = u64::try_from(new_text.len())
        .unwrap_or(u64::MAX)
        .saturating_mul(4)
        + 4096;
    let plain = fs::symlink_metadata(&backup).is_ok_and(|m| m.is_file() && m.len() <= limit);
    let Some(old) = plain.then(|| fs::read_to_string(&backup).ok()).flatten() else {
        return new_text;
    };
    let value = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}')).ok()
    };
    match (value(&old), value(&new_text)) {
        (Some(before), Some(after)) if before == after && old != new_text => old,
        _ => new_text,
    }
}

/// Writes the backup (when there was a file) and the new content, each atomically. Returns
/// the backup's path.
pub(super) fn write_settings(
    path: &Path,
    old_text: Option<&str>,
    new_text: &str,
) -> Result<Option<PathBuf>, InstallError> {
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError::Write { path, source }
    };
    // Write through a symlink to its target, so the link stays a link.
    let target = if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        fs::canonicalize(path).map_err(write_err(path))?
    } else {
        path.to_path_buf()
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(write_err(dir))?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let backup = match old_text {
        Some(old) => {
            let mut name = target.file_name().unwrap_or_default().to_os_string();
            name.push(".bak");
            let backup = target.with_file_name(name);
            atomic_write(&backup, old, permissions.clone())?;
            Some(backup)
        }
        None => None,
    };
    atomic_write(&target, new_text, permissions)?;
    Ok(backup)
}

/// Removes the file `path`, whose content is `old_text`, after writing that content to its
/// backup (`NAME.bak`, atomically, with the file's permissions). Returns the backup's path.
pub(super) fn remove_with_backup(path: &Path, old_text: &str) -> Result<PathBuf, InstallError> {
    let permissions = fs::metadata(path).ok().map(|m| m.permissions());
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    let backup = path.with_file_name(name);
    atomic_write(&backup, old_text, permissions)?;
    fs::remove_file(path).map_err(|source| InstallError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(backup)
}

/// Writes `text` to `path` through a temporary file in its directory, with `permissions`
/// (a new file: `0666` minus the umask, as for any file the user creates).
fn atomic_write(
    path: &Path,
    text: &str,
    permissions: Option<fs::Permissions>,
) -> Result<(), InstallError> {
    let err = |source| InstallError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hooks-install-").suffix(".tmp");
    if permissions.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // Applied at creation, so the umask narrows it (tempfile's default is 0600).
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(err)?;
    tmp.write_all(text.as_bytes()).map_err(err)?;
    if let Some(permissions) = permissions {
        fs::set_permissions(tmp.path(), permissions).map_err(err)?;
    }
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// A UTF-8 byte order mark, accepted at the start of a settings file and kept on write.
const BOM: char = '\u{feff}';

/// A settings file read for an edit on its syntax tree (by install and uninstall alike).
pub(super) struct Opened {
    /// The file's text, `None` when it does not exist.
    pub(super) old_text: Option<String>,
    /// Whether it starts with a byte order mark (kept on write).
    bom: bool,
    /// Whether it is empty or whitespace only (read as `{}`).
    blank: bool,
    /// Its syntax tree, without the byte order mark.
    pub(super) root: CstRootNode,
}

impl Opened {
    /// Reads and parses the settings file `path` (see [`read_settings`], [`parse_settings`]).
    pub(super) fn read(path: &Path) -> Result<Opened, InstallError> {
        let shown = path.display().to_string();
        let old_text = read_settings(path)?;
        let (bom, body) = match old_text.as_deref().map(|t| (t.strip_prefix(BOM), t)) {
            Some((Some(body), _)) => (true, body),
            Some((None, text)) => (false, text),
            None => (false, ""),
        };
        let blank = body.bytes().all(|b| b.is_ascii_whitespace());
        let root = parse_settings(if blank { "" } else { body }, &shown)?;
        Ok(Opened {
            old_text,
            bom,
            blank,
            root,
        })
    }

    /// The file's text as the edited tree gives it, with its byte order mark.
    pub(super) fn new_text(&self) -> String {
        let mut new_text = self.root.to_string();
        if self.blank {
            new_text.push('\n');
        }
        if self.bom {
            new_text.insert(0, BOM);
        }
        new_text
    }

    /// The unified diff from the old text to `new_text`, the file named `shown`.
    pub(super) fn diff(&self, shown: &str, new_text: &str) -> String {
        diff(self.old_text.as_deref(), shown, new_text)
    }
}

/// The unified diff from `old_text` (none: an empty file) to `new_text`, the file named `shown`.
pub(super) fn diff(old_text: Option<&str>, shown: &str, new_text: &str) -> String {
    // `a/` + the path without its root, as `git diff --no-index` names absolute paths.
    let name = shown.trim_start_matches('/');
    TextDiff::from_lines(old_text.unwrap_or(""), new_text)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// Says where the previous file's backup went, when one was written.
pub(super) fn say_backup(out: &mut dyn Write, backup: Option<&Path>) -> Result<(), InstallError> {
    match backup {
        Some(backup) => writeln!(out, "Backup of the previous file: {}", backup.display())
            .map_err(InstallError::Output),
        None => Ok(()),
    }
}
