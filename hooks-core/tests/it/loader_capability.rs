//! The capability registry and the built-in providers (SPEC-DETAILS 7.5), with real files in
//! temporary directories.

#![cfg(unix)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookwright::loader::providers::PluginRoot;
use hookwright::loader::{
    CapabilityRegistry, CapabilityResult, DiscoveryOptions, FileCandidate, HookItem, HookProvider,
    HookType, Level, LoadContext, NoCompiledHooks, ProviderError, ProviderOutput, discover_hooks,
};

const ALL_PROVIDERS: [&str; 5] = ["native", "xcsh", "claude", "xcsh-plugins", "codex"];

struct Env {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    home: PathBuf,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Env {
            _dir: dir,
            cwd,
            home,
        }
    }

    /// Creates an executable file at `rel` under the project (`~/` prefix: under home).
    fn file(&self, rel: &str) -> PathBuf {
        let path = match rel.strip_prefix("~/") {
            Some(rest) => self.home.join(rest),
            None => self.cwd.join(rel),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn options(&self) -> DiscoveryOptions {
        DiscoveryOptions::new(&self.home).with_compiled(NoCompiledHooks)
    }

    /// Discovery with only the providers in `enabled`.
    fn only(&self, enabled: &[&str]) -> CapabilityResult {
        let mut options = self.options();
        options.disabled_providers = ALL_PROVIDERS
            .iter()
            .filter(|p| !enabled.contains(p))
            .map(|p| (*p).to_owned())
            .collect();
        discover_hooks(&self.cwd, &options)
    }
}

/// `(provider, type, tool, name, level)` of each item.
fn summary(items: &[HookItem]) -> Vec<(String, String, String, String, Level)> {
    items
        .iter()
        .map(|i| {
            (
                i.source.provider.clone(),
                i.hook_type.to_string(),
                i.tool.clone(),
                i.name.clone(),
                i.level,
            )
        })
        .collect()
}

fn row(
    p: &str,
    t: &str,
    tool: &str,
    name: &str,
    level: Level,
) -> (String, String, String, String, Level) {
    (p.into(), t.into(), tool.into(), name.into(), level)
}

#[test]
fn builtin_providers_sorted_by_priority_then_registration() {
    let registry = CapabilityRegistry::builtin();
    let ids: Vec<(&str, i32)> = registry
        .providers()
        .iter()
        .map(|p| (p.id(), p.priority()))
        .collect();
    assert_eq!(
        ids,
        [
            ("native", 100),
            ("xcsh", 80),
            ("claude", 80),
            ("xcsh-plugins", 70),
            ("codex", 70)
        ]
    );
    let names: Vec<&str> = registry
        .providers()
        .iter()
        .map(|p| p.display_name())
        .collect();
    assert_eq!(
        names,
        [
            "OMP",
            "xcsh",
            "Claude Code",
            "xcsh Marketplace",
            "OpenAI Codex"
        ]
    );
}

#[test]
fn native_provider_naming_order_and_filters() {
    let env = Env::new();
    for f in [
        "bash.sh",
        "*.sh",
        "a.b.sh",
        "lint",
        ".hidden.sh",
        "sub/deep.sh",
    ] {
        env.file(&format!(".xcsh/hooks/pre/{f}"));
    }
    env.file(".xcsh/hooks/post/read.py");
    env.file("~/.xcsh/agent/hooks/pre/write.sh");
    env.file("~/.xcsh/hooks/pre/not-native.sh");
    std::fs::create_dir_all(env.cwd.join(".xcsh/hooks/pre/.hidden-dir")).unwrap();
    symlink(
        env.cwd.join(".xcsh/hooks/pre/bash.sh"),
        env.cwd.join(".xcsh/hooks/pre/link.sh"),
    )
    .unwrap();

    let result = env.only(&["native"]);
    assert_eq!(
        summary(&result.items),
        [
            row("native", "pre", "*", "*.sh", Level::Project),
            row("native", "pre", "a.b", "a.b.sh", Level::Project),
            row("native", "pre", "bash", "bash.sh", Level::Project),
            row("native", "pre", "lint", "lint", Level::Project),
            row("native", "post", "read", "read.py", Level::Project),
            row("native", "pre", "write", "write.sh", Level::User),
        ]
    );
    let first = &result.items[0];
    assert_eq!(first.path, env.cwd.join(".xcsh/hooks/pre/*.sh"));
    assert_eq!(first.source.path, first.path);
    assert_eq!(first.source.provider_name, "OMP");
    assert_eq!(result.providers, ["native"]);
    assert!(result.warnings.is_empty());
}

#[test]
fn native_config_dir_name_is_an_option() {
    let env = Env::new();
    env.file(".omp/hooks/pre/bash.sh");
    env.file(".xcsh/hooks/pre/other.sh");
    let mut options = env.options();
    options.config_dir_name = ".omp".into();
    options.disabled_providers = vec!["xcsh".into(), "claude".into()];
    let result = discover_hooks(&env.cwd, &options);
    assert_eq!(
        summary(&result.items),
        [row("native", "pre", "bash", "bash.sh", Level::Project)]
    );
}

#[test]
fn xcsh_and_claude_provider_naming_and_order() {
    let env = Env::new();
    env.file("~/.xcsh/hooks/pre/bash.sh");
    env.file("~/.xcsh/hooks/post/*.sh");
    for f in [
        "lint.ts",
        "x.bash",
        "y.zsh",
        "z.fish",
        "w.sh.sh",
        "plain",
        ".hidden",
        "sub/deep.sh",
    ] {
        env.file(&format!(".xcsh/hooks/pre/{f}"));
    }
    std::fs::create_dir_all(env.cwd.join(".xcsh/hooks/pre/dir.sh")).unwrap();
    symlink(
        env.cwd.join(".xcsh/hooks/pre/plain"),
        env.cwd.join(".xcsh/hooks/pre/link.sh"),
    )
    .unwrap();
    symlink(
        env.cwd.join(".xcsh/hooks/pre/sub"),
        env.cwd.join(".xcsh/hooks/pre/dirlink"),
    )
    .unwrap();
    env.file(".claude/hooks/post/Bash");
    env.file("~/.claude/hooks/pre/read.sh");

    let result = env.only(&["xcsh", "claude"]);
    assert_eq!(
        summary(&result.items),
        [
            row("xcsh", "pre", "bash", "bash.sh", Level::User),
            row("xcsh", "post", "*", "*.sh", Level::User),
            row("xcsh", "pre", "link", "link.sh", Level::Project),
            row("xcsh", "pre", "lint.ts", "lint.ts", Level::Project),
            row("xcsh", "pre", "plain", "plain", Level::Project),
            row("xcsh", "pre", "w.sh", "w.sh.sh", Level::Project),
            row("xcsh", "pre", "x", "x.bash", Level::Project),
            row("xcsh", "pre", "y", "y.zsh", Level::Project),
            row("xcsh", "pre", "z", "z.fish", Level::Project),
            row("claude", "pre", "read", "read.sh", Level::User),
            row("claude", "post", "Bash", "Bash", Level::Project),
        ]
    );
    assert_eq!(
        result.items.last().unwrap().source.provider_name,
        "Claude Code"
    );
    assert_eq!(result.providers, ["xcsh", "claude"]);
}

#[test]
fn listings_are_sorted_in_byte_order() {
    let env = Env::new();
    for f in ["a.sh", "_.sh", "Z.sh", "B.sh", "é.sh", "0.sh"] {
        env.file(&format!(".claude/hooks/pre/{f}"));
        env.file(&format!(".xcsh/hooks/pre/{f}"));
    }
    let want = ["0.sh", "B.sh", "Z.sh", "_.sh", "a.sh", "é.sh"];
    let names = |r: CapabilityResult| r.items.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(env.only(&["claude"])), want);
    assert_eq!(names(env.only(&["native"])), want);
}

#[test]
fn codex_provider_naming() {
    let env = Env::new();
    for f in [
        "pre-bash.ts",
        "post-read.js",
        "lint.ts",
        "pre-.ts",
        "post-a-b.js",
        "notes.md",
        "x.sh",
    ] {
        env.file(&format!(".codex/hooks/{f}"));
    }
    env.file("~/.codex/hooks/guard.js");
    env.file(".codex/hooks/pre/nested.ts");
    let result = env.only(&["codex"]);
    assert_eq!(
        summary(&result.items),
        [
            row("codex", "pre", "guard", "guard.js", Level::User),
            row("codex", "pre", "lint", "lint.ts", Level::Project),
            row("codex", "post", "a-b", "post-a-b.js", Level::Project),
            row("codex", "post", "read", "post-read.js", Level::Project),
            row("codex", "pre", "pre-", "pre-.ts", Level::Project),
            row("codex", "pre", "bash", "pre-bash.ts", Level::Project),
        ]
    );
}

#[test]
fn plugin_provider_scans_each_root() {
    let env = Env::new();
    let a = env.home.join("plugins/a");
    let b = env.cwd.join("vendor/b");
    env.file("~/plugins/a/hooks/post/grep.sh");
    env.file("~/plugins/a/hooks/pre/*.sh");
    env.file("vendor/b/hooks/pre/bash.sh");
    let mut options = env.options();
    options.plugin_roots = vec![
        PluginRoot {
            path: a,
            level: Level::User,
        },
        PluginRoot {
            path: b,
            level: Level::Project,
        },
    ];
    options.disabled_providers = vec!["native".into(), "xcsh".into(), "claude".into()];
    let result = discover_hooks(&env.cwd, &options);
    assert_eq!(
        summary(&result.items),
        [
            row("xcsh-plugins", "pre", "*", "*.sh", Level::User),
            row("xcsh-plugins", "post", "grep", "grep.sh", Level::User),
            row("xcsh-plugins", "pre", "bash", "bash.sh", Level::Project),
        ]
    );
    assert_eq!(result.items[0].source.provider_name, "xcsh Marketplace");
}

#[test]
fn higher_priority_shadows_and_equal_priority_keeps_registration_order() {
    let env = Env::new();
    env.file(".xcsh/hooks/pre/x.sh"); // native and xcsh: same key pre:x:x.sh
    env.file(".xcsh/hooks/pre/y.ts"); // native pre:y:y.ts, xcsh pre:y.ts:y.ts
    env.file("~/.xcsh/hooks/pre/bash.sh"); // xcsh and claude (both 80): xcsh first
    env.file("~/.claude/hooks/pre/bash.sh");
    let result = discover_hooks(&env.cwd, &env.options());

    assert_eq!(
        summary(&result.items),
        [
            row("native", "pre", "x", "x.sh", Level::Project),
            row("native", "pre", "y", "y.ts", Level::Project),
            row("xcsh", "pre", "bash", "bash.sh", Level::User),
            row("xcsh", "pre", "y.ts", "y.ts", Level::Project),
        ]
    );
    let shadowed: Vec<_> = result
        .all
        .iter()
        .filter(|i| i.shadowed)
        .map(|i| (i.source.provider.as_str(), i.path.clone()))
        .collect();
    assert_eq!(
        shadowed,
        [
            ("xcsh", env.cwd.join(".xcsh/hooks/pre/x.sh")),
            ("claude", env.home.join(".claude/hooks/pre/bash.sh")),
        ]
    );
    assert_eq!(result.all.len(), 6);
    assert!(result.items.iter().all(|i| !i.shadowed));
    assert_eq!(result.providers, ["native", "xcsh", "claude"]);
}

#[test]
fn disabled_extension_ids_drop_every_copy_before_dedup() {
    let env = Env::new();
    env.file(".xcsh/hooks/pre/x.sh");
    env.file(".claude/hooks/pre/x.sh");
    env.file(".claude/hooks/post/keep.sh");
    let mut options = env.options();
    options.disabled_extensions = vec!["hook:pre:x:x.sh".into()];
    let result = discover_hooks(&env.cwd, &options);
    assert_eq!(
        summary(&result.items),
        [row("claude", "post", "keep", "keep.sh", Level::Project)]
    );
    assert_eq!(result.all, result.items);
    assert_eq!(result.providers, ["claude"]);
    assert_eq!(result.items[0].extension_id(), "hook:post:keep:keep.sh");
}

#[test]
fn gitignore_is_honoured_by_glob_providers_only() {
    let env = Env::new();
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    std::fs::write(env.cwd.join(".gitignore"), "ignored*\n").unwrap();
    env.file(".claude/hooks/pre/ignored.sh");
    env.file(".claude/hooks/pre/kept.sh");
    env.file(".xcsh/hooks/pre/ignored-too.sh");
    let result = discover_hooks(&env.cwd, &env.options());
    assert_eq!(
        summary(&result.items),
        [
            row(
                "native",
                "pre",
                "ignored-too",
                "ignored-too.sh",
                Level::Project
            ),
            row("claude", "pre", "kept", "kept.sh", Level::Project),
        ]
    );
}

/// Set in the copy of the test binary that [`unreadable_files_are_warnings`] runs as `nobody`
/// when it runs as root (who can open every file).
const AS_NOBODY: &str = "HOOKS_TEST_AS_NOBODY";

#[test]
fn unreadable_files_are_warnings() {
    if running_as_root() && std::env::var_os(AS_NOBODY).is_none() {
        // Root opens a mode-000 file: the rule is checked by this same test, run as nobody.
        let nobody = 65534;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "--exact",
                "loader_capability::unreadable_files_are_warnings",
            ])
            .env(AS_NOBODY, "1")
            .env("TMPDIR", "/tmp")
            .current_dir("/");
        std::os::unix::process::CommandExt::uid(&mut child, nobody);
        std::os::unix::process::CommandExt::gid(&mut child, nobody);
        let out = child.output().expect("the test binary runs as nobody");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "as nobody: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("1 passed"), "the test ran as nobody: {text}");
        return;
    }
    let env = Env::new();
    let file = env.file(".claude/hooks/pre/secret.sh");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    assert!(
        std::fs::File::open(&file).is_err(),
        "the file cannot be opened"
    );
    let result = env.only(&["claude"]);
    assert!(result.items.is_empty());
    assert_eq!(
        result.warnings,
        [format!(
            "[Claude Code] Failed to read file: {}",
            file.display()
        )]
    );
}

/// Whether this process runs as root: the owner of a directory it creates.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    dir.path().metadata().unwrap().uid() == 0
}

/// A test provider with fixed items, or a failure.
struct Fixed {
    id: &'static str,
    name: &'static str,
    priority: i32,
    items: Vec<HookItem>,
    fail: Option<&'static str>,
}

impl Fixed {
    fn new(id: &'static str, priority: i32) -> Self {
        Fixed {
            id,
            name: id,
            priority,
            items: Vec::new(),
            fail: None,
        }
    }
}

impl HookProvider for Fixed {
    fn id(&self) -> &str {
        self.id
    }
    fn display_name(&self) -> &str {
        self.name
    }
    fn priority(&self) -> i32 {
        self.priority
    }
    fn load(&self, _ctx: &LoadContext<'_>) -> Result<ProviderOutput, ProviderError> {
        match self.fail {
            Some("panic") => panic!("kaboom"),
            Some(error) => Err(ProviderError(error.into())),
            None => Ok(ProviderOutput {
                items: self.items.clone(),
                warnings: vec![format!("note from {}", self.id)],
            }),
        }
    }
}

fn item(provider: &str, file: &str) -> HookItem {
    HookItem::new(
        provider,
        PathBuf::from(file),
        HookType::Pre,
        "bash",
        Level::User,
    )
}

#[test]
fn custom_providers_order_by_priority_then_registration() {
    let mut registry = CapabilityRegistry::new();
    for (id, priority) in [("a", 50), ("b", 90), ("c", 50), ("d", 90), ("e", 100)] {
        let mut p = Fixed::new(id, priority);
        p.items = vec![item(id, &format!("/h/{id}/shared.sh"))];
        registry.register(Arc::new(p));
    }
    let ids: Vec<&str> = registry.providers().iter().map(|p| p.id()).collect();
    assert_eq!(ids, ["e", "b", "d", "a", "c"]);

    let env = Env::new();
    let result = registry.load(&env.cwd, &env.options());
    assert_eq!(result.items.len(), 1);
    assert_eq!(result.items[0].source.provider, "e");
    let all: Vec<(&str, bool)> = result
        .all
        .iter()
        .map(|i| (i.source.provider.as_str(), i.shadowed))
        .collect();
    assert_eq!(
        all,
        [
            ("e", false),
            ("b", true),
            ("d", true),
            ("a", true),
            ("c", true)
        ]
    );
    assert_eq!(result.warnings[..2], ["[e] note from e", "[b] note from b"]);
}

#[test]
fn invalid_items_are_removed_with_warnings() {
    let mut p = Fixed::new("t", 10);
    p.name = "Test";
    let mut no_name = item("t", "/h/a.sh");
    no_name.name.clear();
    let mut no_path = item("t", "/h/b.sh");
    no_path.path = PathBuf::new();
    let mut bad_type = item("t", "/h/c.sh");
    bad_type.hook_type = HookType::Other("mid".into());
    let mut no_tool = item("t", "/h/d.sh");
    no_tool.tool.clear();
    let good = item("t", "/h/e.sh");
    p.items = vec![no_name, no_path, bad_type, no_tool, good];
    let mut registry = CapabilityRegistry::new();
    registry.register(Arc::new(p));

    let env = Env::new();
    let result = registry.load(&env.cwd, &env.options());
    assert_eq!(result.items.len(), 1);
    assert_eq!(result.items[0].path, Path::new("/h/e.sh"));
    assert_eq!(result.all.len(), 5);
    // Upstream validates from the end, so the warnings come in reverse item order.
    assert_eq!(
        result.warnings,
        [
            "[Test] note from t",
            "[Test] Invalid item at /h/d.sh: Missing tool",
            "[Test] Invalid item at /h/c.sh: Invalid type (must be 'pre' or 'post')",
            "[Test] Invalid item at /h/b.sh: Missing path",
            "[Test] Invalid item at /h/a.sh: Missing name",
        ]
    );
}

#[test]
fn a_failing_provider_is_a_warning_and_the_others_still_count() {
    let mut broken = Fixed::new("broken", 90);
    broken.name = "Broken";
    broken.fail = Some("boom");
    let mut panicky = Fixed::new("panicky", 80);
    panicky.name = "Panicky";
    panicky.fail = Some("panic");
    let mut fine = Fixed::new("fine", 70);
    fine.items = vec![item("fine", "/h/ok.sh")];
    let mut registry = CapabilityRegistry::new();
    registry.register(Arc::new(broken));
    registry.register(Arc::new(panicky));
    registry.register(Arc::new(fine));

    let env = Env::new();
    let result = registry.load(&env.cwd, &env.options());
    assert_eq!(
        result.warnings,
        [
            "[Broken] Failed to load: boom",
            "[Panicky] Failed to load: kaboom",
            "[fine] note from fine"
        ]
    );
    assert_eq!(result.items.len(), 1);
    assert_eq!(result.providers, ["fine"]);
}

#[test]
fn disabled_providers_are_skipped() {
    let env = Env::new();
    env.file(".xcsh/hooks/pre/x.sh");
    let result = env.only(&["xcsh"]);
    assert_eq!(
        summary(&result.items),
        [row("xcsh", "pre", "x", "x.sh", Level::Project)]
    );
    assert!(result.all.iter().all(|i| !i.shadowed));
}

#[test]
fn a_refused_item_shadows_nothing_and_the_next_provider_wins() {
    let env = Env::new();
    let project = env.file(".xcsh/hooks/pre/bash.sh"); // native and xcsh, key pre:bash:bash.sh
    let user = env.file("~/.claude/hooks/pre/bash.sh"); // claude, the same key
    let shadowed = env.file(".claude/hooks/pre/bash.sh"); // claude project: after the user's
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let cwd = env.cwd.clone();
    let options = env.options().with_policy(move |file: &FileCandidate<'_>| {
        record
            .lock()
            .unwrap()
            .push((file.path.to_path_buf(), file.levels.to_vec()));
        if file.path.starts_with(&cwd) {
            Err(format!("refused {}", file.path.display()))
        } else {
            Ok(())
        }
    });
    let result = discover_hooks(&env.cwd, &options);

    assert_eq!(
        summary(&result.items),
        [row("claude", "pre", "bash", "bash.sh", Level::User)]
    );
    let refused: Vec<(&str, &str)> = result
        .refused
        .iter()
        .map(|r| (r.path.as_str(), r.error.as_str()))
        .collect();
    let project_text = project.display().to_string();
    assert_eq!(
        refused,
        [(
            project_text.as_str(),
            format!("refused {project_text}").as_str()
        )],
        "once per file, with the policy's reason"
    );
    assert!(result.is_refused(&project));
    let marked: Vec<(&str, &Path, bool)> = result
        .all
        .iter()
        .map(|i| (i.source.provider.as_str(), i.path.as_path(), i.shadowed))
        .collect();
    assert_eq!(
        marked,
        [
            ("native", project.as_path(), false),
            ("xcsh", project.as_path(), false),
            ("claude", user.as_path(), false),
            ("claude", shadowed.as_path(), true),
        ],
        "the refused file shadows nothing; the user's item shadows the one after it"
    );
    // Asked once per file, never about a shadowed item.
    assert_eq!(
        *asked.lock().unwrap(),
        [
            (project.clone(), vec![Level::Project]),
            (user.clone(), vec![Level::User]),
        ]
    );
}

#[test]
fn without_an_absolute_home_no_user_directory_is_scanned() {
    let env = Env::new();
    env.file("~/.xcsh/agent/hooks/pre/a.sh");
    env.file("~/.xcsh/hooks/pre/b.sh");
    env.file("~/.claude/hooks/pre/c.sh");
    env.file("~/.codex/hooks/pre-d.js");
    env.file(".claude/hooks/pre/e.sh");
    assert_eq!(
        env.options().user_home(),
        Some(env.home.as_path()),
        "an absolute home counts"
    );
    assert_eq!(discover_hooks(&env.cwd, &env.options()).items.len(), 5);
    for options in [
        DiscoveryOptions::without_home(),
        DiscoveryOptions::new(""),
        DiscoveryOptions::new("relative/home"),
    ] {
        assert_eq!(options.user_home(), None, "{:?}", options.home);
        let result = discover_hooks(&env.cwd, &options);
        assert_eq!(
            summary(&result.items),
            [row("claude", "pre", "e", "e.sh", Level::Project)],
            "{:?}",
            options.home
        );
        assert!(result.all.iter().all(|i| i.path.is_absolute()));
    }
}
