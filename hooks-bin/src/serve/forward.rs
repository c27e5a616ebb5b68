//! `hooks claude EVENT --via-server`: a command hook that hands its call to this user's
//! `hooks serve` (starting it in the background when it does not run), so that the call
//! reaches the session's resident runner. `hooks install claude --http` writes it for
//! `SessionStart`, which Claude Code does not send to HTTP hooks: the session's first call
//! starts the server, builds the session and answers with what `session_start` sent.
//!
//! The server's answer is written back as the command adapter writes its own: a 200's body
//! on stdout, exit 0; another status: its body on stderr, exit
//! [`failure_code`](crate::adapters::Protocol::failure_code). A server that cannot be started
//! or reached fails the call the same way, naming what to run.

use std::io::{self, Write as _};
use std::time::Duration;

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;

use super::Secret;
use super::cli::{Endpoint, ServeArgs, ensure_running};
use crate::adapters::{Agent, EXIT_OK, Outcome};
use crate::json;

/// How long the forwarded call may take (as an HTTP hook entry's `timeout`).
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(crate::install::HTTP_TIMEOUT_SECS);

/// Serves one call of `agent`'s `event_name` through the server; returns the exit code.
#[must_use]
pub fn run(agent: Agent, event_name: &str) -> u8 {
    let protocol = agent.protocol();
    let outcome = forward(agent, event_name)
        .unwrap_or_else(|why| Outcome::failure(protocol, event_name, &why));
    if !outcome.stdout.is_empty() {
        let mut out = io::stdout().lock();
        if let Err(e) = out
            .write_all(outcome.stdout.as_bytes())
            .and_then(|()| out.flush())
        {
            let failed = Outcome::failure(
                protocol,
                event_name,
                &format!("cannot write the answer to stdout: {e}"),
            );
            eprint!("{}", failed.stderr);
            return failed.code;
        }
    }
    eprint!("{}", outcome.stderr);
    outcome.code
}

fn forward(agent: Agent, event_name: &str) -> Result<Outcome, String> {
    let protocol = agent.protocol();
    let input = json::read_bounded(&mut io::stdin().lock())
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let binary = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let endpoint = Endpoint::of(&binary, None);
    let port = ensure_running(&endpoint, &ServeArgs::default()).map_err(|e| {
        format!(
            "hooks serve is not running and could not be started ({e}); run `{} serve` to see why",
            binary.display()
        )
    })?;
    let secret = crate::trust::config_dir()
        .map_err(|e| e.to_string())
        .and_then(|dir| {
            let path = Secret::path_in(&dir);
            Secret::load(&path).map_err(|e| format!("{}: {e}", path.display()))
        })
        .map_err(|e| format!("no secret for hooks serve: {e}"))?;
    let path = format!("/{agent}/{event_name}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("internal error: cannot start the runtime: {e}"))?;
    let (status, body) = runtime
        .block_on(async {
            tokio::time::timeout(CALL_TIMEOUT, post(port, &path, &secret, input)).await
        })
        .map_err(|_| {
            format!(
                "hooks serve did not answer within {} s",
                CALL_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| format!("hooks serve on port {port} could not be asked: {e}"))?;
    Ok(if status == 200 {
        Outcome {
            code: EXIT_OK,
            stdout: body,
            stderr: String::new(),
        }
    } else {
        let why = format!("hooks serve answered {status}: {}", body.trim_end());
        Outcome::failure(protocol, event_name, &why)
    })
}

/// `POST path` to the server on `port`: the status and body.
async fn post(
    port: u16,
    path: &str,
    secret: &Secret,
    input: Vec<u8>,
) -> Result<(u16, String), String> {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| e.to_string())?;
    let request = hyper::Request::post(path)
        .header(hyper::header::HOST, format!("127.0.0.1:{port}"))
        .header(
            hyper::header::AUTHORIZATION,
            format!("Bearer {}", secret.as_str()),
        )
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(input)))
        .map_err(|e| e.to_string())?;
    let (status, body) = exchange(stream, request).await?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// Sends `request` on the connection `stream` (HTTP/1.1): the answer's status and body.
pub(super) async fn exchange<S>(
    stream: S,
    request: hyper::Request<Full<Bytes>>,
) -> Result<(u16, Bytes), String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((status, body))
}
