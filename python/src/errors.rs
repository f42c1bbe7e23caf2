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

/// A `HandleError` with `message` and its attributes set by `set`.
fn raise(
    py: Python<'_>,
    message: String,
    set: impl FnOnce(&Bound<'_, pyo3::exceptions::PyBaseException>) -> PyResult<()>,
) -> PyErr {
    // (One `str` for the argument and the attribute.)
    let message = pyo3::types::PyString::new(py, &message);
    let err = HandleError::new_err(message.clone().unbind());
    let value = err.value(py);
    match value
        .setattr(intern!(py, "message"), message)
        .and_then(|()| set(value))
    {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A `HandleError` for `e`, an error in `text` (whose byte offsets it gives).
pub fn parse_error(py: Python<'_>, e: &ParseError, text: &str) -> PyErr {
    raise(py, e.to_string(), |v| {
        v.setattr(intern!(py, "index"), char_index(text, e.index()))?;
        v.setattr(intern!(py, "byte_index"), e.index())?;
        v.setattr(intern!(py, "kind"), kebab(&format!("{:?}", e.kind())))?;
        v.setattr(intern!(py, "rule"), e.rule())?;
        v.setattr(intern!(py, "found"), e.found().map(String::from))?;
        v.setattr(intern!(py, "at"), py.None())
    })
}

/// A `HandleError` for a record error: `at` says where (a JSON path, or a line and
/// column in XML); `index` is None.
pub fn record_error(py: Python<'_>, e: &RecordError) -> PyErr {
    raise(py, e.to_string(), |v| {
        v.setattr(intern!(py, "index"), py.None())?;
        v.setattr(intern!(py, "byte_index"), py.None())?;
        v.setattr(intern!(py, "kind"), kebab(&format!("{:?}", e.kind())))?;
        v.setattr(intern!(py, "rule"), "")?;
        v.setattr(intern!(py, "found"), py.None())?;
        v.setattr(intern!(py, "at"), e.at())
    })
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
