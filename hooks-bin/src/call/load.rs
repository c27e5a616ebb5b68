//! Loading the hooks a command works with: the compiled-in hooks of this binary, the hook files
//! discovered for the working directory, then the paths given with `--hook`
//! ([`hookwright::loader::discover_and_load_hooks`]), with project-level hook files checked
//! against the user's trust store ([`crate::trust`]).
//!
//! The trust check is the host's, not the library's: the library loads every file its
//! [`FilePolicy`](hookwright::loader::FilePolicy) accepts, and this host passes the
//! [`TrustPolicy`] of the [`TrustMode`] each caller gives (none for `--trust-all`); no
//! process-wide setting decides it. An untrusted project file is thus refused before
//! de-duplication: it becomes a load error and shadows nothing, so a user-level hook file with
//! the same key (`pre:bash:bash.sh`) still loads. The home directory is [`crate::home`]'s.

use std::path::Path;
use std::sync::Arc;

use hookwright::LoadedHook;
use hookwright::loader::{
    CapabilityRegistry, CapabilityResult, DiscoveryOptions, LoadError, discover_and_load_hooks,
};

use crate::home::{NO_HOME_WARNING, discovery_options};
use crate::trust::{TrustMode, TrustPolicy};

/// What loading produced.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The hooks, in dispatch order.
    pub hooks: Vec<LoadedHook>,
    /// Entries that failed to load (untrusted project hook files included).
    pub errors: Vec<LoadError>,
    /// Discovery warnings ([`NO_HOME_WARNING`] first, when there is no home directory).
    pub warnings: Vec<String>,
    /// Every discovered item (shadowed ones marked).
    pub discovery: Option<CapabilityResult>,
}

/// Loads the compiled-in hooks, the discovered hook files and `configured` paths for `cwd`,
/// checking project-level hook files as `mode` says (each command passes the mode of its
/// command line: [`TrustMode::All`] for `--trust-all`). An untrusted project-level hook file is
/// not in `hooks` (it never runs, and it hides no other hook file) but in `errors`, with a
/// message that says how to trust it.
#[must_use]
pub fn load(cwd: &Path, configured: &[String], mode: &TrustMode) -> Loaded {
    load_with_options(cwd, configured, mode, discovery_options())
}

/// The compiled-in hooks alone: no hook-file discovery (for the events no hook file handles),
/// so there is no file whose trust to check.
#[must_use]
pub fn load_compiled(cwd: &Path) -> Loaded {
    let mut options = discovery_options();
    options.registry = Arc::new(CapabilityRegistry::new());
    // Compiled-in hooks are always trusted, and no file is loaded.
    load_with_options(cwd, &[], &TrustMode::All, options)
}

fn load_with_options(
    cwd: &Path,
    configured: &[String],
    mode: &TrustMode,
    mut options: DiscoveryOptions,
) -> Loaded {
    if let Some(policy) = TrustPolicy::new(mode) {
        options = options.with_policy(policy);
    }
    let result = discover_and_load_hooks(configured, cwd, &options);
    let discovers = !options.registry.providers().is_empty();
    let mut warnings = Vec::new();
    if discovers && options.user_home().is_none() {
        warnings.push(NO_HOME_WARNING.to_owned());
    }
    if let Some(discovery) = &result.discovery {
        warnings.extend(discovery.warnings.iter().cloned());
    }
    Loaded {
        hooks: result.hooks,
        errors: result.errors,
        warnings,
        discovery: result.discovery,
    }
}
