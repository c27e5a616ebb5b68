//! `hooks doctor` against the real Claude Code 2.1.328 and Codex 0.169.0 on `PATH`, after
//! `hooks install claude --project` and `hooks install codex --user --trust`.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::agent::codex::Codex;
use crate::agent::{Sandbox, path_with};
use crate::install::{CLAUDE, CODEX};

#[test]
#[ignore = "needs HOOKS_E2E=install (the real agents)"]
fn doctor_is_clean_after_install_and_reads_the_real_agents_versions() {
    let (claude, codex) = (CLAUDE.for_suite(), CODEX.for_suite());
    let sb = Sandbox::new("doctor");
    let path = path_with(&[&claude, &codex]);
    let codex_home = Codex::home(&sb);
    fs::create_dir_all(&codex_home).expect("CODEX_HOME");
    let env: [(&str, &Path); 2] = [("PATH", &path), ("CODEX_HOME", &codex_home)];
    sb.hooks(&["install", "claude", "--project"], &env);
    sb.hooks(&["install", "codex", "--user", "--trust"], &env);
    // `Sandbox::hooks` asserts exit 0: no gating hook is broken.
    let done = sb.hooks(&["doctor", "--json"], &env);
    let report: Value = serde_json::from_str(&done.stdout).expect("doctor --json prints JSON");
    let agent = |name: &str| {
        report["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .find(|a| a["agent"] == name)
            .unwrap_or_else(|| panic!("{name} found: {report:#}"))
            .clone()
    };
    let (claude_found, codex_found) = (agent("claude"), agent("codex"));
    assert_eq!(claude_found["version"], CLAUDE.version, "{report:#}");
    assert_eq!(codex_found["version"], CODEX.version, "{report:#}");
    assert_eq!(
        claude_found["executable"],
        claude.display().to_string(),
        "{report:#}"
    );
    let findings: Vec<&Value> = report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .flat_map(|a| a["findings"].as_array().expect("findings"))
        .chain(report["findings"].as_array().expect("findings"))
        .collect();
    assert!(
        findings.iter().all(|f| f["level"] == "ok"),
        "a clean install is clean: {report:#}"
    );
    let messages = |a: &Value| a["findings"].to_string();
    assert!(
        messages(&claude_found).contains("run this binary"),
        "{report:#}"
    );
    assert!(
        messages(&codex_found).contains("Codex trusts every entry of ours"),
        "{report:#}"
    );
    let human = sb.hooks(&["doctor"], &env);
    crate::report(&format!("hooks doctor (real agents):\n{}", human.stdout));
}
