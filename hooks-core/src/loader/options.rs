//! [`DiscoveryOptions`] and where compiled-in hooks come from ([`CompiledHookSource`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::capability::CapabilityRegistry;
use super::policy::{AcceptAll, FilePolicy};
use super::providers::PluginRoot;
use super::shell::DEFAULT_SHELL_TIMEOUT;
use crate::api::LoadedHook;

/// Where compiled-in hooks (from `#[hook]` and friends) come from.
pub trait CompiledHookSource: Send + Sync {
    /// The ids of the compiled-in hooks, sorted (e.g. `hookwright_examples::block_rm`).
    fn ids(&self) -> Vec<String>;
    /// Builds a fresh instance of the compiled-in hook `id` for `cwd`, with its id as path.
    ///
    /// # Errors
    /// No hook has the id, or its registrations are inconsistent (a command registered twice);
    /// the text says why. A broken hook fails alone: the others still load.
    fn load(&self, id: &str, cwd: &Path) -> Result<LoadedHook, String>;
}

/// The hooks linked into this binary (the `#[hook]` registry).
#[derive(Debug, Clone, Copy, Default)]
pub struct LinkedHooks;

impl CompiledHookSource for LinkedHooks {
    fn ids(&self) -> Vec<String> {
        crate::registry::compiled_hook_ids()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn load(&self, id: &str, cwd: &Path) -> Result<LoadedHook, String> {
        crate::registry::compiled_hook(id, cwd).map_err(|e| e.to_string())
    }
}

/// No compiled-in hooks (for hosts and tests that load files only).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCompiledHooks;

impl CompiledHookSource for NoCompiledHooks {
    fn ids(&self) -> Vec<String> {
        Vec::new()
    }

    fn load(&self, id: &str, _cwd: &Path) -> Result<LoadedHook, String> {
        Err(format!("no compiled-in hook has the id {id}"))
    }
}

/// Everything discovery and loading depend on besides the working directory. Nothing here is
/// read from the environment: the host fills it in.
#[derive(Clone)]
pub struct DiscoveryOptions {
    /// The home directory (user-level hooks, `~` in paths), used only when it is absolute
    /// ([`DiscoveryOptions::user_home`]). Without one there is no user level: the providers
    /// scan no user-level directory (never one relative to the working directory), and a
    /// configured path that starts with `~` is a load error.
    pub home: Option<PathBuf>,
    /// The config directory name of the `native` and `xcsh` providers (default `.xcsh`).
    pub config_dir_name: String,
    /// Capability extension ids (`hook:<type>:<tool>:<name>`) whose items are dropped.
    pub disabled_extensions: Vec<String>,
    /// Provider ids (`native`, `xcsh`, `claude`, `xcsh-plugins`, `codex`) that are skipped.
    pub disabled_providers: Vec<String>,
    /// Ids of compiled-in hooks that discovery does not load (naming one in the configured
    /// paths still loads it).
    pub disabled_hooks: Vec<String>,
    /// Installed plugin roots scanned by the `xcsh-plugins` provider.
    pub plugin_roots: Vec<PluginRoot>,
    /// How long one run of a shell-style hook file may take (default 60 s).
    pub shell_timeout: Duration,
    /// The providers (default: [`CapabilityRegistry::builtin`]).
    pub registry: Arc<CapabilityRegistry>,
    /// The compiled-in hooks (default: [`LinkedHooks`]).
    pub compiled: Arc<dyn CompiledHookSource>,
    /// The host's decision on each hook file before it loads (default: [`AcceptAll`]); a
    /// refused file shadows nothing and is a load error.
    pub policy: Arc<dyn FilePolicy>,
}

impl DiscoveryOptions {
    /// Defaults for the user whose home directory is `home` (a relative one counts as none,
    /// see [`DiscoveryOptions::home`]).
    pub fn new(home: impl Into<PathBuf>) -> Self {
        DiscoveryOptions {
            home: Some(home.into()),
            ..DiscoveryOptions::without_home()
        }
    }

    /// Defaults for a host without a home directory: no user-level hook files.
    #[must_use]
    pub fn without_home() -> Self {
        DiscoveryOptions {
            home: None,
            config_dir_name: ".xcsh".to_owned(),
            disabled_extensions: Vec::new(),
            disabled_providers: Vec::new(),
            disabled_hooks: Vec::new(),
            plugin_roots: Vec::new(),
            shell_timeout: DEFAULT_SHELL_TIMEOUT,
            registry: Arc::new(CapabilityRegistry::builtin()),
            compiled: Arc::new(LinkedHooks),
            policy: Arc::new(AcceptAll),
        }
    }

    /// The home directory if it is absolute, else `None` (no user level).
    #[must_use]
    pub fn user_home(&self) -> Option<&Path> {
        self.home.as_deref().filter(|home| home.is_absolute())
    }

    /// Uses `policy` to decide which hook files load.
    #[must_use]
    pub fn with_policy(mut self, policy: impl FilePolicy + 'static) -> Self {
        self.policy = Arc::new(policy);
        self
    }

    /// Uses `source` for compiled-in hooks.
    #[must_use]
    pub fn with_compiled(mut self, source: impl CompiledHookSource + 'static) -> Self {
        self.compiled = Arc::new(source);
        self
    }

    /// Uses `registry` for discovery.
    #[must_use]
    pub fn with_registry(mut self, registry: CapabilityRegistry) -> Self {
        self.registry = Arc::new(registry);
        self
    }

    /// Sets the shell-style hook timeout.
    #[must_use]
    pub fn with_shell_timeout(mut self, timeout: Duration) -> Self {
        self.shell_timeout = timeout;
        self
    }
}

impl fmt::Debug for DiscoveryOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiscoveryOptions")
            .field("home", &self.home)
            .field("config_dir_name", &self.config_dir_name)
            .field("disabled_extensions", &self.disabled_extensions)
            .field("disabled_providers", &self.disabled_providers)
            .field("disabled_hooks", &self.disabled_hooks)
            .field("plugin_roots", &self.plugin_roots)
            .field("shell_timeout", &self.shell_timeout)
            .field("registry", &self.registry)
            .field("compiled", &self.compiled.ids())
            .finish_non_exhaustive()
    }
}
