//! Attribute macros of the hooks framework: [`macro@hook`], [`macro@command`] and
//! [`macro@renderer`]. Use them through `hookwright` (`use hookwright::prelude::*;`), which
//! re-exports them; the code they generate names the runtime as `::hookwright::__private`.

use proc_macro::TokenStream;

mod attr;
mod command;
mod events;
mod hook;
mod renderer;
mod sig;

#[doc = include_str!("../doc/hook.md")]
#[proc_macro_attribute]
pub fn hook(attr: TokenStream, item: TokenStream) -> TokenStream {
    hook::expand(attr.into(), item.into()).into()
}

#[doc = include_str!("../doc/command.md")]
#[proc_macro_attribute]
pub fn command(attr: TokenStream, item: TokenStream) -> TokenStream {
    command::expand(attr.into(), item.into()).into()
}

#[doc = include_str!("../doc/renderer.md")]
#[proc_macro_attribute]
pub fn renderer(attr: TokenStream, item: TokenStream) -> TokenStream {
    renderer::expand(attr.into(), item.into()).into()
}

/// Not public API. The event table of these macros as
/// `&[(event name, type name, <type as HookEvent>::NAME)]`, for the test that keeps it in line
/// with `hookwright::events`. Takes an optional path to `hookwright`.
#[doc(hidden)]
#[proc_macro]
pub fn __event_table(input: TokenStream) -> TokenStream {
    events::table(input.into()).into()
}
