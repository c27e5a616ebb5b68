//! `hooks install codex --trust`: trusts exactly the entries this install made, the way
//! Codex's own review (`/hooks` in its TUI) does, so that Codex runs them without asking and
//! without `--dangerously-bypass-hook-trust`.
//!
//! Codex 0.169.0 runs a command hook only when `config.toml` (in `$CODEX_HOME`, else
//! `~/.codex`) holds, for the hook's key `<absolute hooks.json>:<event>:<group>:<handler>`
//! (`event` in snake case, `pre_tool_use`; `group` and `handler` the indexes in
//! `hooks.EVENT` and in that group's `hooks`), a table
//!
//! ```toml
//! [hooks.state."/home/u/.codex/hooks.json:pre_tool_use:0:0"]
//! trusted_hash = "sha256:<hex>"
//! ```
//!
//! whose hash is that of the hook as it is now ([`trust_hash`]); a hook changed since is
//! untrusted again. `config.toml` is edited in place with `toml_edit`, keeping every other
//! byte, with a backup (`config.toml.bak`) and an atomic write, like the settings file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Table};

use super::apply::Install;
use super::file::{read_settings, write_settings};
use super::found::Found;
use super::shape::Ours;
use super::{InstallError, Target};
use crate::agents::AgentEvent;

/// What trusting the installed hooks in Codex's config did (`hooks install codex`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trusted {
    /// The `config.toml` written (or, in a dry run, that would be).
    pub config: PathBuf,
    /// The trust keys set or updated, in `hooks.json` order.
    pub keys: Vec<String>,
    /// Whether `config.toml` was written.
    pub written: bool,
}

/// Trusts the entries of `plan`'s `hooks.json`, whose content is `content` (as installed, or
/// as a dry run would install it), that run its binary (spelled as its command says, and
/// hashed as written) for `events` (this tool's, see the
/// [module docs](super#which-entries-are-this-tools)) in `config`; reports to `out`.
///
/// # Errors
/// `content` is not a JSON object, or `config.toml` cannot be read, parsed or written.
pub(super) fn trust(
    plan: &Install,
    content: &str,
    events: &[AgentEvent],
    config: &Path,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<Trusted, InstallError> {
    let o = |r: io::Result<()>| r.map_err(InstallError::Output);
    let hooks_json = plan.path.as_path();
    let shown = hooks_json.display().to_string();
    let content = content.trim_start_matches('\u{feff}');
    let settings: Map<String, Value> = if content.trim().is_empty() {
        Map::new()
    } else {
        crate::json::decode_object(content.as_bytes(), &shown)?
    };
    let binary = plan
        .binary
        .to_str()
        .ok_or_else(|| InstallError::BinaryPath(plan.binary.clone()))?;
    let mut ours = Ours::new(Target::Codex, binary);
    if let Some(chosen) = &plan.command {
        ours = ours.with_command(chosen.command.clone(), chosen.also.clone());
    }
    let mut wanted = Vec::new();
    for &event in events {
        let groups = settings
            .get("hooks")
            .and_then(|h| h.get(event.as_str()))
            .and_then(Value::as_array);
        for (i, group) in groups.into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (j, handler) in handlers.into_iter().flatten().enumerate() {
                if ours.runs_us(handler, event) {
                    let label = snake_case(event.as_str());
                    let key = trust_key(hooks_json, &label, i, j);
                    let matcher = group.get("matcher").and_then(Value::as_str);
                    wanted.push((key, trust_hash(&label, matcher, handler)));
                }
            }
        }
    }
    let old_text = read_settings(config)?;
    let mut doc = parse_config(old_text.as_deref().unwrap_or(""), config)?;
    let mut keys = Vec::new();
    {
        let state = state_table(&mut doc, config)?;
        for (key, hash) in &wanted {
            if state
                .get(key)
                .and_then(|t| t.get("trusted_hash"))
                .and_then(Item::as_str)
                == Some(hash.as_str())
            {
                continue;
            }
            let entry = state
                .entry(key)
                .or_insert_with(|| Item::Table(Table::new()));
            let Some(entry) = entry.as_table_like_mut() else {
                return Err(InstallError::Shape {
                    path: config.to_path_buf(),
                    message: format!("`hooks.state.\"{key}\"` must be a table"),
                });
            };
            entry.insert("trusted_hash", toml_edit::value(hash.as_str()));
            keys.push(key.clone());
        }
    }
    let mut trusted = Trusted {
        config: config.to_path_buf(),
        keys,
        written: false,
    };
    let config_shown = config.display();
    if trusted.keys.is_empty() {
        o(writeln!(
            out,
            "{config_shown} already trusts these hooks; nothing changed there."
        ))?;
        return Ok(trusted);
    }
    let n = trusted.keys.len();
    if dry_run {
        o(writeln!(out, "Would trust {n} hooks in {config_shown}."))?;
        return Ok(trusted);
    }
    let backup = write_settings(config, old_text.as_deref(), &doc.to_string())?;
    trusted.written = true;
    o(writeln!(
        out,
        "Trusted {n} hooks in {config_shown}: Codex runs them without asking."
    ))?;
    super::file::say_backup(out, backup.as_deref())?;
    Ok(trusted)
}

/// `text`, the content of the `config.toml` at `config`, as a document.
fn parse_config(text: &str, config: &Path) -> Result<DocumentMut, InstallError> {
    text.parse()
        .map_err(|e: toml_edit::TomlError| InstallError::Shape {
            path: config.to_path_buf(),
            message: format!(
                "not valid TOML: {}",
                crate::json::one_line(&e.to_string(), 300)
            ),
        })
}

/// The key Codex keeps a hook's trust under: `<hooks.json>:<label>:<group>:<handler>`.
fn trust_key(hooks_json: &Path, label: &str, group: usize, handler: usize) -> String {
    format!("{}:{label}:{group}:{handler}", hooks_json.display())
}

/// Codex's `config.toml`, read (never written) for what `hooks doctor` checks: the trust of
/// each hook, the `hooks` feature, the trust of a project.
#[derive(Debug, Clone)]
pub struct CodexConfig {
    doc: DocumentMut,
}

impl CodexConfig {
    /// The `config.toml` at `path` (bounded read); `None` when it does not exist.
    ///
    /// # Errors
    /// It cannot be read or is not TOML.
    pub fn read(path: &Path) -> Result<Option<CodexConfig>, InstallError> {
        let Some(text) = read_settings(path)? else {
            return Ok(None);
        };
        Ok(Some(CodexConfig {
            doc: parse_config(&text, path)?,
        }))
    }

    /// Whether Codex trusts `found`, an entry of the `hooks.json` at `hooks_json`, as it is
    /// now: `hooks.state."KEY".trusted_hash` is [`trust_hash`] of it.
    #[must_use]
    pub fn trusts(&self, hooks_json: &Path, found: &Found) -> bool {
        let label = snake_case(found.event.as_str());
        let key = trust_key(hooks_json, &label, found.group.unwrap_or(0), found.index);
        let hash = trust_hash(&label, found.matcher.as_deref(), &found.entry);
        self.doc
            .get("hooks")
            .and_then(|h| h.get("state"))
            .and_then(|s| s.get(&key))
            .and_then(|t| t.get("trusted_hash"))
            .and_then(Item::as_str)
            == Some(hash.as_str())
    }

    /// `features.hooks`, when set (Codex's default is on).
    #[must_use]
    pub fn hooks_feature(&self) -> Option<bool> {
        self.doc
            .get("features")
            .and_then(|f| f.get("hooks"))
            .and_then(Item::as_bool)
    }

    /// Whether `projects."DIR".trust_level` is `"trusted"` for the project directory `dir`.
    #[must_use]
    pub fn trusts_project(&self, dir: &Path) -> bool {
        self.doc
            .get("projects")
            .and_then(|p| p.get(dir.display().to_string()))
            .and_then(|p| p.get("trust_level"))
            .and_then(Item::as_str)
            == Some("trusted")
    }
}

/// The table `hooks.state` of `doc`, made (as implicit tables, so that it is written as
/// `[hooks.state."KEY"]` headers) when missing.
fn state_table<'a>(doc: &'a mut DocumentMut, config: &Path) -> Result<&'a mut Table, InstallError> {
    let shape = |what: &str| InstallError::Shape {
        path: config.to_path_buf(),
        message: format!("`{what}` must be a table"),
    };
    let hooks = doc
        .entry("hooks")
        .or_insert_with(implicit_table)
        .as_table_mut()
        .ok_or_else(|| shape("hooks"))?;
    hooks
        .entry("state")
        .or_insert_with(implicit_table)
        .as_table_mut()
        .ok_or_else(|| shape("hooks.state"))
}

fn implicit_table() -> Item {
    let mut table = Table::new();
    table.set_implicit(true);
    Item::Table(table)
}

/// `PreToolUse` → `pre_tool_use`: the event's label in Codex's trust keys and hashes.
#[must_use]
pub fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The hash Codex 0.169.0 trusts a command hook by (`currentHash` in its app server's
/// `hooks/list`): `sha256:` and the hex SHA-256 of the compact JSON, keys sorted, of
/// `{"event_name": LABEL, "hooks": [{"async": BOOL, "command": CMD, "timeout": SECS (600
/// when unset), "type": "command", ["statusMessage": MSG]}], ["matcher": M]}`.
#[must_use]
pub fn trust_hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    let mut hook = Map::new();
    hook.insert(
        "async".into(),
        json!(handler["async"].as_bool().unwrap_or(false)),
    );
    hook.insert("command".into(), handler["command"].clone());
    if let Some(message) = handler["statusMessage"].as_str() {
        hook.insert("statusMessage".into(), json!(message));
    }
    hook.insert(
        "timeout".into(),
        json!(handler["timeout"].as_u64().unwrap_or(600).max(1)),
    );
    hook.insert("type".into(), json!("command"));
    let mut identity = Map::new();
    identity.insert("event_name".into(), json!(label));
    identity.insert("hooks".into(), json!([sorted(hook)]));
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), json!(matcher));
    }
    let canonical = Value::Object(sorted(identity)).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `map` with its keys in sorted order (the map keeps insertion order).
fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_labels_are_snake_case() {
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("Stop"), "stop");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
    }

    #[test]
    fn the_hash_is_of_the_sorted_compact_identity() {
        let handler = json!({"type": "command", "command": "/x/hooks codex Stop"});
        let canonical = r#"{"event_name":"stop","hooks":[{"async":false,"command":"/x/hooks codex Stop","timeout":600,"type":"command"}]}"#;
        let digest = Sha256::digest(canonical.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(trust_hash("stop", None, &handler), format!("sha256:{hex}"));
    }
}
