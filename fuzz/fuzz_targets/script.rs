//! Session scripts: `hookwright_cli::run::script::parse_bytes` on arbitrary bytes. Every rejection
//! is a list of errors, each one line naming the file and, unless it is about the whole file
//! (line 0), a 1-based line and column.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.jsonl");
    // One registered command, so `command` lines are checked against a list.
    let commands = ["handoff".to_owned()];
    if let Err(errors) = hookwright_cli::run::script::parse_bytes(path, data, &commands) {
        assert!(!errors.is_empty(), "a rejection has at least one error");
        for error in errors {
            let text = error.to_string();
            assert!(text.starts_with("fuzz.jsonl:"), "{text}");
            assert!(!text.contains('\n'), "{text:?}");
            assert!(error.line == 0 || error.column >= 1, "{text}");
        }
    }
});
