//! What a called handler gives back: [`HandlerResult`], holding what it returned or the
//! [`HandlerError`] it threw (a returned `Err`, a panic, a timeout), and [`BoxFuture`], the
//! boxed future an async handler, command or session setup gives it in.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a called handler produced: a result, no result, or a thrown error.
pub type HandlerResult<R> = Result<Option<R>, HandlerError>;

/// How a handler failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerErrorKind {
    /// The handler returned `Err`.
    Error,
    /// The handler panicked.
    Panic,
    /// The handler ran past its timeout.
    Timeout,
}

/// A thrown handler error: an `Err` returned by a handler, a panic, or a timeout. Its text is
/// the error's `Display` (for a panic, the panic message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    message: String,
    kind: HandlerErrorKind,
}

impl HandlerError {
    /// An error with `message` (what a handler's `Err` becomes).
    pub fn new(message: impl fmt::Display) -> Self {
        HandlerError {
            message: message.to_string(),
            kind: HandlerErrorKind::Error,
        }
    }

    /// The error a handler (or command) returned as `Err(error)`: its text with its causes
    /// (`{:#}`), so that an `anyhow::Error` built with `.context("reading config")` reads
    /// `reading config: No such file or directory (os error 2)`, not just `reading config`.
    /// For other error types `{:#}` is their usual text.
    pub fn returned(error: impl fmt::Display) -> Self {
        HandlerError::new(format_args!("{error:#}"))
    }

    /// The error of a handler that panicked with `payload`.
    #[must_use]
    pub fn from_panic(payload: &(dyn Any + Send)) -> Self {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "handler panicked".to_owned()
        };
        HandlerError {
            message,
            kind: HandlerErrorKind::Panic,
        }
    }

    /// The error of a handler that ran past `limit`.
    #[must_use]
    pub fn timeout(limit: Duration) -> Self {
        HandlerError {
            message: format!("handler timed out after {} ms", limit.as_millis()),
            kind: HandlerErrorKind::Timeout,
        }
    }

    /// The error text.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How the handler failed.
    #[must_use]
    pub fn kind(&self) -> HandlerErrorKind {
        self.kind
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HandlerError {}
