//! One install ([`Install::apply`]): read the file, merge, report, and write it (or print the
//! diff of a dry run).

use std::io::{self, Write};
use std::path::PathBuf;

use super::command::Chosen;
use super::file::{Opened, write_settings};
use super::merge::merge;
use super::shape::{HttpHooks, Ours};
use super::{InstallError, Target};
use crate::agents::AgentEvent;

/// One install: which agent, which file, which binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The agent.
    pub target: Target,
    /// The settings file.
    pub path: PathBuf,
    /// The binary the entries run.
    pub binary: PathBuf,
    /// The command the entries spell it with ([`choose`](super::command::choose)); `None`:
    /// `binary`'s absolute path.
    pub command: Option<Chosen>,
    /// Print the diff instead of writing.
    pub dry_run: bool,
    /// Write the agent's fail-closed key ([`FailClosed`](crate::agents::FailClosed),
    /// Claude Code's `"onFailure": "block"`) on every gating entry of ours, adding it to the
    /// entries already there; for an agent without one this changes nothing.
    pub on_failure_block: bool,
    /// `--http`: HTTP hooks to `hooks serve` instead of command hooks (Claude Code only).
    pub http: Option<HttpHooks>,
}

/// An entry this tool had installed from another binary path, found by [`Install::apply`]
/// (see the [module docs](super#which-entries-are-this-tools)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The event the entry is for.
    pub event: AgentEvent,
    /// The command the entry ran (`the server at URL` for an HTTP entry of `--http`).
    pub old_binary: String,
    /// `false`: the entry now runs this binary, in the same place; `true`: it was removed,
    /// because the event already had an entry for this binary, or has one of the other form
    /// now (a command entry after an `--http` one, or the reverse).
    pub removed: bool,
}

/// What [`Install::apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The events whose entries were (or, in a dry run, would be) added.
    pub added: Vec<AgentEvent>,
    /// The entries for another path of this binary that were (or would be) pointed at this
    /// binary or removed.
    pub replaced: Vec<Replaced>,
    /// The events whose entry of ours, already there, got (or would get) the fail-closed key.
    pub upgraded: Vec<AgentEvent>,
    /// The events whose group of ours, already there, got (or would get) the matcher install
    /// gives it ([`InstallShape::matchers`](crate::agents::InstallShape::matchers)).
    pub matched: Vec<AgentEvent>,
    /// The settings file's content after the install: what was (or, in a dry run, would be)
    /// written, else what it already held (empty for no file).
    pub content: String,
    /// The backup written, if any.
    pub backup: Option<PathBuf>,
    /// Whether the settings file was written.
    pub written: bool,
}

/// `PreToolUse, Stop`.
fn names(events: impl IntoIterator<Item = AgentEvent>) -> String {
    events
        .into_iter()
        .map(AgentEvent::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Install {
    /// Adds the entries for `events` that are missing and points this tool's entries for
    /// another binary path at this binary, reporting to `out`.
    ///
    /// # Errors
    /// See [`InstallError`]; nothing is written on error.
    pub fn apply(
        &self,
        events: &[AgentEvent],
        out: &mut dyn Write,
    ) -> Result<InstallReport, InstallError> {
        let binary = self
            .binary
            .to_str()
            .ok_or_else(|| InstallError::BinaryPath(self.binary.clone()))?;
        let shown = self.path.display().to_string();
        let opened = Opened::read(&self.path)?;
        let (old_text, root) = (&opened.old_text, &opened.root);
        let mut ours = Ours::new(self.target, binary);
        if let Some(chosen) = &self.command {
            ours = ours.with_command(chosen.command.clone(), chosen.also.clone());
        }
        let ours = ours
            .with_fail_closed(self.on_failure_block)
            .with_http(self.http.as_ref());
        let merged = merge(&root.object_value_or_set(), &ours, events).map_err(|message| {
            InstallError::Shape {
                path: self.path.clone(),
                message,
            }
        })?;
        let o = |r: io::Result<()>| r.map_err(InstallError::Output);
        let mut report = InstallReport {
            added: merged.added,
            replaced: merged.replaced,
            upgraded: merged.upgraded,
            matched: merged.matched,
            content: old_text.clone().unwrap_or_default(),
            backup: None,
            written: false,
        };
        if events.is_empty() {
            o(writeln!(
                out,
                "The loaded hooks handle no {} event; nothing to install in {shown}.",
                self.target
            ))?;
            return Ok(report);
        }
        if report.added.is_empty()
            && report.replaced.is_empty()
            && report.upgraded.is_empty()
            && report.matched.is_empty()
        {
            o(writeln!(
                out,
                "{shown} is up to date ({} already installed); nothing changed.",
                names(events.iter().copied())
            ))?;
            return Ok(report);
        }
        let new_text = opened.new_text();
        report.content.clone_from(&new_text);
        if self.dry_run {
            o(write!(out, "{}", opened.diff(&shown, &new_text)))?;
            o(self.summary(&report, true, out))?;
            o(writeln!(out, "Dry run: nothing written."))?;
            return Ok(report);
        }
        report.backup = write_settings(&self.path, old_text.as_deref(), &new_text)?;
        report.written = true;
        if self.http.is_some() {
            private(&self.path).map_err(|source| InstallError::Write {
                path: self.path.clone(),
                source,
            })?;
        }
        o(self.summary(&report, false, out))?;
        if self.http.is_some() {
            o(writeln!(
                out,
                "The HTTP hooks carry the secret of `hooks serve`: {shown} is now mode 0600. \
                 The server starts on the next session start."
            ))?;
        }
        super::file::say_backup(out, report.backup.as_deref())?;
        Ok(report)
    }

    /// One line per kind of change: what was (`done`) or would be added, replaced, removed.
    fn summary(
        &self,
        report: &InstallReport,
        dry_run: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let shown = self.path.display();
        let (add, replace, remove, set) = if dry_run {
            ("Would add", "Would replace", "Would remove", "Would set")
        } else {
            ("Added", "Replaced", "Removed", "Set")
        };
        if !report.added.is_empty() {
            writeln!(
                out,
                "{add} {} hooks to {shown}.",
                names(report.added.iter().copied())
            )?;
        }
        if let Some(fail_closed) = self.target.protocol().install().fail_closed
            && !report.upgraded.is_empty()
        {
            writeln!(
                out,
                "{set} \"{}\": {} on the {} entries of {shown}.",
                fail_closed.key,
                fail_closed.value,
                names(report.upgraded.iter().copied())
            )?;
        }
        for &event in &report.matched {
            if let Some(matcher) = super::merge::our_matcher(self.target, event) {
                writeln!(
                    out,
                    "{set} \"matcher\": \"{matcher}\" on the {event} group of {shown}."
                )?;
            }
        }
        // One line per old path and kind, in the order found.
        let mut lines: Vec<(bool, &str, Vec<AgentEvent>)> = Vec::new();
        for r in &report.replaced {
            match lines
                .iter_mut()
                .find(|(removed, old, _)| *removed == r.removed && *old == r.old_binary)
            {
                Some((_, _, events)) if events.contains(&r.event) => {}
                Some((_, _, events)) => events.push(r.event),
                None => lines.push((r.removed, &r.old_binary, vec![r.event])),
            }
        }
        let now = self.command.as_ref().map_or_else(
            || self.binary.display().to_string(),
            |c| c.command.to_string(),
        );
        for (removed, old, events) in lines {
            let events = names(events);
            if removed {
                writeln!(
                    out,
                    "{remove} the {events} entries running {old} from {shown}: {now} already runs \
                     for them."
                )?;
            } else {
                writeln!(
                    out,
                    "{replace} {old} with {now} in the {events} entries of {shown}."
                )?;
            }
        }
        Ok(())
    }
}

/// Makes `path` (and its backup) readable by its owner only: it holds the secret.
fn private(path: &std::path::Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let target = std::fs::canonicalize(path)?;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600))?;
    let mut backup = target.into_os_string();
    backup.push(".bak");
    if std::path::Path::new(&backup).exists() {
        std::fs::set_permissions(&backup, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}
