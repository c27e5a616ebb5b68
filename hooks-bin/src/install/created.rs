//! The settings files `install` created, and the directories it made for them, recorded in
//! `<config dir>/installed.json` (see [`crate::trust::config_dir`]), so that `uninstall`
//! can leave a project as it found it: a file that install created and that holds nothing
//! once this tool's entries are gone is removed, and then each directory made for it that is
//! empty. A file that existed before install keeps its last byte, however empty.
//!
//! The record is a convenience, never a gate: when it cannot be read or written, install and
//! uninstall still do their work and say so, and uninstall leaves the `{}` it would have
//! removed.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The record's file name in the config directory.
pub const RECORD_FILE: &str = "installed.json";

/// What the record holds: each created file and the directories made for it, deepest first.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    created: BTreeMap<PathBuf, Vec<PathBuf>>,
}

/// This process's record: `<config dir>/installed.json`, if there is a config directory.
#[must_use]
pub fn record_path() -> Option<PathBuf> {
    crate::trust::config_dir().ok().map(|d| d.join(RECORD_FILE))
}

/// The directories on the way to `file` that do not exist yet, deepest first.
#[must_use]
pub fn missing_dirs(file: &Path) -> Vec<PathBuf> {
    file.ancestors()
        .skip(1)
        .filter(|d| !d.as_os_str().is_empty())
        .take_while(|d| fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect()
}

fn read(record: &Path) -> io::Result<Record> {
    match fs::read(record) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(io::Error::other),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Record::default()),
        Err(e) => Err(e),
    }
}

fn write(record: &Path, content: &Record) -> io::Result<()> {
    let dir = record.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".installed-")
        .tempfile_in(dir)?;
    serde_json::to_writer_pretty(&mut tmp, content).map_err(io::Error::other)?;
    tmp.as_file().sync_all()?;
    tmp.persist(record).map_err(|e| e.error)?;
    Ok(())
}

/// Records in `record` that install created `file`, making `dirs` for it.
///
/// # Errors
/// The record cannot be read or written.
pub fn remember(record: &Path, file: &Path, dirs: Vec<PathBuf>) -> io::Result<()> {
    let mut content = read(record)?;
    content.created.insert(file.to_path_buf(), dirs);
    write(record, &content)
}

/// Whether `record` says install created `file`; if so, the directories made for it.
///
/// # Errors
/// The record cannot be read.
pub fn made_by_install(record: &Path, file: &Path) -> io::Result<Option<Vec<PathBuf>>> {
    Ok(read(record)?.created.get(file).cloned())
}

/// Removes `file` (created by install, now holding nothing), then each of `dirs` that is
/// empty, deepest first, and drops `file` from `record`. Returns the directories removed.
///
/// # Errors
/// The file cannot be removed, or the record cannot be written.
pub fn remove(record: &Path, file: &Path, dirs: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    fs::remove_file(file)?;
    let removed = dirs
        .iter()
        .take_while(|dir| fs::remove_dir(dir).is_ok())
        .cloned()
        .collect();
    let mut content = read(record)?;
    content.created.remove(file);
    write(record, &content)?;
    Ok(removed)
}

/// Whether `text` (a settings file) holds nothing: an empty JSON object, whitespace and a
/// byte order mark aside.
#[must_use]
pub fn holds_nothing(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
        .is_ok_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_dirs_are_the_ones_on_the_way_that_do_not_exist_deepest_first() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/settings.json");
        assert_eq!(
            missing_dirs(&file),
            vec![dir.path().join("a/b"), dir.path().join("a")]
        );
        fs::create_dir(dir.path().join("a")).unwrap();
        assert_eq!(missing_dirs(&file), vec![dir.path().join("a/b")]);
    }

    #[test]
    fn only_an_empty_object_holds_nothing() {
        assert!(holds_nothing("{}\n"));
        assert!(holds_nothing("\u{feff}{ }"));
        assert!(!holds_nothing("{\"model\": \"opus\"}"));
        assert!(!holds_nothing("[]"));
        assert!(!holds_nothing("{ // comment\n}"));
    }
}
