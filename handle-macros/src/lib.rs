//! The proc macros behind `handle_id::hdl!` and `handle_id::hdl_uri!`. Use those macros, not
//! this crate: they validate a string literal at compile time and emit only plain values,
//! which the `macro_rules!` wrappers in `handle-id` turn into constants.
//!
//! A literal is judged by `handle-id-core`, the crate that holds every parser of the
//! library (`handle-id` re-exports it): exactly the code that judges it at run time, with
//! the same message when it is rejected.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use handle_id_core::{Form, HandleRef, HdlUri, ParseError};
use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

/// The string literal of `input`, or the `compile_error!` to expand to.
fn literal(input: TokenStream) -> Result<LitStr, TokenStream> {
    syn::parse(input).map_err(|e| {
        let span = e.span();
        quote_spanned!(span=> compile_error!("expected a string literal")).into()
    })
}

/// A `compile_error!` at the literal with the parse error's message.
fn rejected(literal: &LitStr, error: ParseError) -> TokenStream {
    let message = error.to_string();
    quote_spanned!(literal.span()=> compile_error!(#message)).into()
}

/// Validates a string literal as a bare handle and expands to the tuple `(literal, offset of
/// the separating '/')`, or to a `compile_error!` at the literal.
#[proc_macro]
pub fn hdl_parts(input: TokenStream) -> TokenStream {
    let literal = match literal(input) {
        Ok(l) => l,
        Err(e) => return e,
    };
    match HandleRef::parse(&literal.value()) {
        Ok(h) => {
            let slash = h.prefix().len();
            quote!((#literal, #slash)).into()
        }
        Err(error) => rejected(&literal, error),
    }
}

/// Validates a string literal as an `hdl:` URI (`HdlUri::parse`) and expands to the tuple
/// `(literal, form index, decoded handle, slash, base, query, fragment)`, the last three
/// as `Option<(usize, usize)>`, or to a `compile_error!` at the literal.
#[proc_macro]
pub fn hdl_uri_parts(input: TokenStream) -> TokenStream {
    let literal = match literal(input) {
        Ok(l) => l,
        Err(e) => return e,
    };
    let value = literal.value();
    let uri = match HdlUri::parse(&value) {
        Ok(uri) => uri,
        Err(error) => return rejected(&literal, error),
    };
    let form = Form::ALL
        .iter()
        .position(|f| *f == uri.form())
        .and_then(|i| u8::try_from(i).ok())
        .expect("a form of Form::ALL");
    let handle = uri.handle();
    let (text, slash) = (handle.as_str(), handle.prefix().len());
    let span = |part: Option<&str>| match part {
        Some(p) => {
            let start = p.as_ptr() as usize - value.as_ptr() as usize;
            let end = start + p.len();
            quote!(::core::option::Option::Some((#start, #end)))
        }
        None => quote!(::core::option::Option::None),
    };
    let (base, query, fragment) = (span(uri.base()), span(uri.query()), span(uri.fragment()));
    quote!((#literal, #form, #text, #slash, #base, #query, #fragment)).into()
}
