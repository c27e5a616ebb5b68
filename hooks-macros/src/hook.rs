//! `#[hook(event = "...")]`: parse the attribute, check the function, expand to the function
//! plus a registration.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Ident, LitInt, LitStr};

use crate::attr::{self, Arg, Common, Errors, Slot};
use crate::{events, sig};

const KEYS: &[&str] = &["event", "hook", "crate", "timeout_ms"];
const PARAMS: sig::Params = sig::Params {
    what: "a `#[hook]` handler",
    required: &["the event"],
    optional: &["the context"],
};

struct Args {
    /// The event name literal and its type name.
    event: Option<(LitStr, &'static str)>,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
    timeout: Option<(Ident, LitInt)>,
}

fn parse_args(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut event = Slot::new("event");
    let mut timeout = Slot::new("timeout_ms");
    let mut common = Common::new();
    attr::each_arg(tokens, errors, |arg, errors| match arg {
        Arg::Positional(lit) => {
            event.first(&lit, errors);
            errors.spanned(
                &lit,
                "name the event with `event = ...`: `#[hook(event = \"tool_call\")]`",
            );
        }
        Arg::Key { key, value } => {
            if key == "event" {
                if !event.first(&key, errors) {
                    return;
                }
                let example = "event = \"tool_call\"";
                if let Some(lit) = attr::string(&key, value.as_ref(), example, errors) {
                    match events::lookup(&lit.value()) {
                        Ok(ty) => event.put((lit, ty)),
                        Err(msg) => errors.spanned(&lit, msg),
                    }
                }
            } else if key == "timeout_ms" {
                let example = "timeout_ms = 500";
                if let Some(n) = attr::integer(&key, value.as_ref(), example, errors) {
                    match n.base10_parse::<u64>() {
                        Ok(0) | Err(_) => errors.spanned(
                            &n,
                            "`timeout_ms` is a positive number of milliseconds: `timeout_ms = 500`",
                        ),
                        // Re-emitted without a suffix (`500u8` is 500 milliseconds too).
                        Ok(ms) => timeout.set(
                            &key,
                            (key.clone(), LitInt::new(&ms.to_string(), n.span())),
                            errors,
                        ),
                    }
                }
            } else if !common.accept(&key, value.as_ref(), errors) {
                attr::unknown_key(&key, KEYS, errors);
            }
        }
    });
    if !event.seen() {
        errors.push(syn::Error::new(
            attr::attribute_span(),
            "missing `event`: write `#[hook(event = \"tool_call\")]` (or another event name)",
        ));
    }
    Args {
        event: event.get(),
        hook: common.hook.get(),
        krate: common.krate.get(),
        timeout: timeout.get(),
    }
}

/// Expands `#[hook(..)]` on `item`. On error the item is emitted unchanged, with the errors.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = parse_args(attr, &mut errors);
    let ty_name = args.event.as_ref().map_or("ToolCallEvent", |(_, ty)| ty);
    let shape = format!(
        "expected `fn name(event: &{ty_name})` or `fn name(event: &{ty_name}, ctx: &HookContext)`, sync or async"
    );
    let func = sig::parse(item.clone(), "#[hook]", &shape, &mut errors);
    if let Some(func) = &func {
        func.check_params(&PARAMS, &shape, &mut errors);
        if let (Some((key, _)), false) = (&args.timeout, func.is_async) {
            errors.spanned(
                key,
                "`timeout_ms` applies to `async fn` handlers only: a sync handler is called directly and runs to completion",
            );
        }
    }
    match (errors.finish(), func, args.event) {
        (Ok(()), Some(func), Some((_, ty))) => {
            generate(&func, ty, args.hook, args.krate, args.timeout)
        }
        (result, _, _) => sig::item_with_errors(item, result),
    }
}

fn generate(
    func: &sig::Func,
    ty: &str,
    hook: Option<LitStr>,
    krate: Option<syn::Path>,
    timeout: Option<(Ident, LitInt)>,
) -> TokenStream {
    let p = Common::private_path(krate);
    let item = &func.item;
    let cfgs = &func.cfgs;
    let ident = &item.sig.ident;
    let name = func.registered_name();
    let event = format_ident!("{}", ty, span = Span::call_site());
    let event = quote!(#p::events::#event);
    let result = quote!(<#event as #p::HookEvent>::Result);
    let a = quote!('__hooks_a);

    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, param) in func.params.iter().enumerate() {
        let var = format_ident!("__hooks_p{}", i);
        let check = if i == 0 {
            quote_spanned!(param.span()=> <#param as #p::EventArg<#a, #event>>::from_event(__hooks_event))
        } else {
            quote_spanned!(param.span()=> <#param as #p::ContextArg<#a>>::from_context(__hooks_ctx))
        };
        lets.push(quote!(let #var = #check;));
        args.push(var);
    }
    let ret = &func.ret;
    let convert =
        quote_spanned!(ret.span()=> <#ret as #p::IntoHandlerResult<#result>>::into_handler_result);
    let call = quote_spanned!(ident.span()=> #ident(#(#args),*));
    let (body, slot, output, install) = if func.is_async {
        (
            // The author's future is built in place, in the slot the runner polls it in (no
            // move of the inline future), and its output converted by a static call
            // (a closure without captures, a zero-sized type; a function item would repeat a
            // bad return type's error at the call).
            quote!(#p::start_handler_future(__hooks_slot, #call, |__hooks_out: #ret| #convert(__hooks_out))),
            quote!(__hooks_slot: #p::HandlerSlot<'_, #a, #result>,),
            quote!(()),
            quote!(install_async),
        )
    } else {
        (
            quote!(#convert(#call)),
            quote!(),
            quote!(#p::HandlerResult<#result>),
            quote!(install_sync),
        )
    };
    let hook_id = Common::hook_id(hook);
    let timeout = match timeout {
        Some((_, n)) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let here = quote_spanned!(ident.span()=> ::core::file!(), ::core::line!(), ::core::column!());
    quote! {
        #item

        #(#cfgs)*
        const _: () = {
            #[allow(unused_variables)]
            fn __hooks_call<#a>(
                __hooks_event: &#a #event,
                __hooks_ctx: &#a #p::HookContext,
                #slot
            ) -> #output {
                #(#lets)*
                #body
            }
            fn __hooks_install(api: &mut #p::HookApi, info: #p::HandlerInfo) {
                #p::#install::<#event>(api, info, __hooks_call);
            }
            #p::inventory::submit! {
                #p::handler(#name, <#event as #p::HookEvent>::NAME, #hook_id, #here, #timeout, __hooks_install)
            }
        };
    }
}
