//! `#[command("name", description = "...")]`: a slash command.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Lit, LitStr};

use crate::attr::{self, Arg, Common, Errors, Slot};
use crate::sig;

const KEYS: &[&str] = &["description", "hook", "crate"];
const SHAPE: &str = "expected `fn name(args: &str, ctx: &CommandContext)`, sync or async, returning `()` or `Result<(), E>`";
const EXAMPLE: &str = "#[command(\"handoff\", description = \"...\")]";
const PARAMS: sig::Params = sig::Params {
    what: "a `#[command]` function",
    required: &["the arguments text"],
    optional: &["the context"],
};

struct Args {
    name: Option<LitStr>,
    description: Option<LitStr>,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
}

fn parse_args(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut name = Slot::new("the command name");
    let mut description = Slot::new("description");
    let mut common = Common::new();
    attr::each_arg(tokens, errors, |arg, errors| match arg {
        Arg::Positional(Lit::Str(s)) => {
            if name.first(&s, errors) && check_name(&s, errors) {
                name.put(s);
            }
        }
        Arg::Positional(other) => name.not_a_string(other, EXAMPLE, errors),
        Arg::Key { key, value: None } if !KEYS.contains(&key.to_string().as_str()) => {
            name.not_a_string(key, EXAMPLE, errors);
        }
        Arg::Key { key, value } => {
            if key == "description" {
                let example = "description = \"what it does\"";
                if let Some(s) = attr::string(&key, value.as_ref(), example, errors) {
                    description.set(&key, s, errors);
                }
            } else if !common.accept(&key, value.as_ref(), errors) {
                attr::unknown_key(&key, KEYS, errors);
            }
        }
    });
    if !name.seen() {
        errors.push(syn::Error::new(
            attr::attribute_span(),
            format!("missing the command name: `{EXAMPLE}`"),
        ));
    }
    Args {
        name: name.get(),
        description: description.get(),
        hook: common.hook.get(),
        krate: common.krate.get(),
    }
}

/// Name rules: non-empty, no whitespace or invisible characters, no leading `/`.
fn check_name(name: &LitStr, errors: &mut Errors) -> bool {
    let value = name.value();
    let problem = if value.is_empty() {
        "the command name must not be empty".to_owned()
    } else if value.starts_with('/') {
        format!(
            "the command name is written without the leading `/`: `#[command(\"{}\")]`",
            value.trim_start_matches('/')
        )
    } else if value.chars().any(char::is_whitespace) {
        format!(
            "the command name must not contain whitespace: `{value}` would be typed as `/{}`",
            value.split_whitespace().collect::<Vec<_>>().join("-")
        )
    } else if let Some(c) = value.chars().find(|&c| is_invisible(c)) {
        format!(
            "the command name must not contain invisible characters (it has U+{:04X}): no one \
             could type it",
            u32::from(c)
        )
    } else {
        return true;
    };
    errors.spanned(name, format!("{problem}; {SHAPE_NAME}"));
    false
}

/// A control character, or a format character that renders as nothing (zero-width space,
/// joiners, direction marks, the byte order mark, the soft hyphen).
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        )
}

const SHAPE_NAME: &str = "a command name is one word, e.g. `#[command(\"handoff\")]`";

/// Expands `#[command(..)]` on `item`. On error the item is emitted unchanged, with the errors.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = parse_args(attr, &mut errors);
    let func = sig::parse(item.clone(), "#[command]", SHAPE, &mut errors);
    if let Some(func) = &func {
        func.check_params(&PARAMS, SHAPE, &mut errors);
    }
    match (errors.finish(), func, args.name) {
        (Ok(()), Some(func), Some(name)) => {
            generate(&func, &name, args.description, args.hook, args.krate)
        }
        (result, _, _) => sig::item_with_errors(item, result),
    }
}

fn generate(
    func: &sig::Func,
    command: &LitStr,
    description: Option<LitStr>,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
) -> TokenStream {
    let p = Common::private_path(krate);
    let item = &func.item;
    let cfgs = &func.cfgs;
    let ident = &item.sig.ident;
    let name = func.registered_name();
    let a = quote!('__hooks_a);
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, param) in func.params.iter().enumerate() {
        let var = format_ident!("__hooks_p{}", i);
        let check = if i == 0 {
            quote_spanned!(param.span()=> <#param as #p::CommandArgsArg<#a>>::from_args(__hooks_args))
        } else {
            quote_spanned!(param.span()=> <#param as #p::CommandContextArg<#a>>::from_context(__hooks_ctx))
        };
        lets.push(quote!(let #var = #check;));
        args.push(var);
    }
    let ret = &func.ret;
    let convert = quote_spanned!(ret.span()=> <#ret as #p::IntoCommandResult>::into_command_result);
    let call = quote_spanned!(ident.span()=> #ident(#(#args),*));
    let body = if func.is_async {
        quote!(#p::boxed_command_future(#call, #convert))
    } else {
        quote!(#p::ready_command(#convert(#call)))
    };
    let description = match description {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let hook_id = Common::hook_id(hook);
    let here = quote_spanned!(ident.span()=> ::core::file!(), ::core::line!(), ::core::column!());
    quote! {
        #item

        #(#cfgs)*
        const _: () = {
            #[allow(unused_variables)]
            fn __hooks_run<#a>(
                __hooks_args: &#a str,
                __hooks_ctx: &#a #p::CommandContext,
            ) -> #p::BoxFuture<#a, ::core::result::Result<(), #p::HandlerError>> {
                #(#lets)*
                #body
            }
            #p::inventory::submit! {
                #p::command(#command, #description, #name, #hook_id, #here, __hooks_run)
            }
        };
    }
}
