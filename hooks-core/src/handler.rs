//! Handlers: what an author's handler may return (this file: [`IntoHandlerResult`]) and what a
//! handler, command or renderer may take (the macros' signature checks, [`EventArg`] and its
//! siblings), what a called handler gives back ([`HandlerResult`], [`HandlerError`]), how one
//! is stored and called ([`Handler`], [`HandlerEntry`]) and one hook's handlers
//! ([`HandlerTable`]).

use std::fmt;

mod entry;
mod result;
mod signature;
mod table;

pub use entry::*;
pub use result::{BoxFuture, HandlerError, HandlerErrorKind, HandlerResult};
pub use signature::{
    CommandArgsArg, CommandContextArg, ContextArg, EventArg, IntoCommandResult, IntoRenderOutput,
    RenderMessageArg, RenderOptionsArg, RenderThemeArg,
};
pub use table::HandlerTable;

/// Converts what a handler returns into a [`HandlerResult`].
///
/// Implemented for `()`, for each event's result type `R`, for `Option<R>`, and for
/// `Result<T, E>` of any of these where `E: Display` (an `Err` is a thrown handler error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a handler whose event result is `{R}`",
    label = "this return type does not fit the event",
    note = "a handler returns `()` or `Result<(), E>` with `E: Display`",
    note = "unless the event's results are ignored (its result type is then `NoResult`; this event's is `{R}`), it may also return `{R}`, `Option<{R}>`, or `Result<_, E>` of either"
)]
pub trait IntoHandlerResult<R> {
    /// Performs the conversion.
    fn into_handler_result(self) -> HandlerResult<R>;
}

impl<R> IntoHandlerResult<R> for () {
    fn into_handler_result(self) -> HandlerResult<R> {
        Ok(None)
    }
}

impl<R, T, E> IntoHandlerResult<R> for Result<T, E>
where
    T: IntoHandlerResult<R>,
    E: fmt::Display,
{
    fn into_handler_result(self) -> HandlerResult<R> {
        match self {
            Ok(t) => t.into_handler_result(),
            Err(e) => Err(HandlerError::returned(e)),
        }
    }
}

macro_rules! result_conversions {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoHandlerResult<$ty> for $ty {
            fn into_handler_result(self) -> HandlerResult<$ty> {
                Ok(Some(self))
            }
        }
        impl IntoHandlerResult<$ty> for Option<$ty> {
            fn into_handler_result(self) -> HandlerResult<$ty> {
                Ok(self)
            }
        }
    )*};
}

result_conversions!(
    crate::events::SessionBeforeSwitchResult,
    crate::events::SessionBeforeBranchResult,
    crate::events::SessionBeforeCompactResult,
    crate::events::SessionCompactingResult,
    crate::events::SessionBeforeTreeResult,
    crate::events::ContextEventResult,
    crate::events::BeforeAgentStartEventResult,
    crate::events::ToolCallEventResult,
    crate::events::ToolResultEventResult,
);
