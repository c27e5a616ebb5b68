//! Process start of `hooks claude PreToolUse` (issue 6), against `/bin/true` and, when they
//! exist, `node -e` and `python3 -c` doing the same check: read the hook input from stdin,
//! decide whether the Bash command is `rm -rf`, print a decision only to deny. Also
//! `hooks claude SessionStart`, an event for which the adapter looks for no hook files.
//!
//! ```text
//! cargo bench -p hookwright-cli --bench process_start            # 200 runs of each (about 15 s)
//! RUNS=50 cargo bench -p hookwright-cli --bench process_start    # fewer
//! HOOKS_BIN=/path/to/hooks cargo bench -p hookwright-cli --bench process_start
//! ```
//!
//! The adapter is the `hooks` binary Cargo builds for this bench (release profile), with the
//! bundled examples linked in; it loads the hooks the way it does under Claude Code. Runs are
//! interleaved (one of each command in turn) so that a change of machine load hits them
//! alike. Prints the median and 90th percentile wall time of each (spawn to exit, stdin
//! written and closed), the ratios, and the peak RSS of the adapter.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};

/// A small PreToolUse input, as Claude Code sends it.
const INPUT: &str = r#"{"session_id":"0b1c2d3e","transcript_path":"/tmp/transcript.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"List files"},"tool_use_id":"toolu_01"}"#;

/// A SessionStart input: an event no hook file handles, so the adapter does not look for any.
const SESSION_START_INPUT: &str = r#"{"session_id":"0b1c2d3e","transcript_path":"/tmp/transcript.jsonl","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup"}"#;

/// The same check in JavaScript.
const NODE_CHECK: &str = r#"let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);const c=(i.tool_input||{}).command||'';if(i.tool_name==='Bash'&&/\brm\s+-rf\b/.test(c)){console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'deny',permissionDecisionReason:'rm -rf blocked'}}))}})"#;

/// The same check in Python.
const PYTHON_CHECK: &str = r#"import json,re,sys
i=json.load(sys.stdin);c=(i.get('tool_input') or {}).get('command') or ''
if i.get('tool_name')=='Bash' and re.search(r'\brm\s+-rf\b',c):print(json.dumps({'hookSpecificOutput':{'hookEventName':'PreToolUse','permissionDecision':'deny','permissionDecisionReason':'rm -rf blocked'}}))"#;

struct Subject {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    input: &'static str,
    times: Vec<Duration>,
}

impl Subject {
    fn new(name: &'static str, program: impl Into<PathBuf>, args: &[&str]) -> Self {
        Subject {
            name,
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            input: INPUT,
            times: Vec::new(),
        }
    }

    /// This subject with `input` on its stdin instead of the PreToolUse input.
    fn with_input(mut self, input: &'static str) -> Self {
        self.input = input;
        self
    }

    /// One run: spawn, write the input, close stdin, wait. Returns the wall time.
    fn run(&self) -> Duration {
        let start = Instant::now();
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .current_dir("/tmp")
            .stdin(Stdio::piped())
            // A pipe, as the agents give it: a gating call with stdout on /dev/null fails
            // closed. The answer is one line, well within the pipe's buffer, so it is not read.
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
        if let Some(mut stdin) = child.stdin.take() {
            // `/bin/true` may exit before reading: a broken pipe is fine.
            let _ = stdin.write_all(self.input.as_bytes());
        }
        let status = child.wait().expect("wait");
        let elapsed = start.elapsed();
        assert!(
            status.success(),
            "{} exited with {status}",
            self.program.display()
        );
        elapsed
    }

    fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.times.clone();
        sorted.sort();
        let index = ((sorted.len() - 1) as f64 * q).round() as usize;
        sorted[index]
    }
}

fn exists(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn hooks_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("HOOKS_BIN") {
        return path.into();
    }
    if let Some(path) = option_env!("CARGO_BIN_EXE_hooks-examples") {
        return path.into();
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/hooks")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`, a debug build of the
    // adapter) this is a smoke run whose numbers mean nothing.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if smoke { 3 } else { 200 });
    let hooks = hooks_binary();

    // Peak RSS first, before any bigger child can raise the children's maximum.
    let adapter = Subject::new("hooks claude PreToolUse", &hooks, &["claude", "PreToolUse"]);
    for _ in 0..5 {
        adapter.run();
    }
    let peak_rss_kib = getrusage(UsageWho::RUSAGE_CHILDREN)
        .map(|u| u.max_rss())
        .unwrap_or(0);

    let session_start = Subject::new(
        "hooks claude SessionStart",
        &hooks,
        &["claude", "SessionStart"],
    )
    .with_input(SESSION_START_INPUT);
    let mut subjects = vec![
        Subject::new("/bin/true", "/bin/true", &[]),
        adapter,
        session_start,
    ];
    if exists("node") {
        subjects.push(Subject::new("node -e", "node", &["-e", NODE_CHECK]));
    }
    if exists("python3") {
        subjects.push(Subject::new("python3 -c", "python3", &["-c", PYTHON_CHECK]));
    }
    for _ in 0..3 {
        for subject in &subjects {
            subject.run();
        }
    }
    for _ in 0..runs {
        for subject in &mut subjects {
            let elapsed = subject.run();
            subject.times.push(elapsed);
        }
    }

    if smoke {
        println!("smoke run (not `cargo bench`): the numbers below are not measurements");
    }
    println!(
        "process start, {runs} runs each, interleaved ({})",
        hooks.display()
    );
    println!("{:<26} {:>12} {:>12}", "command", "median ms", "p90 ms");
    for s in &subjects {
        println!(
            "{:<26} {:>12.3} {:>12.3}",
            s.name,
            ms(s.quantile(0.5)),
            ms(s.quantile(0.9))
        );
    }
    let median = |name: &str| {
        subjects
            .iter()
            .find(|s| s.name == name)
            .map(|s| ms(s.quantile(0.5)))
    };
    let ours = median("hooks claude PreToolUse").unwrap_or(f64::NAN);
    if let Some(truth) = median("/bin/true") {
        println!("hooks / true   = {:.2}x (target <= 3x)", ours / truth);
        if let Some(start) = median("hooks claude SessionStart") {
            println!("SessionStart / true = {:.2}x", start / truth);
        }
    }
    if let Some(node) = median("node -e") {
        println!("node / hooks   = {:.1}x (target >= 10x)", node / ours);
    }
    if let Some(python) = median("python3 -c") {
        println!("python / hooks = {:.1}x", python / ours);
    }
    println!(
        "hooks peak RSS = {:.1} MiB (target <= 10 MB)",
        peak_rss_kib as f64 / 1024.0
    );
}
