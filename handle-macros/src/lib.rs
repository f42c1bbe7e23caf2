//! The proc macro behind `handle_id::hdl!`. Use that macro, not this crate: it validates a
//! string literal at compile time with the parser generated from `grammar/handle.pest` and
//! emits only plain values, which `hdl!` turns into a `HandleRef<'static>` constant.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

// The library's own parser and error, compiled here from the same files: a literal is
// judged by the same generated parser, and rejected with the same message, as at run time.
#[allow(dead_code)]
#[path = "../../src/error.rs"]
mod error;
#[path = "../../src/parser.rs"]
mod parser;

/// Validates a string literal as a bare handle and expands to the tuple `(literal, offset of
/// the separating '/')`, or to a `compile_error!` at the literal with the parse error's
/// message.
#[proc_macro]
pub fn hdl_parts(input: TokenStream) -> TokenStream {
    let literal: LitStr = match syn::parse(input) {
        Ok(literal) => literal,
        Err(e) => {
            let span = e.span();
            return quote_spanned!(span=> compile_error!("expected a string literal")).into();
        }
    };
    match parser::parse_handle(&literal.value()) {
        Ok(slash) => quote!((#literal, #slash)).into(),
        Err(error) => {
            let message = error.to_string();
            quote_spanned!(literal.span()=> compile_error!(#message)).into()
        }
    }
}
