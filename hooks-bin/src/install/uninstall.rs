//! `hooks uninstall`: removes from an agent's settings file exactly the entries that
//! `install` counts as this tool's ([`Ours::is_ours`], the rule of the
//! [module docs](super#which-entries-are-this-tools) plus `--http`'s entries), on the same
//! syntax tree and with the same read, backup and atomic write as install.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::created;
use super::file::Opened;
use super::file::write_settings;
use super::merge::remove;
use super::shape::{HttpHooks, Ours};
use super::{InstallError, Target};
use crate::agents::AgentEvent;

/// One uninstall: which agent, which file, which binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uninstall {
    /// The agent.
    pub target: Target,
    /// The settings file.
    pub path: PathBuf,
    /// This binary: entries running a binary of its file name are ours.
    pub binary: PathBuf,
    /// `--http`'s entries to remove too (the server's URL; the secret is not compared).
    pub http: Option<HttpHooks>,
    /// Print the diff instead of writing.
    pub dry_run: bool,
    /// The record of the files install created ([`created`]): a file it names that holds
    /// nothing once this tool's entries are gone is removed, with the directories made for it.
    pub record: Option<PathBuf>,
}

/// What [`Uninstall::apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UninstallReport {
    /// The event of each entry removed (or, in a dry run, that would be).
    pub removed: Vec<AgentEvent>,
    /// The backup written, if any.
    pub backup: Option<PathBuf>,
    /// Whether the settings file was written (or removed).
    pub written: bool,
    /// Whether the settings file was removed (or, in a dry run, would be): install created it
    /// and nothing else is in it.
    pub removed_file: bool,
}

impl Uninstall {
    /// The directories made for the file, when the record says install created it and
    /// `new_text` holds nothing; a record that cannot be read is said on `out` and counts as
    /// no.
    fn made_by_install(
        &self,
        new_text: &str,
        out: &mut dyn Write,
    ) -> Result<Option<Vec<PathBuf>>, InstallError> {
        let Some(record) = self.record.as_deref() else {
            return Ok(None);
        };
        if !created::holds_nothing(new_text) {
            return Ok(None);
        }
        match created::made_by_install(record, &self.path) {
            Ok(dirs) => Ok(dirs),
            Err(e) => {
                writeln!(
                    out,
                    "Cannot read {} ({e}): the file stays, empty.",
                    record.display()
                )
                .map_err(InstallError::Output)?;
                Ok(None)
            }
        }
    }

    /// Removes this tool's entries for every event of the agent from the file, reporting to
    /// `out`; a file without any (or no file) is left as it is.
    ///
    /// # Errors
    /// See [`InstallError`]; nothing is written on error.
    pub fn apply(&self, out: &mut dyn Write) -> Result<UninstallReport, InstallError> {
        let binary = self
            .binary
            .to_str()
            .ok_or_else(|| InstallError::BinaryPath(self.binary.clone()))?;
        let shown = self.path.display().to_string();
        let o = |r: io::Result<()>| r.map_err(InstallError::Output);
        let opened = Opened::read(&self.path)?;
        let mut report = UninstallReport {
            removed: Vec::new(),
            backup: None,
            written: false,
            removed_file: false,
        };
        if opened.old_text.is_none() {
            o(writeln!(out, "{shown} does not exist; nothing to remove."))?;
            return Ok(report);
        }
        let ours = Ours::new(self.target, binary).with_http(self.http.as_ref());
        let events = self.target.protocol().events();
        report.removed =
            remove(&opened.root.object_value_or_set(), &ours, events).map_err(|message| {
                InstallError::Shape {
                    path: self.path.clone(),
                    message,
                }
            })?;
        if report.removed.is_empty() {
            o(writeln!(
                out,
                "{shown} has no hooks entries of {binary}; nothing changed."
            ))?;
            return Ok(report);
        }
        let mut events: Vec<&str> = report.removed.iter().map(|e| e.as_str()).collect();
        events.dedup();
        let (count, events) = (report.removed.len(), events.join(", "));
        let entries = if count == 1 { "entry" } else { "entries" };
        let new_text = super::file::as_before(&self.path, opened.new_text());
        if let Some(dirs) = self.made_by_install(&new_text, out)? {
            report.removed_file = true;
            let record = self.record.as_deref().unwrap_or(Path::new(""));
            if self.dry_run {
                o(write!(out, "{}", opened.diff(&shown, "")))?;
                o(writeln!(
                    out,
                    "Would remove {count} {entries} ({events}) and then {shown}, which install \
                     created: nothing else is in it.\nDry run: nothing written."
                ))?;
                return Ok(report);
            }
            let gone = created::remove(record, &self.path, &dirs).map_err(|source| {
                InstallError::Write {
                    path: self.path.clone(),
                    source,
                }
            })?;
            report.written = true;
            o(writeln!(
                out,
                "Removed {count} {entries} ({events}) and then {shown}: install created it \
                 and nothing else is in it."
            ))?;
            for dir in gone {
                o(writeln!(
                    out,
                    "Removed {}: install made it, and it is empty.",
                    dir.display()
                ))?;
            }
            return Ok(report);
        }
        if self.dry_run {
            o(write!(out, "{}", opened.diff(&shown, &new_text)))?;
            o(writeln!(
                out,
                "Would remove {count} {entries} ({events}) from {shown}.\nDry run: nothing written."
            ))?;
            return Ok(report);
        }
        report.backup = write_settings(&self.path, opened.old_text.as_deref(), &new_text)?;
        report.written = true;
        o(writeln!(
            out,
            "Removed {count} {entries} ({events}) from {shown}."
        ))?;
        super::file::say_backup(out, report.backup.as_deref())?;
        Ok(report)
    }
}
