//! The bridge's TypeScript (`hooks-bin/bridges`) with the pinned compiler ([`TYPESCRIPT`]): the
//! shipped file type-checks under `tsc --noEmit --strict` (`hooks-bin/bridges/tsconfig.json`),
//! and its unit tests (`hooks-bin/bridges/test`: the failure rules, against a stand-in of the
//! extension API and a stand-in server), compiled with it into a scratch directory, pass under
//! node's test runner (`node --test`, node 20: it cannot run TypeScript itself); and the parts
//! of the extension API it declares are what the installed pi and oh-my-pi declare
//! (`hooks-bin/bridges/test/agents.check.ts`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::install::{OMP, PI, TYPESCRIPT};
use crate::process;

/// How long one run of tsc (or of node) may take.
const LIMIT: Duration = Duration::from_secs(120);

fn bridges() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .join("hooks-bin/bridges")
}

/// `tsc`'s `--typeRoots`: the `@types` installed beside it (`node_modules/typescript/bin/tsc`).
fn type_roots(tsc: &Path) -> PathBuf {
    tsc.ancestors().nth(3).expect("node_modules").join("@types")
}

fn tsc(tsc: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(tsc);
    cmd.arg("--typeRoots")
        .arg(type_roots(tsc))
        .args(args)
        .current_dir(bridges());
    cmd
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn bridge_ts_type_checks_under_strict() {
    let compiler = TYPESCRIPT.for_suite();
    let scratch = tempfile::tempdir().expect("scratch directory");
    let cmd = tsc(&compiler, &["--noEmit", "--strict", "-p", "."]);
    let done = process::run_bounded(cmd, scratch.path(), "tsc", LIMIT);
    assert!(
        done.success(),
        "tsc --noEmit --strict -p hooks-bin/bridges: {:?}\n{}{}",
        done.status,
        done.stdout,
        done.stderr
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn bridge_ts_failure_rules_pass_their_unit_tests() {
    let compiler = TYPESCRIPT.for_suite();
    let scratch = tempfile::tempdir().expect("scratch directory");
    let out = scratch.path().join("out");
    let mut cmd = tsc(&compiler, &["-p", "test", "--outDir"]);
    cmd.arg(&out);
    let compiled = process::run_bounded(cmd, scratch.path(), "tsc", LIMIT);
    assert!(
        compiled.success(),
        "tsc -p hooks-bin/bridges/test: {:?}\n{}{}",
        compiled.status,
        compiled.stdout,
        compiled.stderr
    );
    fs::write(out.join("package.json"), r#"{"type":"module"}"#).expect("package.json");
    let mut node = Command::new("node");
    node.arg("--test")
        .arg(out.join("test/bridge.test.js"))
        .current_dir(scratch.path());
    let done = process::run_bounded(node, scratch.path(), "node-test", LIMIT);
    let summary = |key: &str| {
        done.stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("# {key} ")))
            .and_then(|n| n.trim().parse::<u32>().ok())
    };
    assert!(
        done.success() && summary("fail") == Some(0) && summary("pass").is_some_and(|n| n > 0),
        "node --test of the bridge: {:?}\n{}{}",
        done.status,
        done.stdout,
        done.stderr
    );
    assert!(
        done.leftovers.is_empty(),
        "the unit tests left processes running: {:?}",
        done.leftovers
    );
}

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn bridge_ts_declares_the_extension_api_as_pi_and_oh_my_pi_do() {
    let (compiler, pi, omp) = (TYPESCRIPT.for_suite(), PI.for_suite(), OMP.for_suite());
    // `dist/cli.js` of each package: its declarations of extensions are beside.
    let package = |cli: &Path| cli.ancestors().nth(2).expect("the package").to_path_buf();
    let scratch = tempfile::tempdir().expect("scratch directory");
    let config = json!({
        "extends": bridges().join("tsconfig.json"),
        "compilerOptions": {"paths": {
            "pi-extension-types": [package(&pi).join("dist/core/extensions/types")],
            "omp-extension-types": [package(&omp).join("dist/types/extensibility/extensions/types")],
        }},
        "files": [bridges().join("test/agents.check.ts")],
    });
    let config_path = scratch.path().join("tsconfig.json");
    fs::write(&config_path, config.to_string()).expect("tsconfig.json");
    let mut cmd = tsc(&compiler, &["--noEmit", "-p"]);
    cmd.arg(&config_path);
    let done = process::run_bounded(cmd, scratch.path(), "tsc", LIMIT);
    assert!(
        done.success(),
        "the bridge's extension API is not what pi {} and oh-my-pi {} declare: {:?}\n{}{}",
        PI.version,
        OMP.version,
        done.status,
        done.stdout,
        done.stderr
    );
}
