//! The Python module `handle_id` (its native part, `handle_id._handle_id`): handle-id's
//! functions and types wrapped with PyO3. No identifier rule is written here: every
//! decision is the library's; this crate converts arguments, results and errors, and byte
//! offsets into Python string offsets (code points).

// (On Windows the quick calls, which borrow a `str`'s UTF-8 through a symbol Windows'
// `python3.dll` of 3.9 lacks, are not taken: `text.rs`. Their code is left unused there.)
#![cfg_attr(windows, allow(dead_code))]

use pyo3::prelude::*;

mod arrow;
mod attached;
mod cores;
mod errors;
mod failure;
mod fastcall;
mod kwargs;
mod made;
mod names;
mod offsets;
mod options;
mod plain;
mod plugin;
mod record;
mod resolve;
mod strings;
mod text;
mod texts;
mod types;
mod validity;
mod views;

pub use errors::HandleError;
pub use offsets::CharIndex;

/// The native module. `handle_id/__init__.py` re-exports it with its docs and stubs.
#[pymodule]
fn _handle_id(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("HandleError", py.get_type::<errors::HandleError>())?;
    m.add("ResolveError", py.get_type::<errors::ResolveError>())?;
    // (Tuples: a list shared by every importer could be changed by one of them.)
    let forms = handle_id::Form::ALL.map(|f| f.name());
    m.add("FORMS", pyo3::types::PyTuple::new(py, forms)?)?;
    let codes = handle_id::FixCode::ALL.map(|c| c.code());
    m.add("FIX_CODES", pyo3::types::PyTuple::new(py, codes)?)?;
    errors::attribute_defaults(py)?;
    // The package's version is the crate's (maturin takes it from Cargo.toml).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    types::register(m)?;
    record::register(m)?;
    resolve::register(m)?;
    arrow::register(m)?;
    plugin::register(m)?;
    Ok(())
}
