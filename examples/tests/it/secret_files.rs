//! The example redactor's answers to Claude Code's `Read` and `Edit` of a file holding a secret
//! (`hookwright_examples::redact::answer_secret_reads`, `block_secret_edits`, `secret_files`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookwright::prelude::*;
use hookwright::{HookRunner, Host, JsonlSessionStore};
use hookwright_examples::redact::secret_files::{
    self, BINARY, DEFAULT_LINES, EDIT_BLOCKED, Lines, READ_IN_PLACE, SCAN_LIMIT, SHOWN_LIMIT,
    UNCHECKED,
};
use hookwright_examples::redact::{REREADING_AGENTS, answer_secret_reads, block_secret_edits};
use serde_json::json;

const SECRET: &str = "sk-unit-5ec7e7";

fn secret_line() -> String {
    format!("API_KEY={SECRET}")
}

/// A host that names its agent.
struct Agent(Option<&'static str>);

impl Host for Agent {
    fn agent(&self) -> Option<&str> {
        self.0
    }
}

/// A context in `cwd` whose host names `agent`.
fn context(cwd: &Path, agent: Option<&'static str>) -> HookContext {
    let runner = HookRunner::new(Vec::new(), cwd, Arc::new(JsonlSessionStore::in_memory(cwd)));
    runner.initialize(Agent(agent));
    runner.create_context()
}

/// A `read` call with Claude Code's input (`file_path`, and our `path` beside it).
fn read_call(path: &Path, extra: serde_json::Value) -> ToolCallEvent {
    let mut input = json!({ "file_path": path, "path": path });
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    ToolCallEvent {
        tool_name: "read".into(),
        tool_call_id: "c1".into(),
        input: input.as_object().cloned().unwrap().into(),
    }
}

/// The reason `answer_read` denies `path` with, or a panic saying it let the read run.
fn denied(path: &Path, lines: Lines) -> String {
    secret_files::answer_read(path, lines)
        .unwrap_or_else(|| panic!("{} was let through", path.display()))
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn in_claude_code_a_read_of_a_file_with_a_secret_is_answered_with_its_redacted_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "config.txt",
        format!("name=demo\n{}\n", secret_line()),
    );
    let ctx = context(dir.path(), Some("claude"));
    let result = answer_secret_reads(&read_call(&path, json!({})), &ctx).expect("answered");
    let reason = result.into_block_reason().expect("a block");
    assert_eq!(
        reason,
        format!(
            "{READ_IN_PLACE}\n{}: lines 1-3 of 3:\n1\tname=demo\n2\tAPI_KEY=[REDACTED]\n3\t\n",
            path.display()
        )
    );
    // A relative path is the working directory's, as Claude Code resolves it.
    let relative = ToolCallEvent {
        input: json!({"file_path": "config.txt"})
            .as_object()
            .cloned()
            .unwrap()
            .into(),
        ..read_call(&path, json!({}))
    };
    let reason =
        answer_secret_reads(&relative, &ctx).and_then(ToolCallEventResult::into_block_reason);
    assert!(reason.is_some_and(|r| r.contains("API_KEY=[REDACTED]") && !r.contains(SECRET)));
    // The rest of Claude Code's path resolution: trimmed, `~` is the home directory.
    let (cwd, home) = (Path::new("/work/p"), Some(Path::new("/home/u")));
    assert_eq!(
        secret_files::resolve("/etc/x", cwd, home),
        Path::new("/etc/x")
    );
    assert_eq!(
        secret_files::resolve(" a/b ", cwd, home),
        Path::new("/work/p/a/b")
    );
    assert_eq!(secret_files::resolve("~", cwd, home), Path::new("/home/u"));
    assert_eq!(
        secret_files::resolve("~/.env", cwd, home),
        Path::new("/home/u/.env")
    );
    assert_eq!(
        secret_files::resolve("~x", cwd, home),
        Path::new("/work/p/~x")
    );
    assert_eq!(
        secret_files::resolve("~/.env", cwd, None),
        Path::new("/work/p/~/.env")
    );
}

#[test]
fn only_claude_code_s_reads_of_files_with_a_secret_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let secret = write(dir.path(), "config.txt", format!("{}\n", secret_line()));
    let clean = write(dir.path(), "notes.txt", "token count: 3\nnothing secret\n");
    assert_eq!(REREADING_AGENTS, ["claude"]);
    let claude = context(dir.path(), Some("claude"));
    assert!(answer_secret_reads(&read_call(&secret, json!({})), &claude).is_some());
    assert_eq!(
        answer_secret_reads(&read_call(&clean, json!({})), &claude),
        None,
        "a file with no secret reads as usual"
    );
    let mut bash = read_call(&secret, json!({}));
    bash.tool_name = "bash".into();
    assert_eq!(answer_secret_reads(&bash, &claude), None, "only reads");
    // Their read tools' outputs are redacted as they come; nothing of a file comes back later.
    for agent in [
        None,
        Some("codex"),
        Some("gemini"),
        Some("copilot"),
        Some("qwen"),
        Some("droid"),
        Some("cursor"),
    ] {
        let ctx = context(dir.path(), agent);
        assert_eq!(
            answer_secret_reads(&read_call(&secret, json!({})), &ctx),
            None,
            "{agent:?}"
        );
    }
}

#[test]
fn in_claude_code_an_edit_of_a_file_with_a_secret_is_blocked_and_other_edits_run() {
    let dir = tempfile::tempdir().unwrap();
    let secret = write(
        dir.path(),
        "config.txt",
        format!("name=demo\n{}\n", secret_line()),
    );
    let clean = write(dir.path(), "notes.txt", "name=demo\n");
    let edit = |path: &Path| {
        let mut call = read_call(
            path,
            json!({"old_string": "name=demo", "new_string": "name=x"}),
        );
        call.tool_name = "edit".into();
        call
    };
    let claude = context(dir.path(), Some("claude"));
    let reason = block_secret_edits(&edit(&secret), &claude)
        .and_then(ToolCallEventResult::into_block_reason);
    assert_eq!(reason, Some(format!("{EDIT_BLOCKED} {}", secret.display())));
    assert_eq!(block_secret_edits(&edit(&clean), &claude), None);
    assert_eq!(
        block_secret_edits(&edit(&dir.path().join("new.txt")), &claude),
        None,
        "a new file"
    );
    assert_eq!(
        block_secret_edits(&read_call(&secret, json!({})), &claude),
        None,
        "only edits: a read is answered by answer_secret_reads"
    );
    for agent in [None, Some("codex"), Some("droid"), Some("cursor")] {
        let ctx = context(dir.path(), agent);
        assert_eq!(block_secret_edits(&edit(&secret), &ctx), None, "{agent:?}");
    }
    let socket = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    assert_eq!(
        secret_files::answer_edit(&socket),
        Some(format!(
            "{UNCHECKED} {}: it is not a regular file",
            socket.display()
        ))
    );
}

#[test]
fn offset_and_limit_choose_the_lines_shown_while_the_whole_file_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text: String =
        (1..=8).map(|i| format!("line {i}\n")).collect::<String>() + &secret_line() + "\n";
    let path = write(dir.path(), "long.txt", text);
    let shown = |offset, limit| denied(&path, Lines { offset, limit });
    let p = path.display();
    // The secret is on line 9; lines 2-4 hold none, and the read is answered all the same: a
    // re-attachment would show the file from its start.
    assert_eq!(
        shown(Some(2), Some(3)),
        format!(
            "{READ_IN_PLACE}\n{p}: lines 2-4 of 10:\n2\tline 2\n3\tline 3\n4\tline 4\n\
             [lines 5-10 not shown: read on with offset=5]"
        )
    );
    assert_eq!(
        shown(Some(0), Some(1)),
        shown(Some(1), Some(1)),
        "offset 0 is line 1"
    );
    assert!(shown(Some(9), None).contains("9\tAPI_KEY=[REDACTED]\n10\t\n"));
    assert_eq!(
        shown(Some(11), None),
        format!("{READ_IN_PLACE}\n{p}: the file has 10 lines, fewer than the offset 11.")
    );
    // Through the hook: Claude Code's `offset` and `limit`.
    let ctx = context(dir.path(), Some("claude"));
    let reason = answer_secret_reads(&read_call(&path, json!({"offset": 2, "limit": 3})), &ctx)
        .and_then(ToolCallEventResult::into_block_reason);
    assert_eq!(reason, Some(shown(Some(2), Some(3))));
}

#[test]
fn a_long_file_is_shown_up_to_the_default_lines_and_the_byte_limit_with_the_offset_to_read_on() {
    let dir = tempfile::tempdir().unwrap();
    let text = secret_line() + "\n" + &"x\n".repeat(2500);
    let path = write(dir.path(), "many.txt", text);
    let reason = denied(&path, Lines::default());
    assert!(
        reason.contains(&format!("lines 1-{DEFAULT_LINES} of 2502:")),
        "{}",
        &reason[..400]
    );
    assert!(reason.ends_with("[lines 2001-2502 not shown: read on with offset=2001]"));
    // Long lines: cut at the byte limit, and a single line longer than it is cut itself.
    let wide = "y".repeat(SHOWN_LIMIT / 3);
    let path = write(
        dir.path(),
        "wide.txt",
        format!("{}\n{wide}\n{wide}\n{wide}\n", secret_line()),
    );
    let reason = denied(&path, Lines::default());
    assert!(reason.contains("lines 1-3 of 5:") && reason.ends_with("read on with offset=4]"));
    let path = write(
        dir.path(),
        "one.txt",
        format!("{} {}\n", secret_line(), "z".repeat(SHOWN_LIMIT * 2)),
    );
    let reason = denied(&path, Lines::default());
    assert!(reason.len() < SHOWN_LIMIT + 1000 && reason.contains("[the line is cut here]"));
    assert!(!reason.contains(SECRET));
}

#[test]
fn images_pdfs_large_missing_files_and_directories_are_left_to_read() {
    let dir = tempfile::tempdir().unwrap();
    let secret = secret_line();
    let control = write(dir.path(), "control.txt", &secret);
    assert!(denied(&control, Lines::default()).contains("API_KEY=[REDACTED]"));
    let png = [b"\x89PNG\r\n\x1a\n".as_slice(), secret.as_bytes()].concat();
    for name in ["shot.png", "shot.JPG", "doc.pdf", "shot"] {
        let path = write(dir.path(), name, &png);
        assert_eq!(
            secret_files::answer_read(&path, Lines::default()),
            None,
            "{name}"
        );
    }
    let big = "a".repeat(usize::try_from(SCAN_LIMIT).unwrap()) + &secret;
    let path = write(dir.path(), "big.txt", big);
    assert_eq!(
        secret_files::answer_read(&path, Lines::default()),
        None,
        "larger than the scan limit"
    );
    assert_eq!(
        secret_files::answer_read(&dir.path().join("missing.txt"), Lines::default()),
        None
    );
    assert_eq!(
        secret_files::answer_read(dir.path(), Lines::default()),
        None
    );
}

#[test]
fn a_file_that_cannot_be_checked_is_denied_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    assert_eq!(
        denied(&socket, Lines::default()),
        format!("{UNCHECKED} {}: it is not a regular file", socket.display())
    );
    // Unreadable (not for root, who reads it anyway).
    use std::os::unix::fs::PermissionsExt as _;
    let locked = write(dir.path(), "locked.txt", secret_line());
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_err() {
        assert!(denied(&locked, Lines::default()).starts_with(UNCHECKED));
    }
}

#[test]
fn a_notebook_with_a_secret_comes_as_its_redacted_cells_and_images_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = json!({
        "cells": [
            {"cell_type": "markdown", "id": "m1", "source": ["# Setup\n"]},
            {"cell_type": "code", "id": "c1", "source": ["cfg = {\"token\": \"abc123\"}\n"],
             "outputs": [
                {"output_type": "stream", "name": "stdout", "text": [secret_line() + "\n"]},
                {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}}
             ]}
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    });
    let path = write(dir.path(), "demo.ipynb", notebook.to_string());
    let reason = denied(
        &path,
        Lines {
            offset: Some(5),
            limit: Some(1),
        },
    );
    assert_eq!(
        reason,
        format!(
            "{READ_IN_PLACE}\n{}: its cells:\n\
             <cell id=\"m1\"><cell_type>markdown</cell_type># Setup\n</cell id=\"m1\">\n\
             <cell id=\"c1\">cfg = {{\"token\": \"[REDACTED]\"}}\n</cell id=\"c1\">\n\
             <output>API_KEY=[REDACTED]\n</output>\n\
             <output><Figure>\n[image/png output, not shown]\n</output>\n",
            path.display()
        ),
        "the JSON-escaped \"token\" is found in the cell's text; offset and limit do not apply"
    );
    let clean =
        json!({"cells": [{"cell_type": "code", "id": "c1", "source": "print(1)", "outputs": []}]});
    let path = write(dir.path(), "clean.ipynb", clean.to_string());
    assert_eq!(secret_files::answer_read(&path, Lines::default()), None);
}

#[test]
fn utf16_text_is_checked_as_read_decodes_it_and_a_binary_file_is_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("name=demo\r\n{}\r\n", secret_line());
    let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    for (name, bytes) in [
        ("bom.txt", [b"\xff\xfe".as_slice(), &utf16].concat()),
        ("nobom.txt", utf16.clone()),
    ] {
        let path = write(dir.path(), name, bytes);
        let reason = denied(&path, Lines::default());
        assert!(
            reason.ends_with("1\tname=demo\n2\tAPI_KEY=[REDACTED]\n3\t\n"),
            "{name}: {reason}"
        );
    }
    let binary = [
        b"\x7fELF\x02\x01\x01\0\0\0\0".as_slice(),
        secret_line().as_bytes(),
        b"\0\x01",
    ]
    .concat();
    let path = write(dir.path(), "tool.bin", binary);
    assert_eq!(
        denied(&path, Lines::default()),
        format!("{BINARY} {}", path.display())
    );
}
