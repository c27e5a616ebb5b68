use std::sync::Arc;
use std::time::{Duration, Instant};

use hookwright::events::ToolInput;
use hookwright::{Tool, ToolError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{BuiltinTool, Workspace};

fn setup() -> (tempfile::TempDir, Arc<Workspace>) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("ws")).expect("mkdir");
    let ws = Arc::new(Workspace::new(&dir.path().join("ws")).expect("workspace"));
    (dir, ws)
}

async fn call(ws: &Arc<Workspace>, tool: &str, input: Value) -> Result<String, ToolError> {
    let tool = BuiltinTool::new(tool, Arc::clone(ws)).expect("known tool");
    let Value::Object(input) = input else {
        panic!("input must be an object")
    };
    tool.execute("t1", &input.into(), &CancellationToken::new(), None)
        .await
        .map(|o| o.text_content())
}

/// [`call`] on a runtime of its own, which must succeed: the text.
fn ok(ws: &Arc<Workspace>, tool: &str, input: Value) -> String {
    rt().block_on(call(ws, tool, input))
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// [`call`] on a runtime of its own, which must fail: the error's text.
fn err(ws: &Arc<Workspace>, tool: &str, input: Value) -> String {
    match rt().block_on(call(ws, tool, input)) {
        Ok(out) => panic!("{tool} did not fail: {out}"),
        Err(e) => e.to_string(),
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn write_read_edit_round_trip() {
    let (_dir, ws) = setup();
    let write = json!({"path": "a/b.txt", "content": "one\ntwo\nthree\n"});
    assert_eq!(ok(&ws, "write", write), "Wrote 14 bytes to a/b.txt");
    let read = json!({"path": "a/b.txt", "offset": 2, "limit": 1});
    assert_eq!(ok(&ws, "read", read), "two\n");
    ok(
        &ws,
        "edit",
        json!({"path": "a/b.txt", "oldText": "two", "newText": "2"}),
    );
    assert_eq!(
        ok(&ws, "read", json!({"path": "a/b.txt"})),
        "one\n2\nthree\n"
    );
}

#[test]
fn edit_rejects_missing_and_ambiguous_text() {
    let (_dir, ws) = setup();
    ok(&ws, "write", json!({"path": "f", "content": "x x"}));
    let missing = err(
        &ws,
        "edit",
        json!({"path": "f", "oldText": "y", "newText": "z"}),
    );
    assert!(
        missing.starts_with("Could not find the exact text in f"),
        "{missing}"
    );
    let ambiguous = err(
        &ws,
        "edit",
        json!({"path": "f", "oldText": "x", "newText": "z"}),
    );
    assert!(ambiguous.starts_with("Found 2 occurrences"), "{ambiguous}");
}

#[test]
fn paths_outside_the_workspace_are_rejected() {
    let (dir, ws) = setup();
    std::fs::write(dir.path().join("secret"), "s").expect("write secret");
    std::os::unix::fs::symlink(dir.path().join("secret"), ws.root().join("link")).expect("symlink");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), ws.root().join("dangling"))
        .expect("symlink");
    for (tool, input) in [
        ("read", json!({"path": "../secret"})),
        ("read", json!({"path": dir.path().join("secret")})),
        ("write", json!({"path": "../x", "content": ""})),
        ("write", json!({"path": "a/../../x", "content": ""})),
        (
            "edit",
            json!({"path": "../secret", "oldText": "s", "newText": "t"}),
        ),
        ("ls", json!({"path": ".."})),
        ("grep", json!({"pattern": "s", "path": ".."})),
        ("find", json!({"pattern": "*", "path": "../"})),
        ("read", json!({"path": "link"})),
    ] {
        let refused = err(&ws, tool, input.clone());
        assert!(
            refused.contains("is outside the working directory"),
            "{tool} {input}: {refused}"
        );
    }
    let dangling = err(&ws, "write", json!({"path": "dangling", "content": "x"}));
    assert!(dangling.contains("symbolic link"), "{dangling}");
    let tilde = err(&ws, "read", json!({"path": "~/x"}));
    assert!(tilde.contains("starts with `~`"), "{tilde}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("secret")).expect("read"),
        "s"
    );
}

#[test]
fn ls_grep_find() {
    let (_dir, ws) = setup();
    let lib = json!({"path": "src/lib.rs", "content": "fn main() {}\n// TODO one\n"});
    ok(&ws, "write", lib);
    ok(
        &ws,
        "write",
        json!({"path": "notes.md", "content": "todo two\n"}),
    );
    assert_eq!(ok(&ws, "ls", json!({})), "notes.md\nsrc/");
    let out = ok(&ws, "grep", json!({"pattern": "todo", "ignoreCase": true}));
    assert_eq!(out, "notes.md:1: todo two\nsrc/lib.rs:2: // TODO one");
    let out = ok(
        &ws,
        "grep",
        json!({"pattern": "TODO", "glob": "*.rs", "context": 1}),
    );
    assert_eq!(out, "src/lib.rs-1- fn main() {}\nsrc/lib.rs:2: // TODO one");
    assert_eq!(ok(&ws, "find", json!({"pattern": "*.rs"})), "src/lib.rs");
}

#[test]
fn bash_runs_in_the_workspace_and_reports_failures() {
    let (_dir, ws) = setup();
    let out = ok(&ws, "bash", json!({"command": "pwd; echo err >&2"}));
    assert_eq!(out, format!("{}\nerr\n", ws.root().display()));
    let exit_3 = err(&ws, "bash", json!({"command": "echo out; exit 3"}));
    assert_eq!(exit_3, "out\n\nCommand exited with code 3");
}

#[test]
fn bash_timeout_kills_the_process_group() {
    let (_dir, ws) = setup();
    let start = Instant::now();
    let command = json!({"command": "sleep 30 & sleep 30; echo done", "timeout": 0.3});
    let timeout = err(&ws, "bash", command);
    assert!(
        timeout.contains("Command timed out after 0.3 seconds"),
        "{timeout}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// Processes a command started in the background, named by the pid files it wrote in the
/// workspace: each one still running `sleep` is SIGKILLed when this is dropped, so a failing
/// test leaves nothing behind.
#[cfg(target_os = "linux")]
struct Sleepers(Vec<std::path::PathBuf>);

#[cfg(target_os = "linux")]
impl Sleepers {
    fn pid(file: &std::path::Path) -> i32 {
        let text = std::fs::read_to_string(file).expect("the pid file");
        text.trim().parse().expect("a pid")
    }
}

#[cfg(target_os = "linux")]
impl Drop for Sleepers {
    fn drop(&mut self) {
        for file in &self.0 {
            let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|text| text.trim().parse::<i32>().ok())
            else {
                continue;
            };
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline.starts_with(b"sleep\0") {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn bash_timeout_bounds_a_call_whose_child_escaped_the_group() {
    let (_dir, ws) = setup();
    let _sleepers = Sleepers(vec![ws.root().join("escaped.pid")]);
    // The escaped child keeps stdout and stderr open, left the group, lost its parent and has
    // an empty environment: nothing finds it, and still the timeout ends the call.
    let command = "(env -i setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' &)
        while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started; sleep 30";
    let err = call_within_10s(&ws, "bash", json!({"command": command, "timeout": 1}))
        .expect_err("timed out");
    assert_eq!(
        err.to_string(),
        "started\n\nCommand timed out after 1 seconds"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn bash_command_that_exits_returns_though_an_escaped_child_holds_its_output() {
    let (_dir, ws) = setup();
    let _sleepers = Sleepers(vec![ws.root().join("escaped.pid")]);
    let command = "env -i setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' &
        while [ ! -s escaped.pid ]; do sleep 0.01; done; echo hi";
    let out = call_within_10s(&ws, "bash", json!({"command": command})).expect("bash");
    assert_eq!(out, "hi\n");
}

#[cfg(target_os = "linux")]
#[test]
fn bash_setsid_child_does_not_outlive_the_call() {
    let (_dir, ws) = setup();
    let pid_file = ws.root().join("escaped.pid");
    let _sleepers = Sleepers(vec![pid_file.clone()]);
    let command = "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' >/dev/null 2>&1 &
        while [ ! -s escaped.pid ]; do sleep 0.01; done; echo hi";
    let out = call_within_10s(&ws, "bash", json!({"command": command})).expect("bash");
    assert_eq!(out, "hi\n");
    let pid = Sleepers::pid(&pid_file);
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while proc_dir.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!proc_dir.exists(), "{pid} outlived the call");
}

#[test]
fn bash_cancel_returns_promptly() {
    let (dir, ws) = setup();
    let running = dir.path().join("ws/running");
    rt().block_on(async {
        let tool = BuiltinTool::new("bash", Arc::clone(&ws)).expect("bash");
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        // Cancelled once the command runs (it has made its file), not after a guessed delay.
        tokio::spawn(async move {
            for _ in 0..1000 {
                if running.exists() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            trigger.cancel();
        });
        let Value::Object(input) = json!({"command": "touch running; sleep 30"}) else {
            unreachable!()
        };
        let start = Instant::now();
        let err = tool
            .execute("c", &input.into(), &cancel, None)
            .await
            .expect_err("cancelled");
        assert!(matches!(err, ToolError::Cancelled), "{err:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    });
}

#[test]
fn every_tool_given_a_cancelled_token_changes_nothing_and_answers_cancelled() {
    let (dir, ws) = setup();
    std::fs::write(dir.path().join("ws/kept.txt"), "old").expect("write");
    let calls = [
        ("bash", json!({"command": "touch ran"})),
        ("write", json!({"path": "new.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "kept.txt", "oldText": "old", "newText": "new"}),
        ),
        ("read", json!({"path": "kept.txt"})),
        ("ls", json!({})),
        ("grep", json!({"pattern": "old"})),
        ("find", json!({"pattern": "*.txt"})),
    ];
    rt().block_on(async {
        let cancel = CancellationToken::new();
        cancel.cancel();
        for (name, input) in calls {
            let tool = BuiltinTool::new(name, Arc::clone(&ws)).expect("known tool");
            let Value::Object(input) = input else {
                unreachable!()
            };
            let outcome = tool.execute("c", &input.into(), &cancel, None).await;
            assert!(
                matches!(outcome, Err(ToolError::Cancelled)),
                "{name}: {outcome:?}"
            );
        }
    });
    assert!(!dir.path().join("ws/ran").exists());
    assert!(!dir.path().join("ws/new.txt").exists());
    let kept = std::fs::read_to_string(dir.path().join("ws/kept.txt")).expect("read");
    assert_eq!(kept, "old");
}

#[test]
fn check_input_names_the_problem() {
    let input = |v: Value| ToolInput::try_from(v).expect("an object");
    assert!(BuiltinTool::check_input("bash", &input(json!({"command": "ls"}))).is_ok());
    let err = BuiltinTool::check_input("bash", &input(json!({"command": 3}))).expect_err("type");
    assert!(
        err.contains("invalid type: integer `3`, expected a string"),
        "{err}"
    );
    let err = BuiltinTool::check_input("read", &input(json!({}))).expect_err("missing");
    assert!(err.contains("missing field `path`"), "{err}");
    let err =
        BuiltinTool::check_input("read", &input(json!({"path": "a", "x": 1}))).expect_err("extra");
    assert!(err.contains("unknown field `x`"), "{err}");
    let err = BuiltinTool::check_input("grep", &input(json!({"pattern": "("}))).expect_err("regex");
    assert!(err.contains("invalid pattern"), "{err}");
    let err = BuiltinTool::check_input("nope", &input(json!({}))).expect_err("unknown");
    assert!(err.contains("unknown tool `nope`"), "{err}");
}

#[test]
fn outputs_are_capped() {
    let (_dir, ws) = setup();
    let out = ok(&ws, "bash", json!({"command": "seq 1 5000"}));
    assert!(
        out.starts_with("[output truncated: showing the last 2000 of 5000 lines]\n3001\n"),
        "{}",
        &out[..80]
    );
    assert!(out.ends_with("\n5000\n"));
    let content: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    ok(&ws, "write", json!({"path": "big.txt", "content": content}));
    let out = ok(&ws, "read", json!({"path": "big.txt"}));
    assert!(out.starts_with("1\n2\n"));
    assert!(
        out.ends_with(
            "\n2000\n[output truncated: showing 2000 of 3000 lines; use offset and limit to read more]"
        ),
        "{}",
        &out[out.len() - 120..]
    );
    let out = ok(&ws, "read", json!({"path": "big.txt", "offset": 2999}));
    assert_eq!(out, "2999\n3000\n");
}

#[test]
fn bash_timeout_must_be_seconds_a_duration_can_hold() {
    let (_dir, ws) = setup();
    let input = |v: Value| ToolInput::try_from(v).expect("an object");
    for (timeout, shown) in [
        (json!(1e20), "1e+20"),
        (json!(u64::MAX), "18446744073709551615"),
        (json!(0), "0"),
        (json!(-1), "-1"),
        (json!(1e-12), "1e-12"),
    ] {
        let expected = format!(
            "invalid timeout {shown}: expected a number of seconds, at least 1e-9 and below 2^64"
        );
        let line = json!({"command": "echo ran", "timeout": timeout});
        let err = BuiltinTool::check_input("bash", &input(line.clone())).expect_err("checked");
        assert_eq!(err, expected);
        let err = rt().block_on(call(&ws, "bash", line)).expect_err("not run");
        assert_eq!(err.to_string(), format!("invalid input: {expected}"));
    }
    let ok = rt().block_on(call(
        &ws,
        "bash",
        json!({"command": "echo ran", "timeout": 1e18}),
    ));
    assert_eq!(ok.expect("a huge timeout is fine"), "ran\n");
}

/// Runs `tool` on `input` on its own thread; fails if it does not answer within 10 s.
fn call_within_10s(
    ws: &Arc<Workspace>,
    tool: &'static str,
    input: Value,
) -> Result<String, ToolError> {
    let ws = Arc::clone(ws);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(rt().block_on(call(&ws, tool, input)));
    });
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{tool} blocked"))
}

#[test]
fn file_tools_refuse_what_is_not_a_regular_file() {
    let (_dir, ws) = setup();
    let status = std::process::Command::new("mkfifo")
        .arg(ws.root().join("fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    std::os::unix::fs::symlink("fifo", ws.root().join("link")).expect("symlink");
    for path in ["fifo", "link"] {
        for (tool, input) in [
            ("read", json!({"path": path})),
            ("write", json!({"path": path, "content": "x"})),
            (
                "edit",
                json!({"path": path, "oldText": "a", "newText": "b"}),
            ),
        ] {
            let err = call_within_10s(&ws, tool, input).expect_err("refused");
            assert_eq!(err.to_string(), format!("\"{path}\" is not a regular file"));
        }
    }
}

#[test]
fn an_invalid_pattern_or_glob_is_reported_on_one_line() {
    let input = |v: Value| ToolInput::try_from(v).expect("an object");
    for (tool, line, expected) in [
        (
            "grep",
            json!({"pattern": "("}),
            "invalid pattern \"(\": unclosed group",
        ),
        (
            "grep",
            json!({"pattern": "a\n("}),
            "invalid pattern \"a\\n(\": unclosed group",
        ),
        (
            "grep",
            json!({"pattern": "a", "glob": "[a\nb"}),
            "invalid glob \"[a\\nb\": unclosed character class; missing ']'",
        ),
    ] {
        let err = BuiltinTool::check_input(tool, &input(line)).expect_err("invalid");
        assert_eq!(err, expected);
    }
}

/// While a racer keeps exchanging a directory of the workspace with a symbolic link to a
/// directory outside it (`renameat2(RENAME_EXCHANGE)`, as a process started by an earlier
/// `bash` call could), no `write`, `edit` or `read` ever reaches the outside directory: each
/// either works inside or fails with an error naming the path.
#[cfg(target_os = "linux")]
#[test]
fn file_tools_stay_inside_the_workspace_while_a_directory_is_swapped_for_a_link() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use rustix::fs::{CWD, RenameFlags, renameat_with};

    const CALLS: usize = 300;
    let (dir, ws) = setup();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir outside");
    for name in ["r", "e", "x-outside"] {
        std::fs::write(outside.join(name), "secret").expect("write outside");
    }
    let (real, link) = (ws.root().join("d"), ws.root().join("l"));
    std::fs::create_dir(&real).expect("mkdir d");
    for name in ["r", "e"] {
        std::fs::write(real.join(name), "inside").expect("write inside");
    }
    std::os::unix::fs::symlink(&outside, &link).expect("symlink");

    let outside_error = |path: &str| {
        format!(
            "path \"{path}\" is outside the working directory {}",
            ws.root().display()
        )
    };
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let racer = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (real, link) = (real.clone(), link.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                renameat_with(CWD, &real, CWD, &link, RenameFlags::EXCHANGE).expect("exchange");
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let mut written = Vec::new();
    let (mut leaked_reads, mut edited_outside, mut refused) = (0, 0, 0);
    let mut listed_outside = 0;
    rt().block_on(async {
        for i in 0..CALLS {
            let path = format!("d/w{i}");
            match call(
                &ws,
                "write",
                json!({"path": path, "content": i.to_string()}),
            )
            .await
            {
                Ok(_) => written.push(i),
                Err(e) => {
                    assert_eq!(e.to_string(), outside_error(&path));
                    refused += 1;
                }
            }
            match call(&ws, "read", json!({"path": "d/r"})).await {
                Ok(text) if text == "secret" => leaked_reads += 1,
                Ok(text) => assert_eq!(text, "inside"),
                Err(e) => assert_eq!(e.to_string(), outside_error("d/r")),
            }
            for (tool, input) in [
                ("ls", json!({"path": "d"})),
                ("grep", json!({"pattern": "secret"})),
                ("find", json!({"pattern": "x-*"})),
            ] {
                match call(&ws, tool, input).await {
                    Ok(text) if text.contains("x-outside") || text.contains("secret") => {
                        listed_outside += 1;
                    }
                    Ok(_) => {}
                    Err(e) => assert_eq!(e.to_string(), outside_error("d")),
                }
            }
            let edit = json!({"path": "d/e", "oldText": "secret", "newText": "leaked"});
            match call(&ws, "edit", edit).await {
                Ok(_) => edited_outside += 1,
                // The real directory's file has no "secret" in it.
                Err(e) => assert!(
                    e.to_string() == outside_error("d/e")
                        || e.to_string()
                            .starts_with("Could not find the exact text in d/e."),
                    "{e}"
                ),
            }
        }
    });
    stop.store(true, Ordering::Relaxed);
    racer.join().expect("racer");
    let mut outside_names: Vec<String> = std::fs::read_dir(&outside)
        .expect("list outside")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    outside_names.sort();
    let escaped = outside_names.len() - 3;
    assert!(swaps.load(Ordering::Relaxed) > 0, "the racer never ran");
    assert_eq!(
        (escaped, leaked_reads, edited_outside, listed_outside),
        (0, 0, 0, 0),
        "of {CALLS} calls each: writes that landed outside, reads of the outside file, edits \
         of it, and of {CALLS} calls each of ls, grep and find, those that showed outside \
         names or text (outside now holds {outside_names:?})"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("e")).expect("read"),
        "secret"
    );
    // Every write reported as done is in the real directory, whichever name it has now.
    let now = if real.symlink_metadata().expect("d").is_dir() {
        &real
    } else {
        &link
    };
    for i in &written {
        assert_eq!(
            std::fs::read_to_string(now.join(format!("w{i}"))).expect("written inside"),
            i.to_string()
        );
    }
    assert_eq!(written.len() + refused, CALLS);
}

/// A first line longer than the 50 KiB cap is shown cut to its head (at a character boundary),
/// marked as cut, instead of an answer with no text that no offset or limit could fix.
#[test]
fn a_first_line_longer_than_the_cap_is_shown_cut_to_its_head() {
    let (_dir, ws) = setup();
    // One byte, then two-byte characters: byte 51200 falls inside one of them.
    let long = format!("a{}\n", "é".repeat(60_000));
    std::fs::write(ws.root().join("f"), format!("{long}second\n")).expect("write");
    let head = &long[..51_199];
    assert_eq!(
        ok(&ws, "read", json!({"path": "f"})),
        format!(
            "{head}\n[output truncated: line 1 is 120002 bytes, showing its first 51199; \
             use offset 2 to read on]"
        )
    );
    assert_eq!(
        ok(&ws, "read", json!({"path": "f", "limit": 1})),
        format!("{head}\n[output truncated: line 1 is 120002 bytes, showing its first 51199]")
    );
    assert_eq!(
        ok(&ws, "read", json!({"path": "f", "offset": 2})),
        "second\n"
    );
    // A long line after the first shown one ends the answer before it, as before.
    std::fs::write(ws.root().join("g"), format!("first\n{long}")).expect("write");
    assert_eq!(
        ok(&ws, "read", json!({"path": "g"})),
        "first\n[output truncated: showing 1 of 2 lines; use offset and limit to read more]"
    );
}

/// The line count, the offset check and the UTF-8 check see the whole file, though the file is
/// streamed: pieces of a character split between reads are joined, a bad byte anywhere fails.
#[test]
fn read_counts_and_checks_the_whole_file_while_streaming_it() {
    let (_dir, ws) = setup();
    // 70 000 two-byte characters per line: every 64 KiB read splits one of them.
    let line = format!("{}\n", "é".repeat(70_000));
    std::fs::write(ws.root().join("f"), line.repeat(3) + "last").expect("write");
    let mut bad = line.repeat(3).into_bytes();
    bad.push(0xff);
    std::fs::write(ws.root().join("bad"), bad).expect("write");
    rt().block_on(async {
        let tool = BuiltinTool::new("read", Arc::clone(&ws)).expect("read");
        let input = |v: Value| ToolInput::try_from(v).expect("an object");
        let out = tool
            .execute(
                "t",
                &input(json!({"path": "f", "offset": 4})),
                &CancellationToken::new(),
                None,
            )
            .await
            .expect("read");
        assert_eq!(out.text_content(), "last");
        assert_eq!(
            out.details,
            Some(json!({"path": "f", "lines": 4, "truncated": false}))
        );
    });
    assert_eq!(
        err(&ws, "read", json!({"path": "f", "offset": 5})),
        "offset 5 is beyond the end of \"f\" (4 lines)"
    );
    assert_eq!(
        err(&ws, "read", json!({"path": "bad", "limit": 1})),
        "\"bad\" is not a UTF-8 text file"
    );
    for (content, answer) in [("", ""), ("a", "a"), ("a\n\nb", "a\n\nb"), ("é", "é")] {
        std::fs::write(ws.root().join("small"), content).expect("write");
        assert_eq!(ok(&ws, "read", json!({"path": "small"})), answer);
    }
    // Exactly as many lines as the cap is not cut.
    let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
    std::fs::write(ws.root().join("cap"), &lines).expect("write");
    assert_eq!(ok(&ws, "read", json!({"path": "cap"})), lines);
}
