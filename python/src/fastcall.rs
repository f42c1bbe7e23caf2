//! The quick way into a scalar function called with one `str` and nothing else: what a
//! loop over values does (`for v in values: handle_id.clean(v)`).
//!
//! PyO3 under the 3.9 limited API (`abi3-py39`) declares its functions `METH_VARARGS`: each
//! call has CPython build a tuple of its arguments, and PyO3 read them out of it again. The
//! vectorcall convention (`METH_FASTCALL`, PEP 590) hands the function the caller's own
//! array instead; CPython 3.9 calls it (it has since 3.7), and the stable ABI has it from
//! 3.10. A function registered here is that convention's entry: a call with one positional
//! `str` and no keywords goes to [`One::call`]; any other call is passed whole, as a tuple
//! and a dict, to the PyO3 function (kept in the module as `_<name>`), which keeps the
//! signature, its defaults and its errors. The entry is the module's function like any
//! other (`__self__` the module, so that it pickles by name). Windows, whose `python3.dll`
//! the wheel links against, gets the PyO3 function itself (see `text.rs`).

use pyo3::prelude::*;
use pyo3::types::PyCFunction;

use crate::text::Text;

/// A function's call with only its first argument, a `str`, the others at their defaults.
pub trait One {
    /// The function's name (checked against the PyO3 function's when it is added).
    const NAME: &'static str;

    fn call(py: Python<'_>, text: Text) -> PyResult<Py<PyAny>>;
}

/// Where the module keeps the PyO3 function of `name`.
#[cfg(not(windows))]
fn full_name(name: &str) -> String {
    format!("_{name}")
}

/// Adds `full` (a PyO3 function) to `m` under its name, called through [`One`] `F` when
/// given one `str` alone (anything else, a wrong type included, goes to `full`, whose
/// errors name the argument).
#[cfg(not(windows))]
pub fn add<F: One>(m: &Bound<'_, PyModule>, full: Bound<'_, PyCFunction>) -> PyResult<()> {
    use std::ffi::CString;

    use pyo3::ffi;

    let name: String = full.getattr("__name__")?.extract()?;
    assert_eq!(name, F::NAME, "a quick entry named as its function");
    // The PyO3 function's `__text_signature__` and docs, in the form CPython reads them
    // from (`name(sig)\n--\n\ndoc`), so that `help` and `inspect.signature` see the same.
    let signature: Option<String> = full.getattr("__text_signature__")?.extract()?;
    let doc: Option<String> = full.getattr("__doc__")?.extract()?;
    let doc = match signature {
        Some(sig) => format!("{name}{sig}\n--\n\n{}", doc.unwrap_or_default()),
        None => doc.unwrap_or_default(),
    };
    let to_c = |s: String| {
        CString::new(s).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    };
    // (CPython keeps a pointer to the definition for the function's life: the module's.)
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: to_c(name.clone())?.into_raw(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionWithKeywords: unsafe {
                std::mem::transmute::<FastWithKeywords, ffi::PyCFunctionWithKeywords>(entry::<F>)
            },
        },
        ml_flags: METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: to_c(doc)?.into_raw(),
    }));
    let py = m.py();
    let module_name = m.name()?;
    // SAFETY: `def` lives as long as the process.
    let f = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(def, m.as_ptr(), module_name.as_ptr()),
        )?
    };
    m.add(full_name(&name), full)?;
    m.add(name.as_str(), f)
}

#[cfg(windows)]
pub fn add<F: One>(m: &Bound<'_, PyModule>, full: Bound<'_, PyCFunction>) -> PyResult<()> {
    m.add_function(full)
}

/// `METH_FASTCALL` (`methodobject.h`), in the stable ABI from 3.10 and understood by 3.9.
#[cfg(not(windows))]
const METH_FASTCALL: std::ffi::c_int = 0x0080;

#[cfg(not(windows))]
type FastWithKeywords = unsafe extern "C" fn(
    *mut pyo3::ffi::PyObject,
    *const *mut pyo3::ffi::PyObject,
    pyo3::ffi::Py_ssize_t,
    *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject;

/// The function CPython calls: `module` is the module, `args` the positional arguments
/// then the keywords' values, `kwnames` the keywords' names (or null).
#[cfg(not(windows))]
unsafe extern "C" fn entry<F: One>(
    module: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargs: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    use pyo3::types::{PyDict, PyTuple};

    // SAFETY: CPython calls this with the interpreter attached.
    let py = unsafe { Python::assume_attached() };
    let run = || -> PyResult<Py<PyAny>> {
        // (The flag CPython may set in `nargs`' top bit is for vectorcall's callees; a
        // `METH_FASTCALL` function gets the count alone.)
        let positional = usize::try_from(nargs).unwrap_or(0);
        // SAFETY: `args` holds `nargs` positional values and one per keyword name.
        let keywords = if kwnames.is_null() {
            None
        } else {
            Some(unsafe { Bound::from_borrowed_ptr(py, kwnames) }.cast_into::<PyTuple>()?)
        };
        let values = |from: usize, n: usize| -> Vec<Bound<'_, PyAny>> {
            (from..from + n)
                .map(|i| unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) })
                .collect()
        };
        if positional == 1 && keywords.as_ref().is_none_or(|k| k.is_empty()) {
            let arg = unsafe { Bound::from_borrowed_ptr(py, *args) };
            if arg.is_instance_of::<pyo3::types::PyString>() {
                return F::call(py, arg.extract()?);
            }
        }
        let module = unsafe { Bound::from_borrowed_ptr(py, module) };
        let full = module.getattr(full_name(F::NAME))?;
        let kwargs = match &keywords {
            Some(names) => {
                let kwargs = PyDict::new(py);
                for (name, value) in names.iter().zip(values(positional, names.len())) {
                    kwargs.set_item(name, value)?;
                }
                Some(kwargs)
            }
            None => None,
        };
        Ok(full
            .call(PyTuple::new(py, values(0, positional))?, kwargs.as_ref())?
            .unbind())
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(value)) => value.into_ptr(),
        Ok(Err(e)) => {
            e.restore(py);
            std::ptr::null_mut()
        }
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_owned());
            pyo3::panic::PanicException::new_err(message).restore(py);
            std::ptr::null_mut()
        }
    }
}
