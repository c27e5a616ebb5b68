//! The client as the server sees it: where every line goes (one writer, so lines never
//! interleave and a request's notifications precede its answer), and the server's own requests
//! waiting for the client's answers.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::oneshot;

use super::wire::{self, RpcError};
use crate::sync::Locked as _;

type Waiting = oneshot::Sender<Result<Value, RpcError>>;

/// The other end of the line protocol. Clones share it.
#[derive(Clone)]
pub(crate) struct Peer {
    inner: Arc<Inner>,
}

struct Inner {
    out: Mutex<Box<dyn Write + Send>>,
    next_id: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiting>>,
    /// The client's input ended, or its output cannot be written: no request is answered.
    gone: AtomicBool,
}

impl Peer {
    /// A peer writing to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Peer {
            inner: Arc::new(Inner {
                out: Mutex::new(out),
                next_id: AtomicU64::new(1),
                waiting: Mutex::new(HashMap::new()),
                gone: AtomicBool::new(false),
            }),
        }
    }

    /// Writes `message` as one line. A client that no longer reads is gone.
    fn send(&self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let mut out = self.inner.out.locked();
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            drop(out);
            self.close();
        }
    }

    /// Answers the client's request `id`.
    pub(crate) fn respond(&self, id: &Value, outcome: &Result<Value, RpcError>) {
        self.send(&wire::response(id, outcome));
    }

    /// Sends a notification: nothing is answered.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        if !self.is_gone() {
            self.send(&wire::request(None, method, params));
        }
    }

    /// Sends a request and waits for the client's answer; an error when the client answered
    /// with one, or is gone.
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting().insert(id, tx);
        if self.is_gone() {
            self.waiting().remove(&id);
            return Err(gone());
        }
        self.send(&wire::request(Some(id), method, params));
        rx.await.unwrap_or_else(|_| Err(gone()))
    }

    /// Hands the client's answer to the request `id` to whoever waits for it; `false` when
    /// no request of the server has that id.
    pub(crate) fn resolve(&self, id: &Value, outcome: Result<Value, RpcError>) -> bool {
        let Some(tx) = id.as_u64().and_then(|id| self.waiting().remove(&id)) else {
            return false;
        };
        let _ = tx.send(outcome);
        true
    }

    /// The client is gone: every request waiting fails, later ones fail at once.
    pub(crate) fn close(&self) {
        self.inner.gone.store(true, Ordering::Release);
        self.waiting().clear();
    }

    pub(crate) fn is_gone(&self) -> bool {
        self.inner.gone.load(Ordering::Acquire)
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiting>> {
        self.inner.waiting.locked()
    }
}

fn gone() -> RpcError {
    RpcError::new(wire::INTERNAL_ERROR, "the client is gone (its input ended)")
}
