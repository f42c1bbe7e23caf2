//! One exception type for every error of the input: `handle_id.HandleError`, a `ValueError`;
//! and `handle_id.ResolveError`, a `ConnectionError`, when no handle server answered.

use handle_id::record::RecordError;
use handle_id::ParseError;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;

use crate::offsets::char_index;

pyo3::create_exception!(
    handle_id,
    HandleError,
    PyValueError,
    "Raised for every input the library rejects. Attributes: `index` (the Python string \
     offset where the input stops being valid, or None for a record error), `byte_index` \
     (the same offset in UTF-8 bytes, as the message gives it), `kind` (the kind of error, \
     e.g. 'invalid-character'), `message` (the library's message, citing the SPEC rule), \
     `rule` (the grammar rule it was inside, or ''), `found` (the character at the index, \
     or None) and `at` (where in a record, or None)."
);

pyo3::create_exception!(
    handle_id,
    ResolveError,
    pyo3::exceptions::PyConnectionError,
    "Raised by `resolve` when no handle server answered (each transport failed or timed \
     out, no site was found for the handle's prefix, referrals went too deep) or a certified \
     answer did not verify. A `ConnectionError`: the input was not at fault."
);

/// The attributes of a `HandleError` the library did not raise (one made by hand, as a
/// mock or a subclass makes one): the class's, `message` its first argument's text and the
/// rest None or empty, so that code that reads them reads one shape.
pub fn attribute_defaults(py: Python<'_>) -> PyResult<()> {
    let class = py.get_type::<HandleError>();
    for name in ["index", "byte_index", "found", "at"] {
        class.setattr(name, py.None())?;
    }
    for name in ["kind", "rule"] {
        class.setattr(name, "")?;
    }
    // (A descriptor with no setter, as `cached_property` is, is looked at only where the
    // instance has no `message` of its own: what the library sets stays as quick to set.)
    // (Globals of its own: the caller's `__main__` could name something else `str`.)
    let message = py.eval(
        c"__import__('functools').cached_property(lambda e: str(e.args[0]) if e.args else '')",
        Some(&pyo3::types::PyDict::new(py)),
        None,
    )?;
    message.call_method1("__set_name__", (&class, "message"))?;
    class.setattr("message", message)?;
    Ok(())
}

/// A Rust enum variant's name as the Python API writes kinds: `InvalidCharacter` is
/// `invalid-character`.
pub fn kebab(debug: &str) -> String {
    let mut out = String::with_capacity(debug.len() + 4);
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A `HandleError` with `message` and its attributes set by `set`, made of `Bound` values
/// alone (each released at once: a quick call, outside PyO3's count of attachment, may make
/// one, `set_parse_error`).
fn handle_error<'py>(
    py: Python<'py>,
    message: String,
    set: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<Bound<'py, PyAny>> {
    // (One `str` for the argument and the attribute.)
    let message = pyo3::types::PyString::new(py, &message);
    let value = py.get_type::<HandleError>().call1((&message,))?;
    value.setattr(intern!(py, "message"), message)?;
    set(&value)?;
    Ok(value)
}

/// The exception of `made`, or the error that kept it from being made.
fn raised(made: PyResult<Bound<'_, PyAny>>) -> PyErr {
    made.map_or_else(|e| e, PyErr::from_value)
}

/// The `HandleError` of `e`, an error in `text` (whose byte offsets it gives).
fn parse_error_value<'py>(
    py: Python<'py>,
    e: &ParseError,
    text: &str,
) -> PyResult<Bound<'py, PyAny>> {
    handle_error(py, e.to_string(), |v| {
        v.setattr(intern!(py, "index"), char_index(text, e.index()))?;
        v.setattr(intern!(py, "byte_index"), e.index())?;
        v.setattr(intern!(py, "kind"), kebab(&format!("{:?}", e.kind())))?;
        v.setattr(intern!(py, "rule"), e.rule())?;
        v.setattr(intern!(py, "found"), e.found().map(String::from))?;
        v.setattr(intern!(py, "at"), py.None())
    })
}

/// A `HandleError` for `e`, an error in `text` (whose byte offsets it gives).
pub fn parse_error(py: Python<'_>, e: &ParseError, text: &str) -> PyErr {
    raised(parse_error_value(py, e, text))
}

/// [`parse_error`] set as the exception raised, as a function CPython calls sets it before
/// it returns null: for the quick calls (`fastcall`), which drop no `Py` on the way.
pub fn set_parse_error(py: Python<'_>, e: &ParseError, text: &str) {
    match parse_error_value(py, e, text) {
        // SAFETY: attached; CPython takes its own references to the type and the value.
        Ok(value) => unsafe {
            pyo3::ffi::PyErr_SetObject(value.get_type().as_ptr(), value.as_ptr())
        },
        Err(e) => e.restore(py),
    }
}

/// Whether `e` is a `HandleError`.
pub fn is_handle_error(py: Python<'_>, e: &PyErr) -> bool {
    e.is_instance_of::<HandleError>(py)
}

/// A `HandleError` for a record error: `at` says where (a JSON path, or a line and
/// column in XML); `index` is None.
pub fn record_error(py: Python<'_>, e: &RecordError) -> PyErr {
    raised(handle_error(py, e.to_string(), |v| {
        v.setattr(intern!(py, "index"), py.None())?;
        v.setattr(intern!(py, "byte_index"), py.None())?;
        v.setattr(intern!(py, "kind"), kebab(&format!("{:?}", e.kind())))?;
        v.setattr(intern!(py, "rule"), "")?;
        v.setattr(intern!(py, "found"), py.None())?;
        v.setattr(intern!(py, "at"), e.at())
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_are_kebab_case() {
        assert_eq!(super::kebab("InvalidCharacter"), "invalid-character");
        assert_eq!(super::kebab("Empty"), "empty");
        assert_eq!(super::kebab("InvalidUtf8"), "invalid-utf8");
    }
}
