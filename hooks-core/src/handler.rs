//! Handlers: what an author's handler, command or renderer may take and return (`signature`:
//! [`IntoHandlerResult`] and the macros' signature checks, [`EventArg`] and its siblings), what
//! a called handler gives back (`result`: [`HandlerResult`], [`HandlerError`]), how one is
//! stored and called (`entry`: [`Handler`], [`HandlerEntry`]) and one hook's handlers
//! (`table`: [`HandlerTable`]).

mod entry;
mod result;
mod signature;
mod table;

pub use entry::*;
pub use result::{BoxFuture, HandlerError, HandlerErrorKind, HandlerResult};
pub use signature::{
    CommandArgsArg, CommandContextArg, ContextArg, EventArg, IntoCommandResult, IntoHandlerResult,
    IntoRenderOutput, RenderMessageArg, RenderOptionsArg, RenderThemeArg,
};
pub use table::HandlerTable;
