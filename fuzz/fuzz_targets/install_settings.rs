//! `hooks install`'s settings merge: `Install::apply` in dry-run mode on a settings file with
//! arbitrary content, for both agents. It returns `Ok` or an error, and never changes the file.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use hookwright_cli::agents::Agent;
use hookwright_cli::agents::hook_json::{POST_TOOL_USE, PRE_TOOL_USE, STOP};
use hookwright_cli::install::Install;
use libfuzzer_sys::fuzz_target;

fn dir() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("tempdir"))
}

fuzz_target!(|data: &[u8]| {
    let path: PathBuf = dir().path().join("settings.json");
    std::fs::write(&path, data).expect("write settings");
    for target in [Agent::Claude, Agent::Codex] {
        let install = Install {
            target,
            path: path.clone(),
            binary: PathBuf::from("/usr/local/bin/hooks"),
            command: None,
            dry_run: true,
            on_failure_block: true,
            http: None,
        };
        let events = [
            PRE_TOOL_USE,
            POST_TOOL_USE,
            STOP,
        ];
        let mut out = Vec::new();
        match install.apply(&events, &mut out) {
            Ok(report) => assert!(!report.written, "a dry run writes nothing"),
            Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
        }
        assert_eq!(
            std::fs::read(&path).expect("read settings"),
            data,
            "unchanged"
        );
    }
});
