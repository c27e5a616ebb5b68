//! Loading the hooks a command works with: the compiled-in hooks of this binary, the hook files
//! discovered for the working directory, then the paths given with `--hook`
//! ([`hooks_core::loader::discover_and_load_hooks`]).

use std::path::{Path, PathBuf};

use hooks_core::LoadedHook;
use hooks_core::loader::{CapabilityResult, DiscoveryOptions, LoadError, discover_and_load_hooks};

/// What loading produced.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The hooks, in dispatch order.
    pub hooks: Vec<LoadedHook>,
    /// Entries that failed to load.
    pub errors: Vec<LoadError>,
    /// Discovery warnings.
    pub warnings: Vec<String>,
    /// Every discovered item (shadowed ones marked).
    pub discovery: Option<CapabilityResult>,
}

/// The user's home directory: `HOME` (`USERPROFILE` on Windows).
#[must_use]
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The discovery options of this host (home from [`home_dir`]).
#[must_use]
pub fn discovery_options() -> DiscoveryOptions {
    DiscoveryOptions::new(home_dir())
}

/// Loads the compiled-in hooks, the discovered hook files and `configured` paths for `cwd`.
#[must_use]
pub fn load(cwd: &Path, configured: &[String]) -> Loaded {
    let result = discover_and_load_hooks(configured, cwd, &discovery_options());
    let warnings = result
        .discovery
        .as_ref()
        .map(|d| d.warnings.clone())
        .unwrap_or_default();
    Loaded {
        hooks: result.hooks,
        errors: result.errors,
        warnings,
        discovery: result.discovery,
    }
}
