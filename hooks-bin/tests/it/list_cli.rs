//! End-to-end tests of `hooks list`, through the built binary.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn hooks(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooks-examples"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .stdin(Stdio::null())
        .output()
        .expect("the hooks binary runs")
}

fn list_json(dir: &Path, home: &Path, extra: &[&str]) -> (Value, Output) {
    let mut args = vec!["list", "--json"];
    args.extend_from_slice(extra);
    let out = hooks(dir, home, &args);
    let value = serde_json::from_slice(&out.stdout).expect("list --json prints one JSON object");
    (value, out)
}

const EXAMPLE_HOOKS: [&str; 7] = [
    "hookwright_examples::block_rm",
    "hookwright_examples::compaction_guard",
    "hookwright_examples::debug_notes",
    "hookwright_examples::filter_context",
    "hookwright_examples::handoff",
    "hookwright_examples::redact",
    "hookwright_examples::status_line",
];

#[test]
fn list_json_has_the_examples_in_dispatch_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (list, out) = list_json(dir.path(), dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(list["version"], 1);
    assert_eq!(
        list["cwd"],
        dir.path()
            .canonicalize()
            .expect("canonical")
            .to_string_lossy()
            .as_ref()
    );

    let hooks: Vec<&str> = list["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| h["path"].as_str().expect("path"))
        .collect();
    assert_eq!(hooks, EXAMPLE_HOOKS);
    for (i, hook) in list["hooks"].as_array().expect("hooks").iter().enumerate() {
        assert_eq!(hook["index"], i + 1);
        assert_eq!(hook["kind"], "compiled");
    }

    // Per event, handlers in dispatch order, each with its source location.
    let events: Vec<(String, Vec<String>)> = list["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            let handlers = e["handlers"]
                .as_array()
                .expect("handlers")
                .iter()
                .map(|h| {
                    format!(
                        "{} {}",
                        h["hook"].as_str().unwrap_or(""),
                        h["name"].as_str().unwrap_or("")
                    )
                })
                .collect();
            (e["event"].as_str().expect("event").to_owned(), handlers)
        })
        .collect();
    let expected: Vec<(&str, Vec<&str>)> = vec![
        (
            "session_start",
            vec!["hookwright_examples::status_line reset_tool_count"],
        ),
        (
            "session_before_compact",
            vec!["hookwright_examples::compaction_guard hold_compaction"],
        ),
        (
            "context",
            vec!["hookwright_examples::filter_context drop_debug_only"],
        ),
        (
            "tool_call",
            vec![
                "hookwright_examples::block_rm block_rm_rf",
                "hookwright_examples::redact block_unhooked_output",
                "hookwright_examples::redact answer_secret_reads",
                "hookwright_examples::redact block_secret_edits",
            ],
        ),
        (
            "tool_result",
            vec![
                "hookwright_examples::debug_notes note_tool_output",
                "hookwright_examples::redact redact_tool_output",
                "hookwright_examples::status_line count_tools",
            ],
        ),
    ];
    let expected: Vec<(String, Vec<String>)> = expected
        .into_iter()
        .map(|(e, h)| (e.to_owned(), h.into_iter().map(str::to_owned).collect()))
        .collect();
    assert_eq!(events, expected);

    let block = &list["hooks"][0]["handlers"][0];
    assert_eq!(block["event"], "tool_call");
    assert_eq!(block["file"], "examples/src/block_rm.rs");
    let line = block["line"].as_u64().expect("line");
    assert_eq!(
        block["location"],
        format!("examples/src/block_rm.rs:{line}")
    );
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/src/block_rm.rs"),
    )
    .expect("source");
    let at = source
        .lines()
        .nth(usize::try_from(line).expect("line") - 1)
        .unwrap_or("");
    assert!(
        at.contains("block_rm_rf") || at.contains("#[hook"),
        "line {line}: {at}"
    );

    assert_eq!(list["commands"].as_array().expect("commands").len(), 1);
    let handoff = &list["commands"][0];
    assert_eq!(handoff["name"], "handoff");
    assert_eq!(handoff["hook"], "hookwright_examples::handoff");
    assert_eq!(
        handoff["description"],
        "Create a new session with setup message"
    );
    assert_eq!(handoff["shadowed"], false);
    assert!(
        handoff["location"]
            .as_str()
            .is_some_and(|l| l.starts_with("examples/src/handoff.rs:"))
    );
    assert_eq!(list["renderers"][0]["customType"], "debug-only");
    assert_eq!(
        list["renderers"][0]["hook"],
        "hookwright_examples::debug_notes"
    );
    assert_eq!(list["discovered"], Value::Array(Vec::new()));
    assert_eq!(list["errors"], Value::Array(Vec::new()));
}

#[cfg(unix)]
fn executable(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[cfg(unix)]
#[test]
fn list_shows_discovered_files_shadowing_and_load_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    let cwd = dir.path().canonicalize().expect("canonical");
    executable(&cwd.join(".xcsh/hooks/pre/bash.sh"), "#!/bin/sh\nexit 0\n");
    // --trust-all: the project hook file is not in any trust store (see tests/trust.rs).
    let (list, out) = list_json(
        &cwd,
        home.path(),
        &["--trust-all", "--hook", "missing-hook.ts"],
    );
    assert_eq!(out.status.code(), Some(1), "a load error exits 1");

    // The file hook loads after the compiled-in ones.
    let hooks = list["hooks"].as_array().expect("hooks");
    assert_eq!(hooks.len(), EXAMPLE_HOOKS.len() + 1);
    let file_hook = &hooks[EXAMPLE_HOOKS.len()];
    assert_eq!(file_hook["kind"], "file");
    assert!(
        file_hook["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(".xcsh/hooks/pre/bash.sh"))
    );
    assert_eq!(file_hook["handlers"][0]["event"], "tool_call");

    // The same file found by two providers: the lower-priority copy is shadowed.
    let discovered = list["discovered"].as_array().expect("discovered");
    let same: Vec<&Value> = discovered
        .iter()
        .filter(|d| d["key"] == "pre:bash:bash.sh")
        .collect();
    assert!(same.len() >= 2, "{discovered:?}");
    assert_eq!(same[0]["shadowed"], false);
    assert!(same[1..].iter().all(|d| d["shadowed"] == true));

    let errors = list["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("missing-hook.ts"))
    );

    let human = hooks_text(
        &cwd,
        home.path(),
        &["list", "--trust-all", "--hook", "missing-hook.ts"],
    );
    assert!(human.contains("(shadowed)"), "{human}");
    assert!(human.contains("Load errors"), "{human}");
}

fn hooks_text(dir: &Path, home: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&hooks(dir, home, args).stdout).into_owned()
}

#[test]
fn list_human_output_is_a_readable_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = hooks_text(dir.path(), dir.path(), &["list"]);
    for needle in [
        "(7 loaded, in dispatch order)",
        "  1.  hookwright_examples::block_rm          compiled",
        "Handlers by event (dispatch order)",
        "  tool_result\n    1.  hookwright_examples::debug_notes  note_tool_output    examples/src/debug_notes.rs:",
        "/handoff  Create a new session with setup message  hookwright_examples::handoff  examples/src/handoff.rs:",
        "Renderers\n  debug-only  hookwright_examples::debug_notes",
        "Discovered hook files\n  (none)",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

#[test]
fn list_names_per_agent_the_handlers_it_can_never_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (list, out) = list_json(dir.path(), dir.path(), &[]);
    assert!(out.status.success());
    let unreachable = |agent: &str| -> Vec<String> {
        let entry = list["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .find(|a| a["agent"] == agent)
            .unwrap_or_else(|| panic!("no entry for {agent}"));
        assert_eq!(
            entry["unreachableCommands"],
            serde_json::json!([]),
            "{agent}"
        );
        entry["unreachable"]
            .as_array()
            .expect("unreachable")
            .iter()
            .map(|h| {
                format!(
                    "{} {}",
                    h["event"].as_str().unwrap(),
                    h["hook"].as_str().unwrap()
                )
            })
            .collect()
    };
    let context = "context hookwright_examples::filter_context";
    let compact = "session_before_compact hookwright_examples::compaction_guard";
    assert_eq!(unreachable("claude"), [context]);
    assert_eq!(unreachable("codex"), [context]);
    assert!(unreachable("gemini").is_empty());
    for agent in ["qwen", "droid"] {
        assert_eq!(unreachable(agent), [context], "{agent}");
    }
    for agent in ["copilot", "cursor"] {
        assert_eq!(unreachable(agent), [compact, context], "{agent}");
    }
    let human = hooks(dir.path(), dir.path(), &["list"]);
    let text = String::from_utf8_lossy(&human.stdout);
    let section = text
        .split("Handlers each agent can never call\n")
        .nth(1)
        .expect("the section is printed");
    assert!(
        section.starts_with(
            "  claude:\n    context  hookwright_examples::filter_context  drop_debug_only\n"
        ),
        "{section}"
    );
}
