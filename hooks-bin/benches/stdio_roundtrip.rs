//! `hooks serve --stdio` (the examples bundle): one `tool_call` decision's round trip over the
//! protocol, one session calling in sequence (what the bridge does); 64 sessions with a call
//! each in flight at once; the server's RSS with 1,000 live sessions. Beside them, the floor
//! of the same pipes: a line through `cat` and back.
//!
//! `cargo bench -p hookwright-cli --bench stdio_roundtrip` (about 20 s); `CALLS=N` changes the
//! number of sequential calls (default 20,000); `HOOKS_BIN=/path/to/hooks` measures another
//! server binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const HOOKS: &str = env!("CARGO_BIN_EXE_hooks-examples");

struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Pipe {
    fn start(cmd: &mut Command) -> Pipe {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start");
        Pipe {
            stdin: child.stdin.take().expect("stdin"),
            stdout: BufReader::new(child.stdout.take().expect("stdout")),
            child,
            line: String::new(),
        }
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The next line that is an answer (not a notification).
    fn answer(&mut self) -> &str {
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("read");
            assert!(n > 0, "the server ended");
            if self.line.starts_with("{\"jsonrpc\":\"2.0\",\"id\"") {
                return &self.line;
            }
        }
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn emit(id: u64, session: &str) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"emit\",\"params\":{{\"session\":\"{session}\",\
         \"event\":\"tool_call\",\"ctx\":{{\"hasUI\":false}},\"payload\":{{\"toolName\":\"bash\",\
         \"toolCallId\":\"t{id}\",\"input\":{{\"command\":\"ls -la\"}}}}}}}}\n"
    )
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{name:<44} p50 {:>8.1} µs   p99 {:>8.1} µs   ({} calls)",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times.len()
    );
}

fn sequential(pipe: &mut Pipe, calls: u64, line: impl Fn(u64) -> String) -> Vec<Duration> {
    for id in 0..500 {
        pipe.send(&line(id));
        pipe.answer();
    }
    (0..calls)
        .map(|id| {
            let text = line(id + 500);
            let t = Instant::now();
            pipe.send(&text);
            pipe.answer();
            t.elapsed()
        })
        .collect()
}

fn main() {
    let calls: u64 = std::env::var("CALLS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(20_000);
    let dir = tempfile::tempdir().expect("scratch dir");

    let mut cat = Pipe::start(&mut Command::new("cat"));
    let floor = sequential(&mut cat, calls, |id| emit(id, "s"));
    report("floor: the same line through cat", floor);

    let binary = std::env::var_os("HOOKS_BIN").unwrap_or_else(|| HOOKS.into());
    let mut server = Pipe::start(
        Command::new(binary)
            .args(["serve", "--stdio"])
            .current_dir(dir.path())
            .env("HOME", dir.path()),
    );
    let one = sequential(&mut server, calls, |id| emit(id, "s"));
    report("tool_call decision, one session in sequence", one);

    // 64 sessions, one call of each in flight at all times; a call's id is
    // `BASE + n * 64 + session`, so its answer names its session.
    const BASE: u64 = 1_000_000;
    let sessions = 64u64;
    let total = calls.max(sessions * 10);
    let mut sent_at = vec![Instant::now(); 64];
    let started = Instant::now();
    for s in 0..sessions {
        sent_at[s as usize] = Instant::now();
        server.send(&emit(BASE + s, &format!("p{s}")));
    }
    let mut sent = sessions;
    let mut times = Vec::with_capacity(total as usize);
    while (times.len() as u64) < total {
        let id: u64 = server
            .answer()
            .split("\"id\":")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .expect("an id");
        let s = (id - BASE) % sessions;
        times.push(sent_at[s as usize].elapsed());
        if sent < total {
            sent_at[s as usize] = Instant::now();
            server.send(&emit(BASE + sent * sessions + s, &format!("p{s}")));
            sent += 1;
        }
    }
    let elapsed = started.elapsed();
    let rate = times.len() as f64 / elapsed.as_secs_f64();
    report("tool_call decision, 64 sessions at once", times);
    println!("{:<44} {rate:.0} decisions/s", "  throughput");

    // 1,000 live sessions.
    let before = server.rss_kib();
    for s in 0..1000u64 {
        server.send(&emit(BASE * 1000 + s, &format!("live{s}")));
        server.answer();
    }
    let after = server.rss_kib();
    println!(
        "{:<44} {:.1} MiB (before them: {:.1} MiB)",
        "RSS with 1,000 live sessions (+ the 65 above)",
        after as f64 / 1024.0,
        before as f64 / 1024.0
    );
}
