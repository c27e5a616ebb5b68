//! `hooks install pi|omp`: puts the bridge extension (`hooks-bin/bridges/pi/hooks.ts`) where
//! pi or oh-my-pi loads extensions from, pointed at this binary.
//!
//! | target | scope | file |
//! | --- | --- | --- |
//! | `pi` | project | `<cwd>/.pi/extensions/NAME.ts` |
//! | `pi` | user | `$PI_CODING_AGENT_DIR/extensions/NAME.ts`, else `$HOME/.pi/agent/extensions/NAME.ts` |
//! | `omp` | project | `<cwd>/.omp/extensions/NAME.ts` |
//! | `omp` | user | `$PI_CODING_AGENT_DIR/extensions/NAME.ts`, else `$HOME/.omp/agent/extensions/NAME.ts` |
//!
//! `NAME` is this binary's file name (`hooks`). The file is the bridge's source with this
//! binary's absolute path in `INSTALLED_BINARY`; the bridge starts `BINARY serve --stdio`.
//!
//! **Which file is this tool's** (the ownership rule of every install): a file at that path is
//! replaced only when it is a bridge this tool wrote: its first line is the bridge's, and its
//! `INSTALLED_BINARY` is an absolute path whose file name is this binary's. Anything else is
//! another tool's (or the user's own edit of a bridge for another binary) and is never changed:
//! the install fails and writes nothing. A bridge for this binary that is up to date is left
//! alone (idempotent: nothing written, no backup); one from an older `hooks` or for a moved
//! binary is rewritten, with the old one kept as `NAME.ts.bak` (outside the `*.ts` that the
//! agents load). `--dry-run` prints the diff and writes nothing.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::file::{diff, read_settings, remove_with_backup, say_backup, write_settings};
use super::{InstallError, Scope};

/// The bridge's source, as shipped.
pub const BRIDGE_SOURCE: &str = include_str!("../../bridges/pi/hooks.ts");

/// The line of the source that `install` fills in.
const BINARY_LINE: &str = "const INSTALLED_BINARY = \"\";";

/// The variable both agents read their user-level directory from.
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// An agent that loads the bridge ([`crate::agents::ExtensionAgent`], one line of the list of
/// agents).
pub use crate::agents::ExtensionAgent;

/// The extensions directory of `agent` in `scope`: under `cwd` for a project, else the
/// agent's user directory (`agent_dir_env`, the value of `PI_CODING_AGENT_DIR`, when it is
/// set; else under `home`).
///
/// # Errors
/// [`InstallError::RelativeDir`] for a relative `agent_dir_env`; [`InstallError::NoHome`]
/// when `home` is needed and is not absolute.
pub fn extensions_dir(
    agent: ExtensionAgent,
    scope: Scope,
    cwd: &Path,
    home: &Path,
    agent_dir_env: Option<&OsStr>,
) -> Result<PathBuf, InstallError> {
    if scope == Scope::Project {
        return Ok(cwd.join(agent.spec().config_dir).join("extensions"));
    }
    if let Some(dir) = agent_dir_env.filter(|d| !d.is_empty()).map(Path::new) {
        if !dir.is_absolute() {
            return Err(InstallError::RelativeDir {
                var: AGENT_DIR_ENV,
                value: dir.to_path_buf(),
            });
        }
        return Ok(dir.join("extensions"));
    }
    if !home.is_absolute() {
        return Err(InstallError::NoExtensionHome { agent });
    }
    Ok(home
        .join(agent.spec().config_dir)
        .join("agent")
        .join("extensions"))
}

/// The bridge's source pointed at `binary` (an absolute UTF-8 path).
#[must_use]
pub fn bridge_for(binary: &str) -> String {
    let quoted = serde_json::Value::from(binary).to_string();
    BRIDGE_SOURCE.replacen(
        BINARY_LINE,
        &format!("const INSTALLED_BINARY = {quoted};"),
        1,
    )
}

/// The binary a bridge this tool wrote runs; `None` when `text` is no such bridge.
#[must_use]
pub fn installed_binary(text: &str) -> Option<String> {
    let first = BRIDGE_SOURCE.lines().next()?;
    if text.lines().next() != Some(first) {
        return None;
    }
    let line = text
        .lines()
        .find(|l| l.starts_with("const INSTALLED_BINARY = "))?;
    let value = line
        .strip_prefix("const INSTALLED_BINARY = ")?
        .strip_suffix(';')?;
    serde_json::from_str::<String>(value).ok()
}

/// The binary of `text` when it is a bridge this tool wrote for a binary of `binary`'s file
/// name (see the [module docs](self)): what install replaces and uninstall removes.
fn ours(text: &str, binary: &Path) -> Option<String> {
    installed_binary(text).filter(|b| {
        let b = Path::new(b);
        b.is_absolute() && b.file_name() == binary.file_name()
    })
}

/// What an install of the bridge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BridgeInstall {
    /// The file was written (or would be, on a dry run); `replaced` is the binary of the
    /// bridge it replaced, if any.
    Written {
        /// The binary of the old bridge.
        replaced: Option<String>,
    },
    /// The bridge was there and up to date.
    UpToDate,
}

/// Installs the bridge for `binary` at `path` (see the [module docs](self)), reporting to
/// `out`.
///
/// # Errors
/// See [`InstallError`]; nothing is written on error.
pub fn install_bridge(
    agent: ExtensionAgent,
    path: &Path,
    binary: &Path,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<BridgeInstall, InstallError> {
    let binary_str = binary
        .to_str()
        .ok_or_else(|| InstallError::BinaryPath(binary.to_path_buf()))?;
    let new_text = bridge_for(binary_str);
    let old_text = read_settings(path)?;
    let o = |r: io::Result<()>| r.map_err(InstallError::Output);
    let shown = path.display();
    let replaced = match old_text.as_deref() {
        None => None,
        Some(old) if old == new_text => {
            o(writeln!(
                out,
                "{shown} is up to date (the {agent} bridge for {binary_str}); nothing changed."
            ))?;
            return Ok(BridgeInstall::UpToDate);
        }
        Some(old) => match ours(old, binary) {
            Some(b) => Some(b),
            None => return Err(InstallError::NotOurs(path.to_path_buf())),
        },
    };
    if dry_run {
        let diff = diff(old_text.as_deref(), &shown.to_string(), &new_text);
        o(write!(out, "{diff}"))?;
        o(writeln!(out, "Dry run: nothing written."))?;
        return Ok(BridgeInstall::Written { replaced });
    }
    let backup = write_settings(path, old_text.as_deref(), &new_text)?;
    match &replaced {
        Some(old) if old != binary_str => o(writeln!(
            out,
            "Replaced the {agent} bridge for {old} with one for {binary_str} in {shown}."
        ))?,
        Some(_) => o(writeln!(
            out,
            "Updated the {agent} bridge for {binary_str} in {shown}."
        ))?,
        None => o(writeln!(
            out,
            "Added the {agent} bridge to {shown}: {agent} starts `{binary_str} serve --stdio` \
             and runs the hooks in it."
        ))?,
    }
    say_backup(out, backup.as_deref())?;
    Ok(BridgeInstall::Written { replaced })
}

/// `hooks install pi|omp`: the bridge for `binary` into `agent`'s extensions directory in
/// `scope` (`PI_CODING_AGENT_DIR` is read from the environment for a user-level install).
///
/// # Errors
/// See [`InstallError`]; nothing is written on error.
pub fn run(
    agent: ExtensionAgent,
    scope: Scope,
    dry_run: bool,
    binary: &Path,
    cwd: &Path,
    home: &Path,
    out: &mut dyn Write,
) -> Result<BridgeInstall, InstallError> {
    let (path, binary) = bridge_path(agent, scope, binary, cwd, home)?;
    install_bridge(agent, &path, &binary, dry_run, out)
}

/// Where the bridge of `agent` for `binary` goes in `scope`, and `binary` made absolute.
fn bridge_path(
    agent: ExtensionAgent,
    scope: Scope,
    binary: &Path,
    cwd: &Path,
    home: &Path,
) -> Result<(PathBuf, PathBuf), InstallError> {
    let (cwd, binary) = super::placed(cwd, binary)?;
    let env = std::env::var_os(AGENT_DIR_ENV);
    let dir = extensions_dir(agent, scope, &cwd, home, env.as_deref())?;
    let name = binary.file_name().unwrap_or(OsStr::new("hooks"));
    let mut file = name.to_os_string();
    file.push(".ts");
    Ok((dir.join(file), binary))
}

/// The bridge of this tool in `agent`'s extensions directory in `scope`, found by install's
/// rule (a bridge for a binary of `binary`'s file name): its path, the binary it runs, and
/// whether it is the bridge this binary would write now; `None` when there is none (no file,
/// or another tool's).
///
/// # Errors
/// No directory for `scope`, or the file cannot be read.
pub fn find_bridge(
    agent: ExtensionAgent,
    scope: Scope,
    binary: &Path,
    cwd: &Path,
    home: &Path,
) -> Result<Option<(PathBuf, PathBuf, bool)>, InstallError> {
    let (path, binary) = bridge_path(agent, scope, binary, cwd, home)?;
    let Some(text) = read_settings(&path)? else {
        return Ok(None);
    };
    let current = binary.to_str().is_some_and(|b| text == bridge_for(b));
    Ok(ours(&text, &binary).map(|old| (path, PathBuf::from(old), current)))
}

/// `hooks uninstall pi|omp`: removes the bridge `install` put into `agent`'s extensions
/// directory in `scope`, when it is this tool's (the rule of install: a bridge for a binary
/// of this binary's file name), keeping it as `NAME.ts.bak`; anything else at that path is
/// left alone and named. Whether a file was (or, on a dry run, would be) removed.
///
/// # Errors
/// See [`InstallError`]; nothing is changed on error.
pub fn uninstall(
    agent: ExtensionAgent,
    scope: Scope,
    dry_run: bool,
    binary: &Path,
    cwd: &Path,
    home: &Path,
    out: &mut dyn Write,
) -> Result<bool, InstallError> {
    let (path, binary) = bridge_path(agent, scope, binary, cwd, home)?;
    let o = |r: io::Result<()>| r.map_err(InstallError::Output);
    let shown = path.display();
    let Some(text) = read_settings(&path)? else {
        o(writeln!(out, "{shown} does not exist; nothing to remove."))?;
        return Ok(false);
    };
    let Some(old) = ours(&text, &binary) else {
        o(writeln!(
            out,
            "{shown} is not a {agent} bridge of this tool; nothing changed."
        ))?;
        return Ok(false);
    };
    if dry_run {
        o(writeln!(
            out,
            "Would remove the {agent} bridge for {old}: {shown}.\nDry run: nothing written."
        ))?;
        return Ok(true);
    }
    let backup = remove_with_backup(&path, &text)?;
    o(writeln!(
        out,
        "Removed the {agent} bridge for {old}: {shown}.\nBackup of the removed file: {}",
        backup.display()
    ))?;
    Ok(true)
}
