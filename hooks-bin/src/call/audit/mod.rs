//! Audit mode and the decision log.
//!
//! With `HOOKS_MODE=audit` in the environment, or `mode = "audit"` in the user's
//! `config.toml` ([`config`]; the environment wins), every call of an agent adapter (`hooks
//! AGENT EVENT`, `hooks serve` over HTTP) runs its hooks and computes its answer as in enforce
//! mode, and then gives the agent "no opinion" instead ([`crate::call::audited`]): exit 0 and the agent's
//! empty answer (nothing, or Cursor's `{}`), so nothing is blocked, no tool output or message
//! is rewritten, no context is added, and a failing hook fails nothing. The one answer kept
//! is a prompt command's (`/name args`): the command ran already, and it is the user's own
//! request, not a block. `hooks serve --stdio` (the pi and oh-my-pi bridge) answers an
//! `emit` with `{"result": null, "errors": []}` after running it.
//!
//! The decision log ([`log`]) is one JSON line per call ([`record`]; over `--stdio`, per
//! `emit`) of decisions, not content: results and answers are summarized, one way for every
//! writer ([`summary`]: their keys, decisions and reasons, a tool call's command line cut and
//! with credentials redacted, and the sizes of prompts, outputs and messages); it is written in audit
//! mode always and in enforce mode when `[log] enabled = true`. Writing it never delays or
//! fails a call: the command adapter writes after its answer is written and flushed, the
//! servers from a task of their own (whose last lines they wait for when they exit); a log
//! that cannot be written is reported on stderr once
//! per process and the answer stays what it was.
//!
//! A config file that cannot be read or parsed, or a `HOOKS_MODE` that is neither `audit`
//! nor `enforce`, fails the call as bad input does (on a gating event: blocked, exit 2).
//! The kill switch (`HOOKS_DISABLE=1`) comes first: switched off, nothing is read or logged.

pub mod config;
pub mod log;
pub mod record;
pub mod summary;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use config::ConfigFile;

/// The variable that sets the mode: `audit` or `enforce`; it overrides the config file.
pub const MODE_ENV: &str = "HOOKS_MODE";

/// The default size past which the log is rotated: 10 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// The default number of rotated files kept.
pub const DEFAULT_KEEP: u32 = 3;

/// Whether decisions are enforced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The agent gets the hooks' answer (the default).
    #[default]
    Enforce,
    /// The answer is computed and logged; the agent gets "no opinion".
    Audit,
}

impl Mode {
    /// `enforce` or `audit`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Audit => "audit",
        }
    }
}

/// Where and how the decision log is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    /// The file.
    pub path: PathBuf,
    /// Rotate when the file passes this size.
    pub max_bytes: u64,
    /// Rotated files kept (`PATH.1` .. `PATH.keep`).
    pub keep: u32,
}

/// The mode and the log of this process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Enforce or audit.
    pub mode: Mode,
    /// The decision log, when it is written (`None`: no log).
    pub log: Option<LogSettings>,
    /// Why a log that should be written has no place (no state directory): reported on
    /// stderr once, as a log that cannot be written is.
    pub log_unplaced: Option<String>,
    /// Where the log goes whether or not it is written in this mode (for a call decided in
    /// another mode than these settings': [`Settings::for_mode`]).
    pub place: Option<LogSettings>,
    /// Whether the log is written in enforce mode (`[log] enabled = true`).
    pub in_enforce: bool,
}

impl Settings {
    /// The settings of this process: the config file in the config directory (none when
    /// there is no config directory), `HOOKS_MODE` over its `mode`.
    ///
    /// # Errors
    /// The config file cannot be read or parsed, or `HOOKS_MODE` is neither `audit` nor
    /// `enforce`: the message names the file and line, or the variable.
    pub fn load() -> Result<Settings, String> {
        let file = match crate::trust::config_dir() {
            Ok(dir) => ConfigFile::read(&dir.join(config::CONFIG_FILE))?,
            Err(_) => ConfigFile::default(),
        };
        let env = std::env::var_os(MODE_ENV);
        let env = env.as_deref().map(|v| v.to_str().unwrap_or("\u{fffd}"));
        let state_dir = crate::home::state_dir();
        Settings::from_parts(&file, env, state_dir)
    }

    /// The settings from the config file's contents `file`, the value of `HOOKS_MODE` (if
    /// set) and the state directory (if any).
    ///
    /// # Errors
    /// `mode_env` is set to something else than `audit`, `enforce` or the empty string.
    pub fn from_parts(
        file: &ConfigFile,
        mode_env: Option<&str>,
        state_dir: Option<PathBuf>,
    ) -> Result<Settings, String> {
        let mode = parse_mode(mode_env)?.unwrap_or_else(|| file.mode.unwrap_or_default());
        let wanted = mode == Mode::Audit || file.log.enabled == Some(true);
        let path = file
            .log
            .path
            .clone()
            .or_else(|| state_dir.map(|dir| dir.join("hooks").join("decisions.jsonl")));
        let place = path.map(|path| LogSettings {
            path,
            max_bytes: file.log.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
            keep: file.log.keep.unwrap_or(DEFAULT_KEEP),
        });
        let (log, log_unplaced) = match (wanted, place.clone()) {
            (false, _) => (None, None),
            (true, Some(place)) => (Some(place), None),
            (true, None) => (
                None,
                Some(
                    "no place for the decision log: no state directory (XDG_STATE_HOME and \
                     HOME unset) and no [log] path in config.toml"
                        .to_owned(),
                ),
            ),
        };
        Ok(Settings {
            mode,
            log,
            log_unplaced,
            place,
            in_enforce: file.log.enabled == Some(true),
        })
    }

    /// These settings for a call decided in `mode` (a call that brings its own mode to a
    /// server): the log is written where these settings say, when these settings write it
    /// or it is written in `mode`.
    #[must_use]
    pub fn for_mode(&self, mode: Mode) -> Settings {
        let wanted = mode == Mode::Audit || self.in_enforce;
        Settings {
            mode,
            log: if wanted {
                self.place.clone()
            } else {
                self.log.clone()
            },
            ..self.clone()
        }
    }
}

/// The mode a `HOOKS_MODE` value `value` names: `None` when unset or empty (the config
/// file's mode then).
///
/// # Errors
/// It is neither `audit` nor `enforce`.
pub fn parse_mode(value: Option<&str>) -> Result<Option<Mode>, String> {
    match value {
        None | Some("") => Ok(None),
        Some("audit") => Ok(Some(Mode::Audit)),
        Some("enforce") => Ok(Some(Mode::Enforce)),
        Some(other) => Err(format!(
            "{MODE_ENV}={} is not a mode (expected `audit` or `enforce`)",
            crate::json::one_line(other, 60)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_mode_overrides_the_file_and_audit_always_logs() {
        let file = ConfigFile::parse(std::path::Path::new("/c"), "mode = \"audit\"\n").unwrap();
        let state = Some(PathBuf::from("/s"));
        let s = Settings::from_parts(&file, None, state.clone()).unwrap();
        assert_eq!(s.mode, Mode::Audit);
        assert_eq!(
            s.log.unwrap().path,
            PathBuf::from("/s/hooks/decisions.jsonl")
        );
        let s = Settings::from_parts(&file, Some("enforce"), state.clone()).unwrap();
        assert_eq!((s.mode, s.log), (Mode::Enforce, None));
        assert!(Settings::from_parts(&file, Some("loud"), state).is_err());
        let s = Settings::from_parts(&ConfigFile::default(), Some("audit"), None).unwrap();
        assert!(s.log.is_none() && s.log_unplaced.is_some());
    }
}
