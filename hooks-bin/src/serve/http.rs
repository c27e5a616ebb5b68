//! The HTTP transport of `hooks serve`: HTTP/1.1 on 127.0.0.1, one route per agent
//! (`POST /AGENT/EVENT`: `POST /claude/PreToolUse`), the body the input JSON a command hook
//! gets on stdin, the answer in that agent's schema, from the same
//! [`Protocol`] as the command adapter
//! ([`crate::call::pipeline`]), with one runner per agent session ([`Sessions`]). The
//! same routes and handlers serve the unix socket ([`super::socket`]), where the file's mode
//! stands for the `Host` and secret checks and the answer is the command adapter's
//! [`Outcome`] itself.
//!
//! # Refusals (nothing is run, no session is touched)
//!
//! On 127.0.0.1 (the socket refuses by size and path alone):
//!
//! | request | status |
//! | --- | --- |
//! | a `Host` header other than `127.0.0.1:PORT` or `localhost:PORT` (DNS rebinding) | 421 |
//! | no `Authorization: Bearer SECRET` with the user's [`Secret`] | 401 |
//! | a body larger than stdin's limit ([`MAX_INPUT_BYTES`], 16 MiB) | 413 |
//! | a path that is not `/AGENT/EVENT` for a known agent, another method | 404 / 405 |
//!
//! A body that is not what the agent sends (malformed, not UTF-8, nested deeper than
//! [`MAX_DEPTH`](crate::json::MAX_DEPTH)), and an event the agent's protocol does not serve,
//! fail the call as on stdin: see below.
//!
//! # Answers ([`HttpAnswer::from_outcome`])
//!
//! The agents with HTTP hooks (Claude Code, Qwen Code, Copilot CLI) read a 2xx answer's JSON
//! body as they read a command hook's stdout (an empty body is no opinion). A non-2xx status
//! is a failure of the hook that blocks nothing in Qwen Code, and only with `"onFailure":
//! "block"` in Claude Code; so a failure that must block answers 200 with the JSON that
//! blocks, which the agent's protocol gives ([`Protocol::http_block`]). The command adapter's
//! [`Outcome`] maps so, through the agent's protocol and nothing else:
//!
//! | outcome | HTTP answer |
//! | --- | --- |
//! | exit 0 | 200, the body is the stdout, byte for byte (empty: no opinion) |
//! | exit 2 (a failure on a gating event, an unknown event) | 200, [`Protocol::http_block`] of the stdout and the stderr line: the stdout's JSON object (or `{}`) with `"decision": "block"` and the line as `"reason"`, which blocks in all three agents |
//! | exit 1 (a failure on an observational event) | 500, the stderr line as the body: a non-blocking error |
//!
//! A call that does not answer within the call timeout, or whose adapter panics, fails by
//! the same rules (on a gating event: blocked with the reason); a call that hung is
//! cancelled and ends its session ([`Sessions::abandon`]), and the server keeps serving.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::FutureExt as _;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::build::Watch;
use super::call_headers;
use super::client;
use super::connections::{self, Admission, Gate, Limits};
use super::proof;
use super::secret::Secret;
use super::session_files::SessionFiles;
use super::sessions::{Session, SessionKey, Sessions, SessionsConfig};
use crate::agents::{Agent, EXIT_BLOCK, EXIT_OK, Protocol};
use crate::call::Tables;
use crate::call::audit::log::{DecisionLog, LogTask};
use crate::call::audit::record::Record;
use crate::call::pipeline::{self, Load, Prepared, Resident};
use crate::call::{AdapterOptions, Answered, Outcome};
use crate::json::MAX_INPUT_BYTES;

/// What a [`Server`] is told.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where the hooks come from, the handler timeout, the trust mode (as for the command
    /// adapter; `cwd` and `project_dir` apply to every call).
    pub adapter: AdapterOptions,
    /// The limits of the sessions (idle timeout, bound, shutdown timeout).
    pub sessions: SessionsConfig,
    /// How long one call may take before it fails (default 50 s; Claude Code's `timeout`,
    /// which `hooks install` writes, is 60 s).
    pub call_timeout: Duration,
    /// The secret every request must carry.
    pub secret: Secret,
    /// Where each session's entries are kept, so that they outlive the server; `None` (the
    /// default): in memory only.
    pub session_files: Option<SessionFiles>,
    /// The binary this process was started from, if it is to watch it: once its file is
    /// replaced by another build, the first request after (the file is looked at once a
    /// second at most) writes one line saying so on stderr ([`Watch`]); the server goes on
    /// answering.
    pub binary: Option<std::path::PathBuf>,
    /// The bounds on connections ([`Limits`]).
    pub connections: Limits,
}

impl ServeOptions {
    /// The default limits, the linked bundle, and `secret`.
    #[must_use]
    pub fn new(secret: Secret) -> Self {
        ServeOptions {
            adapter: AdapterOptions::default(),
            sessions: SessionsConfig::default(),
            call_timeout: Duration::from_secs(50),
            secret,
            session_files: None,
            binary: None,
            connections: Limits::default(),
        }
    }
}

/// The answer an HTTP hook gets: a status and a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    /// The status code.
    pub status: u16,
    /// The body (JSON for 200).
    pub body: String,
}

impl HttpAnswer {
    /// The HTTP answer of `protocol`'s command adapter's `outcome` (see the [module
    /// docs](self)).
    #[must_use]
    pub fn from_outcome(protocol: &dyn Protocol, outcome: &Outcome) -> HttpAnswer {
        match outcome.code {
            EXIT_OK => HttpAnswer {
                status: 200,
                body: outcome.stdout.clone(),
            },
            EXIT_BLOCK => {
                let answer = serde_json::from_str::<Value>(&outcome.stdout).ok();
                let mut body = protocol
                    .http_block(answer, outcome.stderr.trim_end())
                    .to_string();
                body.push('\n');
                HttpAnswer { status: 200, body }
            }
            _ => HttpAnswer {
                status: 500,
                body: outcome.stderr.clone(),
            },
        }
    }

    fn refusal(status: StatusCode, why: &str) -> Response {
        (status, format!("hooks serve: {why}\n")).into_response()
    }
}

impl IntoResponse for HttpAnswer {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let kind = if status == StatusCode::OK {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        (status, [(header::CONTENT_TYPE, kind)], self.body).into_response()
    }
}

/// The door a request came in by (each admitted by its listener: [`super::connections`]).
#[derive(Debug, Clone, Copy)]
enum Door {
    /// 127.0.0.1 (a loopback `Host` and the secret checked).
    Loopback,
    /// The unix socket (its other end checked to be this user).
    Socket,
}

struct State {
    options: ServeOptions,
    sessions: Sessions<Resident>,
    tables: Tables,
    /// The decision log's writer task, when the log is written.
    log: Option<LogTask>,
    /// The watch on this server's binary file, when it is known.
    watch: Option<Watch>,
}

/// The resident host behind the HTTP transport: the sessions and how a call runs; cheap to
/// clone.
#[derive(Clone)]
pub struct Server {
    state: Arc<State>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("options", &self.state.options)
            .field("sessions", &self.state.sessions)
            .finish()
    }
}

impl Server {
    /// A server with no session yet.
    ///
    /// # Panics
    /// Outside a tokio runtime ([`Sessions::new`]).
    #[must_use]
    pub fn new(options: ServeOptions) -> Server {
        let sessions = Sessions::new(options.sessions.clone());
        if let Some(why) = &options.adapter.audit.log_unplaced {
            eprintln!("hooks serve: decision log: {why}");
        }
        // Started where the log goes whether or not this server's own mode writes it: a call
        // may bring another mode ([`call_headers`]).
        let audit = &options.adapter.audit;
        let log = audit
            .log
            .clone()
            .or_else(|| audit.place.clone())
            .map(|log| LogTask::start(DecisionLog::new(log)));
        let watch = options.binary.as_deref().and_then(Watch::new);
        Server {
            state: Arc::new(State {
                options,
                sessions,
                tables: Tables::new(),
                log,
                watch,
            }),
        }
    }

    /// The live sessions.
    #[must_use]
    pub fn sessions(&self) -> &Sessions<Resident> {
        &self.state.sessions
    }

    /// The routes of `door`: `POST /AGENT/EVENT` for every agent and any event name (one the
    /// agent's protocol does not serve fails as the command adapter fails it), answered as an
    /// HTTP hook reads it ([`HttpAnswer`]) on the loopback, where the proof ([`proof::PATH`])
    /// is served too, and as the command adapter's [`Outcome`] in JSON on the socket, where
    /// the call's working directory, trust mode and audit mode come from its headers. Which
    /// requests reach them is the listener's gate ([`Server::gate`], [`super::connections`]).
    fn routes(&self, door: Door) -> Router {
        let mut router = Router::new();
        if matches!(door, Door::Loopback) {
            let secret = self.state.options.secret.clone();
            router = router.route(
                proof::PATH,
                get(move |Query(ask): Query<ProofQuery>| async move {
                    if !proof::valid_nonce(&ask.nonce) {
                        return HttpAnswer::refusal(
                            StatusCode::BAD_REQUEST,
                            "the nonce must be 64 hex digits",
                        );
                    }
                    axum::Json(proof::Answer {
                        proof: proof::proof(&secret, &ask.nonce),
                        pid: std::process::id(),
                    })
                    .into_response()
                }),
            );
        }
        for &agent in Agent::ALL {
            let server = self.clone();
            router = router.route(
                &format!("/{agent}/{{event}}"),
                post(
                    move |Path(event): Path<String>, headers: HeaderMap, body: Body| async move {
                        server.handle(door, agent, &event, &headers, body).await
                    },
                ),
            );
        }
        router
    }

    /// Serves `listener` until `shutdown` resolves, then ends every live session
    /// (`session_shutdown` on each) and returns. Connections are bounded as
    /// [`super::connections`] says.
    ///
    /// # Errors
    /// The listener fails.
    pub async fn serve(
        &self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.serve_on(listener, None, shutdown).await
    }

    /// [`Server::serve`] on `listener` and on the unix socket `socket` at once (the same
    /// sessions), until `shutdown` resolves.
    ///
    /// # Errors
    /// A listener fails.
    pub async fn serve_with_socket(
        &self,
        listener: TcpListener,
        socket: tokio::net::UnixListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.serve_on(listener, Some(socket), shutdown).await
    }

    async fn serve_on(
        &self,
        listener: TcpListener,
        socket: Option<tokio::net::UnixListener>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let port = listener.local_addr()?.port();
        let stop = CancellationToken::new();
        let limits = self.state.options.connections;
        let on_tcp = connections::serve_tcp(
            listener,
            self.routes(Door::Loopback),
            self.gate(port),
            limits,
            stop.clone(),
        );
        let (routes, on_stop) = (self.routes(Door::Socket), stop.clone());
        let on_socket = async move {
            match socket {
                Some(socket) => connections::serve_unix(socket, routes, limits, on_stop).await,
                None => Ok(()),
            }
        };
        let stopping = async move {
            shutdown.await;
            stop.cancel();
        };
        let (on_tcp, on_socket, ()) = tokio::join!(on_tcp, on_socket, stopping);
        self.shut_down().await;
        on_tcp.and(on_socket)
    }

    /// The admission of a loopback request on `port` ([`super::connections`]): a `Host` other
    /// than `127.0.0.1:PORT` or `localhost:PORT` is refused (421: DNS rebinding); the proof
    /// ([`proof`]) is open; anything else must carry the secret (else 401).
    fn gate(&self, port: u16) -> Gate {
        let hosts: Arc<[String]> = [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
            .into_iter()
            .collect();
        let secret = self.state.options.secret.clone();
        Arc::new(move |request| {
            let headers = request.headers();
            let host = headers.get(header::HOST).map(|h| h.as_bytes());
            if !host.is_some_and(|h| hosts.iter().any(|ok| ok.as_bytes() == h)) {
                return Admission::Refused(HttpAnswer::refusal(
                    StatusCode::MISDIRECTED_REQUEST,
                    &format!("the Host header must be {}", hosts.join(" or ")),
                ));
            }
            if request.uri().path() == proof::PATH {
                return Admission::Open;
            }
            if headers
                .get(header::AUTHORIZATION)
                .is_some_and(|v| secret.authorizes(v.as_bytes()))
            {
                Admission::Proven
            } else {
                Admission::Refused(HttpAnswer::refusal(
                    StatusCode::UNAUTHORIZED,
                    "no valid `Authorization: Bearer SECRET` (the secret is in the config \
                     directory's serve-secret; `hooks install claude --http` writes it)",
                ))
            }
        })
    }

    /// Ends every live session, then waits for the decision log's last lines.
    async fn shut_down(&self) {
        self.state.sessions.shutdown_all().await;
        if let Some(log) = &self.state.log {
            log.flush().await;
        }
    }

    async fn handle(
        &self,
        door: Door,
        agent: Agent,
        event: &str,
        headers: &HeaderMap,
        body: Body,
    ) -> Response {
        if let Some(watch) = &self.state.watch {
            watch.check();
        }
        let too_large = || {
            HttpAnswer::refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("the body is larger than {MAX_INPUT_BYTES} bytes"),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_INPUT_BYTES as u64) {
            return too_large();
        }
        let input = match read_body(body, MAX_INPUT_BYTES).await {
            Ok(input) => input,
            Err(BodyError::TooLarge) => return too_large(),
            Err(BodyError::Read(e)) => {
                return HttpAnswer::refusal(
                    StatusCode::BAD_REQUEST,
                    &format!("cannot read the body: {e}"),
                );
            }
        };
        match door {
            Door::Loopback => {
                let protocol = agent.protocol();
                let outcome = match call_headers::loopback(headers, &self.state.options.adapter) {
                    Ok(switches) if switches.disabled => {
                        let off = crate::call::off_outcome(protocol, event);
                        eprint!("{}", off.stderr);
                        off
                    }
                    Ok(switches) => {
                        self.answer_with(agent, event, &input, &switches.options)
                            .await
                    }
                    Err(why) => {
                        Outcome::failure(protocol, event, &client::blocked(protocol, event, &why))
                    }
                };
                HttpAnswer::from_outcome(protocol, &outcome).into_response()
            }
            Door::Socket => match call_headers::socket(headers, &self.state.options.adapter) {
                Ok(options) => axum::Json(self.answer_with(agent, event, &input, &options).await)
                    .into_response(),
                Err(why) => HttpAnswer::refusal(StatusCode::BAD_REQUEST, &why),
            },
        }
    }

    /// One call of `agent`'s event `event_name` with the input `input`, on its session: the
    /// [`Outcome`] the command adapter would give (see [`crate::call::pipeline`]), "no
    /// opinion" in audit mode ([`crate::call::audited`]); its line of the decision log is
    /// handed to the log's writer task, off the call's path.
    /// With the hooks switched off ([`crate::call::disabled_outcome`], read from the
    /// server's environment) it answers "no opinion" at once and writes the line saying so
    /// on the server's stderr.
    pub async fn answer(&self, agent: Agent, event_name: &str, input: &[u8]) -> Outcome {
        self.answer_with(agent, event_name, input, &self.state.options.adapter)
            .await
    }

    /// [`Server::answer`] with the adapter options `adapter` (a call on the unix socket
    /// brings its own working directory and trust mode) in place of the server's.
    pub async fn answer_with(
        &self,
        agent: Agent,
        event_name: &str,
        input: &[u8],
        adapter: &AdapterOptions,
    ) -> Outcome {
        let protocol = agent.protocol();
        if let Some(off) = crate::call::disabled_outcome(protocol, event_name) {
            eprint!("{}", off.stderr);
            return off;
        }
        let (start, clock) = (SystemTime::now(), Instant::now());
        let mut answered = self.answered(protocol, event_name, input, adapter).await;
        if let Some(log) = &self.state.log
            && adapter.audit.log.is_some()
        {
            let took = (start, clock.elapsed());
            let record = Record::new(
                agent.as_str(),
                event_name,
                adapter.audit.mode,
                took,
                &mut answered,
            );
            log.send(record.line());
        }
        answered.outcome
    }

    async fn answered(
        &self,
        protocol: &'static dyn Protocol,
        event_name: &str,
        input: &[u8],
        adapter: &AdapterOptions,
    ) -> Answered {
        let call = match pipeline::prepare(protocol, event_name, input, adapter) {
            Ok(call) => call,
            Err(answered) => return *answered,
        };
        let name = call.event().name;
        let facts = call.facts().clone();
        let key = call
            .session_id()
            .map(|id| SessionKey::new(protocol.name(), id));
        // Run in place (no task of its own: no hand-over to another worker thread), a panic
        // caught, and dropped (cancelled) at the call timeout.
        let run = AssertUnwindSafe(self.run(protocol, call, key.clone(), adapter)).catch_unwind();
        let bound = self.state.options.call_timeout;
        let why = match tokio::time::timeout(bound, run).await {
            Ok(Ok(answered)) => return answered,
            Ok(Err(payload)) => pipeline::panicked(&*payload),
            Err(_) => {
                if let Some(key) = &key {
                    self.state.sessions.abandon(key);
                }
                format!(
                    "the hooks did not answer within {} s (the session was ended)",
                    bound.as_secs_f64()
                )
            }
        };
        let failed = Outcome::failure(protocol, name, &client::blocked(protocol, name, &why));
        Answered::failed(protocol, name, failed, facts, adapter.audit.mode)
    }

    async fn run(
        &self,
        protocol: &'static dyn Protocol,
        call: Prepared,
        key: Option<SessionKey>,
        adapter: &AdapterOptions,
    ) -> Answered {
        let name = call.event().name;
        let mode = adapter.audit.mode;
        let fail = |call: &Prepared, e: &str| {
            let failed = Outcome::failure(protocol, name, e);
            Answered::failed(protocol, name, failed, call.facts().clone(), mode)
        };
        let Some(key) = key else {
            return match pipeline::open(
                protocol,
                &call,
                adapter,
                Load::Everything,
                &self.state.tables,
                None,
            ) {
                Ok((_runner, alone)) => pipeline::run_alone(protocol, call, &alone, mode).await,
                Err(e) => fail(&call, &e),
            };
        };
        let files = self.state.options.session_files.as_ref();
        let entered = self
            .state
            .sessions
            .enter(key.clone(), || {
                let store = files.map(|f| f.open(&key, call.cwd())).transpose()?;
                let (runner, data) = pipeline::open(
                    protocol,
                    &call,
                    adapter,
                    Load::Everything,
                    &self.state.tables,
                    store,
                )?;
                Ok(Session { runner, data })
            })
            .await;
        let entered = match entered {
            Ok(entered) => entered,
            Err(e) => return fail(&call, &e.to_string()),
        };
        let ends = call.ends_session();
        let started = entered.started();
        let answered = pipeline::run(protocol, call, &entered.data, started, mode).await;
        if ends {
            entered.close();
        }
        answered
    }
}

/// The query of the proof: `?nonce=HEX`.
#[derive(Debug, serde::Deserialize)]
struct ProofQuery {
    nonce: String,
}

/// Why a request's body could not be read.
enum BodyError {
    /// It is longer than the limit.
    TooLarge,
    /// The connection failed while it was read.
    Read(axum::Error),
}

/// The request's body, up to `limit` bytes. It ends where the body says it ends (the end of
/// its `Content-Length`), without waiting for hyper to close the body's channel: that wait is
/// a second turn of the connection's task, rescheduled on a multi-thread runtime as a yield
/// that wakes an idle worker thread, on every request.
async fn read_body(mut body: Body, limit: usize) -> Result<Bytes, BodyError> {
    use axum::body::HttpBody as _;
    use http_body_util::BodyExt as _;

    let mut first: Option<Bytes> = None;
    let mut rest: Vec<u8> = Vec::new();
    let mut len = 0usize;
    while !body.is_end_stream() {
        let Some(frame) = body.frame().await else {
            break;
        };
        let Ok(data) = frame.map_err(BodyError::Read)?.into_data() else {
            continue; // trailers
        };
        len += data.len();
        if len > limit {
            return Err(BodyError::TooLarge);
        }
        match &first {
            None => first = Some(data),
            Some(head) => {
                if rest.is_empty() {
                    rest.extend_from_slice(head);
                }
                rest.extend_from_slice(&data);
            }
        }
    }
    Ok(if rest.is_empty() {
        first.unwrap_or_default()
    } else {
        Bytes::from(rest)
    })
}
