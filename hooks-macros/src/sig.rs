//! Checks shared by the three macros: the item is a plain free function, and its parameters
//! and return type can be named in generated code.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::{Attribute, FnArg, Item, ItemFn, ReturnType, Safety, Type};

use crate::attr::Errors;

/// A function the macro accepted, with its typed parameters and return type.
pub(crate) struct Func {
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Type>,
    /// The return type as written, or `()`.
    pub(crate) ret: TokenStream,
    pub(crate) is_async: bool,
    /// The function's `#[cfg(..)]` attributes, repeated on its registration.
    pub(crate) cfgs: Vec<Attribute>,
}

impl Func {
    /// The function's name as registered (a raw identifier without its `r#`).
    pub(crate) fn registered_name(&self) -> String {
        let name = self.item.sig.ident.to_string();
        name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
    }
}

/// The parameters a macro's function takes, in order, for the check of their number.
pub(crate) struct Params {
    /// The function as the errors name it, e.g. "a `#[hook]` handler".
    pub(crate) what: &'static str,
    /// The parameters it must have, as the errors name them, e.g. "the event".
    pub(crate) required: &'static [&'static str],
    /// The parameters it may have after those, e.g. "the context".
    pub(crate) optional: &'static [&'static str],
}

impl Func {
    /// Checks the number of parameters against `params`; `shape` is the expected form shown
    /// in errors. Too few is an error on the parameter list; too many points at the ones
    /// after the last allowed, or at the list when no parameter is optional.
    pub(crate) fn check_params(&self, params: &Params, shape: &str, errors: &mut Errors) {
        let Params {
            what,
            required,
            optional,
        } = params;
        let inputs = &self.item.sig.inputs;
        let (n, most) = (inputs.len(), required.len() + optional.len());
        let list = self.item.sig.paren_token.span.join();
        if optional.is_empty() && n != most {
            let count = ["no", "one", "two", "three", "four"]
                .get(most)
                .map_or_else(|| most.to_string(), |word| (*word).to_owned());
            errors.push(syn::Error::new(
                list,
                format!("{what} takes {count} parameters, not {n}: {shape}"),
            ));
        } else if n < required.len() {
            errors.push(syn::Error::new(
                list,
                format!(
                    "{what} takes {} as its first parameter: {shape}",
                    required.join(", ")
                ),
            ));
        } else if n > most {
            let extra: Vec<_> = inputs.iter().skip(most).collect();
            errors.spanned(
                quote!(#(#extra),*),
                format!(
                    "too many parameters: {what} takes {} and, optionally, {}: {shape}",
                    required.join(", "),
                    optional.join(", ")
                ),
            );
        }
    }
}

/// The author's item unchanged, followed by the errors found in it: on error the function is
/// still emitted, so one mistake gives one error instead of a cascade.
pub(crate) fn item_with_errors(mut item: TokenStream, result: syn::Result<()>) -> TokenStream {
    if let Err(e) = result {
        item.extend(e.into_compile_error());
    }
    item
}

/// Parses `item` as a free function fit for `attr` (e.g. "#[hook]"); `shape` is the expected
/// form shown in errors. Reports into `errors`; `None` when the item is not a function at all.
pub(crate) fn parse(
    item: TokenStream,
    attr: &str,
    shape: &str,
    errors: &mut Errors,
) -> Option<Func> {
    let item: Item = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let item = match item {
        Item::Fn(f) => f,
        other => {
            let (tokens, what) = describe(&other);
            errors.spanned(
                tokens,
                format!("`{attr}` goes on a function, not on {what}: {shape}"),
            );
            return None;
        }
    };
    let sig = &item.sig;
    if let Some(receiver) = sig.receiver() {
        errors.spanned(
            receiver,
            format!("`{attr}` goes on a free function, not a method: `self` is not allowed here; move the function out of the `impl` block"),
        );
    }
    if !sig.generics.params.is_empty() {
        errors.spanned(
            &sig.generics,
            format!("`{attr}` functions cannot be generic: remove the generic parameters (elided lifetimes work): {shape}"),
        );
    } else if let Some(w) = &sig.generics.where_clause {
        errors.spanned(
            w,
            format!("`{attr}` functions cannot have a `where` clause"),
        );
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.spanned(
            token,
            format!("`{attr}` functions cannot be `unsafe`: {shape}"),
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(
            abi,
            format!("`{attr}` functions cannot be `extern`: remove the ABI: {shape}"),
        );
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, format!("`{attr}` functions cannot be variadic: {shape}"));
    }
    let mut params = Vec::new();
    for arg in &sig.inputs {
        if let FnArg::Typed(pat) = arg {
            if contains_impl(pat.ty.to_token_stream()) {
                errors.spanned(
                    &pat.ty,
                    format!("`impl Trait` parameters make the function generic, which `{attr}` does not accept: {shape}"),
                );
            }
            params.push((*pat.ty).clone());
        }
    }
    let ret = match &sig.output {
        // Spanned where a return type would go, so that "`()` is not a valid return type"
        // points at the signature, not at the attribute.
        ReturnType::Default => quote_spanned!(sig.paren_token.span.close()=> ()),
        ReturnType::Type(_, ty) => {
            if contains_impl(ty.to_token_stream()) {
                errors.spanned(
                    ty,
                    format!("`{attr}` functions cannot return `impl Trait`; write an `async fn` or name the type: {shape}"),
                );
            }
            ty.to_token_stream()
        }
    };
    let is_async = sig.asyncness.is_some();
    let cfgs = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect();
    Some(Func {
        item,
        params,
        ret,
        is_async,
        cfgs,
    })
}

fn pair(a: &impl ToTokens, b: &impl ToTokens) -> TokenStream {
    let mut tokens = a.to_token_stream();
    b.to_tokens(&mut tokens);
    tokens
}

fn contains_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "impl",
        TokenTree::Group(g) => contains_impl(g.stream()),
        _ => false,
    })
}

/// The tokens to point at (keyword and name) and a phrase naming what the item is.
fn describe(item: &Item) -> (TokenStream, &'static str) {
    match item {
        Item::Struct(i) => (pair(&i.struct_token, &i.ident), "a struct"),
        Item::Enum(i) => (pair(&i.enum_token, &i.ident), "an enum"),
        Item::Union(i) => (pair(&i.union_token, &i.ident), "a union"),
        Item::Const(i) => (pair(&i.const_token, &i.ident), "a const"),
        Item::Static(i) => (pair(&i.static_token, &i.ident), "a static"),
        Item::Trait(i) => (pair(&i.trait_token, &i.ident), "a trait"),
        Item::Impl(i) => (i.impl_token.to_token_stream(), "an impl block"),
        Item::Mod(i) => (pair(&i.mod_token, &i.ident), "a module"),
        Item::Type(i) => (pair(&i.type_token, &i.ident), "a type alias"),
        Item::Use(i) => (i.use_token.to_token_stream(), "a `use` item"),
        other => (other.to_token_stream(), "this item"),
    }
}
