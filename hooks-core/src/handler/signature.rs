//! What an author's handler, command or renderer may take and return: the traits
//! `#[hook]`, `#[command]` and `#[renderer]` pass each parameter and the return type of the
//! author's function through, at its span, so that a type that does not fit is reported on
//! it with a message naming the expected form (the `tests/ui` suite pins the messages).
//!
//! [`IntoHandlerResult`], what a handler returns, is also what [`HookApi::on`](crate::HookApi::on)
//! takes; the parameter traits and the command's and renderer's return traits are sealed: the
//! accepted shapes are exactly the implementations below.

use std::fmt;

use super::{HandlerError, HandlerResult};
use crate::calls::RenderOptions;
use crate::context::{CommandContext, HookContext};
use crate::events::{CustomMessage, HookEvent};
use crate::ui::Theme;

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

mod sealed {
    /// The parameter of each trait's hidden `sealed` method: public but unnameable outside
    /// this crate, so no other crate can implement the traits. (A supertrait would seal them
    /// too, but a wrong parameter would then get a second error about the supertrait.)
    #[derive(Debug)]
    pub struct Token;
}

/// The event parameter of a `#[hook]` handler of `E`: `&E`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the event parameter of a `{E}` handler",
    label = "expected `&{E}`",
    note = "a `#[hook]` handler takes its event by reference as the first parameter: `event: &{E}`"
)]
pub trait EventArg<'a, E: HookEvent> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_event(event: &'a E) -> Self;
}

impl<'a, E: HookEvent> EventArg<'a, E> for &'a E {
    fn sealed(_: sealed::Token) {}
    fn from_event(event: &'a E) -> Self {
        event
    }
}

/// The optional second parameter of a `#[hook]` handler: `&HookContext`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler context",
    label = "expected `&HookContext`",
    note = "the optional second parameter of a `#[hook]` handler is `ctx: &HookContext`"
)]
pub trait ContextArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_context(ctx: &'a HookContext) -> Self;
}

impl<'a> ContextArg<'a> for &'a HookContext {
    fn sealed(_: sealed::Token) {}
    fn from_context(ctx: &'a HookContext) -> Self {
        ctx
    }
}

/// The first parameter of a `#[command]`: the text after `/name `, `&str`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the arguments parameter of a command",
    label = "expected `&str`",
    note = "a `#[command]` function takes the text after `/name ` as `args: &str`"
)]
pub trait CommandArgsArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_args(args: &'a str) -> Self;
}

impl<'a> CommandArgsArg<'a> for &'a str {
    fn sealed(_: sealed::Token) {}
    fn from_args(args: &'a str) -> Self {
        args
    }
}

/// The optional second parameter of a `#[command]`: `&CommandContext`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a command context",
    label = "expected `&CommandContext`",
    note = "the optional second parameter of a `#[command]` function is `ctx: &CommandContext`"
)]
pub trait CommandContextArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_context(ctx: &'a CommandContext) -> Self;
}

impl<'a> CommandContextArg<'a> for &'a CommandContext {
    fn sealed(_: sealed::Token) {}
    fn from_context(ctx: &'a CommandContext) -> Self {
        ctx
    }
}

/// What a `#[command]` returns: `()` or `Result<(), E>` with `E: Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a command",
    label = "expected `()` or `Result<(), E>`",
    note = "a `#[command]` function returns `()` or `Result<(), E>` with `E: Display` (an `Err` is the command's error)"
)]
pub trait IntoCommandResult {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// Performs the conversion.
    fn into_command_result(self) -> Result<(), HandlerError>;
}

impl IntoCommandResult for () {
    fn sealed(_: sealed::Token) {}
    fn into_command_result(self) -> Result<(), HandlerError> {
        Ok(())
    }
}

impl<E: fmt::Display> IntoCommandResult for Result<(), E> {
    fn sealed(_: sealed::Token) {}
    fn into_command_result(self) -> Result<(), HandlerError> {
        self.map_err(HandlerError::returned)
    }
}

/// The first parameter of a `#[renderer]`: `&CustomMessage`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the message parameter of a renderer",
    label = "expected `&CustomMessage`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderMessageArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_message(message: &'a CustomMessage) -> Self;
}

impl<'a> RenderMessageArg<'a> for &'a CustomMessage {
    fn sealed(_: sealed::Token) {}
    fn from_message(message: &'a CustomMessage) -> Self {
        message
    }
}

/// The second parameter of a `#[renderer]`: `RenderOptions`, by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the options parameter of a renderer",
    label = "expected `RenderOptions`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderOptionsArg {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_options(options: RenderOptions) -> Self;
}

impl RenderOptionsArg for RenderOptions {
    fn sealed(_: sealed::Token) {}
    fn from_options(options: RenderOptions) -> Self {
        options
    }
}

/// The third parameter of a `#[renderer]`: `&Theme`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the theme parameter of a renderer",
    label = "expected `&Theme`",
    note = "a `#[renderer]` takes `(message: &CustomMessage, options: RenderOptions, theme: &Theme)`"
)]
pub trait RenderThemeArg<'a> {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// The parameter value.
    fn from_theme(theme: &'a Theme) -> Self;
}

impl<'a> RenderThemeArg<'a> for &'a Theme {
    fn sealed(_: sealed::Token) {}
    fn from_theme(theme: &'a Theme) -> Self {
        theme
    }
}

/// What a `#[renderer]` returns: `Option<Vec<String>>` (`None` = the default rendering).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for a renderer",
    label = "expected `Option<Vec<String>>`",
    note = "a `#[renderer]` returns the rendered lines, or `None` for the default rendering"
)]
pub trait IntoRenderOutput {
    #[doc(hidden)]
    fn sealed(_: sealed::Token);
    /// Performs the conversion.
    fn into_render_output(self) -> Option<Vec<String>>;
}

impl IntoRenderOutput for Option<Vec<String>> {
    fn sealed(_: sealed::Token) {}
    fn into_render_output(self) -> Option<Vec<String>> {
        self
    }
}
