//! Attribute macros of the hooks framework (re-exported by `hooks-core`).

use proc_macro::TokenStream;

/// Registers a function as an event handler.
#[proc_macro_attribute]
pub fn hook(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Registers a function as a slash command.
#[proc_macro_attribute]
pub fn command(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Registers a function as a custom-message renderer.
#[proc_macro_attribute]
pub fn renderer(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
