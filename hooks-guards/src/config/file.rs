//! One configuration file: read as TOML with the position of every entry, then checked.

use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use hookwright::position::Position;

use super::{Config, ConfigError, Entry, Level, MAX_BYTES, Origin};
use crate::packs::{PACKS, RULES};

type List = Option<Spanned<Vec<Spanned<String>>>>;

/// The file as written (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    #[serde(default)]
    packs: Switches,
    #[serde(default)]
    rules: Switches,
    #[serde(default)]
    allow: Option<Spanned<AllowToml>>,
}

/// `[packs]` and `[rules]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Switches {
    enable: List,
    disable: List,
}

/// `[allow]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowToml {
    programs: List,
    commands: List,
    paths: List,
}

/// Reads and checks one file's `text` (see [`Config::parse`]).
pub(super) fn parse(
    path: &Path,
    text: &str,
    level: Level,
    home: Option<&Path>,
) -> Result<Config, ConfigError> {
    let at = |span: Range<usize>, message: String| ConfigError {
        file: path.to_path_buf(),
        at: Some(position(text, span.start)),
        message,
    };
    if text.len() > MAX_BYTES {
        return Err(ConfigError {
            file: path.to_path_buf(),
            at: None,
            message: format!("larger than {MAX_BYTES} bytes"),
        });
    }
    let parsed: FileToml = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        at(span, e.message().trim_end().replace('\n', " "))
    })?;
    let origin = |span: &Range<usize>| {
        let (line, column) = position(text, span.start);
        Origin {
            file: path.to_path_buf(),
            line,
            column,
        }
    };
    let entries = |list: List| -> Vec<Entry<String>> {
        list.map(Spanned::into_inner)
            .unwrap_or_default()
            .into_iter()
            .map(|item| Entry {
                origin: origin(&item.span()),
                value: item.into_inner(),
            })
            .collect()
    };
    if level == Level::Project {
        let loosening = [
            (
                "packs.disable",
                parsed.packs.disable.as_ref().map(Spanned::span),
            ),
            (
                "rules.disable",
                parsed.rules.disable.as_ref().map(Spanned::span),
            ),
            ("allow", parsed.allow.as_ref().map(Spanned::span)),
        ];
        if let Some((key, Some(span))) = loosening.into_iter().find(|(_, span)| span.is_some()) {
            return Err(at(
                span,
                format!(
                    "`{key}` would loosen the guard, and a project file may only tighten \
                     (`packs.enable`, `rules.enable`); loosening belongs in the user's \
                     {} in the config directory",
                    super::USER_FILE
                ),
            ));
        }
    }
    let allow = parsed.allow.map(Spanned::into_inner).unwrap_or_default();
    let config = Config {
        enable_packs: entries(parsed.packs.enable),
        disable_packs: entries(parsed.packs.disable),
        enable_rules: entries(parsed.rules.enable),
        disable_rules: entries(parsed.rules.disable),
        programs: entries(allow.programs),
        commands: Vec::new(),
        paths: Vec::new(),
        home: home.map(Path::to_path_buf),
    };
    let fail = |e: &Entry<String>, message: String| ConfigError {
        file: path.to_path_buf(),
        at: Some((e.origin.line, e.origin.column)),
        message,
    };
    for (key, list) in [
        ("packs.enable", &config.enable_packs),
        ("packs.disable", &config.disable_packs),
    ] {
        for e in list {
            if !PACKS.contains(&e.value.as_str()) {
                return Err(fail(
                    e,
                    format!(
                        "{key}: unknown pack `{}` (the packs: {})",
                        e.value,
                        PACKS.join(", ")
                    ),
                ));
            }
        }
    }
    for (key, list) in [
        ("rules.enable", &config.enable_rules),
        ("rules.disable", &config.disable_rules),
    ] {
        for e in list {
            if e.value.starts_with("guard:") {
                return Err(fail(
                    e,
                    format!(
                        "{key}: `{}` is always on (a guard that cannot decide blocks)",
                        e.value
                    ),
                ));
            }
            if !RULES.contains(&e.value.as_str()) {
                return Err(fail(
                    e,
                    format!(
                        "{key}: unknown rule `{}` (rule ids are `pack:rule`, as a block's reason \
                         names them; see hookwright_guards::packs::RULES)",
                        e.value
                    ),
                ));
            }
        }
    }
    for (key, enable, disable) in [
        ("packs", &config.enable_packs, &config.disable_packs),
        ("rules", &config.enable_rules, &config.disable_rules),
    ] {
        if let Some(e) = disable
            .iter()
            .find(|d| enable.iter().any(|e| e.value == d.value))
        {
            return Err(fail(
                e,
                format!("`{}` is in both {key}.enable and {key}.disable", e.value),
            ));
        }
    }
    for e in &config.programs {
        let name = e.value.as_str();
        if name.is_empty() || name.contains(['/', ' ', '\t', '\n']) {
            return Err(fail(
                e,
                format!(
                    "allow.programs: `{name}` is not a program name (a name without its \
                     directory, e.g. `mkfs.ext4`; exact command lines go in allow.commands)"
                ),
            ));
        }
        if crate::shell::looks_through(name) {
            return Err(fail(
                e,
                format!(
                    "allow.programs: `{name}` runs other commands, and the guard judges those, \
                     not `{name}` itself: allow the command it runs instead"
                ),
            ));
        }
    }
    let mut config = config;
    for e in entries(allow.commands) {
        let words = match crate::shell::simple_commands(&e.value, 0) {
            Ok(mut commands) if commands.len() == 1 => {
                let command = commands.remove(0);
                (command.stdin.is_none() && command.writes.is_empty() && !command.words.is_empty())
                    .then_some(command.words)
            }
            _ => None,
        };
        let Some(words) = words else {
            return Err(fail(
                &e,
                format!(
                    "allow.commands: `{}` is not one simple command (a program and its \
                     arguments, without `;`, `&&`, `|`, substitutions or redirections)",
                    e.value
                ),
            ));
        };
        config.commands.push(Entry {
            value: words,
            origin: e.origin,
        });
    }
    for e in entries(allow.paths) {
        let expanded = expand_home(&e.value, home);
        let path = expanded.as_deref().map(|p| p.trim_end_matches('/'));
        let problem = match path {
            None => Some("it starts with `~` and there is no home directory"),
            Some("") if e.value.starts_with('/') => Some("`/` would allow deleting everything"),
            Some(p) if !is_plain_absolute(p) || p.contains(['*', '?', '[']) => Some(
                "it must be an absolute path (or start with `~/`), with no `..`, `$`, \
                 backquote or glob",
            ),
            Some(p) if home.is_some_and(|h| Path::new(p) == h) => {
                Some("the home directory itself would allow deleting all of it")
            }
            Some(_) => None,
        };
        if let Some(problem) = problem {
            return Err(fail(&e, format!("allow.paths: `{}`: {problem}", e.value)));
        }
        config.paths.push(Entry {
            value: path.unwrap_or_default().to_owned(),
            origin: e.origin,
        });
    }
    Ok(config)
}

/// `path` with a leading `~`, `$HOME` or `${HOME}` replaced by `home`; `None` when it has one
/// and there is no home. Other paths as they are.
pub(super) fn expand_home(path: &str, home: Option<&Path>) -> Option<String> {
    let rest = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix).map(|rest| format!("/{rest}")))
        .or_else(|| matches!(path, "~" | "$HOME" | "${HOME}").then(String::new));
    match rest {
        Some(rest) => {
            let home = home?.to_str()?.trim_end_matches('/');
            Some(format!("{home}{rest}"))
        }
        None => Some(path.to_owned()),
    }
}

/// Whether `path` is absolute, with no `..` component, no `$` or backquote, and no glob in a
/// component that starts with a dot (`.*` may match `..`).
pub(super) fn is_plain_absolute(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains(['$', '`'])
        && path
            .split('/')
            .all(|part| part != ".." && !(part.starts_with('.') && part.contains(['*', '?', '['])))
}

/// The 1-based line and byte column of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let at = Position::of_offset(text.as_bytes(), offset);
    (at.line, at.column)
}
