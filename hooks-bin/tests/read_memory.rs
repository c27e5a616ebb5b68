//! `hooks run`'s `read` holds no more of a file than its answer needs. In a test binary of its
//! own, so the peak memory of this process's children is that of the one `hooks run` here.

use std::process::{Command, Stdio};

use nix::sys::resource::{UsageWho, getrusage};
use serde_json::Value;

/// The size of the sparse file read: no disk blocks are used for it.
const SIZE: u64 = 1 << 30;

#[test]
fn read_holds_no_more_of_a_file_than_its_answer() {
    let project = tempfile::tempdir().expect("tempdir");
    let big = project.path().join("big.txt");
    std::fs::write(&big, "first line\n").expect("write");
    // The rest is a hole: one line of 1 GiB - 11 NUL bytes.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|f| f.set_len(SIZE))
        .expect("extend");
    let script = [
        r#"{"tool": "read", "input": {"path": "big.txt", "limit": 1}}"#,
        r#"{"tool": "read", "input": {"path": "big.txt", "offset": 2, "limit": 1}}"#,
    ]
    .join("\n");
    std::fs::write(project.path().join("s.jsonl"), script).expect("script");
    let out = Command::new(env!("CARGO_BIN_EXE_hooks-examples"))
        .args(["run", "s.jsonl", "--json"])
        .current_dir(project.path())
        .env("HOME", project.path())
        .stdin(Stdio::null())
        .output()
        .expect("hooks runs");
    let peak_mib = getrusage(UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage")
        .max_rss()
        / 1024;
    std::fs::remove_file(&big).expect("remove the big file");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        peak_mib < 200,
        "reading 1 GiB with limit 1 peaked at {peak_mib} MiB"
    );
    let results: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .filter(|r| r["type"] == "tool_result")
        .collect();
    let text = |i: usize| {
        results[i]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
    };
    assert_eq!(text(0), "first line\n");
    assert!(
        text(1).ends_with(&format!(
            "\n[output truncated: line 2 is {} bytes, showing its first 51200]",
            SIZE - 11
        )),
        "{}",
        &text(1)[text(1).len().saturating_sub(200)..]
    );
}
