//! A `str` argument read as UTF-8 without a copy: the scalar functions' text.
//!
//! PyO3's `PyBackedStr` under the 3.9 limited API (`abi3-py39`) encodes each string into a
//! new `bytes` object, which costs a scalar call about a fifth of its time. CPython keeps
//! the UTF-8 of a `str` itself (an ASCII string's own bytes, or a copy cached in the
//! object), and `PyUnicode_AsUTF8AndSize` lends it. (A string that is not ASCII gets its
//! UTF-8 made once and kept with it for its life, as PyO3 itself does from 3.10: such a
//! string holds its text twice from its first call on.) That function is in the stable ABI
//! from 3.10, and CPython 3.9 exports it with the same signature, outside its limited API;
//! the one wheel calls it where symbols are found in the running interpreter (Linux,
//! macOS). On Windows an extension links against `python3.dll`, whose 3.9 lacks it:
//! there `Text` is PyO3's `PyBackedStr`.

#[cfg(windows)]
pub use backed::Text;

#[cfg(not(windows))]
pub use lent::{borrowed, exact, Text};

use pyo3::prelude::*;
use pyo3::types::PyString;

/// The text of `s`, a `str` or an instance of a subclass; a lone surrogate refused as
/// [`unencodable`] says.
#[cfg(not(windows))]
pub fn of(s: pyo3::Borrowed<'_, '_, PyString>) -> PyResult<Text> {
    Text::of(s)
}

/// The text of `s`, a `str` or an instance of a subclass; a lone surrogate refused as
/// [`unencodable`] says.
#[cfg(windows)]
pub fn of(s: pyo3::Borrowed<'_, '_, PyString>) -> PyResult<Text> {
    let s = s.to_owned();
    pyo3::pybacked::PyBackedStr::try_from(s.clone())
        .map(Text)
        .map_err(|e| unencodable(&s, e))
}

/// PyO3's `PyBackedStr`, read as an argument through [`of`], so that a lone surrogate is
/// refused as every function refuses it.
#[cfg(windows)]
mod backed {
    use std::ops::Deref;

    use pyo3::prelude::*;
    use pyo3::types::PyString;
    use pyo3::Borrowed;

    pub struct Text(pub(super) pyo3::pybacked::PyBackedStr);

    impl Deref for Text {
        type Target = str;

        fn deref(&self) -> &str {
            &self.0
        }
    }

    impl FromPyObject<'_, '_> for Text {
        type Error = PyErr;

        fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
            super::of(obj.cast::<PyString>()?)
        }
    }
}

/// `e`, the error of `s` that has no UTF-8: where it is a lone surrogate (what decoding
/// with `errors="surrogateescape"` leaves), the `HandleError` of the `str` as bytes
/// (`surrogatepass`) at it, as a binary value's bytes that are not UTF-8 are refused (H5);
/// any other (no memory) as it is.
#[cold]
fn unencodable(s: &Bound<'_, PyString>, e: PyErr) -> PyErr {
    let py = s.py();
    if !e.is_instance_of::<pyo3::exceptions::PyUnicodeEncodeError>(py) {
        return e;
    }
    let Ok(bytes) = s
        .call_method1("encode", ("utf-8", "surrogatepass"))
        .and_then(|b| Ok(b.cast_into::<pyo3::types::PyBytes>()?))
    else {
        return e;
    };
    let bytes = bytes.as_bytes();
    match handle_id::HandleRef::parse_bytes(bytes) {
        // (The text before the surrogate is UTF-8: its offsets are the message's.)
        Err(invalid) => crate::errors::parse_error(
            py,
            &invalid,
            &String::from_utf8_lossy(&bytes[..invalid.index()]),
        ),
        Ok(_) => e,
    }
}

/// Where `Text` is PyO3's own, the quick calls that borrow (`fastcall`) are not taken.
#[cfg(windows)]
pub fn borrowed<'a>(_: pyo3::Borrowed<'a, '_, pyo3::types::PyString>) -> Option<&'a str> {
    None
}

/// The text of `s`, a `str` itself (not an instance of a subclass).
#[cfg(windows)]
pub fn exact(s: pyo3::Borrowed<'_, '_, pyo3::types::PyString>) -> pyo3::PyResult<Text> {
    of(s)
}

#[cfg(not(windows))]
mod lent {
    use std::ffi::c_char;
    use std::ops::Deref;
    use std::ptr::NonNull;

    use pyo3::ffi;
    use pyo3::prelude::*;
    use pyo3::types::PyString;
    use pyo3::Borrowed;

    extern "C" {
        fn PyUnicode_AsUTF8AndSize(
            unicode: *mut ffi::PyObject,
            size: *mut ffi::Py_ssize_t,
        ) -> *const c_char;
    }

    /// A Python `str` and its UTF-8, which the `str` holds as long as it lives.
    pub struct Text {
        /// Held for `data`, never read.
        #[allow(dead_code)]
        storage: Py<PyString>,
        data: NonNull<str>,
    }

    // The `str` is immutable, and its UTF-8 is not written again once made.
    unsafe impl Send for Text {}
    unsafe impl Sync for Text {}

    impl Text {
        /// The `str` itself, borrowed: an exact `str` (a subclass's instance is copied into
        /// one, `Text::of`).
        pub fn as_ptr(&self) -> *mut ffi::PyObject {
            self.storage.as_ptr()
        }
    }

    impl Deref for Text {
        type Target = str;

        fn deref(&self) -> &str {
            // SAFETY: `data` points into `storage`, which this value keeps alive.
            unsafe { self.data.as_ref() }
        }
    }

    impl FromPyObject<'_, '_> for Text {
        type Error = PyErr;

        fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
            Self::of(obj.cast::<PyString>()?)
        }
    }

    /// The text of `s`, a `str` itself (not an instance of a subclass). (Inlined: the value
    /// returned through memory, written as words and read back whole, stalled the load.)
    #[inline(always)]
    pub fn exact(s: Borrowed<'_, '_, PyString>) -> PyResult<Text> {
        Text::lent(s.to_owned())
    }

    /// The UTF-8 of `s` for as long as it is borrowed, `None` where it has none (a lone
    /// surrogate; the exception cleared): nothing made or dropped but CPython's own UTF-8
    /// cache of a string that is not ASCII.
    pub fn borrowed<'a>(s: Borrowed<'a, '_, PyString>) -> Option<&'a str> {
        let text = utf8(s);
        if text.is_none() {
            // SAFETY: attached (a `Borrowed` is), an exception set.
            unsafe { ffi::PyErr_Clear() };
        }
        text
    }

    /// The UTF-8 CPython keeps of `s`, or `None` with an exception set (a lone surrogate,
    /// which has none).
    #[inline]
    fn utf8<'a>(s: Borrowed<'a, '_, PyString>) -> Option<&'a str> {
        let mut len: ffi::Py_ssize_t = 0;
        // SAFETY: `s` is a `str`; the pointer is null only with an exception set.
        let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut len) };
        // SAFETY: CPython's UTF-8 of a `str`, `len` bytes, kept in the object, which is
        // borrowed for 'a.
        (!ptr.is_null()).then(|| unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                ptr.cast::<u8>(),
                len as usize,
            ))
        })
    }

    impl Text {
        /// The text of `s`, a `str` or an instance of a subclass.
        pub fn of(s: Borrowed<'_, '_, PyString>) -> PyResult<Self> {
            if s.is_exact_instance_of::<PyString>() {
                return exact(s);
            }
            // An instance of a subclass may hold what holds this text (`s.cleaned =
            // clean(s)`), a cycle the collector would not see through a result: a `str`,
            // which holds nothing, is kept in its place (a copy of its characters, not
            // through UTF-8).
            // SAFETY: `s` is a `str`; a new `str` or null with an exception set.
            let copy = unsafe {
                Bound::from_owned_ptr_or_err(s.py(), ffi::PyUnicode_FromObject(s.as_ptr()))?
            };
            Self::lent(copy.cast_into::<PyString>()?)
        }

        /// Drops the text, its `str` released at once (where a `Py` dropped outside PyO3's
        /// count of attachment would be queued).
        ///
        /// # Safety
        ///
        /// The thread is attached to the interpreter.
        pub unsafe fn release(self) {
            // SAFETY: attached; the reference is this value's own.
            unsafe { ffi::Py_DECREF(self.storage.into_ptr()) }
        }

        #[inline(always)]
        fn lent(s: Bound<'_, PyString>) -> PyResult<Self> {
            let text = utf8(s.as_borrowed())
                .ok_or_else(|| super::unencodable(&s, PyErr::fetch(s.py())))?;
            Ok(Self {
                data: NonNull::from(text),
                storage: s.unbind(),
            })
        }
    }
}
