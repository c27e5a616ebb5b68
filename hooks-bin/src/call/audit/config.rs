//! The user's `config.toml` in the config directory ([`crate::trust::config_dir`]): the mode
//! and the decision log. Every key is optional; an unknown key, a value of the wrong type or
//! a malformed file is an error naming the file, the line and the key.
//!
//! ```toml
//! mode = "audit"            # or "enforce" (the default)
//!
//! [log]
//! enabled = true            # default false; always on in audit mode
//! path = "/var/tmp/hooks-decisions.jsonl"  # default <state dir>/hooks/decisions.jsonl
//! max_bytes = 10485760      # rotate when the file passes this size (default 10 MiB)
//! keep = 3                  # rotated files kept: decisions.jsonl.1 .. .3 (default 3)
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Mode;
use crate::json::Position;

/// The config file's name in the config directory.
pub const CONFIG_FILE: &str = "config.toml";

/// The file as written (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `mode = "audit" | "enforce"`.
    pub mode: Option<Mode>,
    /// The `[log]` table.
    #[serde(default)]
    pub log: LogTable,
}

/// The `[log]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogTable {
    /// Whether the decision log is written in enforce mode.
    pub enabled: Option<bool>,
    /// The log file (absolute).
    pub path: Option<PathBuf>,
    /// The size past which the file is rotated.
    pub max_bytes: Option<u64>,
    /// How many rotated files are kept.
    pub keep: Option<u32>,
}

impl ConfigFile {
    /// Parses the text of the config file at `path` (named in the error).
    ///
    /// # Errors
    /// The file is not TOML, or not this file's keys and types: `PATH: line L, column C: ...`.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, String> {
        let parsed: ConfigFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|span| {
                let at = Position::of_offset(text.as_bytes(), span.start);
                format!("line {}, column {}: ", at.line, at.column)
            });
            format!(
                "{}: {}{}",
                path.display(),
                at.unwrap_or_default(),
                e.message()
            )
        })?;
        if let Some(p) = &parsed.log.path
            && !p.is_absolute()
        {
            return Err(format!(
                "{}: [log] path must be an absolute path, not `{}`",
                path.display(),
                p.display()
            ));
        }
        Ok(parsed)
    }

    /// Reads the config file at `path`; a missing file is the empty config.
    ///
    /// # Errors
    /// The file cannot be read, or [`ConfigFile::parse`] fails.
    pub fn read(path: &Path) -> Result<ConfigFile, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => ConfigFile::parse(path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
            Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_config_names_the_file_the_line_and_the_key() {
        let path = Path::new("/c/config.toml");
        let e = ConfigFile::parse(path, "mode = \"audit\"\n[log]\nkeep = \"three\"\n").unwrap_err();
        assert!(e.starts_with("/c/config.toml: line 3, column 8: "), "{e}");
        let e = ConfigFile::parse(path, "mode = \"audti\"\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("audti"), "{e}");
        let e = ConfigFile::parse(path, "[log]\nenable = true\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("enable"), "{e}");
        let e = ConfigFile::parse(path, "[log]\npath = \"rel.jsonl\"\n").unwrap_err();
        assert!(e.contains("absolute"), "{e}");
        let ok = ConfigFile::parse(path, "mode = \"enforce\"\n[log]\nenabled = true\n").unwrap();
        assert_eq!(ok.mode, Some(Mode::Enforce));
        assert_eq!(ok.log.enabled, Some(true));
    }
}
