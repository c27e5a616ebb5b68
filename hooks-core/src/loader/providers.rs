//! The built-in hook providers (SPEC-DETAILS section 7.5), with their directories and naming
//! rules. Every directory listing is sorted by file name (byte order) and skips hidden entries.
//!
//! | id | display name | priority | directories, in order |
//! |---|---|---|---|
//! | `native` | `OMP` | 100 | `<cwd>/.xcsh/hooks/{pre,post}`, `~/.xcsh/agent/hooks/{pre,post}` |
//! | `xcsh` | `xcsh` | 80 | `~/.xcsh/hooks/{pre,post}`, `<cwd>/.xcsh/hooks/{pre,post}` |
//! | `claude` | `Claude Code` | 80 | `~/.claude/hooks/{pre,post}`, `<cwd>/.claude/hooks/{pre,post}` |
//! | `xcsh-plugins` | `xcsh Marketplace` | 70 | `<plugin root>/hooks/{pre,post}` per plugin root |
//! | `codex` | `OpenAI Codex` | 70 | `~/.codex/hooks`, `<cwd>/.codex/hooks` (`*.ts`, `*.js`) |
//!
//! `.xcsh` is [`DiscoveryOptions::config_dir_name`](super::DiscoveryOptions::config_dir_name).
//! Without an absolute home directory ([`LoadContext::home`] is `None`) the `~` directories are
//! not scanned.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::capability::{
    CapabilityRegistry, HookItem, HookProvider, HookType, Level, LoadContext, ProviderError,
    ProviderOutput,
};

/// The built-in providers, in registration order.
#[must_use]
pub fn builtin_providers() -> Vec<Arc<dyn HookProvider>> {
    vec![
        Arc::new(NativeProvider),
        Arc::new(ShellDirProvider::xcsh()),
        Arc::new(ShellDirProvider::claude()),
        Arc::new(PluginsProvider),
        Arc::new(CodexProvider),
    ]
}

const HOOK_TYPES: [HookType; 2] = [HookType::Pre, HookType::Post];

/// The `native` rule: the tool is the file name without its last extension (`*.sh` → `*`,
/// `a.b.sh` → `a.b`, `lint` → `lint`).
#[must_use]
pub fn native_tool_name(name: &str) -> &str {
    name.rfind('.').map_or(name, |i| &name[..i])
}

/// The `xcsh`/`claude` rule: one trailing `.sh`, `.bash`, `.zsh` or `.fish` is removed; other
/// extensions are kept (`lint.ts` → `lint.ts`).
#[must_use]
pub fn shell_tool_name(name: &str) -> &str {
    [".sh", ".bash", ".zsh", ".fish"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(name)
}

/// The `codex` rule: without `.ts`/`.js`, `pre-<tool>` and `post-<tool>` give the type and
/// tool; any other name is a `pre` hook for the tool named like the file.
#[must_use]
pub fn codex_type_and_tool(name: &str) -> (HookType, &str) {
    let base = name
        .strip_suffix(".ts")
        .or_else(|| name.strip_suffix(".js"))
        .unwrap_or(name);
    for (prefix, hook_type) in [("pre-", HookType::Pre), ("post-", HookType::Post)] {
        if let Some(tool) = base.strip_prefix(prefix).filter(|t| !t.is_empty()) {
            return (hook_type, tool);
        }
    }
    (HookType::Pre, base)
}

fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

/// Whether `dir` is a directory with at least one entry.
fn is_non_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// The `native` listing: non-hidden entries that are regular files (symlinks are skipped),
/// sorted. A missing or unreadable directory lists nothing.
fn regular_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.file_name(), e.path()))
        .filter(|(name, _)| !is_hidden(&name.to_string_lossy()))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(name, path)| (name.to_string_lossy().into_owned(), path))
        .collect()
}

/// The glob listing of the other providers: non-recursive, non-hidden, `.gitignore` honoured
/// (inside a git repository; the user's global git excludes are not read), files or symlinks to
/// files, optionally only names ending in one of `suffixes`; sorted. A file that cannot be
/// opened is left out with the warning `Failed to read file: <path>`.
fn glob_files(
    dir: &Path,
    suffixes: Option<&[&str]>,
    warnings: &mut Vec<String>,
) -> Vec<(String, PathBuf)> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let walker = ignore::WalkBuilder::new(dir)
        .max_depth(Some(1))
        .hidden(true)
        .parents(true)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(true)
        .follow_links(false)
        .build();
    let mut files: Vec<_> = walker
        .filter_map(Result::ok)
        .filter(|e| e.depth() == 1)
        .filter(|e| match e.file_type() {
            Some(t) if t.is_file() => true,
            Some(t) if t.is_symlink() => fs::metadata(e.path()).is_ok_and(|m| m.is_file()),
            _ => false,
        })
        .map(|e| (e.file_name().to_owned(), e.path().to_path_buf()))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for (name, path) in files {
        let name = name.to_string_lossy().into_owned();
        if is_hidden(&name) || suffixes.is_some_and(|s| !s.iter().any(|x| name.ends_with(x))) {
            continue;
        }
        if fs::File::open(&path).is_err() {
            warnings.push(format!("Failed to read file: {}", path.display()));
            continue;
        }
        out.push((name, path));
    }
    out
}

/// `native` ("OMP", 100): `<cwd>/<config dir>` then `~/<config dir>/agent`, each only if it is
/// a non-empty directory; inside each `hooks/pre` then `hooks/post`. Regular files only (no
/// symlinks); tool by [`native_tool_name`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NativeProvider;

impl HookProvider for NativeProvider {
    fn id(&self) -> &str {
        "native"
    }
    fn display_name(&self) -> &str {
        "OMP"
    }
    fn priority(&self) -> i32 {
        100
    }
    fn load(&self, ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError> {
        let config = &ctx.options.config_dir_name;
        let user = ctx
            .home
            .map(|home| (home.join(config).join("agent"), Level::User));
        let roots = [Some((ctx.cwd.join(config), Level::Project)), user];
        let mut output = ProviderOutput::default();
        for (root, level) in roots.iter().flatten().filter(|(r, _)| is_non_empty_dir(r)) {
            for hook_type in HOOK_TYPES {
                let dir = root.join("hooks").join(hook_type.as_str());
                for (name, path) in regular_files(&dir) {
                    let tool = native_tool_name(&name).to_owned();
                    output.items.push(HookItem::new(
                        self.id(),
                        path,
                        hook_type.clone(),
                        tool,
                        *level,
                    ));
                }
            }
        }
        Ok(output)
    }
}

/// The Claude-style providers `xcsh` ("xcsh", 80; `~/<config dir>/hooks` and
/// `<cwd>/<config dir>/hooks`) and `claude` ("Claude Code", 80; `~/.claude/hooks` and
/// `<cwd>/.claude/hooks`): user `pre`, user `post`, project `pre`, project `post`; tool by
/// [`shell_tool_name`].
#[derive(Debug, Clone)]
pub struct ShellDirProvider {
    id: &'static str,
    display_name: &'static str,
    /// `None`: the configured config directory name.
    dir_name: Option<&'static str>,
}

impl ShellDirProvider {
    /// The `xcsh` provider.
    #[must_use]
    pub fn xcsh() -> Self {
        ShellDirProvider {
            id: "xcsh",
            display_name: "xcsh",
            dir_name: None,
        }
    }

    /// The `claude` provider.
    #[must_use]
    pub fn claude() -> Self {
        ShellDirProvider {
            id: "claude",
            display_name: "Claude Code",
            dir_name: Some(".claude"),
        }
    }
}

impl HookProvider for ShellDirProvider {
    fn id(&self) -> &str {
        self.id
    }
    fn display_name(&self) -> &str {
        self.display_name
    }
    fn priority(&self) -> i32 {
        80
    }
    fn load(&self, ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError> {
        let dir_name = self.dir_name.unwrap_or(&ctx.options.config_dir_name);
        let user = ctx.home.map(|home| (home.join(dir_name), Level::User));
        let roots = [user, Some((ctx.cwd.join(dir_name), Level::Project))];
        let mut output = ProviderOutput::default();
        for (root, level) in roots.iter().flatten() {
            scan_pre_post(self.id, root, *level, &mut output);
        }
        Ok(output)
    }
}

fn scan_pre_post(provider: &str, root: &Path, level: Level, output: &mut ProviderOutput) {
    for hook_type in HOOK_TYPES {
        let dir = root.join("hooks").join(hook_type.as_str());
        for (name, path) in glob_files(&dir, None, &mut output.warnings) {
            let tool = shell_tool_name(&name).to_owned();
            output.items.push(HookItem::new(
                provider,
                path,
                hook_type.clone(),
                tool,
                level,
            ));
        }
    }
}

/// An installed plugin whose `hooks/pre` and `hooks/post` directories are scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginRoot {
    /// The plugin's directory.
    pub path: PathBuf,
    /// The plugin's scope.
    pub level: Level,
}

/// `xcsh-plugins` ("xcsh Marketplace", 70): for each of
/// [`DiscoveryOptions::plugin_roots`](super::DiscoveryOptions::plugin_roots), `hooks/pre` then
/// `hooks/post`, named as `xcsh`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PluginsProvider;

impl HookProvider for PluginsProvider {
    fn id(&self) -> &str {
        "xcsh-plugins"
    }
    fn display_name(&self) -> &str {
        "xcsh Marketplace"
    }
    fn priority(&self) -> i32 {
        70
    }
    fn load(&self, ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError> {
        let mut output = ProviderOutput::default();
        for root in &ctx.options.plugin_roots {
            scan_pre_post(self.id(), &root.path, root.level, &mut output);
        }
        Ok(output)
    }
}

/// `codex` ("OpenAI Codex", 70): `~/.codex/hooks` then `<cwd>/.codex/hooks`, flat, `*.ts` and
/// `*.js` only; type and tool by [`codex_type_and_tool`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexProvider;

impl HookProvider for CodexProvider {
    fn id(&self) -> &str {
        "codex"
    }
    fn display_name(&self) -> &str {
        "OpenAI Codex"
    }
    fn priority(&self) -> i32 {
        70
    }
    fn load(&self, ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError> {
        let user = ctx
            .home
            .map(|home| (home.join(".codex").join("hooks"), Level::User));
        let dirs = [
            user,
            Some((ctx.cwd.join(".codex").join("hooks"), Level::Project)),
        ];
        let mut output = ProviderOutput::default();
        for (dir, level) in dirs.iter().flatten() {
            for (name, path) in glob_files(dir, Some(&[".ts", ".js"]), &mut output.warnings) {
                let (hook_type, tool) = codex_type_and_tool(&name);
                let tool = tool.to_owned();
                output
                    .items
                    .push(HookItem::new(self.id(), path, hook_type, tool, *level));
            }
        }
        Ok(output)
    }
}

impl CapabilityRegistry {
    /// A registry with the built-in providers: `native` (100), `xcsh` (80), `claude` (80),
    /// `xcsh-plugins` (70), `codex` (70).
    #[must_use]
    pub fn builtin() -> Self {
        let mut registry = CapabilityRegistry::new();
        for provider in builtin_providers() {
            registry.register(provider);
        }
        registry
    }
}
