//! The proc macros behind `handle_id::hdl!` and `handle_id::hdl_uri!`. Use those macros, not
//! this crate: they validate a string literal at compile time and emit only plain values,
//! which the `macro_rules!` wrappers in `handle-id` turn into constants.
//!
//! A literal is judged by `handle-id-core`, the crate that holds every parser of the
//! library (`handle-id` re-exports it): exactly the code that judges it at run time, with
//! the same message when it is rejected.
//!
//! The crate reads its one string literal with `proc_macro` alone (no syn, no quote): a
//! user's build compiles nothing here but this file and `handle-id-core`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use handle_id_core::{Form, HandleRef, HdlUri, ParseError};
use proc_macro::{Delimiter, Group, Literal, Span, TokenStream, TokenTree};

mod literal;

/// A string literal given to a macro: the token as written and its value.
struct StrLiteral {
    token: Literal,
    value: String,
}

/// The one string literal of `input`, or the `compile_error!` to expand to.
fn literal(input: TokenStream) -> Result<StrLiteral, TokenStream> {
    let expected = |span| Err(compile_error(span, "expected a string literal"));
    let mut tokens = input.into_iter();
    match (tokens.next(), tokens.next()) {
        // A fragment another macro passes on (`$e:expr`) comes in an invisible group.
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::None => {
            literal(g.stream())
        }
        (Some(TokenTree::Literal(token)), None) => {
            match literal::string_value(&token.to_string()) {
                Some(value) => Ok(StrLiteral { token, value }),
                None => expected(token.span()),
            }
        }
        (_, Some(extra)) => expected(extra.span()),
        (Some(other), None) => expected(other.span()),
        (None, _) => expected(Span::call_site()),
    }
}

/// Rust source parsed into tokens; `source` is always valid here, written by this crate.
fn tokens(source: &str) -> TokenStream {
    source.parse().expect("the macros write valid tokens")
}

/// `tokens`, every one of them (inside groups too) at `span`.
fn at(span: Span, tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(g) = &token {
                let mut group = Group::new(g.delimiter(), at(span, g.stream()));
                group.set_span(span);
                token = TokenTree::Group(group);
            }
            token.set_span(span);
            token
        })
        .collect()
}

/// `::core::compile_error!("message")` at `span`, so that the compiler shows the message
/// under the literal.
fn compile_error(span: Span, message: &str) -> TokenStream {
    // A `str`'s Debug form is a Rust string literal.
    at(
        span,
        tokens(&format!("::core::compile_error!({message:?})")),
    )
}

/// A `compile_error!` at the literal with the parse error's message.
fn rejected(literal: &StrLiteral, error: ParseError) -> TokenStream {
    compile_error(literal.token.span(), &error.to_string())
}

/// The literal as written, then `rest` (Rust source), in parentheses: a tuple.
fn tuple(literal: &StrLiteral, rest: &str) -> TokenStream {
    let mut inner = TokenStream::from(TokenTree::Literal(literal.token.clone()));
    inner.extend(tokens(rest));
    TokenTree::Group(Group::new(Delimiter::Parenthesis, inner)).into()
}

/// Validates a string literal as a bare handle and expands to the tuple `(literal, offset of
/// the separating '/')`, or to a `compile_error!` at the literal.
#[proc_macro]
pub fn hdl_parts(input: TokenStream) -> TokenStream {
    let literal = match literal(input) {
        Ok(l) => l,
        Err(e) => return e,
    };
    match HandleRef::parse(&literal.value) {
        Ok(h) => tuple(&literal, &format!(", {}usize", h.prefix().len())),
        Err(error) => rejected(&literal, error),
    }
}

/// Validates a string literal as an `hdl:` URI (`HdlUri::parse`) and expands to the tuple
/// `(literal, form index, decoded handle, slash, handle start, base, query, fragment)`, the last three
/// as `Option<(usize, usize)>`, or to a `compile_error!` at the literal.
#[proc_macro]
pub fn hdl_uri_parts(input: TokenStream) -> TokenStream {
    let literal = match literal(input) {
        Ok(l) => l,
        Err(e) => return e,
    };
    let value = &literal.value;
    let uri = match HdlUri::parse(value) {
        Ok(uri) => uri,
        Err(error) => return rejected(&literal, error),
    };
    let form = Form::ALL
        .iter()
        .position(|f| *f == uri.form())
        .and_then(|i| u8::try_from(i).ok())
        .expect("a form of Form::ALL");
    let handle = uri.handle();
    let span = |part: Option<&str>| match part {
        Some(p) => {
            let start = p.as_ptr() as usize - value.as_ptr() as usize;
            let end = start + p.len();
            format!("::core::option::Option::Some(({start}usize, {end}usize))")
        }
        None => "::core::option::Option::None".to_owned(),
    };
    tuple(
        &literal,
        &format!(
            ", {form}u8, {}, {}usize, {}usize, {}, {}, {}",
            Literal::string(handle.as_str()),
            handle.prefix().len(),
            uri.handle_span().start,
            span(uri.base()),
            span(uri.query()),
            span(uri.fragment())
        ),
    )
}
