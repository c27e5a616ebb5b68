//! `hooks serve`: a resident host that keeps one [`HookRunner`](hooks_core::HookRunner) per
//! agent session ([`Sessions`]), so that what a hook keeps lasts as long as the agent's
//! session, and a call costs no process start.
pub mod build;
pub mod cli;
pub mod forward;
pub mod http;
pub mod lock;
pub mod secret;
pub mod session_files;
mod sessions;
pub mod socket;
mod tables;

pub use cli::{Endpoint, SERVE_HELP, ServeArgs};
pub use http::{HttpAnswer, ServeOptions, Server};
pub use secret::Secret;
pub use session_files::SessionFiles;
pub use tables::Tables;

pub use sessions::{
    EndReason, Ending, Entered, OnEnd, Session, SessionError, SessionKey, Sessions, SessionsConfig,
};
