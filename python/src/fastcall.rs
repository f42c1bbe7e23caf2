//! The quick way into a scalar function called with one `str` and nothing else: what a
//! loop over values does (`for v in values: handle_id.clean(v)`).
//!
//! PyO3 under the 3.9 limited API (`abi3-py39`) declares its functions `METH_VARARGS`:
//! each call has CPython build a tuple of its arguments, and PyO3 read them out of it
//! again. The vectorcall convention (`METH_FASTCALL`, PEP 590) hands the function the
//! caller's own array instead; CPython 3.9 calls it (it has since 3.7), and the stable
//! ABI has it from 3.10. A function registered here is that convention's entry: a call
//! with one positional `str` and no keywords goes to [`One::call`]; any other call is
//! passed whole, as a tuple and a dict, to the PyO3 function (kept here, by name),
//! which keeps the signature, its defaults and its errors. The entry is the module's
//! function like any other (`__self__` the module, so that it pickles by name), run
//! inside PyO3's own trampoline, as PyO3's functions are (the interpreter's attachment
//! counted, so that references are released at once, and a panic raised as
//! `PanicException`), but for the functions whose one-`str` call is made before it
//! ([`One::quick`]: `clean`, `parse`, `is_valid`), which go through the trampoline only
//! where that call neither makes the result nor raises the input's error. Windows,
//! whose `python3.dll` the wheel links against, gets the PyO3 function itself (see
//! `text.rs`).

use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::Borrowed;

use crate::text::Text;

/// A function's call with only its first argument, a `str`, the others at their defaults.
pub trait One {
    /// The function's name (checked against the PyO3 function's when it is added).
    const NAME: &'static str;
    /// What it returns.
    type Out: for<'py> IntoPyObject<'py>;

    fn call(py: Python<'_>, text: Text) -> PyResult<Self::Out>;

    /// What the call gives for a `str` that has no UTF-8 (a lone surrogate): the error of
    /// reading it (a `HandleError`, H5), raised; a predicate says no instead.
    fn unreadable(_py: Python<'_>, e: PyErr) -> PyResult<Self::Out> {
        Err(e)
    }

    /// The call with one `str` (exactly), outside PyO3's trampoline:
    /// [`Quick::Through`] to have it made through [`One::call`] instead (the
    /// default, and the answer to anything but a result made or the input's error
    /// raised). PyO3's trampoline counts the thread's attachment, by which a `Py`
    /// dropped releases its reference at once, and releases the references its pool
    /// holds for later, which takes a lock on every call once anything has been
    /// released while detached (PyO3 does so itself at import). So on the way to
    /// [`Quick::Made`] or [`Quick::Raised`], no `Py` may be dropped; on the way to
    /// `Through`, one may be: the trampoline taken next releases it. (What
    /// other threads release while detached waits for any of PyO3's entries: a loop
    /// of quick calls alone, which free no PyO3 object, does not take it.) A panic
    /// is caught and the call made again through the trampoline, which raises it:
    /// the panic hook then says it twice.
    fn quick<'py>(_py: Python<'py>, _text: Borrowed<'_, 'py, PyString>) -> Quick<'py> {
        Quick::Through
    }
}

/// What a quick call ([`One::quick`]) did.
pub enum Quick<'py> {
    /// Made the result.
    Made(Bound<'py, PyAny>),
    /// Raised the exception of the input's error (set, as CPython's functions set it).
    Raised,
    /// Neither: the call is made again through PyO3's trampoline.
    Through,
}

#[cfg(windows)]
pub fn add<F: One>(
    m: &Bound<'_, PyModule>,
    full: Bound<'_, pyo3::types::PyCFunction>,
) -> PyResult<()> {
    m.add_function(full)
}

#[cfg(not(windows))]
pub use quick::add;

#[cfg(not(windows))]
mod quick {
    use std::ffi::{c_int, CString};
    use std::marker::PhantomData;
    use std::sync::Mutex;

    use pyo3::exceptions::PyValueError;
    use pyo3::ffi;
    use pyo3::impl_::trampoline::{fastcall_cfunction_with_keywords as trampoline, MethodDef};
    use pyo3::prelude::*;
    use pyo3::types::{PyCFunction, PyDict, PyString, PyTuple};
    use pyo3::{Borrowed, IntoPyObjectExt};

    use super::{One, Quick, Text};

    /// `METH_FASTCALL` (`methodobject.h`), in the stable ABI from 3.10 and understood by 3.9.
    const METH_FASTCALL: c_int = 0x0080;

    /// The PyO3 function of each name added, which calls other than the quick one go to.
    static FULL: Mutex<Vec<(&'static str, Py<PyCFunction>)>> = Mutex::new(Vec::new());

    /// Adds `full` (a PyO3 function) to `m` under its name, called through [`One`] `F` when
    /// given one `str` alone (anything else, a wrong type included, goes to `full`, whose
    /// errors name the argument).
    pub fn add<F: One>(m: &Bound<'_, PyModule>, full: Bound<'_, PyCFunction>) -> PyResult<()> {
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
        let to_c = |s: String| CString::new(s).map_err(|e| PyValueError::new_err(e.to_string()));
        let meth: FastWithKeywords = entry::<F>;
        // (CPython keeps a pointer to the definition for the function's life: the module's.)
        let def = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: to_c(name.clone())?.into_raw(),
            ml_meth: ffi::PyMethodDefPointer {
                // SAFETY: CPython calls it as `METH_FASTCALL | METH_KEYWORDS` says, with
                // this signature; the field's type is only how the union is named under
                // the 3.9 limited API.
                PyCFunctionWithKeywords: unsafe {
                    std::mem::transmute::<FastWithKeywords, ffi::PyCFunctionWithKeywords>(meth)
                },
            },
            ml_flags: METH_FASTCALL | ffi::METH_KEYWORDS,
            ml_doc: to_c(doc)?.into_raw(),
        }));
        let module_name = m.name()?;
        // SAFETY: `def` lives as long as the process.
        let f = unsafe {
            Bound::from_owned_ptr_or_err(
                m.py(),
                ffi::PyCFunction_NewEx(def, m.as_ptr(), module_name.as_ptr()),
            )?
        };
        FULL.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((F::NAME, full.unbind()));
        m.add(name.as_str(), f)
    }

    type FastWithKeywords = unsafe extern "C" fn(
        *mut ffi::PyObject,
        *const *mut ffi::PyObject,
        ffi::Py_ssize_t,
        *mut ffi::PyObject,
    ) -> *mut ffi::PyObject;

    /// CPython's entry for `F`: [`One::quick`] for one exact `str`, PyO3's trampoline for
    /// anything else and wherever that says `None`.
    ///
    /// # Safety
    ///
    /// As CPython calls a `METH_FASTCALL | METH_KEYWORDS` function: attached, `args` holding
    /// `nargs` positional values and one per name in `kwnames` (a tuple, or null).
    unsafe extern "C" fn entry<F: One>(
        module: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject {
        // (`nargs` alone: the flag vectorcall may set in its top bit is for its callees.)
        // SAFETY: attached, as CPython calls this; `kwnames` a tuple when not null.
        if nargs == 1 && (kwnames.is_null() || unsafe { ffi::PyTuple_Size(kwnames) } == 0) {
            // SAFETY: attached; `args` holds one value, borrowed for the call.
            let (py, arg) = unsafe { (Python::assume_attached(), *args) };
            // SAFETY: `arg` is a live object.
            if unsafe { ffi::Py_TYPE(arg) } == std::ptr::addr_of_mut!(ffi::PyUnicode_Type) {
                // (A panic is made again through the trampoline, which raises it.)
                let made = std::panic::catch_unwind(|| {
                    // SAFETY: `arg` is a `str`, borrowed for the call.
                    let text = unsafe { Borrowed::from_ptr(py, arg).cast_unchecked::<PyString>() };
                    match F::quick(py, text) {
                        Quick::Made(made) => Some(made.into_ptr()),
                        // (The exception set: CPython's null.)
                        Quick::Raised => Some(std::ptr::null_mut()),
                        Quick::Through => None,
                    }
                });
                if let Ok(Some(made)) = made {
                    return made;
                }
            }
        }
        // SAFETY: as this function's.
        unsafe { trampoline::<Entry<F>>(module, args, nargs, kwnames) }
    }

    /// What PyO3's trampoline calls for `F`.
    struct Entry<F>(PhantomData<F>);

    impl<F: One> MethodDef<pyo3::impl_::trampoline::fastcall_cfunction_with_keywords::Func>
        for Entry<F>
    {
        const METH: pyo3::impl_::trampoline::fastcall_cfunction_with_keywords::Func = call::<F>;
    }

    /// A call of `F`'s entry: `args` the positional arguments then the keywords' values,
    /// `kwnames` the keywords' names (or null).
    ///
    /// # Safety
    ///
    /// As CPython calls a `METH_FASTCALL | METH_KEYWORDS` function.
    unsafe fn call<F: One>(
        py: Python<'_>,
        _module: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<*mut ffi::PyObject> {
        // (The flag vectorcall may set in `nargs`' top bit is for its callees; a
        // `METH_FASTCALL` function gets the count alone.)
        let positional = usize::try_from(nargs).unwrap_or(0);
        // SAFETY: `args` holds `nargs` positional values and one per keyword name, borrowed
        // for the call.
        let arg = |i: usize| unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) };
        let keywords = if kwnames.is_null() {
            None
        } else {
            Some(unsafe { Bound::from_borrowed_ptr(py, kwnames) }.cast_into::<PyTuple>()?)
        };
        if positional == 1 && keywords.as_ref().is_none_or(|k| k.is_empty()) {
            // (Borrowed, not a `Bound`: no reference of its own to take and give back.)
            // SAFETY: as `arg`.
            let text = unsafe { Borrowed::from_ptr(py, *args) };
            if let Ok(text) = text.cast::<PyString>() {
                let out = match Text::of(text) {
                    Ok(text) => F::call(py, text)?,
                    Err(e) => F::unreadable(py, e)?,
                };
                return Ok(out.into_py_any(py)?.into_ptr());
            }
        }
        let full = FULL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|(name, _)| *name == F::NAME)
            .map(|(_, f)| f.clone_ref(py))
            .expect("the PyO3 function of an entry added");
        let kwargs = match &keywords {
            Some(names) => {
                let kwargs = PyDict::new(py);
                for (i, name) in names.iter().enumerate() {
                    kwargs.set_item(name, arg(positional + i))?;
                }
                Some(kwargs)
            }
            None => None,
        };
        let positional = PyTuple::new(py, (0..positional).map(arg))?;
        Ok(full.bind(py).call(positional, kwargs.as_ref())?.into_ptr())
    }
}
