//! The entries of this tool already in an agent's settings file, found by the same rule that
//! `install` and `uninstall` use ([`Ours::is_ours`], the
//! [module docs](super#which-entries-are-this-tools)): what `hooks doctor` checks.

use std::path::Path;

use serde_json::{Map, Value};

use jsonc_parser::cst::{CstArray, CstObject};

use super::command::Command;
use super::file::{Opened, read_settings};
use super::merge::{EventLists, event_lists, handlers, property, value_of};
use super::shape::Ours;
use super::{InstallError, Target};
use crate::agents::{AgentEvent, Layout};

/// What an entry of ours runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runs {
    /// A command entry: the command it runs (with this binary's file name: a bare name, a
    /// path in the project, an absolute path; maybe another binary than this one).
    Binary(Command),
    /// An HTTP entry of `install --http`: the URL it posts to and its `Authorization` header.
    Http {
        /// The URL.
        url: String,
        /// The `Authorization` header value (`Bearer SECRET`), if any.
        authorization: Option<String>,
    },
}

/// One entry of ours in a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The event it is under.
    pub event: AgentEvent,
    /// The index of its matcher group in `hooks.EVENT` (`None` in a versioned file, whose
    /// entries are straight under the event).
    pub group: Option<usize>,
    /// Its index in its group's `hooks` (or in `hooks.EVENT` of a versioned file).
    pub index: usize,
    /// Its group's `matcher`, if any.
    pub matcher: Option<String>,
    /// The entry as written.
    pub entry: Value,
    /// What it runs.
    pub runs: Runs,
}

/// The entries of `target`'s settings file `path` that this tool installed for `binary` (a
/// binary of its file name at any path, and the entries of its server: install's rule of the
/// [module docs](super#which-entries-are-this-tools)),
/// for every event of the agent, in the file's order per event; none when the file does not
/// exist. The file is read as `install` reads it, and never written.
///
/// # Errors
/// The file cannot be read, or is not a settings file ([`InstallError`]).
pub fn find_ours(target: Target, path: &Path, binary: &Path) -> Result<Vec<Found>, InstallError> {
    let binary = binary
        .to_str()
        .ok_or_else(|| InstallError::BinaryPath(binary.to_path_buf()))?;
    let opened = Opened::read(path)?;
    if opened.old_text.is_none() {
        return Ok(Vec::new());
    }
    let ours = Ours::new(target, binary);
    find(
        &opened.root.object_value_or_set(),
        &ours,
        target.protocol().events(),
    )
    .map_err(|message| InstallError::Shape {
        path: path.to_path_buf(),
        message,
    })
}

/// The settings file `path` as a JSON object, read as `install` reads it (bounded, strict; an
/// empty file is `{}`); `None` when it does not exist.
///
/// # Errors
/// The file cannot be read or is not one JSON object.
pub fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, InstallError> {
    let Some(text) = read_settings(path)? else {
        return Ok(None);
    };
    let body = text.trim_start_matches('\u{feff}');
    if body.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    Ok(Some(crate::json::decode_object(
        body.as_bytes(),
        &path.display().to_string(),
    )?))
}

/// Every entry of `root` that [`Ours::is_ours`] counts as this tool's, for each of `events`
/// (what `uninstall` would remove), with where it is; the file is only read. Returns them in
/// the file's order per event, or which key has the wrong type.
pub(super) fn find(
    root: &CstObject,
    ours: &Ours<'_>,
    events: &[AgentEvent],
) -> Result<Vec<Found>, String> {
    let layout = ours.target.protocol().install().layout;
    let mut found = Vec::new();
    let Some(EventLists { lists, .. }) = event_lists(root, events)? else {
        return Ok(found);
    };
    for (event, _, list) in lists {
        // Each matcher group's entries, with its index and matcher; versioned: no group.
        let groups: Vec<(Option<usize>, Option<String>, CstArray)> = match layout {
            Layout::Groups => list
                .elements()
                .iter()
                .enumerate()
                .filter_map(|(i, group)| {
                    let matcher = group
                        .as_object()
                        .and_then(|g| property(&g, "matcher"))
                        .and_then(|p| p.value())
                        .and_then(|v| value_of(&v).as_str().map(str::to_owned));
                    Some((Some(i), matcher, handlers(group)?))
                })
                .collect(),
            Layout::Versioned => vec![(None, None, list.clone())],
        };
        for (group, matcher, entries) in groups {
            for (index, h) in entries.elements().iter().enumerate() {
                let entry = value_of(h);
                let Some(runs) = runs_of(ours, &entry, event) else {
                    continue;
                };
                found.push(Found {
                    event,
                    group,
                    index,
                    matcher: matcher.clone(),
                    entry,
                    runs,
                });
            }
        }
    }
    Ok(found)
}

/// What `entry`, under `event`, runs when it is this tool's ([`Ours::is_ours`]).
fn runs_of(ours: &Ours<'_>, entry: &Value, event: AgentEvent) -> Option<Runs> {
    if let Some((command, _)) = ours.installed_by_us(entry, event) {
        return Some(Runs::Binary(command));
    }
    let server_entry = ours.server_entry(entry, event)?;
    Some(match entry.get("url").and_then(Value::as_str) {
        Some(url) => Runs::Http {
            url: url.to_owned(),
            authorization: entry
                .pointer("/headers/Authorization")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        // The `--via-server` command entry: its binary.
        None => Runs::Binary(Command::Path(server_entry.into())),
    })
}
