//! Discovery and loading (SPEC.md section 2, SPEC-DETAILS section 7): compiled-in hooks, hook
//! files found by the capability providers, and configured paths, in one deterministic order.
//!
//! - [`load_hooks`] loads each entry in order, without de-duplication.
//! - [`discover_and_load_hooks`] loads the compiled-in hooks (sorted by id, minus
//!   [`DiscoveryOptions::disabled_hooks`]), then the discovered files, then the configured
//!   paths, de-duplicated (by id, and by normalised absolute path), first wins.
//!
//! Every hook file, discovered or configured, is subject to the host's
//! [`DiscoveryOptions::policy`] ([`FilePolicy`]; the default loads every file): a refused file
//! is a load error with the host's reason, and a refused discovered item shadows nothing (the
//! next provider's item with its key wins). Without an absolute home directory
//! ([`DiscoveryOptions::user_home`]) there are no user-level files, and a path that starts
//! with `~` is a load error.
//!
//! An entry that equals a compiled-in hook's id names that hook; any other entry is a path
//! ([`path::resolve_path`]). A file is usable when it is an executable regular file that is not
//! a JavaScript/TypeScript module and is a `pre` or `post` hook (from discovery, or from its
//! directory name `pre`/`post`); it then runs as a shell-style hook ([`shell`]). Everything
//! else becomes an error entry, and loading goes on.
//!
//! ```no_run
//! use std::path::Path;
//! use hookwright::loader::{discover_and_load_hooks, DiscoveryOptions};
//!
//! let options = DiscoveryOptions::new("/home/me");
//! let result = discover_and_load_hooks(&["./extra/hooks/pre/bash.sh"], Path::new("/work/p"), &options);
//! for error in &result.errors {
//!     eprintln!("{}: {}", error.path, error.error);
//! }
//! ```

pub mod capability;
pub mod claude;
mod options;
pub mod path;
mod policy;
pub mod providers;
pub mod shell;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

pub use capability::{
    CapabilityRegistry, CapabilityResult, FileCandidate, HookItem, HookProvider, HookType, Level,
    LoadContext, ProviderError, ProviderOutput, SourceMeta,
};
pub use options::{CompiledHookSource, DiscoveryOptions, LinkedHooks, NoCompiledHooks};
pub use policy::{AcceptAll, FilePolicy};
pub use providers::PluginRoot;

use crate::api::LoadedHook;
use path::{normalize_lexically, try_resolve_path};
use providers::shell_tool_name;
use shell::{ShellHook, shell_hook};

/// File name endings of JavaScript/TypeScript modules, which a compiled bundle cannot load.
const MODULE_EXTENSIONS: &[&str] = &["js", "ts", "mjs", "cjs", "tsx", "mts", "cts", "jsx"];

/// An entry that failed to load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadError {
    /// The entry as given to the loader (absolute for [`discover_and_load_hooks`], except a
    /// `~` path without a home directory).
    pub path: String,
    /// What went wrong and how to fix it.
    pub error: String,
}

/// What loading produced (`LoadHooksResult`).
#[derive(Debug, Default)]
pub struct LoadHooksResult {
    /// The loaded hooks, in load order.
    pub hooks: Vec<LoadedHook>,
    /// The entries that failed, in order.
    pub errors: Vec<LoadError>,
    /// The capability result discovery used (`None` from [`load_hooks`]): every item, shadowed
    /// ones marked, and the providers' warnings.
    pub discovery: Option<CapabilityResult>,
}

enum Entry {
    Compiled(String),
    /// An entry that failed before loading (refused by the policy, or a `~` path without a
    /// home directory).
    Failed(LoadError),
    File {
        /// What errors are filed under.
        given: String,
        resolved: PathBuf,
        /// Pre or post and the tool, when discovery knows them.
        role: Option<(bool, String)>,
        /// Whether the path was given as something that looks like a compiled-in hook id
        /// (`crate::name`), so that a missing file is reported as a missing id too.
        id_like: bool,
        /// The levels at which discovery reported it, for the policy (asked again before
        /// each run: [`shell::ShellHook::policy`]).
        levels: Vec<Level>,
        /// Whether the policy is still to be asked before it loads: a configured path, asked
        /// once the file has loaded; a discovered item was accepted already.
        ask: bool,
    },
}

/// Whether a configured path looks like a compiled-in hook id (`crate::name`) rather than a
/// file path.
fn looks_like_id(given: &str) -> bool {
    given.contains("::") && !given.contains('/')
}

/// `given` resolved against `cwd` ([`path::try_resolve_path`]), or the load error of a `~`
/// path without a home directory.
fn resolve(given: &str, cwd: &Path, options: &DiscoveryOptions) -> Result<PathBuf, LoadError> {
    try_resolve_path(given, cwd, options.user_home()).ok_or_else(|| LoadError {
        path: given.to_owned(),
        error: format!(
            "Failed to load hook: cannot expand `~` in {given}: there is no home directory \
             (it must be an absolute path); give the path without `~`"
        ),
    })
}

/// The entry of a configured file `resolved`, filed under `shown`, given as `given`; `levels`
/// are discovery's.
fn configured_file(resolved: PathBuf, shown: String, given: &str, levels: Vec<Level>) -> Entry {
    Entry::File {
        given: shown,
        resolved,
        role: None,
        id_like: looks_like_id(given),
        levels,
        ask: true,
    }
}

/// Loads each of `paths` in order (no de-duplication: an entry given twice loads twice).
/// Relative paths resolve against `cwd`, which is also where hook files run.
#[must_use]
pub fn load_hooks<S: AsRef<str>>(
    paths: &[S],
    cwd: &Path,
    options: &DiscoveryOptions,
) -> LoadHooksResult {
    let ids: HashSet<String> = options.compiled.ids().into_iter().collect();
    let entries = paths
        .iter()
        .map(|p| {
            let given = p.as_ref();
            if ids.contains(given) {
                Entry::Compiled(given.to_owned())
            } else {
                match resolve(given, cwd, options) {
                    Ok(resolved) => configured_file(resolved, given.to_owned(), given, Vec::new()),
                    Err(error) => Entry::Failed(error),
                }
            }
        })
        .collect();
    load_entries(entries, cwd, options)
}

/// Runs the capability providers for `cwd` (SPEC-DETAILS 7.5).
#[must_use]
pub fn discover_hooks(cwd: &Path, options: &DiscoveryOptions) -> CapabilityResult {
    options.registry.load(cwd, options)
}

/// Loads the compiled-in hooks (sorted by id, minus the disabled ones), then the discovered hook
/// files (the ones the policy refused first, as load errors), then `configured_paths`
/// (resolved against `cwd`), skipping any entry whose id or normalised absolute path came
/// earlier. Every file entry's `path` is absolute.
#[must_use]
pub fn discover_and_load_hooks<S: AsRef<str>>(
    configured_paths: &[S],
    cwd: &Path,
    options: &DiscoveryOptions,
) -> LoadHooksResult {
    let discovery = discover_hooks(cwd, options);
    let mut ids = options.compiled.ids();
    ids.sort();
    let known: HashSet<String> = ids.iter().cloned().collect();
    let disabled: HashSet<&str> = options.disabled_hooks.iter().map(String::as_str).collect();
    let mut seen_ids = HashSet::new();
    let mut seen_paths = HashSet::new();
    let mut entries = Vec::new();

    for id in ids {
        if !disabled.contains(id.as_str()) && seen_ids.insert(id.clone()) {
            entries.push(Entry::Compiled(id));
        }
    }
    for refused in &discovery.refused {
        if seen_paths.insert(normalize_lexically(Path::new(&refused.path))) {
            entries.push(Entry::Failed(refused.clone()));
        }
    }
    for item in &discovery.items {
        if seen_paths.insert(normalize_lexically(&item.path)) {
            let pre = item.hook_type == HookType::Pre;
            entries.push(Entry::File {
                given: item.path.to_string_lossy().into_owned(),
                resolved: item.path.clone(),
                role: Some((pre, item.tool.clone())),
                id_like: false,
                levels: discovery.levels_of(&item.path),
                ask: false,
            });
        }
    }
    for given in configured_paths.iter().map(AsRef::as_ref) {
        if known.contains(given) {
            if seen_ids.insert(given.to_owned()) {
                entries.push(Entry::Compiled(given.to_owned()));
            }
            continue;
        }
        match resolve(given, cwd, options) {
            Ok(resolved) => {
                if seen_paths.insert(normalize_lexically(&resolved)) {
                    let levels = discovery.levels_of(&resolved);
                    let shown = resolved.to_string_lossy().into_owned();
                    entries.push(configured_file(resolved, shown, given, levels));
                }
            }
            Err(error) => entries.push(Entry::Failed(error)),
        }
    }

    let mut result = load_entries(entries, cwd, options);
    result.discovery = Some(discovery);
    result
}

fn load_entries(entries: Vec<Entry>, cwd: &Path, options: &DiscoveryOptions) -> LoadHooksResult {
    let mut result = LoadHooksResult::default();
    for entry in entries {
        let (path, loaded) = match entry {
            Entry::Failed(error) => {
                result.errors.push(error);
                continue;
            }
            Entry::Compiled(id) => {
                let loaded = options
                    .compiled
                    .load(&id, cwd)
                    .map_err(|e| format!("Failed to load hook: {e}"));
                (id, loaded)
            }
            Entry::File {
                given,
                resolved,
                role,
                id_like,
                levels,
                ask,
            } => {
                let asked = ask.then(|| levels.clone());
                let file = FileEntry {
                    given: &given,
                    role,
                    id_like,
                    levels,
                };
                let loaded = load_file(file, resolved, cwd, options).and_then(|hook| {
                    let Some(levels) = asked else {
                        return Ok(hook);
                    };
                    let candidate = FileCandidate {
                        path: &hook.resolved_path,
                        levels: &levels,
                        cwd,
                    };
                    options.policy.check(&candidate).map(|()| hook)
                });
                (given, loaded)
            }
        };
        match loaded {
            Ok(hook) => result.hooks.push(hook),
            Err(error) => result.errors.push(LoadError { path, error }),
        }
    }
    result
}

/// What [`load_file`] is told of a file entry besides its path.
struct FileEntry<'a> {
    given: &'a str,
    role: Option<(bool, String)>,
    id_like: bool,
    levels: Vec<Level>,
}

fn load_file(
    entry: FileEntry<'_>,
    resolved: PathBuf,
    cwd: &Path,
    options: &DiscoveryOptions,
) -> Result<LoadedHook, String> {
    let FileEntry {
        given,
        role,
        id_like,
        levels,
    } = entry;
    let shown = resolved.display();
    let meta = match fs::metadata(&resolved) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(not_found(&resolved, id_like, options));
        }
        Err(e) => return Err(format!("Failed to load hook: cannot read {shown}: {e}")),
    };
    if meta.is_dir() {
        return Err(format!(
            "Failed to load hook: {shown} is a directory; name a hook file inside it"
        ));
    }
    if is_module(&resolved) {
        return Err(format!(
            "Failed to load hook: {shown} is a JavaScript/TypeScript module, and a compiled \
             bundle cannot load JavaScript/TypeScript modules; write the hook as a Rust \
             #[hook] function in a crate linked into the binary, or as a shell-style hook file \
             (an executable in hooks/pre or hooks/post that reads Claude Code's hook JSON on \
             stdin)"
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "Failed to load hook: {shown} is not a regular file"
        ));
    }
    if !is_executable(&meta) {
        return Err(format!(
            "Failed to load hook: {shown} is not executable; make it executable with \
             `chmod +x {shown}`"
        ));
    }
    let Some((pre, tool)) = role.or_else(|| role_from_directory(&resolved)) else {
        return Err(format!(
            "Failed to load hook: cannot tell whether {shown} runs before or after a tool; put \
             it in a hooks/pre or hooks/post directory, named after the tool (or `*` for every \
             tool)"
        ));
    };
    let hook = ShellHook {
        file: resolved,
        tool,
        cwd: cwd.to_path_buf(),
        timeout: options.shell_timeout,
        policy: Some(shell::RunPolicy::new(Arc::clone(&options.policy), levels)),
    };
    Ok(shell_hook(given.to_owned(), pre, hook))
}

/// The error for a configured path with no file; one given as an id (`id_like`) also says
/// that no compiled-in hook has that id (its file name: the id as given).
fn not_found(resolved: &Path, id_like: bool, options: &DiscoveryOptions) -> String {
    if !id_like {
        return format!("Failed to load hook: no such file: {}", resolved.display());
    }
    let given = resolved.file_name().map_or_else(
        || resolved.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let ids = options.compiled.ids();
    let known = if ids.is_empty() {
        "none are linked into this binary".to_owned()
    } else {
        format!("known ids: {}", ids.join(", "))
    };
    format!(
        "Failed to load hook: no compiled-in hook has the id {given} ({known}), and no file \
         exists at {}",
        resolved.display()
    )
}

fn is_module(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MODULE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    true
}

/// `pre`/`post` and the tool of a configured file in a directory named `pre` or `post`
/// (the tool named as by the `xcsh` provider).
fn role_from_directory(path: &Path) -> Option<(bool, String)> {
    let pre = match path.parent()?.file_name()?.to_str()? {
        "pre" => true,
        "post" => false,
        _ => return None,
    };
    let name = path.file_name()?.to_string_lossy();
    Some((pre, shell_tool_name(&name).to_owned()))
}
