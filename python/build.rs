//! PyO3's configuration flags for this crate's own code: `Py_GIL_DISABLED` under a
//! free-threaded interpreter, where src/attached.rs takes a lock of its own.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
