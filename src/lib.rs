//! Handle System identifiers: handles such as `10.1045/april2006-paskin`, `20.1000/5555`
//! and `0.NA/10.1045`, of which every DOI is one.
//!
//! The rules live in the grammar files (`grammar/*.pest`, transcribed from the ABNF of the
//! specifications). Everything that decides is generated from them: state machines,
//! written out as code that is committed beside the library (no build script runs in your
//! build), that run on every input, allocate nothing and explain a rejection from their own
//! state, for the library and for the [`hdl!`] and [`hdl_uri!`] literals alike. pest's
//! parser of the same files is the reference the tests hold them to. Rule ids (H1, D5 ...)
//! in messages and docs are those of the [`spec`]: the rules, their sources and the
//! decisions where the sources disagree.
//!
//! ```
//! use handle_id::{hdl, Handle, HandleRef};
//!
//! // A literal checked at compile time: a constant.
//! const PASKIN: HandleRef<'static> = hdl!("10.1045/april2006-paskin");
//! assert_eq!(PASKIN.prefix(), "10.1045");
//! assert!(PASKIN.is_doi());
//!
//! // Parsing at run time, borrowed or owned.
//! let h = HandleRef::parse("20.1000/5555/")?;
//! assert_eq!(h.local_name(), "5555/");
//! let owned: Handle = "0.NA/10.1045".parse()?;
//! assert!(owned.is_prefix_handle());
//!
//! // Validation only, with an error that says where and why.
//! let err = handle_id::validate("10.1000").unwrap_err();
//! assert_eq!(err.index(), 7);
//! # Ok::<(), handle_id::ParseError>(())
//! ```
//!
//! Written forms are read by [`recognize`] (every form, reporting which) and
//! [`HdlUri::parse`]; messy data by [`clean`] (one string to the handle it holds, with the
//! fixes) and [`extract`] (the identifiers in running text, with their spans); see the
//! [`spec`] for the rules each follows.
//!
//! # Crate features
//!
//! - `std` (default): nothing beyond `core` and `alloc` depends on it yet; without it the
//!   crate is `#![no_std]` (it needs `alloc`).
//! - `serde`: `Serialize` and `Deserialize` for [`Handle`], [`HandleRef`] (borrowed),
//!   [`HdlUri`] (borrowed) and [`Form`], as their text, through the validating parsers.
//! - `json`: the `record` module: the proxy's REST API responses (SPEC R1–R5) and
//!   `10320/loc` values (L1–L4), on serde_json and roxmltree; still `no_std` + `alloc`.
//!
//! Items that need a feature say so in the documentation built with every feature (as
//! docs.rs builds it).

#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// Everything but the literals lives in handle-id-core, so that the proc macros behind them
// can judge a literal with the same code (see core/README.md).
#[doc(hidden)]
pub use handle_id_core::__entry_rules;
#[doc(hidden)]
pub use handle_id_core::__reference;
#[doc(hidden)]
pub use handle_id_core::__CLEANING_LIMITS;
pub use handle_id_core::{
    clean, clean_in_place, clean_into, detect, escape, extract, recognize, validate, Action,
    Caseless, Cleaned, Extract, Fix, FixCode, Form, Found, Handle, HandleRef, HdlUri, LintCode,
    Options, ParseError, ParseErrorKind, ProxyBase, ProxyQuery, Rendered, Warning, Written,
    API_PATH, KNOWN_PROXY_HOSTS, MAX_OPEN,
};

#[cfg(feature = "json")]
pub use handle_id_core::record;

pub mod spec {
    //! The project's SPEC: every rule id that messages, docs and tests cite (H1, U6, P2,
    //! D5 …), the sources each rule comes from, and the decisions where the sources
    //! disagree. The same text as `SPEC.md` in the repository.
    #![doc = include_str!("../SPEC.md")]
}

/// A handle literal checked at compile time: `hdl!("10.1045/april2006-paskin")` is a
/// [`HandleRef<'static>`] constant. An invalid literal does not compile, and the compiler
/// shows the [`ParseError`] message at the literal.
///
/// ```
/// use handle_id::{hdl, HandleRef};
/// const H: HandleRef<'static> = hdl!("20.1000/5555");
/// assert_eq!(H.local_name(), "5555");
/// ```
///
/// ```compile_fail
/// let h = handle_id::hdl!("10.1000"); // no '/': a compile error
/// ```
#[macro_export]
macro_rules! hdl {
    ($($literal:tt)*) => {{
        const HANDLE: $crate::HandleRef<'static> = {
            let (text, slash) = $crate::__private::hdl_parts!($($literal)*);
            $crate::HandleRef::__from_validated_parts(text, slash)
        };
        HANDLE
    }};
}

/// An `hdl:` URI literal checked at compile time: `hdl_uri!("hdl:10.1045/april2006-paskin")`
/// is an [`HdlUri<'static>`] constant, read as [`HdlUri::parse`] reads it (path or host
/// form, query, fragment, percent-decoding). An invalid literal does not compile, and the
/// compiler shows the [`ParseError`] message at the literal.
///
/// ```
/// use handle_id::{hdl_uri, Form, HdlUri};
/// const URI: HdlUri<'static> = hdl_uri!("hdl://20.1000/5555%23resolve?noredirect");
/// assert_eq!(URI.form(), Form::HdlHost);
/// assert_eq!(URI.handle().as_str(), "20.1000/5555#resolve");
/// assert_eq!(URI.query(), Some("noredirect"));
/// ```
///
/// ```compile_fail
/// let u = handle_id::hdl_uri!("hdl:10.1000/a b"); // a raw space: a compile error
/// ```
#[macro_export]
macro_rules! hdl_uri {
    ($($literal:tt)*) => {{
        const URI: $crate::HdlUri<'static> = {
            let (text, form, handle, slash, handle_start, base, query, fragment) =
                $crate::__private::hdl_uri_parts!($($literal)*);
            $crate::HdlUri::__from_validated_parts(
                text, form, handle, slash, handle_start, base, query, fragment,
            )
        };
        URI
    }};
}

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// What the exported macros expand to; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use handle_macros::{hdl_parts, hdl_uri_parts};
}
