//! An argument that is a list of `str`: `proxy_bases`, `handle_prefixes`, `types`, `locatt`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// What a list argument given one `str` is told.
pub const ONE_STR: &str = "a list of str, not one str (write [value] for one)";

/// A list of `str`, or any iterable of them (a tuple, a generator). One `str` is refused:
/// read as an iterable, it would be its characters, each taken for a value.
#[derive(Default)]
pub struct Texts(pub Vec<String>);

impl IntoIterator for Texts {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromPyObject<'_, '_> for Texts {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(ONE_STR));
        }
        // (A dict would be read as its keys, bytes as numbers: a mistake more likely than
        // meant.)
        for (is, what) in [
            (obj.is_instance_of::<PyDict>(), "dict"),
            (obj.is_instance_of::<PyBytes>(), "bytes"),
        ] {
            if is {
                return Err(PyTypeError::new_err(format!("a list of str, not {what}")));
            }
        }
        obj.try_iter()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "a list of str, not {}",
                    obj.get_type()
                        .name()
                        .map_or_else(|_| "that".into(), |n| n.to_string())
                ))
            })?
            .map(|item| item?.extract::<String>())
            .collect::<PyResult<_>>()
            .map(Texts)
    }
}

/// The values of an optional list argument.
pub fn texts(given: Option<Texts>) -> Option<Vec<String>> {
    given.map(|t| t.0)
}
