//! How a listener on the loopback port proves it is this user's `hooks serve` without anyone
//! sending it the secret.
//!
//! The port is derived from public facts (the user id, the binary's path), so another local
//! user can listen on it first. Whatever listens there gets what is sent to it: the bearer
//! secret and every tool call of the HTTP entries, and an `allow` from it is obeyed. So before
//! anything is sent, a client asks `GET /.hooks/proof?nonce=N` with a fresh random nonce `N`
//! (64 hex digits) and checks the answer `{"proof": P, "pid": PID}`:
//! `P = hex(HMAC-SHA256(secret, "hooks serve proof v1\n" + N))`. Only a holder of the secret
//! can compute it; the nonce is new each time, so an answer cannot be replayed; and the
//! request carries nothing but the nonce. The route needs no `Authorization` (it is the
//! point), only a loopback `Host`.
//!
//! `hooks doctor` asks it of the port the HTTP entries post to ([`ask`]); a listener that does
//! not answer with the proof is reported as a foreign process, with the uid the kernel gives
//! for it ([`super::verify::listener_uid`]).

use std::time::Duration;

use hmac::{KeyInit as _, Mac as _};
use http_body_util::Full;
use hyper::body::Bytes;
use serde::{Deserialize, Serialize};

use super::secret::Secret;

/// The route of the proof.
pub const PATH: &str = "/.hooks/proof";

/// What the proof is computed over, before the nonce.
const CONTEXT: &[u8] = b"hooks serve proof v1\n";

/// How long the whole question may take.
const TIMEOUT: Duration = Duration::from_secs(3);

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The HMAC of the nonce, hex.
    pub proof: String,
    /// The server's process id.
    pub pid: u32,
}

/// Whether `nonce` is what a client sends: 64 hex digits.
#[must_use]
pub fn valid_nonce(nonce: &str) -> bool {
    nonce.len() == 64 && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The proof of `nonce` under `secret`, hex.
#[must_use]
pub fn proof(secret: &Secret, nonce: &str) -> String {
    let mut mac = HmacSha256::new_from_slice(secret.as_str().as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(CONTEXT);
    mac.update(nonce.as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why a listener did not prove it is the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disproof {
    /// Nothing accepts a connection on the port.
    Nothing(String),
    /// Something listens there and does not prove it holds the secret (why).
    Foreign(String),
}

/// Asks the listener on 127.0.0.1:`port` to prove it holds `secret`: its pid when it does.
///
/// # Errors
/// [`Disproof`]: nothing listens, or what listens does not prove it.
pub fn ask(port: u16, secret: &Secret) -> Result<u32, Disproof> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Disproof::Nothing(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        tokio::time::timeout(TIMEOUT, ask_async(port, secret))
            .await
            .unwrap_or_else(|_| {
                Err(Disproof::Foreign(format!(
                    "it did not answer the proof within {} s",
                    TIMEOUT.as_secs()
                )))
            })
    })
}

async fn ask_async(port: u16, secret: &Secret) -> Result<u32, Disproof> {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| Disproof::Nothing(e.to_string()))?;
    let nonce = Secret::generate()
        .map_err(Disproof::Nothing)?
        .as_str()
        .to_owned();
    let foreign = |why: String| Disproof::Foreign(why);
    let request = hyper::Request::get(format!("{PATH}?nonce={nonce}"))
        .header(hyper::header::HOST, format!("127.0.0.1:{port}"))
        .body(Full::new(Bytes::new()))
        .map_err(|e| foreign(e.to_string()))?;
    let (status, body) = super::client::exchange(stream, request)
        .await
        .map_err(|e| foreign(format!("it does not answer as the server does: {e}")))?;
    if status != 200 {
        return Err(foreign(format!(
            "it answered the proof with status {status}"
        )));
    }
    let answer: Answer = serde_json::from_slice(&body)
        .map_err(|e| foreign(format!("its answer to the proof is not one: {e}")))?;
    let expected = proof(secret, &nonce);
    if super::secret::same_bytes(expected.as_bytes(), answer.proof.as_bytes()) {
        Ok(answer.pid)
    } else {
        Err(foreign(
            "its proof does not match this user's secret".to_owned(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_depends_on_the_secret_and_the_nonce() {
        let (a, b) = (Secret::generate().unwrap(), Secret::generate().unwrap());
        let n = "0".repeat(64);
        let m = "1".repeat(64);
        assert_eq!(proof(&a, &n), proof(&a, &n));
        assert_ne!(proof(&a, &n), proof(&b, &n));
        assert_ne!(proof(&a, &n), proof(&a, &m));
        assert_ne!(proof(&a, &n), a.as_str(), "the secret is not its own proof");
        assert!(valid_nonce(&n) && !valid_nonce("00") && !valid_nonce(&"g".repeat(64)));
    }
}
