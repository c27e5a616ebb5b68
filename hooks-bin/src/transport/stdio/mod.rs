//! `hooks serve --stdio`: the bundle served over JSON-RPC 2.0 on stdin and stdout, one message
//! per line (MCP's stdio framing), for bridges into agents that load extensions in-process (the
//! pi and oh-my-pi bridge, `hooks-bin/bridges/pi/hooks.ts`). The protocol, with an example
//! exchange, is `hooks-bin/bridges/PROTOCOL.md`.
//!
//! Each session the client names has its own runner ([`crate::serve::Sessions`]): built on its
//! first call (`session_start` emitted once), alive until the client ends it or its input
//! ends (no idle timeout by default: an agent left open over a weekend keeps its hooks' state). Its [`Host`](hookwright::Host) and UI are the client: a hook's `ctx`
//! reaches the agent (the `host` module).
//!
//! Requests are served concurrently, each in its own task, in arrival order; the events of one
//! session are emitted one at a time, in order. A command runs outside that order: while it
//! waits for the agent (a new session, the agent to be idle), the agent emits the events of
//! that wait, and they must not wait for the command.
//!
//! Bad input gets a JSON-RPC error naming what is wrong; the server goes on. A handler that
//! fails, panics or times out fails its call by the rules of its event (a `tool_call` blocks,
//! see [`emit`]). The server exits (0) at the end of its input or on SIGTERM, after ending
//! every live session (`session_shutdown`).

mod emit;
mod host;
mod input;
mod methods;
mod peer;
mod wire;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

pub use self::emit::{Emitted, PayloadError, check, decode, emit};
pub use self::host::ClientContext;

use self::input::Line;
use self::methods::Server;
use self::peer::Peer;
use self::wire::{Incoming, RpcError};
use crate::call::HookFactory;
use crate::json::MAX_INPUT_BYTES;
use crate::serve::SessionsConfig;
use crate::trust::TrustMode;

/// How long the end of input waits for the requests in flight (a handler's default timeout is
/// 20 s).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(25);

/// The protocol's version, in `describe`'s answer.
pub const PROTOCOL_VERSION: u32 = 1;

/// What `hooks serve --stdio` is given.
#[derive(Clone)]
pub struct StdioOptions {
    /// Where the hooks of a session come from (for its working directory); `None` loads the
    /// linked bundle and the hook files discovered there, checked as `trust` says.
    pub hooks: Option<HookFactory>,
    /// How project-level hook files are checked.
    pub trust: TrustMode,
    /// The timeout of every async handler without its own (default 20 s: under the bridge's
    /// 25 s, so that a hung handler fails its call by its event's rule before the bridge gives
    /// up on the server).
    pub handler_timeout: Option<Duration>,
    /// The limits of the sessions (default: no idle timeout, since the client's input bounds
    /// every session it opens; the bound on live sessions of [`SessionsConfig`]).
    pub sessions: SessionsConfig,
    /// Enforce or audit ([`crate::call::audit`]): in audit mode an `emit` runs its hooks and
    /// answers `{"result": null, "errors": []}`.
    pub mode: crate::call::audit::Mode,
    /// The decision log, when it is written: a line per `emit` (agent `stdio`,
    /// [`crate::call::audit::record::Record::emit`]); `None` (the default): no log.
    pub log: Option<crate::call::audit::LogSettings>,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            hooks: None,
            trust: TrustMode::Check,
            handler_timeout: Some(Duration::from_secs(20)),
            sessions: SessionsConfig {
                idle_timeout: Duration::MAX,
                ..SessionsConfig::default()
            },
            mode: crate::call::audit::Mode::Enforce,
            log: None,
        }
    }
}

impl StdioOptions {
    /// The hooks for `cwd`, and the entries that failed to load (`path`, `error`).
    fn load(&self, cwd: &Path) -> (Vec<hookwright::LoadedHook>, Vec<(String, String)>) {
        match &self.hooks {
            Some(factory) => match factory(cwd) {
                Ok(hooks) => (hooks, Vec::new()),
                Err(e) => (Vec::new(), vec![("hooks".to_owned(), e)]),
            },
            None => {
                let loaded = crate::call::load::load(cwd, &[], &self.trust);
                let errors = loaded
                    .errors
                    .into_iter()
                    .map(|e| (e.path, e.error))
                    .collect();
                (loaded.hooks, errors)
            }
        }
    }
}

/// Serves stdin and stdout until the end of input (or SIGTERM).
#[must_use]
pub fn serve(options: StdioOptions) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("hooks serve: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (tx, rx) = mpsc::unbounded_channel();
    // A pipe or a socket (what a bridge's agent spawns the server with) is read on the
    // runtime's own thread: a line needs no second thread woken to reach its handler. Anything
    // else (a terminal, a file) is read by a thread of its own.
    let polled = {
        let _entered = runtime.enter();
        input::polled_stdin()
    };
    match polled {
        Some(reader) => {
            runtime.spawn(async move {
                let mut reader = tokio::io::BufReader::with_capacity(input::BUFFER, reader);
                input::read_lines_async(&mut reader, &tx).await;
            });
        }
        None => {
            let reader = std::thread::Builder::new()
                .name("stdin".into())
                .spawn(move || input::read_lines(&mut std::io::stdin().lock(), &tx));
            if let Err(e) = reader {
                eprintln!("hooks serve: cannot start the stdin reader: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let out: Box<dyn Write + Send> = Box::new(std::io::stdout());
    runtime.block_on(run(rx, out, options));
    ExitCode::SUCCESS
}

/// The server loop: each line of `lines` handled as it comes, answers written to `out`.
async fn run(
    mut lines: mpsc::UnboundedReceiver<Line>,
    out: Box<dyn Write + Send>,
    options: StdioOptions,
) {
    let peer = Peer::new(out);
    let server = Arc::new(Server::new(peer.clone(), options));
    let mut terminate = sigterm();
    let mut number: u64 = 0;
    // Each request's task holds a clone; all dropped when every request was answered.
    let (in_flight, mut all_answered) = mpsc::channel::<()>(1);
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            () = wait(&mut terminate) => None,
        };
        let Some(line) = line else { break };
        number += 1;
        let line = match line {
            Line::Text(line) => line,
            Line::TooLong => {
                let e = RpcError::new(
                    wire::INVALID_REQUEST,
                    format!("stdin line {number}: longer than {MAX_INPUT_BYTES} bytes"),
                );
                peer.respond(&serde_json::Value::Null, &Err(e));
                continue;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match wire::parse(&line, number) {
            Ok(Incoming::Request { id, method, params }) => {
                let server = Arc::clone(&server);
                let in_flight = in_flight.clone();
                tokio::spawn(async move {
                    let _in_flight = in_flight;
                    // In a task of its own, so that a panic of the server fails this request
                    // alone, with an answer.
                    let call = {
                        let server = Arc::clone(&server);
                        let method = method.clone();
                        tokio::spawn(async move { server.call(&method, params).await })
                    };
                    let outcome = call.await.unwrap_or_else(|e| {
                        Err(RpcError::new(
                            wire::INTERNAL_ERROR,
                            format!("the server failed on {method}: {e}"),
                        ))
                    });
                    server.peer().respond(&id, &outcome);
                });
            }
            // No client notification is defined; JSON-RPC says they are not answered.
            Ok(Incoming::Notification { .. }) => {}
            Ok(Incoming::Response { id, outcome }) => {
                if !peer.resolve(&id, outcome) {
                    eprintln!(
                        "hooks serve: stdin line {number}: an answer to no request of the server (id {id})"
                    );
                }
            }
            Err((id, e)) => peer.respond(&id, &Err(e)),
        }
    }
    // The client can answer nothing more: the server's requests fail (a dialog answers what
    // an agent without a UI does); the requests in flight are answered, then every session
    // ends.
    peer.close();
    drop(in_flight);
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, all_answered.recv()).await;
    server.shutdown().await;
}

type Terminate = Option<tokio::signal::unix::Signal>;

fn sigterm() -> Terminate {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok()
}

async fn wait(terminate: &mut Terminate) {
    match terminate {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}
