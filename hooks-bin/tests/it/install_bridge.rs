//! `hooks install pi|omp`: the bridge extension where each agent loads it, pointed at this
//! binary; idempotent; a moved binary's bridge replaced (with a backup); another tool's file
//! never changed.

use std::fs;
use std::path::Path;
use std::process::Command;

use hookwright_cli::install::extension::{
    BRIDGE_SOURCE, BridgeInstall, ExtensionAgent, bridge_for, extensions_dir, install_bridge,
    installed_binary,
};
use hookwright_cli::install::{InstallError, Scope};

const HOOKS: &str = env!("CARGO_BIN_EXE_hooks");

fn install(
    path: &Path,
    binary: &str,
    dry_run: bool,
) -> (Result<BridgeInstall, InstallError>, String) {
    let mut out = Vec::new();
    let result = install_bridge(
        ExtensionAgent::Pi,
        path,
        Path::new(binary),
        dry_run,
        &mut out,
    );
    (result, String::from_utf8(out).expect("UTF-8 output"))
}

#[test]
fn the_bridge_is_written_pointed_at_this_binary_and_a_second_install_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".pi/extensions/hooks.ts");
    let (result, out) = install(&path, "/opt/bin/hooks", false);
    assert_eq!(result.unwrap(), BridgeInstall::Written { replaced: None });
    assert!(out.contains("Added the pi bridge"), "{out}");
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(installed_binary(&text).as_deref(), Some("/opt/bin/hooks"));
    assert!(text.contains("const INSTALLED_BINARY = \"/opt/bin/hooks\";"));
    // Everything else is the shipped source.
    assert_eq!(text.replace("\"/opt/bin/hooks\"", "\"\""), BRIDGE_SOURCE);
    let (result, out) = install(&path, "/opt/bin/hooks", false);
    assert_eq!(result.unwrap(), BridgeInstall::UpToDate);
    assert!(out.contains("is up to date"), "{out}");
    assert!(!dir.path().join(".pi/extensions/hooks.ts.bak").exists());
}

#[test]
fn a_bridge_for_a_moved_binary_is_replaced_and_backed_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.ts");
    fs::write(&path, bridge_for("/old/place/hooks")).unwrap();
    let (result, out) = install(&path, "/new/place/hooks", false);
    assert_eq!(
        result.unwrap(),
        BridgeInstall::Written {
            replaced: Some("/old/place/hooks".into())
        }
    );
    assert!(
        out.contains("Replaced the pi bridge for /old/place/hooks with one for /new/place/hooks"),
        "{out}"
    );
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(installed_binary(&text).as_deref(), Some("/new/place/hooks"));
    let backup = fs::read_to_string(dir.path().join("hooks.ts.bak")).unwrap();
    assert_eq!(
        installed_binary(&backup).as_deref(),
        Some("/old/place/hooks")
    );
}

#[test]
fn a_file_that_is_not_this_binarys_bridge_is_never_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.ts");
    let theirs = [
        "export default function (pi) {}\n".to_owned(),
        // A bridge for another binary (an author's own): not ours to replace.
        bridge_for("/opt/bin/my-hooks"),
        // A bridge whose binary is relative.
        bridge_for("hooks"),
    ];
    for text in theirs {
        fs::write(&path, &text).unwrap();
        let (result, _) = install(&path, "/opt/bin/hooks", false);
        let e = result.unwrap_err();
        assert!(matches!(e, InstallError::NotOurs(_)), "{e}");
        assert!(
            e.to_string()
                .contains("is not a hooks bridge this binary installed"),
            "{e}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert!(!dir.path().join("hooks.ts.bak").exists());
    }
}

#[test]
fn a_dry_run_prints_the_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.ts");
    let (result, out) = install(&path, "/opt/bin/hooks", true);
    assert!(result.is_ok());
    assert!(
        out.contains("+const INSTALLED_BINARY = \"/opt/bin/hooks\";"),
        "{out}"
    );
    assert!(out.contains("Dry run: nothing written."), "{out}");
    assert!(!path.exists());
}

#[test]
fn each_agent_and_scope_has_its_extensions_directory() {
    let cwd = Path::new("/work/p");
    let home = Path::new("/home/u");
    let dir = |agent, scope, env: Option<&str>| {
        extensions_dir(agent, scope, cwd, home, env.map(std::ffi::OsStr::new)).unwrap()
    };
    assert_eq!(
        dir(ExtensionAgent::Pi, Scope::Project, None),
        cwd.join(".pi/extensions")
    );
    assert_eq!(
        dir(ExtensionAgent::Omp, Scope::Project, None),
        cwd.join(".omp/extensions")
    );
    assert_eq!(
        dir(ExtensionAgent::Pi, Scope::User, None),
        home.join(".pi/agent/extensions")
    );
    assert_eq!(
        dir(ExtensionAgent::Omp, Scope::User, None),
        home.join(".omp/agent/extensions")
    );
    assert_eq!(
        dir(ExtensionAgent::Pi, Scope::User, Some("/cfg/pi")),
        Path::new("/cfg/pi/extensions")
    );
    let relative = extensions_dir(
        ExtensionAgent::Omp,
        Scope::User,
        cwd,
        home,
        Some(std::ffi::OsStr::new("cfg")),
    );
    assert!(matches!(relative, Err(InstallError::RelativeDir { .. })));
    let no_home = extensions_dir(ExtensionAgent::Pi, Scope::User, cwd, Path::new(""), None);
    assert!(matches!(no_home, Err(InstallError::NoExtensionHome { .. })));
}

#[test]
fn hooks_install_pi_and_omp_write_where_the_agents_load_from() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&project).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(HOOKS)
            .args(args)
            .current_dir(&project)
            .env("HOME", &home)
            .env_remove("PI_CODING_AGENT_DIR")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["install", "pi"]);
    run(&["install", "omp", "--user"]);
    let binary = fs::canonicalize(HOOKS).unwrap();
    for path in [
        project.join(".pi/extensions/hooks.ts"),
        home.join(".omp/agent/extensions/hooks.ts"),
    ] {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let installed = installed_binary(&text).expect("our bridge");
        assert_eq!(fs::canonicalize(installed).unwrap(), binary);
    }
    assert!(run(&["install", "pi"]).contains("is up to date"));
}

#[test]
fn install_pi_refuses_the_options_of_settings_file_agents_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for option in [
        &["--http"][..],
        &["--trust"],
        &["--claude-version", "2.1.300"],
        &["--command", "hooks"],
    ] {
        let out = Command::new(HOOKS)
            .args(["install", "pi"])
            .args(option)
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env_remove("PI_CODING_AGENT_DIR")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{option:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("not options of pi or omp"),
            "{option:?}: {stderr}"
        );
    }
    assert!(!dir.path().join(".pi").exists(), "nothing is written");
}
