//! `#[renderer("custom-type")]`: renders custom messages of one type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Lit, LitStr};

use crate::attr::{self, Arg, Common, Errors, Slot};
use crate::sig;

const KEYS: &[&str] = &["hook", "crate"];
const SHAPE: &str = "expected `fn name(message: &CustomMessage, options: RenderOptions, theme: &Theme) -> Option<Vec<String>>`";
const EXAMPLE: &str = "#[renderer(\"my-type\")]";
const PARAMS: sig::Params = sig::Params {
    what: "a `#[renderer]`",
    required: &["the message", "the options", "the theme"],
    optional: &[],
};

struct Args {
    custom_type: Option<LitStr>,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
}

fn parse_args(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut custom_type = Slot::new("the custom type");
    let mut common = Common::new();
    attr::each_arg(tokens, errors, |arg, errors| match arg {
        Arg::Positional(Lit::Str(s)) => {
            if !custom_type.first(&s, errors) {
                return;
            }
            if s.value().trim().is_empty() {
                errors.spanned(
                    &s,
                    format!("the custom type must not be empty: `{EXAMPLE}`"),
                );
            } else {
                custom_type.put(s);
            }
        }
        Arg::Positional(other) => custom_type.not_a_string(other, EXAMPLE, errors),
        Arg::Key { key, value: None } if !KEYS.contains(&key.to_string().as_str()) => {
            custom_type.not_a_string(key, EXAMPLE, errors);
        }
        Arg::Key { key, value } => {
            if !common.accept(&key, value.as_ref(), errors) {
                attr::unknown_key(&key, KEYS, errors);
            }
        }
    });
    if !custom_type.seen() {
        errors.push(syn::Error::new(
            attr::attribute_span(),
            format!("missing the custom message type: `{EXAMPLE}`"),
        ));
    }
    Args {
        custom_type: custom_type.get(),
        hook: common.hook.get(),
        krate: common.krate.get(),
    }
}

/// Expands `#[renderer(..)]` on `item`. On error the item is emitted unchanged, with the errors.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = parse_args(attr, &mut errors);
    let func = sig::parse(item.clone(), "#[renderer]", SHAPE, &mut errors);
    if let Some(func) = &func {
        let sig = &func.item.sig;
        if let Some(token) = &sig.asyncness {
            errors.spanned(
                token,
                format!("a `#[renderer]` is called while drawing and cannot be `async`: {SHAPE}"),
            );
        }
        func.check_params(&PARAMS, SHAPE, &mut errors);
    }
    match (errors.finish(), func, args.custom_type) {
        (Ok(()), Some(func), Some(ty)) => generate(&func, &ty, args.hook, args.krate),
        (result, _, _) => sig::item_with_errors(item, result),
    }
}

fn generate(
    func: &sig::Func,
    custom_type: &LitStr,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
) -> TokenStream {
    let p = Common::private_path(krate);
    let item = &func.item;
    let cfgs = &func.cfgs;
    let ident = &item.sig.ident;
    let name = func.registered_name();
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, param) in func.params.iter().enumerate() {
        let var = format_ident!("__hooks_p{}", i);
        let check = match i {
            0 => {
                quote_spanned!(param.span()=> <#param as #p::RenderMessageArg<'__hooks_a>>::from_message(__hooks_message))
            }
            1 => {
                quote_spanned!(param.span()=> <#param as #p::RenderOptionsArg>::from_options(__hooks_options))
            }
            _ => {
                quote_spanned!(param.span()=> <#param as #p::RenderThemeArg<'__hooks_b>>::from_theme(__hooks_theme))
            }
        };
        lets.push(quote!(let #var = #check;));
        args.push(var);
    }
    let ret = &func.ret;
    let convert = quote_spanned!(ret.span()=> <#ret as #p::IntoRenderOutput>::into_render_output);
    let call = quote_spanned!(ident.span()=> #ident(#(#args),*));
    let hook_id = Common::hook_id(hook);
    let here = quote_spanned!(ident.span()=> ::core::file!(), ::core::line!(), ::core::column!());
    quote! {
        #item

        #(#cfgs)*
        const _: () = {
            fn __hooks_render<'__hooks_a, '__hooks_b>(
                __hooks_message: &'__hooks_a #p::CustomMessage,
                __hooks_options: #p::RenderOptions,
                __hooks_theme: &'__hooks_b #p::Theme,
            ) -> #p::RenderLines {
                #(#lets)*
                #convert(#call)
            }
            #p::inventory::submit! {
                #p::renderer(#custom_type, #name, #hook_id, #here, __hooks_render)
            }
        };
    }
}
