//! A value kept between calls for the threads attached to the interpreter, reached with
//! the proof of attachment (`Python<'_>`): the scalar functions' buffers.
//!
//! A thread-local costs a call about a tenth of its time here (a shared library's
//! thread-locals are found through `__tls_get_addr`, and one with a destructor checks its
//! state on each use). Where the interpreter has a global lock, one value serves every
//! thread: a thread attached holds the lock, so no two use it at once. Where it has none
//! (free-threaded CPython, `Py_GIL_DISABLED`), a lock of the value's own is taken instead.
//! Either way the value is taken and put back, never borrowed across a call into Python, so
//! a call made again from inside one (a finalizer, a signal handler) finds it empty and
//! makes its own.

use pyo3::Python;

#[cfg(not(Py_GIL_DISABLED))]
pub struct Attached<T>(std::cell::UnsafeCell<T>);

// SAFETY: reached only through `take` and `set`, with the interpreter's lock held (see the
// module's docs), and never borrowed beyond either.
#[cfg(not(Py_GIL_DISABLED))]
unsafe impl<T: Send> Sync for Attached<T> {}

#[cfg(not(Py_GIL_DISABLED))]
impl<T: Default> Attached<T> {
    pub const fn new(value: T) -> Self {
        Self(std::cell::UnsafeCell::new(value))
    }

    /// The value, an empty one left in its place.
    pub fn take(&self, _py: Python<'_>) -> T {
        // SAFETY: the interpreter's lock is held, and the borrow ends here.
        std::mem::take(unsafe { &mut *self.0.get() })
    }

    /// `value` kept in place of what is there, which is dropped.
    pub fn set(&self, _py: Python<'_>, value: T) {
        // SAFETY: as `take`; the value replaced is dropped after the borrow ends (its drop
        // runs no Python).
        drop(std::mem::replace(unsafe { &mut *self.0.get() }, value));
    }
}

#[cfg(Py_GIL_DISABLED)]
pub struct Attached<T>(std::sync::Mutex<T>);

#[cfg(Py_GIL_DISABLED)]
impl<T: Default> Attached<T> {
    pub const fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }

    pub fn take(&self, _py: Python<'_>) -> T {
        self.0
            .try_lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }

    pub fn set(&self, _py: Python<'_>, value: T) {
        if let Ok(mut v) = self.0.try_lock() {
            *v = value;
        }
    }
}
