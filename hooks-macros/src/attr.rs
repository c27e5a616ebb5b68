//! The attribute grammar shared by the three macros: an optional leading string literal, then
//! `key = value` pairs; a "set once" slot per key; and an error accumulator.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt as _;
use syn::parse::{Parse, ParseStream, Parser as _};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitInt, LitStr, Token};

/// Collects errors so that one expansion can report several at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(e) => e.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// One element of an attribute's arguments.
pub(crate) enum Arg {
    /// A leading literal (the command name, the renderer's custom type).
    Positional(Lit),
    /// `key` or `key = value`.
    Key { key: Ident, value: Option<Expr> },
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Lit) {
            return Ok(Arg::Positional(input.parse()?));
        }
        let key = input.call(Ident::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Arg::Key { key, value })
    }
}

/// Parses the attribute's arguments and hands each to `f`; a syntax error is recorded in
/// `errors` instead.
pub(crate) fn each_arg(
    attr: TokenStream,
    errors: &mut Errors,
    mut f: impl FnMut(Arg, &mut Errors),
) {
    match Punctuated::<Arg, Token![,]>::parse_terminated.parse2(attr) {
        Ok(args) => {
            for arg in args {
                f(arg, errors);
            }
        }
        Err(e) => errors.push(e),
    }
}

/// A key that may be given at most once; the second occurrence is an error on its key.
pub(crate) struct Slot<T> {
    name: &'static str,
    seen: bool,
    value: Option<T>,
}

impl<T> Slot<T> {
    pub(crate) fn new(name: &'static str) -> Self {
        Slot {
            name,
            seen: false,
            value: None,
        }
    }

    /// Marks the key as seen at `at`; `false` (and an error there) if it was seen before.
    pub(crate) fn first(&mut self, at: impl ToTokens, errors: &mut Errors) -> bool {
        if self.seen {
            errors.spanned(at, format!("`{}` specified more than once", self.name));
            return false;
        }
        self.seen = true;
        true
    }

    /// Stores the value of a key that [`Slot::first`] accepted.
    pub(crate) fn put(&mut self, value: T) {
        self.value = Some(value);
    }

    /// `first`, then `put`.
    pub(crate) fn set(&mut self, at: impl ToTokens, value: T, errors: &mut Errors) {
        if self.first(at, errors) {
            self.put(value);
        }
    }

    /// An argument at `at` that should have been this slot's string literal (a positional
    /// argument of another kind, or a bare unknown key): marks the slot seen and reports
    /// `<name> is a string literal: `<example>``.
    pub(crate) fn not_a_string(&mut self, at: impl ToTokens, example: &str, errors: &mut Errors) {
        self.first(&at, errors);
        errors.spanned(
            at,
            format!("{} is a string literal: `{example}`", self.name),
        );
    }

    pub(crate) fn seen(&self) -> bool {
        self.seen
    }

    pub(crate) fn get(self) -> Option<T> {
        self.value
    }
}

/// The keys every macro accepts: `hook = "id"` and `crate = path`.
pub(crate) struct Common {
    pub(crate) hook: Slot<LitStr>,
    pub(crate) krate: Slot<syn::Path>,
}

impl Common {
    pub(crate) fn new() -> Self {
        Common {
            hook: Slot::new("hook"),
            krate: Slot::new("crate"),
        }
    }

    /// Handles `key = value` if it is a common key; `false` if it is not one.
    pub(crate) fn accept(
        &mut self,
        key: &Ident,
        value: Option<&Expr>,
        errors: &mut Errors,
    ) -> bool {
        if key == "hook" {
            if let Some(s) = string(key, value, "hook = \"my_hook\"", errors) {
                if s.value().trim().is_empty() {
                    errors.spanned(&s, "the hook id must not be empty: `hook = \"my_hook\"`");
                } else {
                    self.hook.set(key, s, errors);
                }
            }
            true
        } else if key == "crate" {
            match value {
                Some(Expr::Path(p)) if p.qself.is_none() && p.attrs.is_empty() => {
                    self.krate.set(key, p.path.clone(), errors);
                }
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                })) => match s.parse::<syn::Path>() {
                    Ok(path) => self.krate.set(key, path, errors),
                    Err(_) => errors.spanned(s, "expected a path: `crate = my_crate::hookwright`"),
                },
                Some(other) => {
                    errors.spanned(other, "expected a path: `crate = my_crate::hookwright`")
                }
                None => errors.spanned(key, "expected a path: `crate = my_crate::hookwright`"),
            }
            true
        } else {
            false
        }
    }

    /// The path of the runtime's hidden module generated code names: `::hookwright::__private`,
    /// or `<crate = path>::__private`.
    pub(crate) fn private_path(krate: Option<syn::Path>) -> TokenStream {
        let krate = krate.map_or_else(|| quote!(::hookwright), ToTokens::into_token_stream);
        quote!(#krate::__private)
    }

    /// The hook id expression: the literal, or `module_path!()`.
    pub(crate) fn hook_id(hook: Option<LitStr>) -> TokenStream {
        hook.map_or_else(
            || quote!(::core::module_path!()),
            ToTokens::into_token_stream,
        )
    }
}

/// The string literal value of `key = "..."`, or an error showing `example`.
pub(crate) fn string(
    key: &Ident,
    value: Option<&Expr>,
    example: &str,
    errors: &mut Errors,
) -> Option<LitStr> {
    match value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(s.clone()),
        Some(other) => {
            errors.spanned(
                other,
                format!("`{key}` takes a string literal: `{example}`"),
            );
            None
        }
        None => {
            errors.spanned(key, format!("`{key}` needs a value: `{example}`"));
            None
        }
    }
}

/// The integer value of `key = N`, or an error showing `example`.
pub(crate) fn integer(
    key: &Ident,
    value: Option<&Expr>,
    example: &str,
    errors: &mut Errors,
) -> Option<LitInt> {
    match value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        })) => Some(i.clone()),
        Some(other) => {
            errors.spanned(other, format!("`{key}` takes an integer: `{example}`"));
            None
        }
        None => {
            errors.spanned(key, format!("`{key}` needs a value: `{example}`"));
            None
        }
    }
}

/// The error for a key no macro accepts: lists the valid keys, suggests the closest.
pub(crate) fn unknown_key(key: &Ident, valid: &[&str], errors: &mut Errors) {
    let mut msg = format!("unknown key `{key}`");
    let name = key.unraw().to_string();
    // A key that starts a valid one (`timeout` for `timeout_ms`) is the likeliest slip.
    let best = crate::events::closest(&name, valid)
        .or_else(|| valid.iter().copied().find(|k| k.starts_with(name.as_str())));
    if let Some(best) = best {
        msg.push_str(&format!("; did you mean `{best}`?"));
    }
    let list: Vec<String> = valid.iter().map(|k| format!("`{k}`")).collect();
    msg.push_str(&format!("\nvalid keys: {}", list.join(", ")));
    errors.spanned(key, msg);
}

/// A span for errors about something missing from the attribute: the attribute itself.
pub(crate) fn attribute_span() -> Span {
    Span::call_site()
}
