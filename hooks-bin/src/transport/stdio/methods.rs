//! The client's methods: `describe`, `emit`, `command` and `end` (the protocol page lists their
//! params and answers).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use hookwright::events::{EventKind, SessionShutdownEvent, SessionStartEvent};
use hookwright::runner::ErrorSubscription;
use hookwright::{HookError, HookRunner, HookTable, LoadedHook};
use serde::Deserialize;
use serde_json::{Value, json};

use super::emit::emit;
use super::host::{BridgeHost, BridgeSession, ClientContext, ClientState, Link};
use super::peer::Peer;
use super::wire::{METHOD_NOT_FOUND, RpcError};
use super::{PROTOCOL_VERSION, StdioOptions};
use crate::agents::OnFailure;
use crate::call::Tables;
use crate::call::audit::log::{DecisionLog, LogTask};
use crate::call::audit::record::Record;
use crate::call::trace::{self, Runs};
use crate::serve::{Entered, Session, SessionKey, Sessions};
use crate::sync::Locked as _;

/// The agent name of every session of this transport ([`SessionKey::agent`]).
const AGENT: &str = "stdio";

/// What the server keeps per session besides its runner.
pub(crate) struct SessionData {
    /// The latest context the client sent.
    state: Arc<ClientState>,
    /// The handler errors reported since the last answer.
    errors: Arc<Mutex<Vec<HookError>>>,
    /// Keeps the error listener subscribed for the session's life.
    _errors: ErrorSubscription,
    /// What its handlers did since the last answer, when the decision log is written.
    runs: Option<Runs>,
}

impl SessionData {
    /// The errors reported since the last call, as the answer's `errors`.
    fn take_errors(&self) -> Value {
        Value::Array(self.take_error_list().iter().map(error_json).collect())
    }

    /// The errors reported since the last call.
    fn take_error_list(&self) -> Vec<HookError> {
        std::mem::take(&mut *self.errors.locked())
    }

    /// The handlers that ran since the last call (none when they are not traced).
    fn take_runs(&self) -> Vec<trace::HandlerRun> {
        self.runs
            .as_ref()
            .map_or_else(Vec::new, |runs| std::mem::take(&mut *runs.locked()))
    }
}

/// The result and failure of an emission of `kind` whose handlers gave `result` (a
/// `tool_call` that failed: `failure`) and reported `errors`: where the event's rule gates
/// ([`OnFailure`]), a handler's error is the call's `failure` (the client fails the event by
/// that rule: the bridge withholds, holds, cancels), and a `tool_result`'s output is withheld
/// at once, so that a redaction that failed never lets the output through.
fn failed_by_rule(
    kind: EventKind,
    result: Value,
    failure: Option<HookError>,
    errors: &[HookError],
) -> (Value, Option<HookError>) {
    let rule = OnFailure::of(kind);
    if failure.is_some() || !rule.gates() {
        return (result, failure);
    }
    let Some(failed) = errors.iter().find(|e| e.event == kind.as_str()).cloned() else {
        return (result, None);
    };
    let result = if rule == OnFailure::Withhold {
        let why = format!(
            "{} failed on {}: {}",
            failed.hook_path, failed.event, failed.error
        );
        json!({ "content": [{ "type": "text", "text": format!("[tool output withheld: {why}]") }] })
    } else {
        result
    };
    (result, Some(failed))
}

fn error_json(e: &HookError) -> Value {
    json!({ "hookPath": e.hook_path, "event": e.event, "error": e.error })
}

/// The server: the client and the live sessions.
pub(crate) struct Server {
    peer: Peer,
    options: StdioOptions,
    sessions: Sessions<SessionData>,
    tables: Tables,
    /// The decision log's writer task, when the log is written.
    log: Option<LogTask>,
}

/// `emit`'s params.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EmitParams {
    session: String,
    event: String,
    #[serde(default)]
    ctx: ClientContext,
    payload: Option<Value>,
}

/// `command`'s params.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandParams {
    session: String,
    name: String,
    #[serde(default)]
    args: String,
    #[serde(default)]
    ctx: ClientContext,
}

/// `end`'s params.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndParams {
    session: String,
}

/// `describe`'s params.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DescribeParams {
    cwd: Option<PathBuf>,
}

fn params<T: serde::de::DeserializeOwned>(method: &str, params: Value) -> Result<T, RpcError> {
    crate::json::from_value(&params)
        .map_err(|e| RpcError::invalid_params(format!("invalid {method} params: {e}")))
}

impl Server {
    /// A server answering `peer`. Inside a tokio runtime.
    pub(crate) fn new(peer: Peer, options: StdioOptions) -> Self {
        Server {
            sessions: Sessions::new(options.sessions.clone()),
            tables: Tables::new(),
            log: options
                .log
                .clone()
                .map(|log| LogTask::start(DecisionLog::new(log))),
            peer,
            options,
        }
    }

    /// The client.
    pub(crate) fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Answers the client's request `method`.
    pub(crate) async fn call(&self, method: &str, raw: Value) -> Result<Value, RpcError> {
        match method {
            "describe" => self.describe(params(method, raw)?),
            "emit" => self.emit(params(method, raw)?).await,
            "command" => self.command(params(method, raw)?).await,
            "end" => self.end(params(method, raw)?).await,
            other => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("no method {other:?} (describe, emit, command, end)"),
            )),
        }
    }

    /// Ends every live session (`session_shutdown` on each), then waits for the decision
    /// log's last lines.
    pub(crate) async fn shutdown(&self) {
        self.sessions.shutdown_all().await;
        if let Some(log) = &self.log {
            log.flush().await;
        }
    }

    fn cwd_or_current(cwd: Option<PathBuf>) -> PathBuf {
        cwd.or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    }

    /// What the bundle handles for `cwd`.
    fn describe(&self, p: DescribeParams) -> Result<Value, RpcError> {
        let cwd = Self::cwd_or_current(p.cwd);
        let (hooks, errors) = self.options.load(&cwd);
        Ok(describe_json(&hooks, &errors))
    }

    /// The session `id`, built on its first call with `ctx`.
    async fn enter(&self, id: &str, ctx: &ClientContext) -> Result<Entered<SessionData>, RpcError> {
        let key = SessionKey::new(AGENT, id);
        let entered = self
            .sessions
            .enter(key, || self.open(id, ctx.clone()))
            .await
            .map_err(|e| RpcError::new(super::wire::SERVER_ERROR, e.to_string()))?;
        entered.data.state.update(ctx.clone());
        Ok(entered)
    }

    /// A new session's runner: the hooks for the client's working directory, its host the
    /// client.
    fn open(&self, id: &str, ctx: ClientContext) -> Result<Session<SessionData>, String> {
        let cwd = Self::cwd_or_current(ctx.cwd.clone());
        let (mut hooks, errors) = self.options.load(&cwd);
        if !errors.is_empty() {
            // A guard that did not load must not look like a guard that let the call through.
            let errors: Vec<String> = errors.iter().map(|(p, e)| format!("{p}: {e}")).collect();
            return Err(format!("the hooks did not load: {}", errors.join("; ")));
        }
        let state = ClientState::new(ctx);
        let session_manager = Arc::new(BridgeSession {
            state: Arc::clone(&state),
            cwd: cwd.clone(),
            fallback_id: id.to_owned(),
        });
        let runs = self.log.is_some().then(Runs::default);
        // Traced hooks record into this session's `runs`: a table of their own, never shared.
        let table = match &runs {
            Some(runs) => {
                trace::trace(&mut hooks, runs, self.options.handler_timeout);
                HookTable::new(hooks)
            }
            None => self.tables.table_for(hooks),
        };
        let runner = HookRunner::from_table(&table, &cwd, session_manager)
            .map_err(|e| e.to_string())?
            .with_default_timeout(self.options.handler_timeout);
        runner.initialize(BridgeHost {
            link: Link {
                peer: self.peer.clone(),
                session: Arc::from(id),
                state: Arc::clone(&state),
            },
        });
        let errors: Arc<Mutex<Vec<HookError>>> = Arc::default();
        let sink = Arc::clone(&errors);
        let subscription = runner.on_error(move |e| {
            sink.locked().push(e.clone());
        });
        Ok(Session {
            runner: Arc::new(runner),
            data: SessionData {
                state,
                errors,
                _errors: subscription,
                runs,
            },
        })
    }

    /// Emits one event for a session: `{result, errors}`.
    async fn emit(&self, p: EmitParams) -> Result<Value, RpcError> {
        let kind: EventKind = p.event.parse().map_err(|_| {
            RpcError::invalid_params(format!("no event {:?} (one of our 25 events)", p.event))
        })?;
        let payload = p.payload.unwrap_or_else(|| json!({}));
        if !payload.is_object() {
            return Err(RpcError::invalid_params(format!(
                "the payload of {} must be an object",
                kind.as_str()
            )));
        }
        // Checked before the session is built: a bad payload changes nothing.
        emit_check(kind, &payload)?;
        // Switched off: no opinion, and no session is built (no hook loads).
        if let Some(line) = crate::call::disabled_line(format_args!("hooks serve --stdio {kind}")) {
            eprint!("{line}");
            return Ok(json!({ "result": null, "errors": [] }));
        }
        // What the decision log needs, taken only when it is written.
        let began = self
            .log
            .as_ref()
            .map(|_| (SystemTime::now(), Instant::now()));
        let tool = self
            .log
            .as_ref()
            .and(payload.get("toolName"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let input = self
            .log
            .as_ref()
            .and_then(|_| Record::emitted_input(&payload));
        let entered = self.enter(&p.session, &p.ctx).await?;
        if !entered.started() {
            // What the session's handlers did before this call is not this call's.
            entered.data.take_runs();
        }
        let emitted = match kind {
            // The session's start was emitted when it was built, once.
            EventKind::SessionStart if entered.started() => None,
            EventKind::SessionStart => {
                let _ = entered.runner.emit(&SessionStartEvent {}).await;
                None
            }
            _ => Some(
                emit(&entered.runner, kind, payload)
                    .await
                    .map_err(|e| RpcError::invalid_params(e.to_string()))?,
            ),
        };
        let reported = entered.data.take_error_list();
        let runs = entered.data.take_runs();
        if kind == EventKind::SessionShutdown {
            entered.close();
        }
        let (result, failure) = match emitted {
            Some(e) => (e.result, e.failure),
            None => (Value::Null, None),
        };
        let (result, failure) = failed_by_rule(kind, result, failure, &reported);
        let errors = Value::Array(reported.iter().map(error_json).collect());
        let mut enforced = json!({ "result": result, "errors": errors });
        if let Some(failure) = failure {
            enforced["failure"] = error_json(&failure);
        }
        let mode = self.options.mode;
        // In audit mode the hooks are computed, not enforced: no result, no error, no
        // failure reaches the client.
        let audited = (mode == crate::call::audit::Mode::Audit)
            .then(|| json!({ "result": null, "errors": [] }));
        if let (Some(log), Some((start, clock))) = (&self.log, began) {
            let took = (start, clock.elapsed());
            let answer = audited.as_ref().unwrap_or(&enforced);
            let record = Record::emit(
                &p.session,
                (kind, tool, input),
                mode,
                took,
                runs,
                (answer, &enforced),
            );
            log.send(record.line());
        }
        Ok(audited.unwrap_or(enforced))
    }

    /// Runs a command of a session: `{errors}`, with `error` when its handler failed.
    async fn command(&self, p: CommandParams) -> Result<Value, RpcError> {
        // Switched off: the command does not run, and no session is built (no hook loads).
        let who = format!(
            "hooks serve --stdio /{}",
            crate::json::one_line(&p.name, 60)
        );
        if let Some(line) = crate::call::disabled_line(&who) {
            eprint!("{line}");
            return Ok(json!({
                "errors": [],
                "error": format!("/{} did not run: hooks are disabled ({}=1)", p.name, crate::call::DISABLE_ENV),
            }));
        }
        let entered = self.enter(&p.session, &p.ctx).await?;
        if entered.runner.get_command(&p.name).is_none() {
            return Err(RpcError::invalid_params(format!("no command /{}", p.name)));
        }
        // Outside the session's order: while the command waits for the agent (a new session,
        // idleness), the agent emits the events of that wait for this same session.
        let runner = Arc::clone(&entered.runner);
        let errors = Arc::clone(&entered.data.errors);
        drop(entered);
        let outcome = runner.run_command(&p.name, &p.args).await;
        let reported = std::mem::take(&mut *errors.locked());
        let mut answer = json!({ "errors": reported.iter().map(error_json).collect::<Vec<_>>() });
        if let Some(Err(e)) = outcome {
            answer["error"] = Value::from(format!("/{} failed: {}", p.name, e.message()));
        }
        Ok(answer)
    }

    /// Ends a session (`session_shutdown`): `{ended, errors}`; `ended: false` for a session
    /// that is not alive.
    async fn end(&self, p: EndParams) -> Result<Value, RpcError> {
        let key = SessionKey::new(AGENT, &p.session);
        if !self.sessions.contains(&key) {
            return Ok(json!({ "ended": false, "errors": [] }));
        }
        let entered = match self
            .sessions
            .enter(key, || Err("the session ended meanwhile".to_owned()))
            .await
        {
            Ok(entered) => entered,
            Err(_) => return Ok(json!({ "ended": false, "errors": [] })),
        };
        let _ = entered.runner.emit(&SessionShutdownEvent {}).await;
        let errors = entered.data.take_errors();
        entered.close();
        Ok(json!({ "ended": true, "errors": errors }))
    }
}

/// Decodes `payload` as `kind` without emitting it, so that a bad payload is refused before
/// a session is built.
fn emit_check(kind: EventKind, payload: &Value) -> Result<(), RpcError> {
    super::emit::check(kind, payload).map_err(|e| RpcError::invalid_params(e.to_string()))
}

/// `describe`'s answer for `hooks` (and the entries that failed to load).
fn describe_json(hooks: &[LoadedHook], errors: &[(String, String)]) -> Value {
    let events: Vec<Value> = EventKind::ALL
        .iter()
        .map(|kind| {
            let handlers: usize = hooks.iter().map(|h| h.handlers.infos(*kind).len()).sum();
            json!({ "name": kind.as_str(), "handlers": handlers })
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut commands = Vec::new();
    let mut renderers = Vec::new();
    for hook in hooks {
        for command in hook.commands.values() {
            // The first hook's command wins, as upstream.
            if seen.insert(command.name.clone()) {
                commands.push(json!({
                    "name": command.name,
                    "description": command.description,
                    "hook": hook.path,
                }));
            }
        }
        for custom_type in hook.renderers.keys() {
            if !renderers.contains(custom_type) {
                renderers.push(custom_type.clone());
            }
        }
    }
    json!({
        "protocol": PROTOCOL_VERSION,
        "hooks": hooks.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        "events": events,
        "commands": commands,
        "renderers": renderers,
        "loadErrors": errors.iter().map(|(p, e)| json!({ "path": p, "error": e })).collect::<Vec<_>>(),
    })
}
