//! The parsers and types of [handle-id](https://docs.rs/handle-id): use that crate, which
//! re-exports everything here and adds the `hdl!` and `hdl_uri!` literals.
//!
//! This crate holds every rule-bearing module (handles, written forms, escaping, errors,
//! lints) and the validators generated from the grammar files (`generated/`, committed).
//! The proc macros of `handle-macros` depend on it, so that a literal is judged at compile
//! time by exactly the code that judges it at run time. Rule ids (H1, D5 ...) refer to the
//! project's SPEC, which `handle_id::spec` shows.

#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod base;
mod bytes;
mod clean;
mod dfa;
mod error;
pub mod escape;
mod extract;
mod form;
mod forms;
#[rustfmt::skip]
mod generated;
mod handle;
mod lint;
mod pairs;
mod parts;
mod query;
#[cfg(feature = "json")]
pub mod record;
#[cfg(feature = "serde")]
mod serde;
mod uri;
mod validate;

pub use base::{ProxyBase, API_PATH, KNOWN_PROXY_HOSTS};
#[doc(hidden)]
pub use clean::__CLEANING_LIMITS;
pub use clean::{clean, clean_in_place, clean_into, Cleaned, Fix, FixCode, Written};
pub use error::{ParseError, ParseErrorKind, Rendered};
pub use extract::{extract, Extract, Found, MAX_OPEN};
pub use form::{Form, Options};
pub use forms::{detect, recognize};
pub use handle::{Caseless, Handle, HandleRef};
pub use lint::{LintCode, Warning};
pub use query::{Action, ProxyQuery};
pub use uri::HdlUri;
#[doc(hidden)]
pub use validate::__reference;
pub use validate::validate;
