//! `hooks serve` on a machine shared with other local users: what another user can plant or
//! hold (a runtime directory, a lock file, a pid, the derived port, a flood of connections)
//! gets no call, no secret and no signal, and takes no call of the user's away.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hookwright_cli::serve::build::Build;
use serde_json::json;

use crate::common::scratch::{BIN, Scratch, binary, eventually, text};

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "c1"})
}

fn mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A lock file at `path` naming `pid`, `port` and `build`, locked (`flock`) by this test
/// process for as long as the returned file lives: to a reader, a running server.
fn plant_lock(path: &Path, pid: u32, port: u16, build: Option<Build>) -> std::fs::File {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .read(true)
        .open(path)
        .unwrap();
    file.lock().unwrap();
    let record = json!({"pid": pid, "port": port, "build": build});
    (&file).write_all(record.to_string().as_bytes()).unwrap();
    file
}

/// A process that answers every HTTP request on a listener with `answer`, counting the
/// connections it gets and keeping the bytes they sent.
struct Impostor {
    connections: Arc<AtomicUsize>,
    received: Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Impostor {
    fn serve<S: std::io::Read + std::io::Write + Send + 'static>(
        incoming: impl Iterator<Item = S> + Send + 'static,
        answer: &'static str,
    ) -> Impostor {
        let connections = Arc::new(AtomicUsize::new(0));
        let received = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (count, kept) = (Arc::clone(&connections), Arc::clone(&received));
        std::thread::spawn(move || {
            for mut stream in incoming {
                count.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let n = stream.read(&mut buf).unwrap_or(0);
                kept.lock().unwrap().extend_from_slice(&buf[..n]);
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        Impostor {
            connections,
            received,
        }
    }

    fn tcp(listener: TcpListener, answer: &'static str) -> Impostor {
        Impostor::serve(
            std::iter::from_fn(move || listener.accept().ok().map(|(s, _)| s)),
            answer,
        )
    }

    fn unix(listener: std::os::unix::net::UnixListener, answer: &'static str) -> Impostor {
        Impostor::serve(
            std::iter::from_fn(move || listener.accept().ok().map(|(s, _)| s)),
            answer,
        )
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    fn received(&self) -> String {
        String::from_utf8_lossy(&self.received.lock().unwrap()).into_owned()
    }
}

/// What an impostor answers on a socket: the command adapter's outcome of no opinion.
const ALLOW_OUTCOME: &str = r#"{"code":0,"stdout":"","stderr":""}"#;

/// What an impostor answers over HTTP: Claude Code's allow, and context for the model.
const ALLOW_HTTP: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"impostor"}}"#;

#[test]
fn a_runtime_directory_others_can_write_into_is_not_used_and_what_was_planted_there_gets_no_call() {
    let user = Scratch::new();
    // Another user made the usual directory first, open to all, and planted a server there:
    // a lock file naming this binary's build and an impostor's port, and a socket.
    let planted = user.runtime_dir();
    std::fs::create_dir(&planted).unwrap();
    mode(&planted, 0o777);
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let on_tcp = Impostor::tcp(tcp, ALLOW_HTTP);
    let socket = std::os::unix::net::UnixListener::bind(user.socket_in(&planted)).unwrap();
    let on_socket = Impostor::unix(socket, ALLOW_OUTCOME);
    let _lock = plant_lock(
        &user.lock_in(&planted),
        std::process::id(),
        port,
        Build::of(&binary()).ok(),
    );

    let rm = user.input("PreToolUse", "s1", bash("rm -rf /"));
    let out = user.hooks_with(&["claude", "PreToolUse"], &rm, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
        "the call was decided by the impostor: {}",
        text(&out)
    );

    let start = user.input("SessionStart", "s1", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{} has mode 0777: others may write or look into it",
            planted.display()
        )) && stderr.contains("so it is not used"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("impostor"));
    assert_eq!(
        (on_socket.connections(), on_tcp.connections()),
        (0, 0),
        "the impostor got {:?}",
        on_tcp.received()
    );
    assert!(
        user.lock_in(&user.fallback_dir()).exists(),
        "the server runs in the fallback directory"
    );
}

#[test]
fn a_lock_file_that_is_a_symbolic_link_is_never_followed() {
    let user = Scratch::new();
    let dir = user.runtime_dir();
    std::fs::create_dir(&dir).unwrap();
    mode(&dir, 0o700);
    let settings = user.path("home").join("settings.json");
    std::fs::write(&settings, "{\"hooks\": {}}\n").unwrap();
    std::os::unix::fs::symlink(&settings, user.lock_in(&dir)).unwrap();
    let free = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);

    let out = user.hooks_within(
        &["serve", &format!("--port={port}")],
        Duration::from_secs(5),
    );
    assert_eq!(out.status.code(), Some(1), "it served: {}", text(&out));
    assert!(
        text(&out).contains("is a symbolic link; it is not followed"),
        "{}",
        text(&out)
    );
    let start = user.input("SessionStart", "s1", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start, &[]);
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\"hooks\": {}}\n",
        "the link's target was written"
    );
}

#[test]
fn a_pid_in_the_lock_file_is_signalled_only_when_it_is_this_users_server_holding_the_lock() {
    let user = Scratch::new();
    let dir = user.runtime_dir();
    std::fs::create_dir(&dir).unwrap();
    mode(&dir, 0o700);
    // One of the user's own processes, named by a lock file of "an older build".
    let mut victim = Command::new("sleep").arg("30").spawn().unwrap();
    let older = Build::of(&binary()).ok().map(|b| Build {
        size: b.size + 1,
        ..b
    });
    let _lock = plant_lock(&user.lock_in(&dir), victim.id(), 1, older);

    let out = user.hooks(&["serve", "--stop"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "not signalled: pid {} is not this user's hooks server: it runs",
            victim.id()
        )),
        "{}",
        text(&out)
    );
    let out = user.hooks(&["serve", "--detach"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("cannot replace the server of an older build: not signalled"),
        "{}",
        text(&out)
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the process the lock file named was signalled"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
}

#[test]
fn doctor_reports_a_process_that_is_not_the_server_on_the_http_entries_port_as_an_error() {
    let user = Scratch::new();
    let out = user.hooks(&["install", "claude", "--http", "--claude-version", "2.1.328"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let port = user.default_port();
    let settings =
        std::fs::read_to_string(user.path("project").join(".claude/settings.local.json")).unwrap();
    assert!(
        settings.contains(&format!("http://127.0.0.1:{port}/")),
        "{settings}"
    );
    let squatter = Impostor::tcp(TcpListener::bind(("127.0.0.1", port)).unwrap(), "{}");
    let out = user.hooks(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report = text(&out);
    assert!(
        report.contains(&format!(
            "post to 127.0.0.1:{port}, and what listens on 127.0.0.1:{port}"
        )) && report.contains("is not this user's hooks server")
            && report.contains("install command entries instead"),
        "{report}"
    );
    assert!(
        !squatter.received().contains("Bearer"),
        "doctor sent the secret: {}",
        squatter.received()
    );
}

#[test]
fn a_server_that_cannot_listen_on_its_port_records_no_port_and_the_session_start_sends_it_nothing()
{
    let user = Scratch::new();
    let squatter = Impostor::tcp(
        TcpListener::bind(("127.0.0.1", user.default_port())).unwrap(),
        ALLOW_HTTP,
    );
    let start = user.input("SessionStart", "s1", json!({"source": "startup"}));
    let out = user.hooks_with(&["claude", "SessionStart", "--via-server"], &start, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("hooks serve is not running and could not be started"),
        "{}",
        text(&out)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("impostor"));
    assert_eq!(
        squatter.connections(),
        0,
        "sent to the squatter: {}",
        squatter.received()
    );
    let log = std::fs::read_to_string(user.lock_in(&user.runtime_dir()).with_extension("log"))
        .unwrap_or_default();
    assert!(
        log.contains("cannot listen on 127.0.0.1:") && log.contains("holds it"),
        "{log}"
    );
    let status = user.hooks(&["serve", "--status"]);
    assert_eq!(String::from_utf8_lossy(&status.stdout), "not running\n");
}

/// Raises this process's soft limit of open files to its hard one.
fn raise_open_files() -> u64 {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let _ = setrlimit(
        Resource::Nofile,
        Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        },
    );
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

#[test]
fn under_a_flood_of_connections_without_the_secret_an_authorised_call_is_answered_within_a_second()
{
    const FLOOD: usize = 1_500;
    assert!(raise_open_files() > 2 * FLOOD as u64, "too few descriptors");
    let user = Scratch::new();
    let port = {
        let free = TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap().port()
    };
    // A server that may open 512 files: fewer than the flood's connections.
    let log = std::fs::File::create(user.path("serve.log")).unwrap();
    let mut server = user
        .command_of("sh")
        .args([
            "-c",
            &format!("ulimit -n 512 && exec '{BIN}' serve --port={port}"),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    eventually("the server listens", || {
        std::fs::read_to_string(user.path("serve.log"))
            .unwrap_or_default()
            .contains("listening")
    });
    // Connections that never finish a request line.
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let flood: Vec<TcpStream> = (0..FLOOD)
        .filter_map(|_| {
            let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(100)).ok()?;
            let _ = s.write_all(b"POST /claude/PreToolUse HTTP/1.1\r\nhost: 127.0.0");
            Some(s)
        })
        .collect();
    assert!(flood.len() > 512, "only {} connections", flood.len());
    let secret = std::fs::read_to_string(user.path("config").join("serve-secret")).unwrap();
    let body = String::from_utf8(user.input("PreToolUse", "s1", bash("rm -rf /"))).unwrap();
    let started = Instant::now();
    let mut call = TcpStream::connect_timeout(&addr, Duration::from_secs(1))
        .unwrap_or_else(|e| panic!("no connection after {:?}: {e}", started.elapsed()));
    call.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    write!(
        call,
        "POST /claude/PreToolUse HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer \
         {secret}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: \
         close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let read = call.read_to_string(&mut answer);
    let took = started.elapsed();
    assert!(
        read.is_ok() && answer.starts_with("HTTP/1.1 200") && answer.contains("\"deny\""),
        "after {took:?}: {read:?} {answer:?}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    eprintln!(
        "flood: {} connections without the secret; the authorised call answered in {took:?}",
        flood.len()
    );
    // The oldest of the flood were closed to make room.
    let closed = flood
        .into_iter()
        .take(100)
        .filter(|s| {
            let mut s = s.try_clone().unwrap();
            s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
            matches!(s.read(&mut [0u8; 64]), Ok(0) | Err(_))
        })
        .count();
    assert!(closed > 0, "no connection of the flood was closed");
    let _ = Command::new("kill").arg(server.id().to_string()).status();
    let _ = server.wait();
}

/// The uid and gid of `nobody`.
const NOBODY: u32 = 65534;

/// `python3 -c SCRIPT ARGS...` as `nobody`.
fn as_nobody(script: &str, args: &[&Path]) -> Command {
    let mut c = Command::new("/usr/bin/python3");
    c.arg("-c").arg(script).args(args);
    std::os::unix::process::CommandExt::uid(&mut c, NOBODY);
    std::os::unix::process::CommandExt::gid(&mut c, NOBODY);
    c.env_clear().current_dir("/");
    c
}

#[test]
#[ignore = "needs root: it runs a process as another user (nobody); .ci/run runs it"]
fn the_unix_socket_talks_only_to_processes_of_this_user_on_either_end() {
    assert!(
        rustix::process::geteuid().is_root(),
        "this test needs root, to run a process as nobody"
    );
    let user = Scratch::new();
    let dir = user.runtime_dir();
    std::fs::create_dir(&dir).unwrap();
    mode(&dir, 0o700);

    // A server of another user's, its socket put where this user's server's belongs.
    let theirs = tempfile::tempdir().unwrap();
    mode(theirs.path(), 0o777);
    let (sock, got) = (theirs.path().join("sock"), theirs.path().join("got"));
    let serve = "import socket,sys\n\
        s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)\n\
        c,_=s.accept(); open(sys.argv[2],'wb').write(c.recv(65536))\n\
        b=b'{\"code\":0,\"stdout\":\"\",\"stderr\":\"\"}'\n\
        c.sendall(b'HTTP/1.1 200 OK\\r\\ncontent-length: %d\\r\\n\\r\\n' % len(b) + b)\n";
    let mut impostor = as_nobody(serve, &[&sock, &got]).spawn().unwrap();
    eventually("the impostor listens", || sock.exists());
    std::fs::rename(&sock, user.socket_in(&dir)).unwrap();
    let planted = plant_lock(
        &user.lock_in(&dir),
        impostor.id(),
        1,
        Build::of(&binary()).ok(),
    );
    let rm = user.input("PreToolUse", "s1", bash("rm -rf /"));
    let out = user.hooks_with(&["claude", "PreToolUse"], &rm, &[]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
        "handed to another user's process: {}",
        text(&out)
    );
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(&got).unwrap_or_default()),
        "",
        "another user's process got the call"
    );
    let _ = impostor.kill();
    let _ = impostor.wait();
    drop(planted);
    std::fs::remove_file(user.socket_in(&dir)).unwrap();

    // This user's server, its socket reachable by another user (a mistake of the user's).
    let out = user.hooks(&["serve", "--detach"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for open in [user.path(""), user.path("run"), dir.clone()] {
        mode(&open, 0o711);
    }
    mode(&user.socket_in(&dir), 0o666);
    let ask = "import socket,sys\n\
        s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)\n\
        s.sendall(b'POST /claude/PreToolUse HTTP/1.1\\r\\nhost: localhost\\r\\ncontent-length: 2\\r\\n\\r\\n{}')\n\
        try: d=s.recv(100)\n\
        except ConnectionResetError: d=b''\n\
        print(repr(d))\n";
    let asked = as_nobody(ask, &[&user.socket_in(&dir)]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&asked.stdout).trim(),
        "b''",
        "another user's connection was answered: {asked:?}"
    );
    let log = std::fs::read_to_string(user.lock_in(&dir).with_extension("log")).unwrap();
    assert!(
        log.contains(&format!("its other end runs as uid {NOBODY}")),
        "{log}"
    );
    mode(&dir, 0o700);
}
