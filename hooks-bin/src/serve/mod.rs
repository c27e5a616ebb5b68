//! `hooks serve`: a resident host that keeps one [`HookRunner`](hookwright::HookRunner) per
//! agent session ([`Sessions`]), so that what a hook keeps lasts as long as the agent's
//! session, and a call costs no process start.
pub mod build;
pub mod call_headers;
mod client;
pub mod connections;
pub mod control;
mod endpoint;
pub mod forward;
pub mod http;
pub mod lock;
pub mod proof;
pub mod runtime_dir;
pub mod secret;
pub mod session_files;
mod sessions;
pub mod socket;

pub mod verify;

pub use control::{SERVE_HELP, ServeArgs};
pub use endpoint::Endpoint;
pub use http::{HttpAnswer, ServeOptions, Server};
pub use secret::Secret;
pub use session_files::SessionFiles;

pub use sessions::{
    EndReason, Ending, Entered, OnEnd, Session, SessionError, SessionKey, Sessions, SessionsConfig,
};
