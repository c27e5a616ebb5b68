//! `hooks serve [--status | --stop | --detach] [OPTIONS]`: runs the resident host on
//! 127.0.0.1 (see [`super::http`]) and on a unix socket ([`super::socket`]) until `SIGTERM`
//! or `SIGINT`, then ends every live session (`session_shutdown` on each) and exits 0.

use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::build::{self, Build};
use super::lock::{self, Lock, Running, State};
use super::{
    Endpoint, OnEnd, Secret, ServeOptions, Server, SessionFiles, SessionKey, SessionsConfig,
};
use crate::call::AdapterOptions;
use crate::trust::TrustMode;

/// What `hooks serve --help` adds.
pub const SERVE_HELP: &str = "One server per user and binary: the lock file serve-<BINARY>.lock \
in the runtime directory ($XDG_RUNTIME_DIR/hooks, else <tmp>/hooks-<uid>; used only when it is \
this user's own directory with mode 0700, else $XDG_STATE_HOME/hooks/run) holds its pid, port \
and build (the binary file's identity: a rebuilt or reinstalled binary is another build, whose \
calls a server of the older one never answers; a session start replaces that server), written \
once the server listens. Every request on 127.0.0.1 must carry `Authorization: Bearer SECRET` \
(the secret is <config dir>/serve-secret, mode 0600, made on first use); GET /.hooks/proof \
proves the server holds it without anyone sending it (hooks doctor asks it). The server also \
listens on the unix socket serve-<BINARY>.sock beside the lock file (mode 0600; both ends check \
the other's uid), where `hooks AGENT EVENT` hands over its calls while the server runs \
(HOOKS_NO_SERVER=1: never). Each session's entries are kept in \
$XDG_STATE_HOME/hooks/sessions/<agent>/<session id>.jsonl (else ~/.local/state/...), reopened \
when the session comes back after a restart, never deleted by the server; a session rebuilt \
loads its hooks for the project root that file records. A server started in the background \
(--detach, --via-server) gets a clean environment; each call is decided in the audit mode it \
brings (x-hooks-mode, x-hooks-disable), else in the server's own.\n\nExit status: 0 served until \
SIGTERM/SIGINT, stopped, started (--detach) or running (--status); 1 not running (--status), \
another server holds the lock, or the port, secret or lock cannot be had, the runtime directory \
is not private, or the config file (config.toml) is invalid; 2 invalid usage. In audit mode \
(mode = \"audit\" in config.toml, or HOOKS_MODE=audit in a server's own environment, read at \
start) every call that brings no mode answers no opinion after it is logged.\n\n\
With --stdio: the client's methods are describe, emit, command and end; the server's requests \
are ui/* and host/*. Exit status 0 at the end of input or on SIGTERM, after every live session \
ended (session_shutdown); 1 it could not start (an invalid config file too).";

/// Options of `hooks serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Serve one resident client over JSON-RPC 2.0 on stdin and stdout, one message per
    /// line, until the end of input (hooks-bin/bridges/PROTOCOL.md), instead of HTTP.
    #[arg(long, conflicts_with_all = ["status", "stop", "detach", "port", "idle_timeout", "max_sessions", "call_timeout"])]
    pub stdio: bool,
    /// Say whether the server runs (pid, port, whether of an older build), and exit.
    #[arg(long, conflicts_with_all = ["stop", "detach"])]
    pub status: bool,
    /// Stop the running server (SIGTERM: every live session ends cleanly), and exit.
    #[arg(long, conflicts_with = "detach")]
    pub stop: bool,
    /// Start the server in the background unless it runs; return once it listens.
    #[arg(long)]
    pub detach: bool,
    /// The loopback port [default: derived from the user id, the runtime directory and the binary's path].
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// End a session after this many seconds without a call.
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    pub idle_timeout: u64,
    /// The most sessions alive at once (the least recently used one is ended first).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_sessions: usize,
    /// Fail a call that takes longer than this many seconds (on a gating event: blocked).
    #[arg(long, value_name = "SECS", default_value_t = 50)]
    pub call_timeout: u64,
    /// Run project-level hook files without checking that they are trusted.
    #[arg(long)]
    pub trust_all: bool,
}

/// `hooks serve`.
#[must_use]
pub fn run(args: &ServeArgs, trust: TrustMode) -> ExitCode {
    let binary = match std::env::current_exe() {
        Ok(binary) => binary,
        Err(e) => return fail(&format!("cannot find this binary's path: {e}")),
    };
    let endpoint = match Endpoint::of(&binary, args.port) {
        Ok(endpoint) => endpoint,
        Err(e) => return fail(&e),
    };
    if let Some(why) = &endpoint.dir.fallback {
        eprintln!("hooks serve: {why}");
    }
    if args.status {
        status(&endpoint)
    } else if args.stop {
        stop(&endpoint)
    } else if args.detach {
        detach(&endpoint, args)
    } else {
        serve(&endpoint, args, trust)
    }
}

fn fail(why: &str) -> ExitCode {
    eprintln!("hooks serve: {why}");
    ExitCode::FAILURE
}

fn status(endpoint: &Endpoint) -> ExitCode {
    match lock::state(&endpoint.lock) {
        Ok(State::Held(Some(r))) => {
            let older = if build::older(r.build.as_ref(), Build::running().ok().as_ref()) {
                ", an older build of this binary: `hooks serve --stop` stops it, and the next \
                 session start or `hooks serve --detach` starts this build"
            } else {
                ""
            };
            println!("running: pid {}, http://127.0.0.1:{}{older}", r.pid, r.port);
            ExitCode::SUCCESS
        }
        Ok(State::Held(None)) => {
            println!(
                "starting (the lock file {} is held, but records no port yet)",
                endpoint.lock.display()
            );
            ExitCode::SUCCESS
        }
        Ok(State::Free) => {
            println!("not running");
            ExitCode::FAILURE
        }
        Err(e) => fail(&format!("{}: {e}", endpoint.lock.display())),
    }
}

fn stop(endpoint: &Endpoint) -> ExitCode {
    let running = match lock::state(&endpoint.lock) {
        Ok(State::Held(Some(r))) => r,
        Ok(State::Held(None)) => {
            return fail(&format!(
                "a server holds {} but records no pid yet (it is starting): try again",
                endpoint.lock.display()
            ));
        }
        Ok(State::Free) => {
            println!("not running");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&format!("{}: {e}", endpoint.lock.display())),
    };
    match stop_server(endpoint, &running) {
        Ok(()) => {
            println!("stopped (pid {})", running.pid);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// Stops the server `running` that holds `endpoint`'s lock: `SIGTERM` to its pid once that
/// is verified to be this user's server of this binary holding the lock
/// ([`super::verify::server_process`]: a pid in a lock file is only a claim), so that every
/// live session ends cleanly; then waits until it lets the lock go (a server started
/// meanwhile may hold it then; one that exited before the signal is stopped too).
fn stop_server(endpoint: &Endpoint, running: &Running) -> Result<(), String> {
    let still_held = || match lock::state(&endpoint.lock) {
        Ok(State::Held(Some(r))) => r.pid == running.pid,
        Ok(State::Held(None)) | Err(_) => true,
        Ok(State::Free) => false,
    };
    if let Err(why) = super::verify::server_process(running.pid, &endpoint.binary, &endpoint.lock) {
        if !still_held() {
            return Ok(());
        }
        return Err(format!("not signalled: {why}"));
    }
    if let Err(e) = terminate(running.pid)
        && still_held()
    {
        return Err(format!("cannot signal pid {}: {e}", running.pid));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if !still_held() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!("pid {} did not stop within 30 s", running.pid))
}

fn terminate(pid: u32) -> std::io::Result<()> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| std::io::Error::other("not a process id"))?;
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).map_err(Into::into)
}

/// Starts `hooks serve` (the same options) in its own process group, its output to
/// `serve-<BINARY>.log` next to the lock file, unless a server runs; returns once the server
/// holds the lock.
fn detach(endpoint: &Endpoint, args: &ServeArgs) -> ExitCode {
    match ensure_running(endpoint, args) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

impl Default for ServeArgs {
    fn default() -> Self {
        #[derive(clap::Parser)]
        struct Defaults {
            #[command(flatten)]
            args: ServeArgs,
        }
        <Defaults as clap::Parser>::parse_from(["serve"]).args
    }
}

/// Starts `hooks serve` with `args` in the background (see [`ServeArgs::detach`]) unless
/// `endpoint`'s server runs; returns what the running server's lock file records, once that
/// server is verified ([`running`]). A server of an older build (the binary was rebuilt or
/// reinstalled at its path since it started, see [`super::build`]) is stopped first, as
/// `hooks serve --stop` does, and the line saying so is written on stderr: what starts now
/// runs on this build.
///
/// # Errors
/// The runtime directory cannot be made private, the server could not be started, or did not
/// listen within 10 s (the message names its log file); the older server could not be
/// stopped.
pub fn ensure_running(endpoint: &Endpoint, args: &ServeArgs) -> Result<Running, String> {
    if let Ok(State::Held(Some(old))) = lock::state(&endpoint.lock)
        && build::older(old.build.as_ref(), Build::running().ok().as_ref())
    {
        stop_server(endpoint, &old)
            .map_err(|e| format!("cannot replace the server of an older build: {e}"))?;
        eprintln!(
            "hooks serve: replaced the server of an older build of {} (pid {})",
            endpoint.binary.display(),
            old.pid
        );
    }
    if let Some(running) = running(endpoint) {
        return Ok(running);
    }
    endpoint.dir.make()?;
    let log = endpoint.log();
    let out = lock::open_log(&log).map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let mut command = std::process::Command::new(&endpoint.binary);
    command.arg("serve").args([
        format!("--port={}", endpoint.port),
        format!("--idle-timeout={}", args.idle_timeout),
        format!("--max-sessions={}", args.max_sessions),
        format!("--call-timeout={}", args.call_timeout),
    ]);
    if args.trust_all {
        command.arg("--trust-all");
    }
    // The server serves every session of the user: it holds none of their directories, and
    // none of the environment of the session that happened to start it (its audit mode, kill
    // switch, credentials); a call brings its own switches ([`super::call_headers`]).
    command.env_clear().envs(server_environment());
    command
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", endpoint.binary.display()))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(running) = running(endpoint) {
            return Ok(running);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            // Lost a race to another start, which now holds the lock: wait for that one.
            if matches!(lock::state(&endpoint.lock), Ok(State::Held(_))) {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            return Err(format!("the server exited ({exit}); see {}", log.display()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(format!(
        "the server did not start within 10 s; see {}",
        log.display()
    ))
}

/// What a server started in the background keeps of the environment of the process that
/// starts it: where the user's files are ([`KEPT_VARIABLES`]: home, the XDG and config
/// directories) and what the hooks it runs need to run programs (`PATH`, `SHELL`, the locale,
/// `TZ`, `TMPDIR`), nothing else.
fn server_environment() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| KEPT_VARIABLES.contains(&name) || name.starts_with("LC_"))
        })
        .collect()
}

/// The variables a server started in the background keeps (with every `LC_*`).
pub const KEPT_VARIABLES: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "PATH",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "HOOKS_CONFIG_DIR",
];

/// The running server of `endpoint`: what its lock file records, once it records a port
/// (which a server does only after it bound its port and socket) and its pid is verified to
/// be this user's server of this binary holding the lock ([`super::verify::server_process`]);
/// `None` otherwise.
#[must_use]
pub fn running(endpoint: &Endpoint) -> Option<Running> {
    match lock::state(&endpoint.lock) {
        Ok(State::Held(Some(r)))
            if super::verify::server_process(r.pid, &endpoint.binary, &endpoint.lock).is_ok() =>
        {
            Some(r)
        }
        _ => None,
    }
}

fn serve(endpoint: &Endpoint, args: &ServeArgs, trust: TrustMode) -> ExitCode {
    match serving(endpoint, args, trust) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// [`serve`]: `Ok` once stopped by a signal, else why it cannot serve (or serve on).
fn serving(endpoint: &Endpoint, args: &ServeArgs, trust: TrustMode) -> Result<(), String> {
    let secret = crate::trust::config_dir()
        .map_err(|e| e.to_string())
        .and_then(|dir| Secret::load_or_create(&dir))
        .map_err(|e| format!("no secret: {e}"))?;
    let session_dir = SessionFiles::default_dir()
        .map_err(|e| format!("no directory for the session files: {e}"))?;
    endpoint.dir.make()?;
    // Taken before anything is bound, written once everything is: see `lock`.
    let mut lock = Lock::take(&endpoint.lock).map_err(|e| e.to_string())?;
    let descriptors = raise_open_file_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let on_end: OnEnd = Arc::new(|key: &SessionKey, ending| {
        let clean = if ending.clean { "" } else { ", not cleanly" };
        eprintln!(
            "hooks serve: session {key} ended ({}{clean})",
            ending.reason
        );
    });
    let audit =
        crate::call::audit::Settings::load().map_err(|e| format!("invalid configuration: {e}"))?;
    let options = ServeOptions {
        adapter: AdapterOptions {
            trust,
            audit,
            ..AdapterOptions::default()
        },
        sessions: SessionsConfig {
            idle_timeout: Duration::from_secs(args.idle_timeout),
            max_sessions: args.max_sessions,
            on_end: Some(on_end),
            ..SessionsConfig::default()
        },
        call_timeout: Duration::from_secs(args.call_timeout),
        secret,
        session_files: Some(SessionFiles::new(session_dir)),
        binary: Some(endpoint.binary.clone()),
        connections: super::connections::Limits::for_descriptors(descriptors),
    };
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", endpoint.port))
            .await
            .map_err(|e| {
                let taken = if e.kind() == std::io::ErrorKind::AddrInUse {
                    let who = super::verify::listener_uid(endpoint.port)
                        .map_or_else(String::new, |uid| format!(" (uid {uid})"));
                    format!(
                        " (another program{who} holds it: the port is derived from the user \
                         id, the runtime directory and this binary's path, and the entries \
                         `hooks install --http` wrote point at it; `hooks doctor` says more)"
                    )
                } else {
                    String::new()
                };
                format!("cannot listen on 127.0.0.1:{}: {e}{taken}", endpoint.port)
            })?;
        if let Some(files) = &options.session_files {
            eprintln!("hooks serve: session files in {}", files.dir().display());
        }
        let server = Server::new(options);
        // Caught from here on: a signal sent once the server says it listens ends it cleanly.
        let shutdown = terminated();
        serve_on(&server, listener, endpoint, &mut lock, shutdown)
            .await
            .map_err(|e| format!("the listener failed: {e}"))?;
        eprintln!("hooks serve: stopped");
        Ok(())
    });
    drop(lock);
    served
}

/// Serves `listener` and the unix socket ([`super::socket::bind`], replacing a stale one:
/// `lock` is held) until `SIGTERM` or `SIGINT`; the lock records the server once both are
/// bound, and the socket's file is removed before the lock is let go, so that a server
/// started after this one keeps its own. A socket that cannot be bound is said on stderr,
/// and the server serves HTTP alone (the command adapters then run their calls in their own
/// processes).
///
/// # Errors
/// The lock file cannot be written, or a listener fails.
async fn serve_on(
    server: &Server,
    listener: tokio::net::TcpListener,
    endpoint: &Endpoint,
    lock: &mut Lock,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let socket = super::socket::bind(&endpoint.socket)
        .inspect_err(|e| {
            eprintln!(
                "hooks serve: cannot listen on {} ({e}); serving HTTP only",
                endpoint.socket.display()
            );
        })
        .ok();
    lock.record(endpoint.port)?;
    let also = socket.as_ref().map_or_else(String::new, |(_, file)| {
        format!(" and {}", file.path().display())
    });
    eprintln!(
        "hooks serve: listening on {}{also} (pid {}, lock {})",
        endpoint.url(),
        std::process::id(),
        lock.path().display()
    );
    match socket {
        // The socket's file goes (dropped) once the server is done with it.
        Some((socket, _file)) => server.serve_with_socket(listener, socket, shutdown).await,
        None => server.serve(listener, shutdown).await,
    }
}

/// Raises the soft limit of open files to the hard one: each live session holds its session
/// file open (up to `--max-sessions`, 1,024 by default, beside the connections), past the
/// usual soft limit of 1,024. A limit that cannot be raised stays as it is. Returns the limit
/// in force.
fn raise_open_file_limit() -> u64 {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum
        && setrlimit(
            Resource::Nofile,
            Rlimit {
                current: limit.maximum,
                maximum: limit.maximum,
            },
        )
        .is_ok()
    {
        return limit.maximum.unwrap_or(u64::MAX);
    }
    limit.current.unwrap_or(u64::MAX)
}

/// Resolves on `SIGTERM` or `SIGINT`, which are caught from this call on (it must be made
/// inside the runtime).
fn terminated() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let caught = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    async move {
        match caught {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending::<()>().await,
        }
    }
}
