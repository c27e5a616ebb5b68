//! The whole `hooks claude PreToolUse` process (the default binary, the guards deciding) against
//! dcg 0.16.0's process on the same inputs: every command of dcg's corpus under 1 KB as Claude
//! Code's `Bash` call, one process of each in turn per command (interleaved, so that a change of
//! machine load hits both alike), `ROUNDS` passes over the corpus. Where the time goes: `/bin/true`
//! (spawning a process) and `hooks claude SessionStart` (the adapter's own start: no guard
//! handles that event) run in the same rotation; the in-process decision itself is
//! hookwright-guards' `decision` bench.
//!
//! ```text
//! cargo bench -p hookwright-cli --bench guards_vs_dcg             # 5 rounds (about a minute)
//! ROUNDS=1 cargo bench -p hookwright-cli --bench guards_vs_dcg    # one
//! HOOKS_DCG_BIN=/path/to/dcg cargo bench -p hookwright-cli --bench guards_vs_dcg
//! ```
//!
//! dcg is looked for at `HOOKS_DCG_BIN`, then `~/.cache/hooks-e2e/dcg-0.16.0/bin/dcg`
//! (`cargo install destructive_command_guard --version 0.16.0 --root ...`); without it the bench
//! says so and times ours alone. Both run with `HOME` in an empty directory (no configuration of
//! either), in that directory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../../hooks-guards/tests/support/dcg.rs"]
mod dcg;

/// One program timed over the inputs.
struct Subject {
    name: &'static str,
    program: PathBuf,
    args: &'static [&'static str],
    times: Vec<Duration>,
    /// Runs that exited other than 0 (an answer) or 2 (Claude Code's other block).
    failed: usize,
}

impl Subject {
    fn new(name: &'static str, program: PathBuf, args: &'static [&'static str]) -> Self {
        Subject {
            name,
            program,
            args,
            times: Vec::new(),
            failed: 0,
        }
    }

    /// One run with `input` on stdin: spawn, write, close, wait. Records the wall time.
    fn run(&mut self, input: &[u8], home: &Path) {
        let start = Instant::now();
        let mut child = Command::new(&self.program)
            .args(self.args)
            .current_dir(home)
            .env("HOME", home)
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::piped())
            // A pipe, as the agents give it; an answer is one line, well within its buffer.
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
        if let Some(mut stdin) = child.stdin.take() {
            // `/bin/true` may exit before reading: a broken pipe is fine.
            let _ = stdin.write_all(input);
        }
        let status = child.wait().expect("wait");
        self.times.push(start.elapsed());
        if !matches!(status.code(), Some(0 | 2)) {
            self.failed += 1;
        }
    }

    fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.times.clone();
        sorted.sort();
        sorted[((sorted.len() - 1) as f64 * q).round() as usize]
    }
}

/// Claude Code's `PreToolUse` call of `command` in `cwd`.
fn pre_tool_use(command: &str, cwd: &Path) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "bench",
        "transcript_path": cwd.join("transcript.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "corpus case"},
        "tool_use_id": "toolu_bench",
    }))
    .expect("json")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`, a debug build of
    // `hooks`) this is a smoke run over a few commands whose numbers mean nothing.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hooks-guards/tests/corpus");
    let mut commands: Vec<String> = dcg::commands(&root)
        .into_iter()
        .filter(|c| c.len() < 1024)
        .collect();
    if smoke {
        commands.truncate(5);
    }
    let home = tempfile::tempdir().expect("scratch HOME");
    let inputs: Vec<Vec<u8>> = commands
        .iter()
        .map(|c| pre_tool_use(c, home.path()))
        .collect();
    let start_input = serde_json::to_vec(&serde_json::json!({
        "session_id": "bench",
        "transcript_path": home.path().join("transcript.jsonl"),
        "cwd": home.path(),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }))
    .expect("json");

    let hooks = PathBuf::from(env!("CARGO_BIN_EXE_hooks"));
    let mut ours = Subject::new(
        "hooks claude PreToolUse",
        hooks.clone(),
        &["claude", "PreToolUse"],
    );
    let mut floor = Subject::new("/bin/true", PathBuf::from("/bin/true"), &[]);
    let mut start = Subject::new(
        "hooks claude SessionStart",
        hooks.clone(),
        &["claude", "SessionStart"],
    );
    let dcg = dcg::dcg_binary();
    let mut theirs = dcg
        .clone()
        .map(|path| Subject::new("dcg 0.16.0", path, &[]));

    // One warm-up pass over a few inputs (page cache, dynamic loader).
    for input in inputs.iter().take(5) {
        ours.run(input, home.path());
        if let Some(dcg) = theirs.as_mut() {
            dcg.run(input, home.path());
        }
    }
    ours.times.clear();
    if let Some(dcg) = theirs.as_mut() {
        dcg.times.clear();
    }
    for _ in 0..rounds {
        for input in &inputs {
            ours.run(input, home.path());
            if let Some(dcg) = theirs.as_mut() {
                dcg.run(input, home.path());
            }
            floor.run(input, home.path());
            start.run(&start_input, home.path());
        }
    }

    if smoke {
        println!("smoke run (not `cargo bench`): the numbers below are not measurements");
    }
    println!(
        "whole process per decision: {} corpus commands under 1 KB, {rounds} rounds, interleaved ({})",
        inputs.len(),
        hooks.display()
    );
    match &dcg {
        Some(path) => println!("dcg: {}", path.display()),
        None => println!(
            "dcg: not installed (HOOKS_DCG_BIN, or ~/.cache/hooks-e2e/dcg-0.16.0/bin/dcg): ours alone"
        ),
    }
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>8}",
        "process", "median ms", "p90 ms", "p99 ms", "failed"
    );
    let subjects: Vec<&Subject> = [Some(&floor), Some(&start), Some(&ours), theirs.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    for s in &subjects {
        println!(
            "{:<28} {:>10.3} {:>10.3} {:>10.3} {:>8}",
            s.name,
            ms(s.quantile(0.5)),
            ms(s.quantile(0.9)),
            ms(s.quantile(0.99)),
            s.failed
        );
    }
    let median = |s: &Subject| ms(s.quantile(0.5));
    println!(
        "where hooks' time goes (medians): spawning a process {:.3} ms, the adapter's start \
         beyond it {:.3} ms, the guard's call beyond that {:.3} ms",
        median(&floor),
        median(&start) - median(&floor),
        median(&ours) - median(&start)
    );
    if let Some(dcg) = &theirs {
        println!(
            "dcg / hooks = {:.2}x at the median, {:.2}x at p99 (target >= 1: no slower)",
            median(dcg) / median(&ours),
            ms(dcg.quantile(0.99)) / ms(ours.quantile(0.99))
        );
    }
    assert_eq!(ours.failed, 0, "hooks claude PreToolUse failed to answer");
}
