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
    Command::new(env!("CARGO_BIN_EXE_hooks-examples"))
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
fn quickstart_runs_in_the_repository_root_and_leaves_nothing_for_git_in_a_work_tree() {
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
    // In a git work tree of its own (the checkout this runs in need not be one), the session
    // files are ignored: git has nothing to commit after the run.
    let project = quickstart_project();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(project.path())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    git(&["init", "-q"]);
    git(&["add", "examples"]);
    let out = hooks(
        project.path(),
        home.path(),
        &["run", "examples/sessions/quickstart.jsonl"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        project.path().join(".hooks/sessions").is_dir(),
        "the session was written"
    );
    let status = git(&["status", "--porcelain", "--untracked-files=all"]);
    let left: Vec<&str> = status.lines().filter(|l| !l.starts_with("A ")).collect();
    assert_eq!(left, Vec::<&str>::new(), "hooks run left files for git");
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
fn every_problem_is_listed_unknown_commands_included() {
    // The example of the README.
    let (stderr, _project) = rejected(
        "{\"prompt\": \"hi\"}\n{\"tool\": \"bash\", \"input\": {}}\n{\"tool\": \"ls\"}\n{\"command\": \"/nope\"}\n",
    );
    assert_eq!(
        stderr,
        "s.jsonl:2:27: invalid input for tool `bash`: missing field `command`\n\
         s.jsonl:4:13: unknown command /nope: expected one of the registered commands (/handoff)\n\
         hooks run: invalid script (2 errors); nothing was run\n"
    );
}

#[test]
fn a_bash_timeout_out_of_range_is_rejected_with_the_script() {
    let (stderr, _project) =
        rejected("{\"tool\": \"bash\", \"input\": {\"command\": \"echo\", \"timeout\": 1e20}}\n");
    assert_eq!(
        stderr,
        "s.jsonl:1:27: invalid input for tool `bash`: invalid timeout 1e+20: expected a number of seconds, at least 1e-9 and below 2^64\n\
         hooks run: invalid script (1 error); nothing was run\n"
    );
}

#[test]
fn an_invalid_grep_pattern_is_one_line() {
    let (stderr, _project) = rejected("{\"tool\": \"grep\", \"input\": {\"pattern\": \"(\"}}\n");
    assert_eq!(
        stderr,
        "s.jsonl:1:27: invalid input for tool `grep`: invalid pattern \"(\": unclosed group\n\
         hooks run: invalid script (1 error); nothing was run\n"
    );
}

#[test]
fn a_session_dir_or_cwd_that_is_not_a_directory_is_invalid_usage() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(project.path().join("s.jsonl"), "\"hi\"\n").expect("write script");
    std::fs::write(project.path().join("file"), "").expect("write file");
    let file = project
        .path()
        .canonicalize()
        .expect("canonical")
        .join("file");
    for (args, expected) in [
        (
            ["--session-dir", "file"],
            format!("cannot use {} as the session directory", file.display()),
        ),
        (
            ["--cwd", "file"],
            "cannot use file as the working directory".to_owned(),
        ),
    ] {
        let out = hooks(
            project.path(),
            project.path(),
            &["run", "s.jsonl", args[0], args[1]],
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("hooks run: {expected}: it is not a directory\n")
        );
        assert_eq!(text(&out.stdout), "", "nothing ran");
    }
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A project cannot make `hooks run` write outside `--cwd` by shipping `.hooks` or
/// `.hooks/sessions` as a symbolic link, or a dangling `.hooks/.gitignore` link: the default
/// session directory is refused when it is a link (exit 2, nothing ran), and the `.gitignore`
/// is only created, never written through what is there. A `--session-dir` given on the
/// command line may be a link: that is the user's choice.
#[cfg(unix)]
#[test]
fn the_default_session_dir_never_follows_a_link_the_project_ships() {
    use std::os::unix::fs::symlink;

    let outer = tempfile::tempdir().expect("tempdir");
    let outer_path = outer.path().canonicalize().expect("canonical");
    let (project, outside) = (outer_path.join("project"), outer_path.join("outside"));
    std::fs::create_dir(&project).expect("mkdir project");
    std::fs::create_dir(&outside).expect("mkdir outside");
    std::fs::write(project.join("s.jsonl"), "\"hi\"\n").expect("script");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "s.jsonl"];
        args.extend_from_slice(extra);
        hooks(&project, &outer_path, &args)
    };
    let refused = |link: &str, used_as: &str| {
        format!(
            "hooks run: cannot use {} as {used_as}: it is a symbolic link, which the default \
             session directory does not follow (give --session-dir DIR to write sessions \
             elsewhere)\n",
            project.join(link).display()
        )
    };

    // `.hooks` itself a link, to a directory or to nowhere.
    for target in [outside.clone(), outer_path.join("nowhere")] {
        symlink(&target, project.join(".hooks")).expect("symlink");
        let out = run(&[]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            refused(".hooks", "the parent of the default session directory")
        );
        assert_eq!(text(&out.stdout), "", "nothing ran");
        assert_eq!(names(&outside), Vec::<String>::new());
        assert!(!target.exists() || target == outside);
        std::fs::remove_file(project.join(".hooks")).expect("unlink");
    }

    // `.hooks/sessions` a link.
    std::fs::create_dir(project.join(".hooks")).expect("mkdir .hooks");
    symlink(&outside, project.join(".hooks/sessions")).expect("symlink");
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        refused(".hooks/sessions", "the default session directory")
    );
    assert_eq!(names(&outside), Vec::<String>::new());
    std::fs::remove_file(project.join(".hooks/sessions")).expect("unlink");

    // A dangling `.hooks/.gitignore` link: left as it is, nothing is created at its target.
    std::fs::remove_file(project.join(".hooks/.gitignore")).ok();
    symlink(outside.join("planted"), project.join(".hooks/.gitignore")).expect("symlink");
    let out = run(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(names(&outside), Vec::<String>::new());
    assert!(
        std::fs::symlink_metadata(project.join(".hooks/.gitignore"))
            .expect("still there")
            .is_symlink()
    );
    assert_eq!(session_files(&project.join(".hooks/sessions")).len(), 1);

    // The user's own `--session-dir` may be a link.
    symlink(&outside, project.join("mine")).expect("symlink");
    let out = run(&["--session-dir", "mine"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(session_files(&outside).len(), 1);
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
    let start = records
        .iter()
        .find(|r| r["type"] == "start")
        .expect("start");
    let first_file = start["sessionFile"].as_str().expect("session file");
    let first = lines(Path::new(first_file));
    let branched = files
        .iter()
        .map(|f| lines(f))
        .find(|l| l[0]["parentSession"] == first_file && l.len() == 3)
        .expect("the branch's file: header and the two entries before entry #2");
    // Entries #0 and #1 (the prompt "one" and its reply), copied with their ids and parentIds;
    // the chosen entry (#2, the prompt "two") is not copied.
    for i in 1..3 {
        assert_eq!(branched[i]["id"], first[i]["id"]);
        assert_eq!(branched[i]["parentId"], first[i]["parentId"]);
        assert_eq!(branched[i]["message"], first[i]["message"]);
    }
}

/// The `context` event payload sent for script line `line`, as text.
fn context_payload(records: &[Value], line: u64) -> String {
    records
        .iter()
        .find(|r| r["type"] == "event" && r["event"] == "context" && r["line"] == line)
        .map(|r| r["payload"]["messages"].to_string())
        .unwrap_or_else(|| panic!("no context event for line {line}"))
}

fn run_json(project: &Path, script: &[&str]) -> (Output, Vec<Value>) {
    std::fs::write(project.join("s.jsonl"), script.join("\n")).expect("script");
    let out = hooks(project, project, &["run", "s.jsonl", "--json"]);
    let records = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .collect();
    (out, records)
}

#[test]
fn json_records_of_a_run_carry_the_lines_of_its_block() {
    // The run of line 1 (with its tool call on line 2) closes when line 3 starts: its last
    // turn and `agent_end` belong to lines 1-2, not to line 3, which starts with its action.
    let project = tempfile::tempdir().expect("tempdir");
    let (out, records) = run_json(
        project.path(),
        &[
            r#"{"prompt": "first", "reply": "r1"}"#,
            r#"{"tool": "bash", "input": {"command": "echo hi"}}"#,
            r#"{"prompt": "second"}"#,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first_of_line_3 = records
        .iter()
        .find(|r| r["line"] == 3)
        .expect("records of line 3");
    assert_eq!(first_of_line_3["type"], "action", "{records:?}");
    let agent_end = records
        .iter()
        .find(|r| r["type"] == "event" && r["event"] == "agent_end")
        .expect("agent_end");
    assert_eq!(agent_end["line"], 2, "{records:?}");
}

#[test]
fn a_compaction_sees_the_previous_one_and_keeps_its_summary() {
    // `session_before_compact` carries the branch's last compaction (`previousSummary`), and
    // the built-in summary keeps the earlier one's text instead of dropping it.
    let project = tempfile::tempdir().expect("tempdir");
    let (out, records) = run_json(
        project.path(),
        &[
            r#"{"prompt": "one", "reply": "r1"}"#,
            r#"{"prompt": "two", "reply": "r2"}"#,
            r#"{"compact": {"summary": "S1"}}"#,
            r#"{"prompt": "three", "reply": "r3"}"#,
            r#"{"compact": {"summary": "S2"}}"#,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = event_payload(&records, "session_before_compact", 3);
    assert!(first["preparation"].get("previousSummary").is_none());
    let second = event_payload(&records, "session_before_compact", 5);
    assert_eq!(second["preparation"]["previousSummary"], "S1", "{second}");
    let compactions = records_of(&records, "compaction");
    let last = compactions.last().expect("compaction records");
    assert_eq!(last["summary"], "S2\n\nPrevious summary:\nS1", "{last}");
}

#[test]
fn a_script_that_is_not_a_regular_file_is_refused() {
    // A FIFO or a device would block or never end (`/dev/zero` reports no size).
    let project = tempfile::tempdir().expect("tempdir");
    let out = hooks(project.path(), project.path(), &["run", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("not a regular file"),
        "{}",
        text(&out.stderr)
    );
}

fn records_of<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

fn event_payload<'a>(records: &'a [Value], event: &str, line: u64) -> &'a Value {
    records
        .iter()
        .find(|r| r["type"] == "event" && r["event"] == event && r["line"] == line)
        .map(|r| &r["payload"])
        .unwrap_or_else(|| panic!("no {event} event for line {line}"))
}

#[test]
fn tree_navigation_moves_the_leaf_and_later_prompts_see_only_that_branch() {
    let project = tempfile::tempdir().expect("tempdir");
    let (out, records) = run_json(
        project.path(),
        &[
            r#"{"prompt": "one", "reply": "r1"}"#,
            r#"{"prompt": "two", "reply": "r2"}"#,
            r#"{"tree": {"target": 1}}"#,
            r#"{"prompt": "three", "reply": "r3"}"#,
            r#"{"tree": {"target": 3, "summarize": true}}"#,
            r#"{"prompt": "four", "reply": "r4"}"#,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The session file: entries in the order written, parentIds forming the tree
    //   e0 one ─ e1 r1 ─┬─ e2 two ─ e3 r2 ─ e6 summary ─ e7 four ─ e8 r4
    //                   └─ e4 three ─ e5 r3
    let start = records_of(&records, "start")[0];
    let file = lines(Path::new(start["sessionFile"].as_str().expect("file")));
    assert_eq!(file.len(), 10, "header and nine entries");
    let e: Vec<&str> = file[1..]
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    let parents: Vec<Value> = file[1..].iter().map(|l| l["parentId"].clone()).collect();
    let expected: Vec<Value> = [
        None,
        Some(e[0]),
        Some(e[1]),
        Some(e[2]),
        Some(e[1]),
        Some(e[4]),
        Some(e[3]),
        Some(e[6]),
        Some(e[7]),
    ]
    .iter()
    .map(|p| p.map_or(Value::Null, Value::from))
    .collect();
    assert_eq!(parents, expected);
    assert_eq!(file[5]["message"]["content"], "three");
    assert_eq!(file[7]["type"], "branch_summary");
    assert_eq!(
        file[7]["fromId"], e[3],
        "upstream: fromId is the branch point"
    );
    assert_eq!(file[7]["fromHook"], false);
    assert_eq!(file[8]["message"]["content"], "four");

    // What the model sees follows the branch: "three" comes after "one" only, "four" after
    // "two" and the summary of the branch left behind.
    let counts: Vec<u64> = records_of(&records, "context")
        .iter()
        .map(|r| r["before"].as_u64().expect("count"))
        .collect();
    assert_eq!(counts, [1, 3, 3, 6]);
    let at_three = context_payload(&records, 4);
    assert!(
        at_three.contains("\"three\"") && at_three.contains("r1"),
        "{at_three}"
    );
    assert!(
        !at_three.contains("\"two\"") && !at_three.contains("r2"),
        "{at_three}"
    );
    let at_four = context_payload(&records, 6);
    assert!(
        at_four.contains("\"two\"") && at_four.contains("branchSummary"),
        "{at_four}"
    );
    assert!(
        !at_four.contains("\"three\"") && !at_four.contains("r3"),
        "{at_four}"
    );

    // The preparation, the transcript records and session_tree describe the moves.
    let prep = &event_payload(&records, "session_before_tree", 3)["preparation"];
    assert_eq!(
        (
            &prep["targetId"],
            &prep["oldLeafId"],
            &prep["commonAncestorId"]
        ),
        (&Value::from(e[1]), &Value::from(e[3]), &Value::from(e[1]))
    );
    let summarized: Vec<&Value> = prep["entriesToSummarize"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|x| &x["id"])
        .collect();
    assert_eq!(summarized, [e[2], e[3]]);
    assert_eq!(prep["userWantsSummary"], false);
    let prep = &event_payload(&records, "session_before_tree", 5)["preparation"];
    assert_eq!(prep["commonAncestorId"], e[1]);
    let summarized: Vec<&Value> = prep["entriesToSummarize"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|x| &x["id"])
        .collect();
    assert_eq!(summarized, [e[4], e[5]]);

    let trees = records_of(&records, "tree");
    assert_eq!(trees.len(), 2);
    assert_eq!(
        (
            &trees[0]["oldLeafId"],
            &trees[0]["targetId"],
            &trees[0]["newLeafId"]
        ),
        (&Value::from(e[3]), &Value::from(e[1]), &Value::from(e[1]))
    );
    assert_eq!(trees[0]["summaryEntryId"], Value::Null);
    assert_eq!(
        (
            &trees[1]["oldLeafId"],
            &trees[1]["targetId"],
            &trees[1]["newLeafId"]
        ),
        (&Value::from(e[5]), &Value::from(e[3]), &Value::from(e[6]))
    );
    assert_eq!(trees[1]["summaryEntryId"], e[6]);
    let after = event_payload(&records, "session_tree", 3);
    assert_eq!(
        (&after["newLeafId"], &after["oldLeafId"]),
        (&Value::from(e[1]), &Value::from(e[3]))
    );
    assert!(after.get("summaryEntry").is_none() && after.get("fromExtension").is_none());
    let after = event_payload(&records, "session_tree", 5);
    assert_eq!(after["newLeafId"], e[6]);
    assert_eq!(after["summaryEntry"]["id"], e[6]);
    assert_eq!(after["summaryEntry"]["parentId"], e[3]);
    assert_eq!(after["fromExtension"], false);
}

#[test]
fn tree_navigation_to_the_current_leaf_or_an_unknown_entry_moves_nothing() {
    let project = tempfile::tempdir().expect("tempdir");
    let (out, records) = run_json(
        project.path(),
        &[
            r#"{"prompt": "one", "reply": "r1"}"#,
            r#"{"tree": {"target": -1, "summarize": true}}"#,
            r#"{"tree": {"target": "nope"}}"#,
            r#"{"prompt": "two"}"#,
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the unknown entry fails the run"
    );
    let events: Vec<&str> = records_of(&records, "event")
        .iter()
        .filter_map(|r| r["event"].as_str())
        .collect();
    assert!(!events.contains(&"session_before_tree"), "{events:?}");
    let tree = records_of(&records, "tree")[0];
    assert_eq!(tree["oldLeafId"], tree["newLeafId"]);
    let start = records_of(&records, "start")[0];
    let file = lines(Path::new(start["sessionFile"].as_str().expect("file")));
    assert_eq!(file.len(), 5, "no summary entry: {file:?}");
    assert_eq!(file[3]["parentId"], file[2]["id"]);
}

/// A hook compiled into this test binary (id `run_cli::tree_guard`), used by
/// [`run_child`]: what it does is read from `<cwd>/.tree-guard` (`cancel`: cancel every tree
/// navigation; `summary`: supply a summary; `wait`: create `.tree-started`, then wait until
/// `.tree-release` exists).
mod tree_guard {
    use hookwright::events::TreeSummary;
    use hookwright::prelude::*;

    #[hook(event = "session_before_tree")]
    pub(crate) async fn guard(
        event: &SessionBeforeTreeEvent,
        ctx: &HookContext,
    ) -> Option<SessionBeforeTreeResult> {
        let mode = std::fs::read_to_string(ctx.cwd().join(".tree-guard")).ok()?;
        match mode.trim() {
            "cancel" => Some(SessionBeforeTreeResult {
                cancel: Some(true),
                ..SessionBeforeTreeResult::default()
            }),
            "summary" => Some(SessionBeforeTreeResult {
                summary: Some(TreeSummary {
                    summary: format!(
                        "hook summary of {} entries",
                        event.preparation.entries_to_summarize.len()
                    ),
                    details: Some(serde_json::json!({"by": "tree_guard"})),
                }),
                ..SessionBeforeTreeResult::default()
            }),
            "wait" => {
                std::fs::write(ctx.cwd().join(".tree-started"), "").ok()?;
                for _ in 0..1000 {
                    if ctx.cwd().join(".tree-release").exists() {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                None
            }
            _ => None,
        }
    }
}

/// Run by [`run_in_child`]: `hooks run` in this process, so the hooks of this test binary
/// ([`tree_guard`]) are the compiled-in ones.
#[test]
#[ignore = "the child process of run_in_child's tests, which run it"]
fn run_child() {
    let dir = std::env::var("HOOKS_RUN_CLI_CHILD")
        .expect("HOOKS_RUN_CLI_CHILD, set by the test that runs this child");
    let dir = PathBuf::from(dir);
    let args = hookwright_cli::run::RunArgs {
        script: dir.join("s.jsonl"),
        session_dir: Some(dir.join("sessions")),
        cwd: Some(dir.clone()),
        json: true,
        no_ui: true,
        hooks: Vec::new(),
    };
    let expected = std::env::var("HOOKS_RUN_CLI_EXIT").map_or(0, |c| c.parse().expect("a code"));
    assert_eq!(
        hookwright_cli::run::run(&args, &hookwright_cli::trust::TrustMode::Check),
        std::process::ExitCode::from(expected)
    );
}

/// A child process running [`run_child`] in `dir`, expecting the exit status `exit`.
fn child_command(dir: &Path, exit: u8) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    command
        .args([
            "run_cli::run_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .current_dir(dir)
        .env("HOOKS_RUN_CLI_CHILD", dir)
        .env("HOOKS_RUN_CLI_EXIT", exit.to_string())
        .env("HOME", dir)
        .stdin(Stdio::null());
    command
}

/// The JSON records in the stdout of [`run_child`].
fn child_records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        // The harness may print `test run_child ... ` before the first record.
        .filter_map(|l| l.find("{\"type\"").map(|at| &l[at..]))
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// Runs `script` with `.tree-guard` holding `guard`, in a child process running [`run_child`];
/// returns the JSON records and the lines of the session file.
fn run_in_child(guard: &str, script: &[&str]) -> (Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(".tree-guard"), guard).expect("guard");
    std::fs::write(dir.path().join("s.jsonl"), script.join("\n")).expect("script");
    let out = child_command(dir.path(), 0)
        .output()
        .expect("the child runs");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let records = child_records(&stdout);
    let start = records_of(&records, "start")
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no start record in:\n{stdout}"));
    assert!(
        start["hooks"]
            .as_array()
            .is_some_and(|h| h.iter().any(|id| id == "it::run_cli::tree_guard")),
        "{start}"
    );
    let file = lines(Path::new(start["sessionFile"].as_str().expect("file")));
    (records, file)
}

#[test]
fn cancelled_tree_navigation_moves_nothing() {
    let (records, file) = run_in_child(
        "cancel",
        &[
            r#"{"prompt": "one", "reply": "r1"}"#,
            r#"{"prompt": "two", "reply": "r2"}"#,
            r#"{"tree": {"target": 1, "summarize": true}}"#,
            r#"{"prompt": "three", "reply": "r3"}"#,
        ],
    );
    let tree = records_of(&records, "tree")[0];
    assert_eq!(tree["cancelled"], true);
    assert_eq!(tree["newLeafId"], tree["oldLeafId"]);
    let events: Vec<&str> = records_of(&records, "event")
        .iter()
        .filter_map(|r| r["event"].as_str())
        .collect();
    assert!(events.contains(&"session_before_tree"), "{events:?}");
    assert!(!events.contains(&"session_tree"), "{events:?}");
    // No summary entry; "three" follows "r2", and the model sees the whole conversation.
    let types: Vec<&str> = file[1..]
        .iter()
        .filter_map(|l| l["type"].as_str())
        .collect();
    assert_eq!(types, ["message"; 6]);
    assert_eq!(file[5]["message"]["content"], "three");
    assert_eq!(file[5]["parentId"], file[4]["id"]);
    let counts: Vec<u64> = records_of(&records, "context")
        .iter()
        .map(|r| r["before"].as_u64().expect("count"))
        .collect();
    assert_eq!(counts, [1, 3, 5]);
}

#[test]
fn hook_summary_is_used_only_when_a_summary_is_asked_for() {
    let (records, file) = run_in_child(
        "summary",
        &[
            r#"{"prompt": "one", "reply": "r1"}"#,
            r#"{"prompt": "two", "reply": "r2"}"#,
            r#"{"tree": {"target": 1, "summarize": true}}"#,
            r#"{"tree": {"target": 3}}"#,
        ],
    );
    // Line 3 wrote the hook's summary under entry #1; line 4 moved back without one.
    assert_eq!(file.len(), 6, "{file:?}");
    let summary = &file[5];
    assert_eq!(summary["type"], "branch_summary");
    assert_eq!(summary["parentId"], file[2]["id"]);
    assert_eq!(summary["summary"], "hook summary of 2 entries");
    assert_eq!(summary["details"]["by"], "tree_guard");
    assert_eq!(summary["fromHook"], true);
    let after = event_payload(&records, "session_tree", 3);
    assert_eq!(after["fromExtension"], true);
    assert_eq!(after["newLeafId"], summary["id"]);
    let after = event_payload(&records, "session_tree", 4);
    assert!(after.get("fromExtension").is_none(), "{after}");
    assert_eq!(after["newLeafId"], file[4]["id"]);
    assert_eq!(after["oldLeafId"], summary["id"]);
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

/// Ctrl-C: SIGINT sent to a `hooks run` child running long `bash` tool calls.
#[cfg(target_os = "linux")]
mod ctrl_c {
    use std::path::Path;
    use std::process::{Child, Command, Output, Stdio};
    use std::time::{Duration, Instant};

    use serde_json::Value;

    use super::{lines, text};

    /// A bash tool call that starts `sleep 30` in the background, writes its pid to `file` and
    /// waits for it.
    fn sleeper(file: &str) -> String {
        format!(
            r#"{{"tool": "bash", "input": {{"command": "sleep 30 & echo $! > {file}.tmp && mv {file}.tmp {file}; wait"}}}}"#
        )
    }

    fn spawn(dir: &Path, script: &[String]) -> Child {
        std::fs::write(dir.join("s.jsonl"), script.join("\n")).expect("script");
        Command::new(env!("CARGO_BIN_EXE_hooks-examples"))
            .args(["run", "s.jsonl", "--json"])
            .current_dir(dir)
            .env("HOME", dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hooks binary runs")
    }

    /// Waits until `file` (a pid written by [`sleeper`]) exists; returns the pid.
    fn wait_for_pid(dir: &Path, file: &str) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(pid) = std::fs::read_to_string(dir.join(file)) {
                return pid.trim().parse().expect("a pid");
            }
            assert!(Instant::now() < deadline, "{file} never appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until a session file under `dir` holds a tool result: the call has ended (the
    /// result is written after the call stops counting as running).
    fn wait_for_tool_result(dir: &Path) {
        let sessions = dir.join(".hooks/sessions");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let written = std::fs::read_dir(&sessions)
                .into_iter()
                .flatten()
                .any(|entry| {
                    entry.is_ok_and(|e| {
                        std::fs::read_to_string(e.path())
                            .is_ok_and(|text| text.contains("\"role\":\"toolResult\""))
                    })
                });
            if written {
                return;
            }
            assert!(Instant::now() < deadline, "no tool result was written");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn sigint(pid: u32) {
        let status = Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Whether process `pid` runs (a zombie does not count).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| !s.trim_start().starts_with('Z'))
        })
    }

    /// Waits (at most 10 s) for `pid` to be gone.
    fn assert_gone(pid: u32) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(pid) {
            assert!(Instant::now() < deadline, "process {pid} survived");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the child to exit, at most `limit`; kills it (and fails) past that.
    fn finish(child: Child, limit: Duration) -> (Output, Duration) {
        let pid = child.id();
        let started = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        match rx.recv_timeout(limit) {
            Ok(out) => (out.expect("wait"), started.elapsed()),
            Err(_) => {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
                panic!("hooks run did not exit within {limit:?} of Ctrl-C");
            }
        }
    }

    fn records(out: &Output) -> Vec<Value> {
        text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    }

    fn session_file(records: &[Value]) -> Vec<Value> {
        let start = records
            .iter()
            .find(|r| r["type"] == "start")
            .expect("start");
        // Every line parses: nothing half-written.
        lines(Path::new(start["sessionFile"].as_str().expect("file")))
    }

    #[test]
    fn ctrl_c_between_tools_stops_the_script() {
        // Prompts never wait on anything; a Ctrl-C while they run must still stop the script
        // after the current action, with `session_shutdown`, and exit 130.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut script = vec![
            r#"{"tool": "bash", "input": {"command": "echo 1 > started.tmp && mv started.tmp started"}}"#
                .to_owned(),
        ];
        script.extend((0..5000).map(|i| format!(r#""prompt {i}""#)));
        let child = spawn(dir.path(), &script);
        wait_for_pid(dir.path(), "started");
        // Not before the tool call has ended for `hooks run` too: a Ctrl-C while it still runs
        // would cancel it instead, and the script would go on.
        wait_for_tool_result(dir.path());
        sigint(child.id());
        let (out, took) = finish(child, Duration::from_secs(15));
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
        let records = records(&out);
        assert!(
            records
                .iter()
                .any(|r| r["type"] == "interrupt" && r["kind"] == "stop"),
            "{records:?}"
        );
        assert!(
            records
                .iter()
                .any(|r| r["type"] == "event" && r["event"] == "session_shutdown"),
        );
        let end = records.last().expect("records");
        assert_eq!(end["type"], "end");
        let ran = end["actions"].as_u64().expect("actions");
        assert!(ran < 5001, "the actions that ran, not the script's: {ran}");
    }

    #[test]
    fn ctrl_c_cancels_a_running_bash_tool_and_the_session_goes_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let child = spawn(
            dir.path(),
            &[
                sleeper("sleep.pid"),
                r#"{"prompt": "after", "reply": "done"}"#.to_owned(),
            ],
        );
        let sleep = wait_for_pid(dir.path(), "sleep.pid");
        sigint(child.id());
        let (out, took) = finish(child, Duration::from_secs(15));
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_gone(sleep);

        let records = records(&out);
        let interrupt = records
            .iter()
            .find(|r| r["type"] == "interrupt")
            .expect("the Ctrl-C is in the transcript");
        assert_eq!(interrupt["kind"], "cancel");
        assert!(
            interrupt["message"]
                .as_str()
                .is_some_and(|m| m.contains("bash"))
        );
        let result = records
            .iter()
            .find(|r| r["type"] == "tool_result")
            .expect("tool result");
        assert_eq!(result["status"], "cancelled");
        assert_eq!(result["reason"], "tool call cancelled");
        // The script went on: the prompt after the tool call ran.
        assert!(
            records
                .iter()
                .any(|r| r["type"] == "action" && r["text"] == "after"),
            "{records:?}"
        );
        assert_eq!(records.last().expect("records")["type"], "end");

        let file = session_file(&records);
        let tool_result = file
            .iter()
            .find(|l| l["message"]["role"] == "toolResult")
            .expect("the cancelled call's result is in the session");
        assert_eq!(tool_result["message"]["isError"], true);
        assert_eq!(
            tool_result["message"]["content"][0]["text"],
            "tool call cancelled"
        );
        assert!(file.iter().any(|l| l["message"]["content"] == "after"));
    }

    /// A first Ctrl-C cancels a file tool too: its file IO does not hold up the thread that
    /// handles Ctrl-C. Here a `grep` through 5000 hard links to a 1 MB file, which takes
    /// seconds.
    #[test]
    fn ctrl_c_cancels_a_running_file_tool() {
        use std::io::BufRead;

        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big");
        let line = format!("{}\n", "abcdefghij".repeat(10));
        std::fs::write(&big, line.repeat(10_000)).expect("write");
        std::fs::create_dir(dir.path().join("links")).expect("mkdir");
        for i in 0..5000 {
            std::fs::hard_link(&big, dir.path().join(format!("links/f{i}"))).expect("link");
        }
        let mut child = spawn(
            dir.path(),
            &[
                r#"{"tool": "grep", "input": {"pattern": "zzz", "path": "links"}}"#.to_owned(),
                r#"{"prompt": "after", "reply": "done"}"#.to_owned(),
            ],
        );
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut seen = String::new();
        while !seen.contains(r#""event":"tool_call""#) {
            assert_ne!(stdout.read_line(&mut seen).expect("read"), 0, "{seen}");
        }
        sigint(child.id());
        let rest = std::thread::spawn(move || {
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut rest).expect("read");
            rest
        });
        let (out, took) = finish(child, Duration::from_secs(15));
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let rest = rest.join().expect("reader");
        let records: Vec<Value> = rest
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        let interrupt = records
            .iter()
            .find(|r| r["type"] == "interrupt")
            .expect("the Ctrl-C is in the transcript");
        assert_eq!(interrupt["kind"], "cancel");
        let result = records
            .iter()
            .find(|r| r["type"] == "tool_result")
            .expect("tool result");
        assert_eq!(result["status"], "cancelled");
        assert!(
            records
                .iter()
                .any(|r| r["type"] == "action" && r["text"] == "after"),
            "{records:?}"
        );
    }

    #[test]
    fn a_second_ctrl_c_exits_with_130_and_keeps_the_session_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let child = spawn(
            dir.path(),
            &[
                r#"{"prompt": "first", "reply": "ok"}"#.to_owned(),
                sleeper("one.pid"),
                sleeper("two.pid"),
                r#"{"prompt": "never"}"#.to_owned(),
            ],
        );
        let one = wait_for_pid(dir.path(), "one.pid");
        sigint(child.id());
        // The first Ctrl-C cancels the first call; the script goes on to the second one.
        let two = wait_for_pid(dir.path(), "two.pid");
        assert_gone(one);
        sigint(child.id());
        let (out, took) = finish(child, Duration::from_secs(15));
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
        assert_gone(two);

        let records = records(&out);
        let kinds: Vec<&str> = records
            .iter()
            .filter(|r| r["type"] == "interrupt")
            .filter_map(|r| r["kind"].as_str())
            .collect();
        assert_eq!(kinds, ["cancel", "exit"]);
        assert!(!records.iter().any(|r| r["text"] == "never"));
        let file = session_file(&records);
        assert!(file.iter().any(|l| l["message"]["content"] == "first"));
        assert!(!file.iter().any(|l| l["message"]["content"] == "never"));
    }
}

/// Ctrl-C while no tool call runs (here: during a slow `session_before_tree` handler) lets
/// the current action finish, skips the rest, shuts the session down and exits with 130.
#[cfg(unix)]
#[test]
fn ctrl_c_while_no_tool_runs_stops_the_script_cleanly() {
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(".tree-guard"), "wait").expect("guard");
    let script = [
        r#"{"prompt": "one", "reply": "r1"}"#,
        r#"{"tree": {"target": 0}}"#,
        r#"{"prompt": "never"}"#,
        r#"{"prompt": "nor this"}"#,
    ];
    std::fs::write(dir.path().join("s.jsonl"), script.join("\n")).expect("script");
    let child = child_command(dir.path(), 130)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !dir.path().join(".tree-started").exists() {
        assert!(Instant::now() < deadline, "the hook never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    // Once the Ctrl-C is handled (its record printed) while the hook still waits, let the
    // hook finish.
    let mut child = child;
    let reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(reader) {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdout = String::new();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the Ctrl-C is reported");
        stdout.push_str(&line);
        stdout.push('\n');
        if line.contains(r#""type":"interrupt""#) {
            break;
        }
    }
    std::fs::write(dir.path().join(".tree-release"), "").expect("release");
    let status = child.wait().expect("wait");
    stdout.extend(rx.iter().map(|l| l + "\n"));
    assert!(status.success(), "{stdout}");

    let records = child_records(&stdout);
    let interrupts: Vec<(&str, &str)> = records_of(&records, "interrupt")
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or(""),
                r["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(interrupts.len(), 2, "{interrupts:?}");
    assert_eq!(interrupts[0].0, "stop");
    assert_eq!(
        interrupts[1],
        ("stop", "stopped by Ctrl-C: 2 actions not run")
    );
    // The navigation in progress completed; the remaining prompts did not run.
    assert_eq!(records_of(&records, "tree")[0]["cancelled"], false);
    assert!(!stdout.contains("never"), "{stdout}");
    let events: Vec<&str> = records_of(&records, "event")
        .iter()
        .filter_map(|r| r["event"].as_str())
        .collect();
    assert_eq!(events.last(), Some(&"session_shutdown"));
    assert_eq!(records.last().expect("records")["type"], "end");
}
