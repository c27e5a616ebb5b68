//! End-to-end tests of `hooks run`, through the built binary (no terminal: stdin is null and
//! stdout a pipe, so hooks see no UI and the transcript has no colour).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("hooks-bin is inside the workspace")
        .to_path_buf()
}

/// `hooks ARGS` in `dir`, with a private HOME so no user-level hook files are discovered.
fn hooks(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("the hooks binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A temporary project holding a copy of the quickstart script and the file it reads.
fn quickstart_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = dir.path().join("examples/sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    for name in ["quickstart.jsonl", "demo.env"] {
        std::fs::copy(
            workspace_root().join("examples/sessions").join(name),
            sessions.join(name),
        )
        .expect("copy");
    }
    dir
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("session dir exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read session")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each session line is JSON"))
        .collect()
}

#[test]
fn quickstart_transcript_and_session_files() {
    let project = quickstart_project();
    let home = tempfile::tempdir().expect("home");
    let out = hooks(
        project.path(),
        home.path(),
        &["run", "examples/sessions/quickstart.jsonl"],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(!stdout.contains('\x1b'), "no colour when piped: {stdout}");

    // The transcript shows each example at work, in order.
    let expected = [
        "quickstart.jsonl:8  tool bash {\"command\":\"rm -rf .hooks/quickstart-scratch\"}",
        "  ✗ blocked: rm -rf blocked (no UI)",
        "quickstart.jsonl:11  tool read {\"path\":\"examples/sessions/demo.env\"}",
        "  status  tools run: 1 · last: read ✓",
        "  ✓ ok (output changed by hooks)",
        "    │ API_KEY=[REDACTED]",
        "  [debug] read call_11 returned",
        "  context  5 of 6 messages sent to the model (filtered by hooks: custom:debug-only)",
        "  notify (warning)  compaction held: remove .hooks/hold-compaction to allow it",
        "  ✗ compaction cancelled by hooks",
        "  ✓ compacted",
        "quickstart.jsonl:22  command /handoff",
        "  ✓ new session .hooks/sessions/",
        "    parent .hooks/sessions/",
        "  ✓ /handoff done",
        "done: 10 actions; session .hooks/sessions/",
    ];
    let mut rest = stdout.as_str();
    for needle in expected {
        let at = rest
            .find(needle)
            .unwrap_or_else(|| panic!("missing (in order) {needle:?} in:\n{stdout}"));
        rest = &rest[at + needle.len()..];
    }
    assert!(!stdout.contains("demo-0000-not-a-real-key"), "{stdout}");

    // The default session directory is git-ignored from the inside.
    let hooks_dir = project.path().join(".hooks");
    assert_eq!(
        std::fs::read_to_string(hooks_dir.join(".gitignore")).expect("gitignore"),
        "# Written by `hooks run`: session files stay out of git.\n*\n"
    );
    assert!(!hooks_dir.join("hold-compaction").exists());

    // Two session files: the first, and the handoff's, whose parent is the first.
    let files = session_files(&hooks_dir.join("sessions"));
    assert_eq!(files.len(), 2, "{files:?}");
    let (first, second) = (lines(&files[0]), lines(&files[1]));
    assert_eq!(first[0]["type"], "session");
    assert_eq!(
        second[0]["parentSession"],
        files[0].to_string_lossy().as_ref()
    );
    assert_eq!(second[1]["type"], "message");
    assert_eq!(
        second[1]["message"]["content"][0]["text"],
        "Continue from prior session summary."
    );

    let first_text = std::fs::read_to_string(&files[0]).expect("read");
    assert!(!first_text.contains("demo-0000-not-a-real-key"));
    let types: Vec<&str> = first.iter().filter_map(|l| l["type"].as_str()).collect();
    assert!(types.contains(&"compaction"), "{types:?}");
    let read_result = first
        .iter()
        .find(|l| l["message"]["role"] == "toolResult" && l["message"]["toolName"] == "read")
        .expect("the read result is in the session");
    assert!(
        read_result["message"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("API_KEY=[REDACTED]"))
    );
    let blocked = first
        .iter()
        .find(|l| l["message"]["role"] == "toolResult" && l["message"]["toolName"] == "bash")
        .expect("the blocked call is in the session");
    assert_eq!(blocked["message"]["isError"], true);
    assert!(
        first
            .iter()
            .any(|l| l["type"] == "custom_message" && l["customType"] == "debug-only"),
        "the debug notes are kept in the session"
    );
}

#[test]
fn quickstart_runs_in_the_repository_root_and_leaves_nothing_for_git() {
    let root = workspace_root();
    let home = tempfile::tempdir().expect("home");
    let out = hooks(
        &root,
        home.path(),
        &["run", "examples/sessions/quickstart.jsonl"],
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("API_KEY=[REDACTED]"));
    let git = Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            ".hooks",
        ])
        .current_dir(&root)
        .output();
    if let Ok(git) = git
        && git.status.success()
    {
        assert_eq!(text(&git.stdout), "", "hooks run left files for git");
    }
}

#[test]
fn json_output_is_one_object_per_event_and_result() {
    let project = quickstart_project();
    let home = tempfile::tempdir().expect("home");
    let out = hooks(
        project.path(),
        home.path(),
        &[
            "run",
            "examples/sessions/quickstart.jsonl",
            "--json",
            "--session-dir",
            "s",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    assert_eq!(records[0]["type"], "start");
    assert_eq!(records[0]["hasUi"], false);
    assert!(
        records[0]["sessionFile"]
            .as_str()
            .is_some_and(|f| f.contains("/s/"))
    );
    assert_eq!(records.last().expect("records")["type"], "end");

    let events: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "event")
        .filter_map(|r| r["event"].as_str())
        .collect();
    assert_eq!(events.first(), Some(&"session_start"));
    assert_eq!(events.last(), Some(&"session_shutdown"));
    let first_run: Vec<&str> = events[1..7].to_vec();
    assert_eq!(
        first_run,
        [
            "before_agent_start",
            "agent_start",
            "turn_start",
            "context",
            "tool_call",
            "turn_end"
        ]
    );

    let blocked = records
        .iter()
        .find(|r| r["type"] == "tool_result" && r["status"] == "blocked")
        .expect("a blocked call");
    assert_eq!(blocked["line"], 8);
    assert_eq!(blocked["reason"], "rm -rf blocked (no UI)");
    let read = records
        .iter()
        .find(|r| r["type"] == "tool_result" && r["tool"] == "read")
        .expect("the read");
    assert_eq!(read["changedByHooks"], true);
    assert!(
        read["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("API_KEY=[REDACTED]"))
    );
    // The event carries what the tool returned, before the hooks redacted it.
    let raw = records
        .iter()
        .find(|r| r["type"] == "event" && r["event"] == "tool_result" && r["line"] == 11)
        .expect("the tool_result event");
    assert!(
        raw["payload"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("demo-0000"))
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "context" && r["removed"][0] == "custom:debug-only")
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "status" && r["text"] == "tools run: 1 · last: read ✓")
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "compaction" && r["cancelled"] == true)
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "session" && r["change"] == "new")
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "command" && r["name"] == "handoff" && r["status"] == "ok")
    );
    let compact_result = records
        .iter()
        .find(|r| r["type"] == "result" && r["event"] == "session_before_compact")
        .expect("the cancel result");
    assert_eq!(compact_result["result"]["cancel"], true);
}

/// Runs a script (in a fresh project) that must be rejected before anything runs.
fn rejected(script: &str) -> (String, tempfile::TempDir) {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("s.jsonl"), script).expect("write script");
    let out = hooks(project.path(), project.path(), &["run", "s.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout), "", "nothing ran");
    assert!(
        !project.path().join(".hooks").exists(),
        "no session was created"
    );
    (text(&out.stderr), project)
}

#[test]
fn malformed_scripts_stop_with_file_line_column_before_anything_runs() {
    let first = r#"{"tool": "write", "input": {"path": "ran.txt", "content": "x"}}"#;
    let cases = [
        (
            "{\"prompt\": \"a\"",
            "s.jsonl:2:14: EOF while parsing an object",
        ),
        ("{\"tool\" \"bash\"}", "s.jsonl:2:9: expected `:`"),
        (
            "{\"say\": \"hi\"}",
            "s.jsonl:2:2: unknown action: expected one of the keys `prompt`, `tool`, `command`, `compact`, `switch`, `branch`, `tree`, found the key `say`",
        ),
        (
            "{\"tool\": 42}",
            "s.jsonl:2:11: invalid type: integer `42`, expected a string",
        ),
        (
            "{\"tool\": \"bash\", \"input\": {\"command\": [\"ls\"]}}",
            "s.jsonl:2:27: invalid input for tool `bash`: invalid type: sequence, expected a string",
        ),
        (
            "{\"tool\": \"read\", \"input\": {}}",
            "s.jsonl:2:27: invalid input for tool `read`: missing field `path`",
        ),
        (
            "{\"compact\": {\"summary\": 3}}",
            "s.jsonl:2:25: invalid type: integer `3`, expected a string",
        ),
        (
            "{\"command\": \"/nope\"}",
            "s.jsonl:2:13: unknown command /nope: expected one of the registered commands (/handoff)",
        ),
    ];
    for (line, expected) in cases {
        let (stderr, project) = rejected(&format!("{first}\n{line}\n"));
        assert!(
            stderr.starts_with(&format!("{expected}\n")),
            "{line}:\n{stderr}"
        );
        assert!(
            stderr.contains("hooks run: invalid script (1 error); nothing was run"),
            "{stderr}"
        );
        assert!(
            !project.path().join("ran.txt").exists(),
            "the first line did not run"
        );
    }
}

#[test]
fn every_malformed_line_is_reported() {
    let (stderr, _project) = rejected("{\"prompt\": 1}\n\n# fine\n[]\n");
    let reported: Vec<&str> = stderr.lines().collect();
    assert_eq!(reported.len(), 3, "{stderr}");
    assert!(
        reported[0].starts_with("s.jsonl:1:12: invalid type"),
        "{stderr}"
    );
    assert!(
        reported[1].starts_with("s.jsonl:4:1: expected a JSON object"),
        "{stderr}"
    );
    assert_eq!(
        reported[2],
        "hooks run: invalid script (2 errors); nothing was run"
    );
}

#[test]
fn tools_are_confined_to_the_working_directory() {
    let outer = tempfile::tempdir().expect("tempdir");
    let project = outer.path().join("project");
    std::fs::create_dir(&project).expect("mkdir");
    std::fs::write(outer.path().join("secret.txt"), "secret").expect("write");
    let script = [
        r#"{"tool": "read", "input": {"path": "../secret.txt"}}"#,
        r#"{"tool": "write", "input": {"path": "../planted.txt", "content": "x"}}"#,
        r#"{"tool": "edit", "input": {"path": "../secret.txt", "oldText": "secret", "newText": "gone"}}"#,
        r#"{"tool": "ls", "input": {"path": "/"}}"#,
        r#"{"tool": "write", "input": {"path": "inside/ok.txt", "content": "fine"}}"#,
    ]
    .join("\n");
    std::fs::write(project.join("s.jsonl"), script).expect("script");
    let out = hooks(&project, outer.path(), &["run", "s.jsonl", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .filter(|r| r["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 5);
    for r in &results[..4] {
        assert_eq!(r["status"], "error", "{r}");
        assert!(
            r["reason"]
                .as_str()
                .is_some_and(|t| t.contains("is outside the working directory")),
            "{r}"
        );
    }
    assert_eq!(results[4]["status"], "ok");
    assert_eq!(
        std::fs::read_to_string(outer.path().join("secret.txt")).expect("read"),
        "secret"
    );
    assert!(!outer.path().join("planted.txt").exists());
    assert!(project.join("inside/ok.txt").exists());
}

#[test]
fn terminal_control_sequences_from_files_are_not_printed() {
    let project = tempfile::tempdir().expect("tempdir");
    let script = [
        r#"{"tool": "write", "input": {"path": "evil.txt", "content": "a\u001b[2J\u001b]0;pwned\u0007b\rc"}}"#,
        r#"{"tool": "read", "input": {"path": "evil.txt"}}"#,
    ]
    .join("\n");
    std::fs::write(project.path().join("s.jsonl"), script).expect("script");
    let out = hooks(project.path(), project.path(), &["run", "s.jsonl"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains('\x1b') && !stdout.contains('\x07') && !stdout.contains('\r'));
    assert!(stdout.contains("    │ ab c"), "{stdout}");
}

#[test]
fn session_changes_branch_switch_and_tree() {
    let project = tempfile::tempdir().expect("tempdir");
    let script = [
        r#"{"prompt": "one"}"#,
        r#"{"prompt": "two"}"#,
        r#"{"tree": {"target": 0, "summarize": true}}"#,
        r#"{"branch": {"entry": 2}}"#,
        r#"{"switch": {"reason": "fork"}}"#,
        r#"{"switch": {"reason": "new"}}"#,
        r#"{"branch": {"entry": "no-such-id"}}"#,
    ]
    .join("\n");
    std::fs::write(project.path().join("s.jsonl"), script).expect("script");
    let out = hooks(
        project.path(),
        project.path(),
        &["run", "s.jsonl", "--json"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the unknown entry fails the run"
    );
    let records: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .collect();
    let changes: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "session")
        .filter_map(|r| r["change"].as_str())
        .collect();
    assert_eq!(changes, ["branch", "fork", "new"]);
    let tree = records.iter().find(|r| r["type"] == "tree").expect("tree");
    assert_eq!(tree["cancelled"], false);
    assert!(tree["summaryEntryId"].is_string());
    let error = records
        .iter()
        .find(|r| r["type"] == "error")
        .expect("error");
    assert_eq!(error["line"], 7);
    assert_eq!(
        error["message"],
        "the current session has no entry with id no-such-id"
    );
    let events: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "event")
        .filter_map(|r| r["event"].as_str())
        .collect();
    for pair in [
        ["session_before_tree", "session_tree"],
        ["session_before_branch", "session_branch"],
        ["session_before_switch", "session_switch"],
    ] {
        let a = events.iter().position(|e| *e == pair[0]).expect(pair[0]);
        let b = events.iter().position(|e| *e == pair[1]).expect(pair[1]);
        assert!(a < b, "{pair:?} in {events:?}");
    }
    // The branch kept the conversation before the chosen entry, with the old file as parent.
    let files = session_files(&project.path().join(".hooks/sessions"));
    assert_eq!(files.len(), 4);
}

#[test]
fn run_help_documents_the_script_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = hooks(dir.path(), dir.path(), &["run", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for needle in [
        "{\"tool\": \"bash\", \"input\": {...}}",
        "--session-dir",
        "--no-ui",
        "Exit status",
    ] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
}
