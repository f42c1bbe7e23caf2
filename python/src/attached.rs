//! A value kept between calls for the threads attached to the interpreter, reached with
//! the proof of attachment (`Python<'_>`): the scalar functions' buffers.
//!
//! A thread-local costs a call about a tenth of its time here (a shared library's
//! thread-locals are found through `__tls_get_addr`, and one with a destructor checks its
//! state on each use). Where the interpreter has a global lock, one value serves every
//! thread: a thread attached holds the lock, so no two use it at once. Where it has none
//! (free-threaded CPython, `Py_GIL_DISABLED`), a lock of the value's own is taken instead.
//! The value is lent to a closure that runs no Python code (the contract of
//! [`Attached::with`]), so no call made again from inside one (a finalizer, a signal
//! handler) can reach it while it is lent.

use pyo3::Python;

#[cfg(not(Py_GIL_DISABLED))]
pub struct Attached<T>(std::cell::UnsafeCell<T>);

// SAFETY: reached only through `with`, with the interpreter's lock held (see the module's
// docs), and lent to no more than its closure.
#[cfg(not(Py_GIL_DISABLED))]
unsafe impl<T: Send> Sync for Attached<T> {}

#[cfg(not(Py_GIL_DISABLED))]
impl<T: Default> Attached<T> {
    pub const fn new(value: T) -> Self {
        Self(std::cell::UnsafeCell::new(value))
    }

    /// `f` of the value.
    ///
    /// # Safety
    ///
    /// `f` runs no Python code: nothing that could reach this value again (a finalizer, a
    /// signal handler, a thread switch) while it is lent.
    #[inline(always)]
    pub unsafe fn with<R>(&self, _py: Python<'_>, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: the interpreter's lock is held (`_py`), and by the contract nothing else
        // reaches the value while `f` has it.
        f(unsafe { &mut *self.0.get() })
    }
}

#[cfg(Py_GIL_DISABLED)]
pub struct Attached<T>(std::sync::Mutex<T>);

#[cfg(Py_GIL_DISABLED)]
impl<T: Default> Attached<T> {
    pub const fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }

    /// `f` of the value, or of a value of its own where another thread has it.
    ///
    /// # Safety
    ///
    /// None here; the contract of the build with the interpreter's lock.
    pub unsafe fn with<R>(&self, _py: Python<'_>, f: impl FnOnce(&mut T) -> R) -> R {
        match self.0.try_lock() {
            Ok(mut v) => f(&mut v),
            // (A closure that panicked left the value whole: `clean_in_place` clears it
            // first.)
            Err(std::sync::TryLockError::Poisoned(p)) => f(&mut p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => f(&mut T::default()),
        }
    }
}
