//! The client side of `hooks serve`'s HTTP: one request on a connection ([`exchange`]), the
//! bound on a call handed to the server ([`CALL_TIMEOUT`]), and how a call the server failed
//! is worded ([`blocked`]), for the command adapter's hand-over ([`super::socket`]),
//! `--via-server` ([`super::forward`]) and the proof ([`super::proof`]).

use std::time::Duration;

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;

use crate::agents::Protocol;

/// How long a call handed to the server may take (as an HTTP hook entry's `timeout`).
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(crate::install::HTTP_TIMEOUT_SECS);

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

/// `blocked: why` on a gating event (as the adapter words a hook failure there), else `why`.
pub(super) fn blocked(protocol: &dyn Protocol, event_name: &str, why: &str) -> String {
    if protocol.is_gating(event_name) {
        format!("blocked: {why}")
    } else {
        why.to_owned()
    }
}
