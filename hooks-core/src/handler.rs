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

/// `IntoHandlerResult<R>` for `R` and `Option<R>`, `R` the result type of each event whose
/// handlers answer.
macro_rules! result_conversions {
    ($(($kind:ident, $name:literal, $event:ident $(-> $result:ident)?, $rule:ty))*) => {$($(
        impl IntoHandlerResult<crate::events::$result> for crate::events::$result {
            fn into_handler_result(self) -> HandlerResult<crate::events::$result> {
                Ok(Some(self))
            }
        }
        impl IntoHandlerResult<crate::events::$result> for Option<crate::events::$result> {
            fn into_handler_result(self) -> HandlerResult<crate::events::$result> {
                Ok(self)
            }
        }
    )?)*};
}

crate::for_each_event!(result_conversions);
