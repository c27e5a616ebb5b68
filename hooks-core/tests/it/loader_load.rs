//! `load_hooks` and `discover_and_load_hooks` (SPEC-DETAILS 7.3, 7.4): order, de-duplication,
//! compiled-in hooks, and error entries, with real files in temporary directories.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hookwright::events::EventKind;
use hookwright::loader::{
    CompiledHookSource, DiscoveryOptions, LoadHooksResult, NoCompiledHooks,
    discover_and_load_hooks, load_hooks,
};
use hookwright::{HookApi, LoadedHook};

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

    /// Creates a file at `rel` under the project (`~/`: under home) with `mode`.
    fn file_mode(&self, rel: &str, mode: u32) -> PathBuf {
        let path = match rel.strip_prefix("~/") {
            Some(rest) => self.home.join(rest),
            None => self.cwd.join(rel),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    fn file(&self, rel: &str) -> PathBuf {
        self.file_mode(rel, 0o755)
    }

    fn options(&self) -> DiscoveryOptions {
        DiscoveryOptions::new(&self.home).with_compiled(NoCompiledHooks)
    }
}

/// Compiled-in hooks built with the builder (what the `#[hook]` registry produces).
struct Compiled {
    ids: Vec<&'static str>,
    fail: bool,
}

impl CompiledHookSource for Compiled {
    fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.ids.iter().map(|s| (*s).to_owned()).collect();
        ids.sort();
        ids
    }
    fn load(&self, id: &str, cwd: &Path) -> Result<LoadedHook, String> {
        if self.fail && id == "a::one" {
            return Err("hook `a::one` registers the command `/go` twice".into());
        }
        Ok(HookApi::new(id, cwd).finish())
    }
}

fn compiled(ids: &[&'static str]) -> Compiled {
    Compiled {
        ids: ids.to_vec(),
        fail: false,
    }
}

fn paths(result: &LoadHooksResult) -> Vec<&str> {
    result.hooks.iter().map(|h| h.path.as_str()).collect()
}

fn errors(result: &LoadHooksResult) -> Vec<(&str, &str)> {
    result
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.error.as_str()))
        .collect()
}

#[test]
fn error_entries_say_what_is_wrong_and_loading_goes_on() {
    let env = Env::new();
    let cwd = &env.cwd;
    env.file_mode("hooks/pre/no-x.sh", 0o644);
    env.file("hooks/pre/guard.ts");
    env.file("hooks/pre/ok.sh");
    env.file("hooks/other/loose.sh");
    std::fs::create_dir_all(cwd.join("hooks/pre/dir")).unwrap();
    let entries = [
        "hooks/pre/missing.sh",
        "hooks/pre/no-x.sh",
        "hooks/pre/ok.sh",
        "hooks/pre/guard.ts",
        "hooks/pre/dir",
        "hooks/other/loose.sh",
        "hookwright_examples::nothing",
    ];
    let result = load_hooks(&entries, cwd, &env.options());
    assert_eq!(paths(&result), ["hooks/pre/ok.sh"]);
    let d = cwd.display();
    let errors = errors(&result);
    assert_eq!(errors.len(), 6);
    assert_eq!(
        errors[0],
        (
            "hooks/pre/missing.sh",
            &*format!("Failed to load hook: no such file: {d}/hooks/pre/missing.sh")
        )
    );
    assert_eq!(
        errors[1],
        (
            "hooks/pre/no-x.sh",
            &*format!(
                "Failed to load hook: {d}/hooks/pre/no-x.sh is not executable; make it \
                 executable with `chmod +x {d}/hooks/pre/no-x.sh`"
            )
        )
    );
    assert_eq!(errors[2].0, "hooks/pre/guard.ts");
    assert!(
        errors[2].1.contains("is a JavaScript/TypeScript module"),
        "{}",
        errors[2].1
    );
    assert!(
        errors[2]
            .1
            .contains("a compiled bundle cannot load JavaScript/TypeScript modules")
    );
    assert!(errors[2].1.contains("#[hook]") && errors[2].1.contains("shell-style hook file"));
    assert_eq!(errors[3].0, "hooks/pre/dir");
    assert!(errors[3].1.contains("is a directory"), "{}", errors[3].1);
    assert_eq!(errors[4].0, "hooks/other/loose.sh");
    assert!(
        errors[4].1.contains("hooks/pre or hooks/post"),
        "{}",
        errors[4].1
    );
    assert_eq!(errors[5].0, "hookwright_examples::nothing");
    assert!(
        errors[5]
            .1
            .contains("no compiled-in hook has the id hookwright_examples::nothing")
            && errors[5].1.contains("none are linked")
            && errors[5].1.contains("no file exists at"),
        "{}",
        errors[5].1
    );
}

#[test]
fn every_module_extension_is_refused() {
    let env = Env::new();
    let entries: Vec<String> = ["js", "ts", "mjs", "cjs", "tsx"]
        .iter()
        .map(|ext| {
            env.file(&format!("hooks/pre/h.{ext}"))
                .display()
                .to_string()
        })
        .collect();
    let result = load_hooks(&entries, &env.cwd, &env.options());
    assert!(result.hooks.is_empty());
    assert_eq!(result.errors.len(), 5);
    for error in &result.errors {
        assert!(
            error
                .error
                .contains("cannot load JavaScript/TypeScript modules")
        );
    }
}

#[test]
fn load_hooks_keeps_the_given_path_and_does_not_dedup() {
    let env = Env::new();
    let file = env.file("x/post/bash.sh");
    let given = ["x/post/bash.sh", "./x/post/bash.sh", "x/post/bash.sh"];
    let result = load_hooks(&given, &env.cwd, &env.options());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert_eq!(paths(&result), given);
    for hook in &result.hooks {
        assert_eq!(hook.resolved_path, file);
        let infos = hook.handlers.infos(EventKind::ToolResult);
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].name, "bash.sh");
        assert!(!hook.handlers.has(EventKind::ToolCall));
    }
    assert!(result.discovery.is_none());
}

#[test]
fn compiled_hooks_are_named_by_id() {
    let env = Env::new();
    let options = env.options().with_compiled(compiled(&["b::two", "a::one"]));
    let result = load_hooks(
        &["a::one", "b::two", "a::one", "c::three"],
        &env.cwd,
        &options,
    );
    assert_eq!(paths(&result), ["a::one", "b::two", "a::one"]);
    let errors = errors(&result);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, "c::three");
    assert!(
        errors[0].1.contains("known ids: a::one, b::two"),
        "{}",
        errors[0].1
    );
}

#[test]
fn a_broken_compiled_hook_fails_alone() {
    // A command registered twice in one hook fails that hook; the other compiled-in hooks
    // (a guard, say) and the hook files still load.
    let env = Env::new();
    let options = env.options().with_compiled(Compiled {
        ids: vec!["a::one", "b::two"],
        fail: true,
    });
    let file = env.file(".claude/hooks/pre/bash.sh");
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &options);
    assert_eq!(paths(&result), ["b::two", file.to_str().unwrap()]);
    assert_eq!(
        errors(&result),
        [(
            "a::one",
            "Failed to load hook: hook `a::one` registers the command `/go` twice"
        )]
    );
}

#[test]
fn discovery_loads_compiled_then_discovered_then_configured_without_duplicates() {
    let env = Env::new();
    let native = env.file(".xcsh/hooks/pre/x.sh");
    let claude = env.file(".claude/hooks/post/*.sh");
    let user = env.file("~/.claude/hooks/pre/read.sh");
    let extra = env.file("extra/pre/bash.sh");
    let options = env
        .options()
        .with_compiled(compiled(&["z::last", "a::first"]));
    let configured = [
        "extra/pre/bash.sh",
        "./.claude/hooks/post/../post/*.sh", // same file as a discovered one
        "a::first",                          // already loaded
        "extra/pre/bash.sh",                 // already configured
        "~/.claude/hooks/pre/read.sh",       // discovered at user level
    ];
    let result = discover_and_load_hooks(&configured, &env.cwd, &options);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    assert_eq!(
        paths(&result),
        [
            "a::first".to_owned(),
            "z::last".to_owned(),
            s(&native),
            s(&user),
            s(&claude),
            s(&extra),
        ]
    );
    let discovery = result.discovery.as_ref().unwrap();
    assert_eq!(discovery.items.len(), 3);
    // The xcsh copy of x.sh is shadowed by native.
    assert_eq!(discovery.all.iter().filter(|i| i.shadowed).count(), 1);
}

#[test]
fn disabled_compiled_hooks_load_only_when_configured() {
    let env = Env::new();
    let mut options = env.options().with_compiled(compiled(&["a::one", "b::two"]));
    options.disabled_hooks = vec!["a::one".into()];
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &options);
    assert_eq!(paths(&result), ["b::two"]);
    let result = discover_and_load_hooks(&["a::one"], &env.cwd, &options);
    assert_eq!(paths(&result), ["b::two", "a::one"]);
}

#[test]
fn a_configured_unknown_id_is_reported_as_an_id_after_discovery_too() {
    // `--hook crate::name` with no such compiled-in hook: the error says so and lists the
    // known ids, whichever loader saw it (not just "no such file").
    let env = Env::new();
    let options = env.options().with_compiled(compiled(&["a::one"]));
    let result = discover_and_load_hooks(&["a::nope"], &env.cwd, &options);
    let errors = errors(&result);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .1
            .contains("no compiled-in hook has the id a::nope (known ids: a::one)"),
        "{}",
        errors[0].1
    );
}

#[test]
fn discovered_files_that_cannot_run_are_absolute_error_entries() {
    let env = Env::new();
    let module = env.file(".codex/hooks/pre-bash.ts");
    let plain = env.file_mode(".claude/hooks/pre/bash.sh", 0o644);
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &env.options());
    assert!(result.hooks.is_empty());
    let errors = errors(&result);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].0, plain.to_str().unwrap());
    assert!(errors[0].1.contains("chmod +x"));
    assert_eq!(errors[1].0, module.to_str().unwrap());
    assert!(
        errors[1]
            .1
            .contains("cannot load JavaScript/TypeScript modules")
    );
}

#[test]
fn discovered_hooks_use_the_provider_type_and_tool() {
    let env = Env::new();
    env.file(".xcsh/hooks/post/lint.py");
    env.file(".claude/hooks/pre/*");
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &env.options());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert_eq!(result.hooks.len(), 2);
    assert!(result.hooks[0].handlers.has(EventKind::ToolResult));
    assert!(result.hooks[1].handlers.has(EventKind::ToolCall));
    assert_eq!(
        result.hooks[1].handlers.infos(EventKind::ToolCall)[0].name,
        "*"
    );
}

#[test]
fn nothing_to_discover_is_not_an_error() {
    let env = Env::new();
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &env.options());
    assert!(result.hooks.is_empty() && result.errors.is_empty());
    assert!(result.discovery.unwrap().warnings.is_empty());
}

#[hookwright::hook(event = "tool_call", hook = "loader_test::zeta")]
fn zeta(_event: &hookwright::events::ToolCallEvent) {}

#[hookwright::hook(event = "turn_start", hook = "loader_test::alpha")]
fn alpha(_event: &hookwright::events::TurnStartEvent) {}

#[test]
fn linked_hooks_load_first_in_id_order_by_default() {
    let env = Env::new();
    let file = env.file(".claude/hooks/pre/bash.sh");
    let mut options = DiscoveryOptions::new(&env.home);
    let ids = hookwright::registry::compiled_hook_ids();
    assert!(
        ids.contains(&"loader_test::alpha") && ids.contains(&"loader_test::zeta"),
        "{ids:?}"
    );

    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &options);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let mut want: Vec<&str> = ids.clone();
    want.push(file.to_str().unwrap());
    assert_eq!(paths(&result), want);

    options.disabled_hooks = vec!["loader_test::zeta".into()];
    let result = discover_and_load_hooks::<&str>(&[], &env.cwd, &options);
    assert!(!paths(&result).contains(&"loader_test::zeta"));

    let result = load_hooks(&["loader_test::zeta"], &env.cwd, &options);
    assert_eq!(paths(&result), ["loader_test::zeta"]);
    assert!(result.hooks[0].handlers.has(EventKind::ToolCall));
}

#[test]
fn refused_files_are_load_errors_discovered_or_configured() {
    let env = Env::new();
    let discovered = env.file(".xcsh/hooks/pre/x.sh"); // native and xcsh: one error
    let configured = env.file("extra/pre/bash.sh");
    let allowed = env.file("ok/pre/bash.sh");
    let refused = [discovered.clone(), configured.clone()];
    let options = env
        .options()
        .with_policy(move |file: &hookwright::loader::FileCandidate<'_>| {
            if refused.iter().any(|r| r == file.path) {
                Err(format!(
                    "Failed to load hook: refused {}",
                    file.path.display()
                ))
            } else {
                Ok(())
            }
        });
    let given = ["extra/pre/bash.sh", "ok/pre/bash.sh", "missing/pre/m.sh"];
    let result = discover_and_load_hooks(&given, &env.cwd, &options);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    assert_eq!(paths(&result), [s(&allowed)]);
    let missing = env.cwd.join("missing/pre/m.sh");
    assert_eq!(
        errors(&result),
        [
            (
                s(&discovered).as_str(),
                format!("Failed to load hook: refused {}", s(&discovered)).as_str()
            ),
            (
                s(&configured).as_str(),
                format!("Failed to load hook: refused {}", s(&configured)).as_str()
            ),
            (
                s(&missing).as_str(),
                format!("Failed to load hook: no such file: {}", s(&missing)).as_str()
            ),
        ],
        "a missing file is reported as missing, before the policy is asked"
    );
    // load_hooks asks the policy about every file too.
    let result = load_hooks(&["extra/pre/bash.sh", "ok/pre/bash.sh"], &env.cwd, &options);
    assert_eq!(paths(&result), ["ok/pre/bash.sh"]);
    assert_eq!(result.errors.len(), 1);
}

#[test]
fn tilde_paths_without_a_home_are_load_errors() {
    let env = Env::new();
    env.file("~/hooks/pre/bash.sh");
    env.file("~/pre/bash.sh");
    let given = ["~/pre/bash.sh", "@~/pre/bash.sh"];
    let with_home = discover_and_load_hooks(&given, &env.cwd, &env.options());
    assert!(with_home.errors.is_empty(), "{:?}", with_home.errors);
    for options in [
        DiscoveryOptions::without_home(),
        DiscoveryOptions::new("rel"),
    ] {
        let options = options.with_compiled(NoCompiledHooks);
        for result in [
            discover_and_load_hooks(&given, &env.cwd, &options),
            load_hooks(&given, &env.cwd, &options),
        ] {
            assert!(result.hooks.is_empty());
            let errors = errors(&result);
            assert_eq!(errors.len(), 2, "{errors:?}");
            for ((path, error), given) in errors.iter().zip(given) {
                assert_eq!(*path, given);
                assert!(error.contains("cannot expand `~`"), "{error}");
                assert!(error.contains("no home directory"), "{error}");
            }
        }
    }
}
