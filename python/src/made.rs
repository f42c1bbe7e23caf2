//! Objects of a PyO3 class made and freed by this crate: what `clean` and `parse` return
//! once a value.
//!
//! PyO3 makes each object of a class by calling `object.__new__` with an empty tuple (the
//! slot looked up, the tuple made and released, the dictionary's set-up asked for) and
//! frees it inside its trampoline (the thread's attachment counted, and a lock taken on
//! the queue of references released while detached): about a tenth of a call of `clean`
//! from a loop. Here the class's objects are of a subtype made once at import, with no
//! `__dict__` and no slots of its own but the deallocator, `str()` and the base's docs and
//! constructor: made with `PyObject_Malloc` and `PyObject_Init`, the value written where
//! PyO3 keeps it, and freed by dropping the value, its Python references released at once
//! (the interpreter is attached in a deallocator).
//! Every method and attribute is the PyO3 class's, inherited, its constructor too (which
//! makes an object of the subtype as PyO3 makes its own). (That class, the subtype's
//! `__base__`, has the same name; PyO3 declares it `subclass`, as a base must be, so Python
//! may derive from it too.)
//!
//! Where PyO3 keeps the value is checked when the subtype is made, on an object PyO3 made:
//! right after the object's header, with nothing after it. Anything else (another PyO3),
//! and Windows, makes no subtype: the class's objects are then PyO3's own.

use std::ffi::{c_char, c_void, CStr, CString};
use std::marker::PhantomData;
use std::sync::OnceLock;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyTuple, PyType};
use pyo3::{PyClass, PyClassInitializer};

/// The value of an object [`Made`] makes.
pub trait Value {
    /// The object's `str()`, where it is text the value holds: then the subtype's own slot
    /// (PyO3's `__str__` is called through its trampoline, as a deallocator is).
    const STR: Option<fn(&Self) -> &str> = None;

    /// A `str` object the value holds (borrowed) whose text is the value's `str()` (`STR`):
    /// given as it is, rather than a copy made.
    fn same_str(&self) -> Option<*mut ffi::PyObject> {
        None
    }

    /// Drops the value, its Python references released at once: by the deallocator, which
    /// runs attached but outside PyO3's count of attachment (where a `Py` dropped would be
    /// queued, not released).
    ///
    /// # Safety
    ///
    /// The thread is attached to the interpreter.
    unsafe fn release(self);
}

/// Where PyO3 keeps an object's value: right after the object's header.
const VALUE_AT: usize = std::mem::size_of::<ffi::PyObject>();

/// The subtype of `T`'s class whose objects this crate makes, or `T`'s class itself where
/// PyO3 lays the value out otherwise than checked.
pub struct Made<T> {
    ty: Py<PyType>,
    /// The objects are made here, not by PyO3.
    own: bool,
    _value: PhantomData<T>,
}

impl<T> Made<T>
where
    T: PyClass<Frozen = True> + Sync + Value + Into<PyClassInitializer<T>>,
{
    /// The subtype of `T`'s class (which PyO3 declares `subclass`), named `name` and given
    /// the class's docs (and `str()`, `Value::STR`); `sample`, made into an object by PyO3,
    /// shows where the value is.
    pub fn new(py: Python<'_>, name: &'static CStr, sample: T) -> PyResult<Self> {
        let base = py.get_type::<T>();
        let object = Bound::new(py, sample)?;
        let at = (object.get() as *const T as usize).wrapping_sub(object.as_ptr() as usize);
        let size: usize = base.getattr("__basicsize__")?.extract()?;
        drop(object);
        // (On Windows the text is PyO3's own `PyBackedStr`, which has no reference to give
        // back by hand: `Value::release` is not written for it. A class the collector
        // tracks would give its subtype a header `place` does not allocate.)
        // SAFETY: `base` is a type object.
        let flags = unsafe { ffi::PyType_GetFlags(base.as_ptr().cast::<ffi::PyTypeObject>()) };
        let collected = flags & ffi::Py_TPFLAGS_HAVE_GC != 0;
        if cfg!(windows)
            || collected
            || at != VALUE_AT
            || size != VALUE_AT + std::mem::size_of::<T>()
        {
            return Ok(Self {
                ty: base.unbind(),
                own: false,
                _value: PhantomData,
            });
        }
        let doc: Option<String> = base.getattr("__doc__")?.extract()?;
        // (CPython 3.9 keeps pointers to the name and the slots' values for the type's life:
        // the process's, as the module is never unloaded.)
        let doc = CString::new(doc.unwrap_or_default())
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        type Slot = unsafe extern "C" fn(*mut ffi::PyObject);
        type Str = unsafe extern "C" fn(*mut ffi::PyObject) -> *mut ffi::PyObject;
        let mut slots = vec![
            ffi::PyType_Slot {
                slot: ffi::Py_tp_dealloc,
                pfunc: dealloc::<T> as Slot as *mut c_void,
            },
            ffi::PyType_Slot {
                slot: ffi::Py_tp_doc,
                pfunc: doc.into_raw().cast::<c_void>(),
            },
        ];
        // (The base's constructor, which PyO3 writes for a class that has one and makes an
        // object of the class it is called for; for one that has none, its refusal.)
        // SAFETY: `base` is a type object.
        let construct = unsafe {
            ffi::PyType_GetSlot(base.as_ptr().cast::<ffi::PyTypeObject>(), ffi::Py_tp_new)
        };
        if !construct.is_null() {
            slots.push(ffi::PyType_Slot {
                slot: ffi::Py_tp_new,
                pfunc: construct,
            });
        }
        if T::STR.is_some() {
            slots.push(ffi::PyType_Slot {
                slot: ffi::Py_tp_str,
                pfunc: str::<T> as Str as *mut c_void,
            });
        }
        slots.push(ffi::PyType_Slot::default());
        let slots = slots.leak();
        let spec = Box::leak(Box::new(ffi::PyType_Spec {
            name: name.as_ptr().cast::<c_char>(),
            // (The base's size: the value is the base's.)
            basicsize: 0,
            itemsize: 0,
            flags: ffi::Py_TPFLAGS_DEFAULT as std::ffi::c_uint,
            slots: slots.as_mut_ptr(),
        }));
        let bases = PyTuple::new(py, [base])?;
        // SAFETY: attached; the spec and its slots live as long as the process.
        let ty = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpecWithBases(spec, bases.as_ptr()))?
        };
        Ok(Self {
            ty: ty.cast_into::<PyType>()?.unbind(),
            own: true,
            _value: PhantomData,
        })
    }

    /// The class whose objects [`Made::place`] makes: the one to give Python as `T`'s.
    pub fn ty<'py>(&self, py: Python<'py>) -> &Bound<'py, PyType> {
        self.ty.bind(py)
    }

    /// The class `cell` keeps, made (of `sample`) on the module's first import, added to
    /// `m` under its name's last part.
    pub fn add(
        m: &Bound<'_, PyModule>,
        cell: &'static OnceLock<Self>,
        name: &'static CStr,
        sample: impl FnOnce() -> PyResult<T>,
    ) -> PyResult<()> {
        let made = match cell.get() {
            Some(made) => made,
            None => {
                let made = Self::new(m.py(), name, sample()?)?;
                cell.get_or_init(|| made)
            }
        };
        let name = name.to_str().expect("an ASCII name");
        m.add(name.rsplit('.').next().unwrap_or(name), made.ty(m.py()))
    }

    /// An object of `value`.
    pub fn make<'py>(&self, py: Python<'py>, value: T) -> PyResult<Bound<'py, T>> {
        object(py, self.place(|| value))
    }

    /// An object of the value `value` makes, made without running any Python code (and so
    /// where Python's objects may not be made: while a value is lent, `Attached`), or `None`
    /// where no memory is left (`value` not called); or the value, for `Bound::new`, where
    /// the objects are PyO3's own.
    #[inline(always)]
    pub fn place(&self, value: impl FnOnce() -> T) -> Result<Option<*mut ffi::PyObject>, T> {
        if !self.own {
            return Err(value());
        }
        // SAFETY: the subtype's objects are `VALUE_AT + size_of::<T>()` bytes (its base's
        // size, checked in `new`), not collected (no `Py_TPFLAGS_HAVE_GC`) and with no
        // dictionary, so `PyObject_Malloc` is their allocator, which runs no Python code
        // (nor does `PyObject_Init`, which sets the header: the type, a reference to it,
        // the object's count); the value is written where PyO3 reads it, and every other
        // part of PyO3's layout is empty (checked).
        unsafe {
            let obj =
                ffi::PyObject_Malloc(VALUE_AT + std::mem::size_of::<T>()).cast::<ffi::PyObject>();
            if obj.is_null() {
                return Ok(None);
            }
            ffi::PyObject_Init(obj, self.ty.as_ptr().cast::<ffi::PyTypeObject>());
            std::ptr::write(obj.cast::<u8>().add(VALUE_AT).cast::<T>(), value());
            Ok(Some(obj))
        }
    }
}

/// The object of what [`Made::place`] gave: the object it made, `MemoryError` where it
/// had no memory, or the value made into an object by PyO3.
pub fn object<T>(
    py: Python<'_>,
    placed: Result<Option<*mut ffi::PyObject>, T>,
) -> PyResult<Bound<'_, T>>
where
    T: PyClass + Into<PyClassInitializer<T>>,
{
    match placed {
        // SAFETY: attached; an object of the subtype, a reference of its own.
        Ok(Some(obj)) => Ok(unsafe { Bound::from_owned_ptr(py, obj).cast_into_unchecked() }),
        Ok(None) => Err(pyo3::exceptions::PyMemoryError::new_err(())),
        Err(value) => Bound::new(py, value),
    }
}

/// The subtype's deallocator (of the objects `Made::place` makes, and of those the base's
/// constructor makes of the subtype, with `PyType_GenericAlloc`, laid out alike): the value
/// moved out and released, the memory freed, the reference to the type the object held
/// released.
///
/// # Safety
///
/// As CPython calls a deallocator: attached, `obj` an object of the subtype whose count
/// has reached zero.
unsafe extern "C" fn dealloc<T: Value>(obj: *mut ffi::PyObject) {
    // SAFETY: `obj` was made by `Made::place` or by the base's constructor for the subtype
    // (with `PyObject_Malloc`, as the subtype is not collected and has no dictionary), its
    // value where PyO3 keeps it; nothing reads the object after its deallocator.
    unsafe {
        let ty = ffi::Py_TYPE(obj);
        let value = std::ptr::read(obj.cast::<u8>().add(VALUE_AT).cast::<T>());
        ffi::PyObject_Free(obj.cast::<c_void>());
        value.release();
        ffi::Py_DECREF(ty.cast::<ffi::PyObject>());
    }
}

/// The subtype's `str()`: `T::STR` of the value, as a new `str`.
///
/// # Safety
///
/// As CPython calls `tp_str`: attached, `obj` an object of the subtype (`__str__`'s wrapper
/// refuses any other, and `__class__` cannot be assigned to or from it).
unsafe extern "C" fn str<T: Value>(obj: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: the value is where `place` (or PyO3) wrote it, borrowed for the call.
    let value = unsafe { &*obj.cast::<u8>().add(VALUE_AT).cast::<T>() };
    // (Nothing is written on the way: a panic leaves the value as it was.)
    let text = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match value.same_str() {
        Some(same) => Err(same),
        None => Ok(T::STR.map(|text| text(value))),
    }));
    // SAFETY: attached; a `str` the value holds (a new reference given), a pointer and
    // length of UTF-8, or an exception set and null.
    unsafe {
        match text {
            Ok(Err(same)) => {
                ffi::Py_INCREF(same);
                same
            }
            Ok(Ok(Some(text))) => ffi::PyUnicode_FromStringAndSize(
                text.as_ptr().cast::<c_char>(),
                text.len() as ffi::Py_ssize_t,
            ),
            _ => {
                ffi::PyErr_SetString(ffi::PyExc_SystemError, c"no text".as_ptr());
                std::ptr::null_mut()
            }
        }
    }
}
