//! pest's parsers of the URI and URL grammars, derived from the same files the library's
//! validators are generated from: the reference the tests hold those to. One set of them,
//! in the fuzz crate's library, which the fuzz targets use too.

#[allow(unused_imports)] // Each test uses some of them.
pub use handle_id_fuzz::reference::{cordra, hdl, info, proxy};
