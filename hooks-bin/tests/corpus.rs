//! dcg's regression corpus (vendored in hooks-guards/tests/corpus, pinned there) run through
//! the guards twice: in process ([`hookwright_guards::check_command`]) and as an agent calls them,
//! `hooks claude PreToolUse` with Claude Code's `Bash` call on standard input. Every case
//! of the packs we ship must be right both ways, none may panic or take more than a second.
//! Where dcg 0.16.0 is installed (`HOOKS_DCG_BIN`, or
//! `~/.cache/hooks-e2e/dcg-0.16.0/bin/dcg`), the same calls go to it too and both scores are
//! printed side by side; where it is not, the table says so.
//!
//! Left out, and listed: the `hook_json` cases (malformed hook input, which dcg's corpus
//! expects allowed; ours fails closed by design), and the cases of packs we do not ship
//! (`edge_cases/future_packs.toml`, or a `rule_id` of another pack).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use hookwright_guards::Block;

#[path = "../../hooks-guards/tests/support/dcg.rs"]
mod dcg;
use serde::Deserialize;
use wait_timeout::ChildExt;

/// One case of a corpus file, in either of dcg's two schemas.
#[derive(Debug, Deserialize)]
struct Case {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    expected: Option<String>,
    #[serde(default)]
    expected_decision: Option<String>,
    #[serde(default)]
    input_kind: Option<String>,
    #[serde(default)]
    rule_id: Option<String>,
    #[serde(default)]
    raw_input: Option<String>,
}

#[derive(Debug, Deserialize)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
}

/// A case to run: where it is from, the command, whether dcg's corpus expects it denied.
struct Run {
    file: String,
    name: String,
    command: String,
    deny: bool,
    rule_id: Option<String>,
    /// A `hook_json` case's hook input, sent as it is.
    raw_input: Option<String>,
}

/// How long one decision may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(1);

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hooks-guards/tests/corpus");
    let (counted, left_out) = load(&root);
    let host = PathBuf::from(env!("CARGO_BIN_EXE_hooks"));
    let dcg = dcg::dcg_binary();
    let scratch = std::env::temp_dir().join(format!("hooks-guards-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");

    let mut failures = Vec::new();
    let mut per_file: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    let mut times = Vec::new();
    let mut rule_ids = (0, 0);
    let mut dcg_wrong = Vec::new();
    let mut unreadable = Vec::new();
    for run in &counted {
        let row = per_file.entry(folder(&run.file)).or_default();
        row[0] += 1;
        let started = Instant::now();
        let block = std::panic::catch_unwind(|| hookwright_guards::check_command(&run.command));
        let took = started.elapsed();
        times.push(took);
        let Ok(block) = block else {
            failures.push(format!("{}: {:?} panicked", run.name, run.command));
            continue;
        };
        if took > HANG {
            failures.push(format!("{}: {:?} took {took:?}", run.name, run.command));
        }
        if block.is_some() == run.deny {
            row[1] += 1;
        } else {
            failures.push(format!(
                "{}: {:?} expected {}, in process got {}",
                run.name,
                run.command,
                decision(run.deny),
                block.as_ref().map_or("allow".to_owned(), Block::reason)
            ));
        }
        if block.as_ref().is_some_and(|b| b.rule == "guard:unreadable") {
            unreadable.push(run.name.clone());
        }
        if let (Some(want), Some(got)) = (&run.rule_id, &block) {
            rule_ids.0 += 1;
            rule_ids.1 += usize::from(want == got.rule);
        }
        match call(&host, &run.command, &scratch) {
            Ok(deny) if deny == run.deny => row[2] += 1,
            Ok(deny) => failures.push(format!(
                "{}: {:?} expected {}, `hooks claude PreToolUse` answered {}",
                run.name,
                run.command,
                decision(run.deny),
                decision(deny)
            )),
            Err(err) => failures.push(format!("{}: {:?}: {err}", run.name, run.command)),
        }
        if let Some(dcg) = &dcg {
            row[3] += 1;
            match call(dcg, &run.command, &scratch) {
                Ok(deny) if deny == run.deny => row[4] += 1,
                Ok(deny) => dcg_wrong.push(format!(
                    "{} {:?}: {}",
                    run.name,
                    run.command,
                    decision(deny)
                )),
                Err(err) => dcg_wrong.push(format!("{} {:?}: {err}", run.name, run.command)),
            }
        }
    }

    println!("dcg's corpus (hooks-guards/tests/corpus), cases right:");
    println!(
        "| {:<34} | {:>5} | {:>10} | {:>18} | {:>10} |",
        "folder", "cases", "in process", "hooks claude", "dcg 0.16.0"
    );
    println!(
        "| {:-<34} | ----: | ---------: | -----------------: | ---------: |",
        ""
    );
    let mut total = [0usize; 5];
    for (name, row) in &per_file {
        for (t, r) in total.iter_mut().zip(row) {
            *t += r;
        }
        print_row(name, row, dcg.is_some());
    }
    print_row("all counted", &total, dcg.is_some());
    if dcg.is_none() {
        println!(
            "dcg: not run (not installed; set HOOKS_DCG_BIN or install destructive_command_guard \
             0.16.0 into ~/.cache/hooks-e2e/dcg-0.16.0)"
        );
    }
    if !dcg_wrong.is_empty() {
        println!(
            "dcg's answers that differ from its corpus ({}):",
            dcg_wrong.len()
        );
        for wrong in &dcg_wrong {
            println!("  {wrong}");
        }
    }
    println!(
        "blocked as unreadable (guard:unreadable): {} {unreadable:?}",
        unreadable.len()
    );
    println!(
        "rule ids: {} of the {} counted cases that name one were blocked by that rule",
        rule_ids.1, rule_ids.0
    );
    times.sort();
    if !times.is_empty() {
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "in process, per decision (debug build): median {:?}, p99 {:?}, max {:?}",
            at(0.5),
            at(0.99),
            times[times.len() - 1]
        );
    }
    println!("left out ({}):", left_out.len());
    for (run, why) in &left_out {
        let answer = |binary: &Path| {
            let result = match &run.raw_input {
                Some(raw) => call_raw(binary, raw.as_bytes(), &scratch),
                None => call(binary, &run.command, &scratch),
            };
            match result {
                Ok(deny) => decision(deny).to_owned(),
                Err(err) => format!("fails ({err})"),
            }
        };
        let dcg_says = dcg
            .as_deref()
            .map(|dcg| format!(", dcg: {}", answer(dcg)))
            .unwrap_or_default();
        let ours = answer(&host);
        println!(
            "  {} {:?}: {why} (corpus: {}, hooks claude: {ours}{dcg_says})",
            run.name,
            run.command,
            decision(run.deny)
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
    for failure in &failures {
        println!("FAILED {failure}");
    }
    let checks = counted.len() * 2;
    println!(
        "corpus: {} passed, {} failed",
        checks - failures.len().min(checks),
        failures.len()
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_row(name: &str, row: &[usize; 5], with_dcg: bool) {
    let dcg = if with_dcg {
        format!("{}/{}", row[4], row[3])
    } else {
        "-".to_owned()
    };
    println!(
        "| {:<34} | {:>5} | {:>10} | {:>18} | {:>10} |",
        name,
        row[0],
        format!("{}/{}", row[1], row[0]),
        format!("{}/{}", row[2], row[0]),
        dcg
    );
}

fn decision(deny: bool) -> &'static str {
    if deny { "deny" } else { "allow" }
}

/// The corpus folder of a file (`true_positives`, ...; `canonical.toml` is its own).
fn folder(file: &str) -> String {
    file.split_once('/').map_or(file, |(dir, _)| dir).to_owned()
}

/// Every case, split into the counted and the left out (with why).
fn load(root: &Path) -> (Vec<Run>, Vec<(Run, &'static str)>) {
    let files = dcg::corpus_files(root);
    assert!(
        !files.is_empty(),
        "no corpus files under {}",
        root.display()
    );
    let mut counted = Vec::new();
    let mut left_out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(root)
            .expect("under root")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (i, case) in file.case.into_iter().enumerate() {
            let name = format!(
                "{rel}#{}{}",
                i + 1,
                case.id
                    .as_deref()
                    .or(case.description.as_deref())
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            );
            let expected = case
                .expected
                .or(case.expected_decision)
                .unwrap_or_else(|| panic!("{name}: no expected decision"));
            let run = Run {
                file: rel.clone(),
                name,
                command: case.command.unwrap_or_default(),
                deny: match expected.as_str() {
                    "deny" => true,
                    "allow" => false,
                    other => panic!("{rel}: unknown expectation {other}"),
                },
                rule_id: case.rule_id,
                raw_input: case.raw_input,
            };
            if case.input_kind.as_deref() == Some("hook_json") {
                let why = if run.name.contains("hook.malformed.") {
                    "malformed hook input, which dcg's corpus expects allowed; ours fails closed by design"
                } else {
                    "a hook input, not a command: nothing to judge in process"
                };
                left_out.push((run, why));
            } else if rel == "edge_cases/future_packs.toml"
                || run.rule_id.as_deref().is_some_and(|id| {
                    let pack = id.split(':').next().unwrap_or(id);
                    !hookwright_guards::packs::PACKS.contains(&pack)
                })
            {
                left_out.push((run, "a pack we do not ship"));
            } else {
                counted.push(run);
            }
        }
    }
    (counted, left_out)
}

/// The arguments the Claude Code hook entry gives `binary`: `hooks claude PreToolUse`,
/// bare `dcg`.
fn hook_args(binary: &Path) -> &'static [&'static str] {
    if binary.file_name().is_some_and(|n| n == "dcg") {
        &[]
    } else {
        &["claude", "PreToolUse"]
    }
}

/// Whether `binary` (a Claude Code command hook) denies Claude Code's `Bash` call of `command`.
fn call(binary: &Path, command: &str, scratch: &Path) -> Result<bool, String> {
    let input = serde_json::json!({
        "session_id": "corpus",
        "transcript_path": scratch.join("transcript.jsonl"),
        "cwd": scratch,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "corpus case"},
        "tool_use_id": "toolu_corpus",
    });
    call_raw(binary, &serde_json::to_vec(&input).expect("json"), scratch)
}

/// Whether `binary` (a Claude Code command hook) denies the hook call `input`.
fn call_raw(binary: &Path, input: &[u8], scratch: &Path) -> Result<bool, String> {
    let mut child = Command::new(binary)
        .args(hook_args(binary))
        .current_dir(scratch)
        .env("HOME", scratch)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .map_err(|e| format!("stdin: {e}"))?;
    let status = child
        .wait_timeout(Duration::from_secs(20))
        .map_err(|e| e.to_string())?;
    let Some(status) = status else {
        let _ = child.kill();
        return Err("hung (20 s)".to_owned());
    };
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Option<serde_json::Value> = serde_json::from_str(stdout.trim()).ok();
    let denied_json = answer.as_ref().is_some_and(|a| {
        a.pointer("/hookSpecificOutput/permissionDecision")
            .and_then(|d| d.as_str())
            == Some("deny")
            || a.get("decision").and_then(|d| d.as_str()) == Some("block")
    });
    // Exit 2 is Claude Code's other way to block.
    let denied_exit = status.code() == Some(2);
    if !status.success() && !denied_exit {
        return Err(format!(
            "exit {status}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(denied_json || denied_exit)
}
