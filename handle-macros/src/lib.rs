//! The proc macros behind `handle_id::hdl!` and `handle_id::hdl_uri!`. Use those macros, not
//! this crate: they validate a string literal at compile time and emit only plain values,
//! which the `macro_rules!` wrappers in `handle-id` turn into constants.
//!
//! The library's parsing modules are compiled here from the library's own files, with the
//! validators generated from the same grammar files by the same generator (build.rs): a
//! literal is judged by exactly the code that judges it at run time, and rejected with the
//! same message.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
// The library's modules hold more than the macros use.
#![allow(dead_code, unused_imports)]

extern crate alloc;

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

#[path = "../../src/bytes.rs"]
mod bytes;
#[path = "../../src/dfa.rs"]
mod dfa;
#[path = "../../src/error.rs"]
mod error;
#[path = "../../src/escape.rs"]
mod escape;
#[path = "../../src/handle.rs"]
mod handle;
#[path = "../../src/proxy.rs"]
mod proxy;
#[path = "../../src/uri.rs"]
mod uri;
#[path = "../../src/validate.rs"]
mod validate;

/// The string literal of `input`, or the `compile_error!` to expand to.
fn literal(input: TokenStream) -> Result<LitStr, TokenStream> {
    syn::parse(input).map_err(|e| {
        let span = e.span();
        quote_spanned!(span=> compile_error!("expected a string literal")).into()
    })
}

/// A `compile_error!` at the literal with the parse error's message.
fn rejected(literal: &LitStr, error: error::ParseError) -> TokenStream {
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
    match handle::HandleRef::parse(&literal.value()) {
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
    let uri = match uri::HdlUri::parse(&value) {
        Ok(uri) => uri,
        Err(error) => return rejected(&literal, error),
    };
    let form = uri::Form::ALL
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
