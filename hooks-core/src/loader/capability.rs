//! The capability registry for hooks (SPEC-DETAILS section 7.5): providers sorted by priority,
//! their items concatenated, disabled ids dropped, items the host's policy refuses set aside,
//! duplicates shadowed, invalid items removed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::path::normalize_lexically;
use super::{DiscoveryOptions, LoadError};
use crate::handler::HandlerError;

/// Why a whole provider failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProviderError(pub String);

impl From<std::io::Error> for ProviderError {
    fn from(e: std::io::Error) -> Self {
        ProviderError(e.to_string())
    }
}

/// Whether a hook file runs before (`pre`) or after (`post`) a tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum HookType {
    /// Runs before the tool (`tool_call`).
    Pre,
    /// Runs after the tool (`tool_result`).
    Post,
    /// Anything else a provider produced; such an item fails validation.
    Other(String),
}

impl HookType {
    /// `"pre"`, `"post"` or the other text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            HookType::Pre => "pre",
            HookType::Post => "post",
            HookType::Other(s) => s,
        }
    }
}

impl From<String> for HookType {
    fn from(s: String) -> Self {
        match s.as_str() {
            "pre" => HookType::Pre,
            "post" => HookType::Post,
            _ => HookType::Other(s),
        }
    }
}

impl From<HookType> for String {
    fn from(t: HookType) -> Self {
        t.as_str().to_owned()
    }
}

impl fmt::Display for HookType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether an item comes from the user's home or from the project (the cwd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Found under the home directory (or a user-scoped plugin).
    User,
    /// Found under the working directory (or a project-scoped plugin).
    Project,
}

/// Where an item came from (`_source`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceMeta {
    /// The provider's id, e.g. `native`.
    pub provider: String,
    /// The provider's display name, filled in by the registry, e.g. `OMP`.
    pub provider_name: String,
    /// The file, absolute and normalised.
    pub path: PathBuf,
    /// User or project.
    pub level: Level,
}

/// A discovered hook file (upstream `Hook`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookItem {
    /// The file name, e.g. `bash.sh`.
    pub name: String,
    /// The file, absolute.
    pub path: PathBuf,
    /// Pre or post.
    #[serde(rename = "type")]
    pub hook_type: HookType,
    /// The tool it applies to, or `*` for every tool.
    pub tool: String,
    /// User or project.
    pub level: Level,
    /// Where it came from.
    #[serde(rename = "_source")]
    pub source: SourceMeta,
    /// Whether a higher-priority item with the same key hides it (only in
    /// [`CapabilityResult::all`]).
    #[serde(
        rename = "_shadowed",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub shadowed: bool,
}

impl HookItem {
    /// An item of provider `provider` for the file `path` (the source path is `path`).
    #[must_use]
    pub fn new(
        provider: &str,
        path: PathBuf,
        hook_type: HookType,
        tool: impl Into<String>,
        level: Level,
    ) -> Self {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        HookItem {
            name,
            source: SourceMeta {
                provider: provider.to_owned(),
                provider_name: String::new(),
                path: super::path::normalize_lexically(&path),
                level,
            },
            path,
            hook_type,
            tool: tool.into(),
            level,
            shadowed: false,
        }
    }

    /// The de-duplication key `type:tool:name`, e.g. `pre:bash:block-rm.sh`.
    #[must_use]
    pub fn key(&self) -> String {
        format!("{}:{}:{}", self.hook_type, self.tool, self.name)
    }

    /// The extension id `hook:type:tool:name`, which `disabled_extensions` lists.
    #[must_use]
    pub fn extension_id(&self) -> String {
        format!("hook:{}", self.key())
    }

    /// The first validation error, checked in upstream order.
    #[must_use]
    pub fn validate(&self) -> Option<&'static str> {
        if self.name.is_empty() {
            Some("Missing name")
        } else if self.path.as_os_str().is_empty() {
            Some("Missing path")
        } else if matches!(self.hook_type, HookType::Other(_)) {
            Some("Invalid type (must be 'pre' or 'post')")
        } else if self.tool.is_empty() {
            Some("Missing tool")
        } else {
            None
        }
    }
}

/// What a provider found: items in its own order, and warnings (without the `[name]` prefix).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderOutput {
    /// The items.
    pub items: Vec<HookItem>,
    /// Problems that did not stop the provider (e.g. `Failed to read file: <path>`).
    pub warnings: Vec<String>,
}

/// A hook file the host is asked about before it is loaded.
#[derive(Debug, Clone, Copy)]
pub struct FileCandidate<'a> {
    /// The file, absolute: as discovered, or a configured path resolved against `cwd`.
    pub path: &'a Path,
    /// The levels at which the providers reported this file (paths compared after lexical
    /// normalisation); empty for a configured path that discovery did not find.
    pub levels: &'a [Level],
    /// The working directory the hooks are loaded for.
    pub cwd: &'a Path,
}

/// What a provider is given.
#[derive(Debug, Clone, Copy)]
pub struct LoadContext<'a> {
    /// The working directory (project level).
    pub cwd: &'a Path,
    /// The home directory (user level), absolute; `None`: there is no user level, and a
    /// provider scans no user-level directory.
    pub home: Option<&'a Path>,
    /// All discovery options.
    pub options: &'a DiscoveryOptions,
}

/// A source of hook files.
pub trait HookProvider: Send + Sync {
    /// A stable id, e.g. `native` (what `disabled_providers` lists).
    fn id(&self) -> &str;
    /// The name shown in warnings, e.g. `OMP`.
    fn display_name(&self) -> &str;
    /// Higher loads first and wins de-duplication.
    fn priority(&self) -> i32;
    /// Scans for hook files.
    ///
    /// # Errors
    /// A failure of the whole provider; it becomes the warning
    /// `[<display name>] Failed to load: <error>` and the other providers still count.
    fn load(&self, ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError>;
}

/// What [`CapabilityRegistry::load`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CapabilityResult {
    /// The effective items: de-duplicated and valid, in provider order.
    pub items: Vec<HookItem>,
    /// Every item that was not disabled, shadowed ones marked (`shadowed: true`); refused
    /// items are here too, never shadowed and shadowing nothing.
    pub all: Vec<HookItem>,
    /// The files the host's [`FilePolicy`](super::FilePolicy) refused, once per file in item
    /// order, with the reason (`path` is the item's path).
    pub refused: Vec<LoadError>,
    /// Warnings, each prefixed with `[<provider display name>]`.
    pub warnings: Vec<String>,
    /// The ids of the providers that contributed at least one item.
    pub providers: Vec<String>,
}

impl CapabilityResult {
    /// The levels at which the providers reported the file at `path` (compared after lexical
    /// normalisation, of an item's path or its source path), in item order, each once.
    #[must_use]
    pub fn levels_of(&self, path: &Path) -> Vec<Level> {
        levels_of(&self.all, &normalize_lexically(path))
    }

    /// Whether the host's policy refused the file at `path`.
    #[must_use]
    pub fn is_refused(&self, path: &Path) -> bool {
        let path = normalize_lexically(path);
        self.refused
            .iter()
            .any(|r| normalize_lexically(Path::new(&r.path)) == path)
    }
}

fn levels_of(items: &[HookItem], normalized: &Path) -> Vec<Level> {
    let mut levels = Vec::new();
    for item in items {
        let same = normalize_lexically(&item.path) == normalized || item.source.path == normalized;
        if same && !levels.contains(&item.level) {
            levels.push(item.level);
        }
    }
    levels
}

/// Providers sorted by priority, highest first; equal priorities keep registration order.
#[derive(Clone, Default)]
pub struct CapabilityRegistry {
    providers: Vec<Arc<dyn HookProvider>>,
}

impl fmt::Debug for CapabilityRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.providers.iter().map(|p| (p.id(), p.priority())))
            .finish()
    }
}

impl CapabilityRegistry {
    /// A registry without providers.
    #[must_use]
    pub fn new() -> Self {
        CapabilityRegistry::default()
    }

    /// Adds a provider before the first one of strictly lower priority.
    pub fn register(&mut self, provider: Arc<dyn HookProvider>) -> &mut Self {
        let at = self
            .providers
            .iter()
            .position(|p| p.priority() < provider.priority())
            .unwrap_or(self.providers.len());
        self.providers.insert(at, provider);
        self
    }

    /// The providers in load order.
    #[must_use]
    pub fn providers(&self) -> &[Arc<dyn HookProvider>] {
        &self.providers
    }

    /// Runs every enabled provider and combines their items (SPEC-DETAILS 7.5 steps 2–7).
    ///
    /// De-duplication (step 5) takes an item only if [`DiscoveryOptions::policy`] accepts its
    /// file; it asks once per file, and only about an item whose key no accepted item has yet.
    /// A refused item is listed in [`CapabilityResult::refused`] and leaves its key to the
    /// next provider's item.
    ///
    /// Validation warnings come in reverse item order, as upstream (it validates from the end).
    #[must_use]
    pub fn load(&self, cwd: &Path, options: &DiscoveryOptions) -> CapabilityResult {
        let ctx = LoadContext {
            cwd,
            home: options.user_home(),
            options,
        };
        let disabled_providers: HashSet<&str> = options
            .disabled_providers
            .iter()
            .map(String::as_str)
            .collect();
        let disabled_ids: HashSet<&str> = options
            .disabled_extensions
            .iter()
            .map(String::as_str)
            .collect();
        let mut result = CapabilityResult::default();

        for provider in &self.providers {
            if disabled_providers.contains(provider.id()) {
                continue;
            }
            let name = provider.display_name();
            let output = match catch_unwind(AssertUnwindSafe(|| provider.load(&ctx))) {
                Ok(Ok(output)) => output,
                Ok(Err(error)) => {
                    result
                        .warnings
                        .push(format!("[{name}] Failed to load: {error}"));
                    continue;
                }
                Err(panic) => {
                    let error = HandlerError::from_panic(&*panic);
                    result
                        .warnings
                        .push(format!("[{name}] Failed to load: {error}"));
                    continue;
                }
            };
            result
                .warnings
                .extend(output.warnings.into_iter().map(|w| format!("[{name}] {w}")));
            let mut contributed = false;
            for mut item in output.items {
                if disabled_ids.contains(item.extension_id().as_str()) {
                    continue;
                }
                item.source.provider_name = name.to_owned();
                result.all.push(item);
                contributed = true;
            }
            if contributed {
                result.providers.push(provider.id().to_owned());
            }
        }

        let mut seen = HashSet::new();
        let mut decisions: HashMap<PathBuf, bool> = HashMap::new();
        for i in 0..result.all.len() {
            let item = &result.all[i];
            if seen.contains(&item.key()) {
                result.all[i].shadowed = true;
                continue;
            }
            let path = normalize_lexically(&item.path);
            let accepted = match decisions.get(&path) {
                Some(accepted) => *accepted,
                None => {
                    let levels = levels_of(&result.all, &path);
                    let candidate = FileCandidate {
                        path: &item.path,
                        levels: &levels,
                        cwd,
                    };
                    let decision = options.policy.check(&candidate);
                    if let Err(error) = decision.as_ref() {
                        result.refused.push(LoadError {
                            path: item.path.to_string_lossy().into_owned(),
                            error: error.clone(),
                        });
                    }
                    decisions.insert(path, decision.is_ok());
                    decision.is_ok()
                }
            };
            if accepted {
                seen.insert(item.key());
                result.items.push(item.clone());
            }
        }

        let mut invalid = Vec::new();
        for (i, item) in result.items.iter().enumerate().rev() {
            if let Some(error) = item.validate() {
                result.warnings.push(format!(
                    "[{}] Invalid item at {}: {error}",
                    item.source.provider_name,
                    item.source.path.display()
                ));
                invalid.push(i);
            }
        }
        for i in invalid {
            result.items.remove(i);
        }
        result
    }
}
