//! `hooks serve` over loopback HTTP (issue 15), with the bundled examples: one session calling
//! `PreToolUse` in sequence (as an agent does), 64 sessions calling at once, the RSS with
//! 1,000 live sessions, and, in the same run, the loopback floor (a server that answers every
//! POST with an empty 200 and runs nothing).
//!
//! ```text
//! cargo bench -p hooks-bin --bench serve_http                 # about 20 s
//! CALLS=5000 cargo bench -p hooks-bin --bench serve_http      # fewer calls per measurement
//! ```
//!
//! Server and clients run in this process, on one tokio runtime with 2 worker threads (the
//! clients use hyper's HTTP/1.1 client, one keep-alive connection per session, as an agent's
//! HTTP client keeps its connection to a host); "new connection" opens one per call. Latency
//! is from writing the request to reading the whole answer.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use examples as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use tokio::net::{TcpListener, TcpStream};

use hooks_bin::adapters::AdapterOptions;
use hooks_bin::serve::{Secret, ServeOptions, Server};

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

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn serve_router(router: Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

async fn bench(calls: usize) {
    let rss_start = rss_kib();
    let secret = Secret::generate().unwrap();
    // The floor: the same client, a server that runs nothing.
    let floor =
        serve_router(Router::new().route("/claude/PreToolUse", post(|| async { "" }))).await;
    let mut options = ServeOptions::new(secret.clone());
    options.adapter = AdapterOptions::default().cwd(std::env::temp_dir());
    options.sessions.max_sessions = 4096;
    let server = Server::new(options);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(listener, std::future::pending()).await });

    // A deny answers too (the guard's decision), with a body.
    let mut check = Client::new(addr, &secret);
    let (_, len) = check.call(input("bench-check", "rm -rf /"), false).await;
    assert!(len > 0, "the examples' guard denies rm -rf");

    println!("-- one session, in sequence (keep-alive connection)");
    report(
        "loopback floor (empty 200)",
        sequential(floor, &secret, calls, false).await,
    );
    report(
        "hooks serve, PreToolUse (examples)",
        sequential(addr, &secret, calls, false).await,
    );
    // The same calls without HTTP: what the server's own work costs.
    let body = input("bench-direct", "ls -la");
    let mut direct = Vec::with_capacity(calls);
    for i in 0..calls + calls / 10 {
        let began = Instant::now();
        let outcome = server
            .answer(hooks_bin::adapters::Agent::Claude, "PreToolUse", &body)
            .await;
        if i >= calls / 10 {
            direct.push(began.elapsed());
        }
        assert_eq!(outcome.code, 0);
    }
    report("Server::answer, no HTTP (examples)", direct);
    println!("-- one session, in sequence (a new connection per call)");
    report(
        "loopback floor (empty 200)",
        sequential(floor, &secret, calls / 4, true).await,
    );
    report(
        "hooks serve, PreToolUse (examples)",
        sequential(addr, &secret, calls / 4, true).await,
    );

    println!("-- 64 sessions at once (keep-alive connection each)");
    let per = (calls / 16).max(50);
    for (name, target) in [
        ("loopback floor (empty 200)", floor),
        ("hooks serve, PreToolUse (examples)", addr),
    ] {
        let (wall, times) = concurrent(target, &secret, 64, per).await;
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

    println!("-- RSS");
    let earlier = server.sessions().len();
    let before = rss_kib();
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
    let live = server.sessions().len();
    let after = rss_kib();
    println!(
        "process RSS: {:.1} MiB at start, {:.1} MiB with {earlier} live sessions, {:.1} MiB with \
         {live} ({:.1} KiB per session)",
        rss_start as f64 / 1024.0,
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        (after.saturating_sub(before)) as f64 / 1000.0,
    );
    server.sessions().shutdown_all().await;
}

fn main() {
    let calls = std::env::var("CALLS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(20_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(bench(calls));
}
