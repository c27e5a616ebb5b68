//! dcg's corpus (hooks-guards/tests/corpus) and dcg's binary, for what scores or times the guards
//! against them: this crate's `decision` bench, hookwright-cli's `corpus` test and its
//! `guards_vs_dcg` bench, each of which includes this file by path.

// Each includer uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every corpus file (`*.toml`) under `root`, sorted.
pub(crate) fn corpus_files(root: &Path) -> Vec<PathBuf> {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("corpus dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    files
}

/// Every `command = "..."` of the corpus files under `root`, as written, in file order.
pub(crate) fn commands(root: &Path) -> Vec<String> {
    let mut commands = Vec::new();
    for file in corpus_files(root) {
        let text = std::fs::read_to_string(&file).expect("corpus file");
        let value: toml::Table = toml::from_str(&text).expect("corpus toml");
        for case in value
            .get("case")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(command) = case.get("command").and_then(|c| c.as_str()) {
                commands.push(command.to_owned());
            }
        }
    }
    commands
}

/// dcg's binary, where it is installed: `HOOKS_DCG_BIN`, else
/// `~/.cache/hooks-e2e/dcg-0.16.0/bin/dcg` (`cargo install destructive_command_guard
/// --version 0.16.0 --root ~/.cache/hooks-e2e/dcg-0.16.0`).
pub(crate) fn dcg_binary() -> Option<PathBuf> {
    std::env::var_os("HOOKS_DCG_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".cache/hooks-e2e/dcg-0.16.0/bin/dcg"))
        })
        .filter(|path| path.is_file())
}
