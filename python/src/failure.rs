//! Why a column could not be made, told without Python: the column functions run where no
//! Python exception can be made (without the GIL, and on Polars' threads for its plugin).
//! Python's functions raise it as the exception it names; the plugin gives its message.

use std::fmt;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::PyErr;

#[derive(Debug)]
pub enum Failure {
    /// An argument or a column's data that is not what it must be (`ValueError`).
    Value(String),
    /// A column that would hold more than its offsets reach (`OverflowError`).
    Overflow(String),
    /// A column of a type the functions do not read (`TypeError`).
    Type(String),
}

impl Failure {
    /// A `Value` failure saying `e`.
    pub fn value(e: impl fmt::Display) -> Self {
        Self::Value(e.to_string())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Value(m) | Self::Overflow(m) | Self::Type(m) => f.write_str(m),
        }
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Overflow(m) => PyOverflowError::new_err(m),
            Failure::Type(m) => PyTypeError::new_err(m),
        }
    }
}
