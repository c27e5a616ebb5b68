//! `hooks serve` over loopback HTTP (issue 15), with the bundled examples: one session calling
//! `PreToolUse` in sequence (as an agent does), 64 sessions calling at once, the server's RSS
//! with 1,000 live sessions, and, in the same run, the loopback floor (a server that answers
//! every POST with an empty 200 and runs nothing).
//!
//! ```text
//! cargo bench -p hookwright-cli --bench serve_http                 # about 40 s
//! CALLS=5000 cargo bench -p hookwright-cli --bench serve_http      # fewer calls per measurement
//! HOOKS_BIN=/path/to/hooks cargo bench -p hookwright-cli --bench serve_http  # another server binary
//! SEQUENTIAL_ONLY=1 cargo bench -p hookwright-cli --bench serve_http  # one session in sequence alone
//! ```
//!
//! The server is the release `hooks serve` in a process of its own (a scratch user: config,
//! runtime and home directories), and so is the floor (this bench binary started again, an
//! axum route on a tokio runtime as `hooks serve` has), so that the RSS is the server's own
//! (`/proc/PID/status`) and neither shares a runtime with the clients. The clients run in
//! this process on a tokio runtime with 2 worker threads and use hyper's HTTP/1.1 client, one
//! keep-alive connection per session, as an agent's HTTP client keeps its connection to a
//! host; "new connection" opens one per call. Latency is from writing the request to reading
//! the whole answer. `Server::answer` (the server's own work, without HTTP) is timed in this
//! process.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use hookwright_examples as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use tokio::net::{TcpListener, TcpStream};

use hookwright_cli::call::AdapterOptions;
use hookwright_cli::serve::{Secret, ServeOptions, Server};

fn input(session: &str, command: &str) -> Bytes {
    Bytes::from(format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/transcript.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"{command}","description":"List files"}},"tool_use_id":"toolu_01"}}"#
    ))
}

struct Client {
    addr: SocketAddr,
    bearer: String,
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl Client {
    fn new(addr: SocketAddr, secret: &Secret) -> Client {
        Client {
            addr,
            bearer: format!("Bearer {}", secret.as_str()),
            sender: None,
        }
    }

    async fn connect(&self) -> SendRequest<Full<Bytes>> {
        let stream = TcpStream::connect(self.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        sender
    }

    /// One call; `fresh`: on a new connection. Returns the latency and the body's length.
    async fn call(&mut self, body: Bytes, fresh: bool) -> (Duration, usize) {
        let began = Instant::now();
        if fresh || self.sender.is_none() {
            self.sender = Some(self.connect().await);
        }
        let sender = self.sender.as_mut().unwrap();
        sender.ready().await.unwrap();
        let request = hyper::Request::post("/claude/PreToolUse")
            .header("host", self.addr.to_string())
            .header("authorization", &self.bearer)
            .header("content-type", "application/json")
            .body(Full::new(body))
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.status(), 200);
        let len = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .len();
        (began.elapsed(), len)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort_unstable();
    println!(
        "{name:<48} p50 {:>8.1} µs   p99 {:>8.1} µs   ({} calls)",
        percentile(&times, 0.50).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times.len()
    );
}

async fn sequential(addr: SocketAddr, secret: &Secret, calls: usize, fresh: bool) -> Vec<Duration> {
    let mut client = Client::new(addr, secret);
    let body = input("bench-seq", "ls -la");
    for _ in 0..calls / 10 {
        client.call(body.clone(), fresh).await;
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        times.push(client.call(body.clone(), fresh).await.0);
    }
    times
}

async fn concurrent(
    addr: SocketAddr,
    secret: &Secret,
    sessions: usize,
    per: usize,
) -> (Duration, Vec<Duration>) {
    let began = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for s in 0..sessions {
        let mut client = Client::new(addr, secret);
        let body = input(&format!("bench-conc-{s}"), "ls -la");
        tasks.spawn(async move {
            let mut times = Vec::with_capacity(per);
            for _ in 0..per {
                times.push(client.call(body.clone(), false).await.0);
            }
            times
        });
    }
    let mut all = Vec::with_capacity(sessions * per);
    while let Some(times) = tasks.join_next().await {
        all.extend(times.unwrap());
    }
    (began.elapsed(), all)
}

/// A server in a process of its own: its address and pid; killed when dropped.
struct Child {
    process: std::process::Child,
    addr: SocketAddr,
}

impl Child {
    fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.process.id()))
            .expect("/proc status of the server");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a memory field")
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until `addr` accepts connections (10 s at most).
fn wait_listening(addr: SocketAddr, process: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            process.try_wait().unwrap().is_none(),
            "the server exited before it listened"
        );
        assert!(
            Instant::now() < deadline,
            "the server did not listen in 10 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The release `hooks serve` for the scratch user in `user` (its `config`, `run`, `home`).
fn start_hooks_serve(user: &std::path::Path) -> (Child, Secret) {
    for sub in ["config", "run", "home", "project"] {
        std::fs::create_dir_all(user.join(sub)).unwrap();
    }
    let port = free_port();
    let binary = std::env::var_os("HOOKS_BIN").map_or_else(
        || env!("CARGO_BIN_EXE_hooks-examples").into(),
        std::path::PathBuf::from,
    );
    let mut process = std::process::Command::new(binary)
        .args(["serve", &format!("--port={port}"), "--max-sessions=4096"])
        .env("HOOKS_CONFIG_DIR", user.join("config"))
        .env("XDG_RUNTIME_DIR", user.join("run"))
        .env("HOME", user.join("home"))
        .current_dir(user.join("project"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start hooks serve");
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    wait_listening(addr, &mut process);
    let secret = Secret::load(&Secret::path_in(&user.join("config"))).expect("the server's secret");
    (Child { process, addr }, secret)
}

/// This binary again, as the floor's server.
fn start_floor() -> Child {
    let port = free_port();
    let mut process = std::process::Command::new(std::env::current_exe().unwrap())
        .env(FLOOR_PORT, port.to_string())
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("start the floor");
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    wait_listening(addr, &mut process);
    Child { process, addr }
}

/// Set to a port: this process is the floor's server.
const FLOOR_PORT: &str = "SERVE_HTTP_FLOOR_PORT";

/// The floor: an axum route answering an empty 200, on a multi-thread runtime (as `hooks
/// serve` has), until killed.
fn serve_floor(port: u16) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let router = Router::new().route("/claude/PreToolUse", post(|| async { "" }));
        axum::serve(listener, router).await.unwrap();
    });
}

/// The sequential measurements, on a runtime of one thread, as an agent's event loop is.
async fn in_sequence(hooks: &Child, floor: &Child, secret: &Secret, calls: usize) {
    let (addr, floor_addr) = (hooks.addr, floor.addr);
    // A deny answers too (the guard's decision), with a body.
    let mut check = Client::new(addr, secret);
    let (_, len) = check.call(input("bench-check", "rm -rf /"), false).await;
    assert!(len > 0, "the examples' guard denies rm -rf");

    println!("-- one session, in sequence (keep-alive connection)");
    report(
        "loopback floor (empty 200)",
        sequential(floor_addr, secret, calls, false).await,
    );
    report(
        "hooks serve, PreToolUse (examples)",
        sequential(addr, secret, calls, false).await,
    );
    // The same calls without HTTP, in this process: what the server's own work costs.
    let mut options = ServeOptions::new(secret.clone());
    options.adapter = AdapterOptions::default().cwd(std::env::temp_dir());
    let server = Server::new(options);
    let body = input("bench-direct", "ls -la");
    let mut direct = Vec::with_capacity(calls);
    for i in 0..calls + calls / 10 {
        let began = Instant::now();
        let outcome = server
            .answer(hookwright_cli::agents::Agent::Claude, "PreToolUse", &body)
            .await;
        if i >= calls / 10 {
            direct.push(began.elapsed());
        }
        assert_eq!(outcome.code, 0);
    }
    report("Server::answer, no HTTP (examples)", direct);
    server.sessions().shutdown_all().await;
    println!("-- one session, in sequence (a new connection per call)");
    report(
        "loopback floor (empty 200)",
        sequential(floor_addr, secret, calls / 4, true).await,
    );
    report(
        "hooks serve, PreToolUse (examples)",
        sequential(addr, secret, calls / 4, true).await,
    );
}

/// The measurements of many sessions at once, on a runtime with a worker thread per core.
async fn at_once(hooks: &Child, floor: &Child, secret: &Secret, calls: usize) {
    let (addr, floor_addr) = (hooks.addr, floor.addr);
    println!("-- 64 sessions at once (keep-alive connection each)");
    let per = (calls / 16).max(50);
    for (name, target) in [
        ("loopback floor (empty 200)", floor_addr),
        ("hooks serve, PreToolUse (examples)", addr),
    ] {
        let (wall, times) = concurrent(target, secret, 64, per).await;
        let n = times.len();
        let mut sorted = times;
        sorted.sort_unstable();
        println!(
            "{name:<48} {:>8.0} calls/s   p50 {:>8.1} µs   p99 {:>8.1} µs   ({n} calls)",
            n as f64 / wall.as_secs_f64(),
            percentile(&sorted, 0.50).as_secs_f64() * 1e6,
            percentile(&sorted, 0.99).as_secs_f64() * 1e6,
        );
    }

    println!("-- the server's RSS (its own process)");
    // bench-check, bench-seq and the 64 above.
    let earlier = 2 + 64;
    let before = hooks.status_kib("VmRSS:");
    {
        let mut tasks = tokio::task::JoinSet::new();
        for chunk in 0..10 {
            let secret = secret.clone();
            tasks.spawn(async move {
                let mut client = Client::new(addr, &secret);
                for s in 0..100 {
                    client
                        .call(input(&format!("bench-live-{chunk}-{s}"), "ls"), false)
                        .await;
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap();
        }
    }
    let after = hooks.status_kib("VmRSS:");
    let peak = hooks.status_kib("VmHWM:");
    println!(
        "hooks serve RSS: {:.1} MiB with {earlier} live sessions, {:.1} MiB \
         with {} ({:.1} KiB per session); peak {:.1} MiB",
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        earlier + 1000,
        (after.saturating_sub(before)) as f64 / 1000.0,
        peak as f64 / 1024.0,
    );
    println!(
        "loopback floor RSS: {:.1} MiB",
        floor.status_kib("VmRSS:") as f64 / 1024.0
    );
}

fn main() {
    if let Ok(port) = std::env::var(FLOOR_PORT) {
        serve_floor(port.parse().expect("a port"));
        return;
    }
    let calls = std::env::var("CALLS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(20_000);
    let user = tempfile::tempdir().unwrap();
    let (hooks, secret) = start_hooks_serve(user.path());
    let floor = start_floor();
    println!(
        "hooks serve RSS at start: {:.1} MiB",
        hooks.status_kib("VmRSS:") as f64 / 1024.0
    );
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(in_sequence(&hooks, &floor, &secret, calls));
    if std::env::var_os("SEQUENTIAL_ONLY").is_some() {
        return;
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(at_once(&hooks, &floor, &secret, calls));
}
