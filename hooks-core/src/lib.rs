//! # hookwright
//!
//! The runtime of the hooks framework: write the hooks of an AI coding agent (block a dangerous
//! tool call, redact a tool's output, filter the model's context, react to session events, add
//! slash commands) as ordinary, type-checked Rust functions.
//!
//! - [`events`]: one type per event, with its result type and combine rule.
//! - [`HookApi`]: the builder a hook registers through; [`LoadedHook`]: what a hook is.
//! - [`HookRunner`]: dispatches events in order and combines results by each event's rule
//!   ([`events::combine`]); [`Host`]: what the agent gives it (model, messages, entries,
//!   session actions, idle state, UI), each method defaulting to what a runner without it does.
//! - [`HookToolWrapper`]: runs `tool_call` handlers before a [`Tool`] and `tool_result` after.
//! - [`HookContext`] / [`CommandContext`]: what handlers receive; [`ui`]: the UI they can use.
//! - [`exec`]: run processes; [`session`]: the session store; [`dirs`]: the user's home and
//!   config directories.
//! - `testing` (feature `testing`): a session over the hooks under test, with a recording host
//!   and a scripted UI, for authors' tests.
//!
//! Authors use the attribute macros [`hook`], [`command`] and [`renderer`] through the
//! [`prelude`].

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod api;
mod calls;
pub mod context;
pub mod dirs;
pub mod events;
pub mod exec;
pub mod handler;
pub mod host;
pub mod loader;
pub mod position;
pub mod registry;
pub mod runner;
pub mod session;
mod state;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
pub mod tool;
pub mod tool_names;
pub mod ui;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use api::{
    CommandHandler, HookApi, HookSender, LoadedHook, MessageRenderer, RegisteredCommand,
};
pub use calls::{
    DeliverAs, HookApiError, Model, NavigateTreeOptions, NewSessionOptions, RenderOptions,
    SendMessageOptions, SessionActionResult,
};
pub use context::{CommandContext, HookContext};
pub use events::{EventKind, HookEvent};
pub use exec::{ExecError, ExecOptions, ExecResult, exec_command};
pub use handler::{HandlerError, IntoHandlerResult};
pub use host::{Host, SessionActions};
pub use loader::{LoadHooksResult, discover_and_load_hooks, load_hooks};
pub use runner::{HookError, HookRunner, HookTable, TableInUse, ToolCallHookError};
pub use session::{JsonlSessionStore, SessionError, SessionManager, SessionWriter};
pub use tool::{HookToolWrapper, Tool, ToolError, ToolOutput};
pub use ui::{HookUi, NoUi, StatusLine};

pub use hookwright_macros::{command, hook, renderer};

/// This crate as a dependency is written: its package name, library name and version (for
/// tools that write a dependency on it, such as `hooks new`).
pub const PACKAGE: Package = Package {
    name: env!("CARGO_PKG_NAME"),
    lib: env!("CARGO_CRATE_NAME"),
    version: env!("CARGO_PKG_VERSION"),
};

/// A package as a dependency is written: see [`PACKAGE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// The package's name, as `[dependencies]` names it.
    pub name: &'static str,
    /// Its library's name, as `use` names it.
    pub lib: &'static str,
    /// Its version.
    pub version: &'static str,
}

/// What a hook author needs: `use hookwright::prelude::*;`.
pub mod prelude {
    pub use crate::api::HookApi;
    pub use crate::calls::{NewSessionOptions, RenderOptions, SendMessageOptions};
    pub use crate::context::{CommandContext, HookContext};
    pub use crate::events::*;
    pub use crate::handler::HandlerError;
    pub use crate::tool::{Tool, ToolOutput};
    pub use crate::ui::{HookUi, NotifyKind, Theme, ThemeColor};
    pub use hookwright_macros::{command, hook, renderer};
}
