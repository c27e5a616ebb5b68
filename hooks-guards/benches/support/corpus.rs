//! The commands of dcg's corpus (hooks-guards/tests/corpus), for the benches that time the
//! guards over it: this one in process, hookwright-cli's `guards_vs_dcg` as processes.

use std::path::{Path, PathBuf};

/// Every `command = "..."` of the corpus files under `root`, as written, in file order.
pub(crate) fn commands(root: &Path) -> Vec<String> {
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
    let mut commands = Vec::new();
    for file in files {
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
