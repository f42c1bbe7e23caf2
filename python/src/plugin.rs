//! The Polars expression plugin: the column functions (`arrow::Call`) as compiled
//! expressions, which Polars calls on its own threads, without Python, through its plugin
//! interface (`polars.plugins.register_plugin_function`; `handle_id/polars.py` registers
//! them). Written against that interface, version 0.1, as Polars 2.1 defines it, with
//! arrow-rs's C data interface types only (the crates of Polars itself are not built here):
//!
//! - `_polars_plugin_get_version`: the interface's version, major << 16 | minor.
//! - `_polars_plugin_<name>(inputs, n, kwargs, kwargs_len, out, context)`: the column of
//!   the function `<name>` (of `to_form`, its `output`) over the input's chunks, chunk by
//!   chunk, into `out`; on failure, `out` is left as it is and the message kept.
//! - `_polars_plugin_get_last_error_message`: the last failure's message on this thread.
//! - `_polars_plugin_field_<name>(fields, n, out, kwargs, kwargs_len)`: the output's field
//!   (its type: that of the function's column over no rows of the input's type).
//!
//! The input's arrays are the plugin's to release (Polars forgets them once the call
//! returns), its field Polars's; the output's arrays become Polars's as it reads them,
//! the rest of the output stays the plugin's until Polars calls its `release`.
//! `handle_id/polars.py` checks once, at import, that the running Polars takes the plugin,
//! and uses `map_batches` over `handle_id.arrow` where it does not.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::ffi::{from_ffi, to_ffi};
use arrow_array::{new_empty_array, Array, ArrayRef, NullArray};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{DataType, Field};

use crate::arrow::{Call, Input};
use crate::errors::parse_error;
use crate::kwargs::{self, Kwarg};
use crate::options;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A Polars series: one field, and its chunks' arrays.
#[repr(C)]
pub struct SeriesExport {
    field: *mut FFI_ArrowSchema,
    arrays: *mut *mut FFI_ArrowArray,
    /// How many chunks.
    len: usize,
    release: Option<unsafe extern "C" fn(*mut SeriesExport)>,
    /// Not null where the series is there (an output left as it was is a failure).
    private_data: *mut c_void,
}

/// What Polars says of the call.
#[repr(C)]
pub struct CallerContext {
    bitflags: u64,
}

/// Polars already runs calls in parallel: a call uses its own thread only.
const PARALLEL: u64 = 1;

/// The interface's version: 0.1, whose field functions take the keyword arguments.
#[no_mangle]
pub extern "C" fn _polars_plugin_get_version() -> u32 {
    1
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(message: String) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = message);
}

/// The last failure's message on this thread, which Polars copies at once.
#[no_mangle]
pub extern "C" fn _polars_plugin_get_last_error_message() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Why a function's keyword arguments were refused, as `handle_id.arrow`'s function
/// refuses the same: an argument of another type (`TypeError`), a proxy base, handle
/// prefix or base that does not read (`HandleError`), or anything else (`ValueError`).
enum Refused {
    Type(String),
    Parse {
        what: &'static str,
        value: String,
        error: handle_id::ParseError,
    },
    Value(String),
    /// An integer too large for its argument, as PyO3 refuses one (`OverflowError`).
    Overflow(String),
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Self::Value(message)
    }
}

impl From<&str> for Refused {
    fn from(message: &str) -> Self {
        Self::Value(message.into())
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Type(m) | Self::Value(m) | Self::Overflow(m) => f.write_str(m),
            Self::Parse { what, value, error } => write!(f, "{what} {value:?}: {error}"),
        }
    }
}

/// The keyword arguments of the plugin's function `name` as Polars gives them (pickled),
/// checked as the plugin reads them, and raised as `handle_id.arrow`'s function raises the
/// same: `handle_id/polars.py` asks it when an expression is made, where a `ComputeError`
/// of the frame's would come later and be no `ValueError`.
#[pyfunction]
fn plugin_check(py: Python<'_>, name: &str, kwargs: &[u8]) -> PyResult<()> {
    match resolve(name, kwargs) {
        Ok(_) => Ok(()),
        Err(Refused::Type(m)) => Err(PyTypeError::new_err(m)),
        Err(Refused::Value(m)) => Err(PyValueError::new_err(m)),
        Err(Refused::Overflow(m)) => Err(PyOverflowError::new_err(m)),
        Err(Refused::Parse { value, error, .. }) => Err(parse_error(py, &error, &value)),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plugin_check, m)?)
}

/// The function `name` and its arguments, from the keyword arguments Polars hands over, and
/// the threads it may use (`threads`).
fn resolve(name: &str, kwargs: &[u8]) -> Result<(Call, Option<isize>), Refused> {
    if !matches!(
        name,
        "is_valid" | "recognize" | "canonical" | "clean" | "to_form" | "extract"
    ) {
        return Err(format!("no function {name:?} in this plugin").into());
    }
    // Every argument taken first, each by its type, and any other refused, as a Python
    // function's arguments are bound before its body reads their values.
    let mut args = Args::read(kwargs)?;
    let threads = args.int("threads")?;
    let options = if name == "is_valid" {
        None
    } else {
        Some((
            args.strings("proxy_bases")?,
            args.bool("repository_urls")?,
            args.bool("resolution_form")?,
            args.bool("cordra")?,
            if name == "extract" {
                args.strings("handle_prefixes")?
            } else {
                None
            },
        ))
    };
    let keep_case = name == "clean" && args.bool("keep_case")?;
    let (form, base) = if name == "to_form" {
        let form = args.string("form")?;
        (
            Some(form.ok_or_else(|| Refused::Type("to_form needs a form, a str".into()))?),
            args.string("base")?,
        )
    } else {
        (None, None)
    };
    args.done(name)?;
    crate::arrow::thread_count(threads).map_err(|e| Refused::Value(e.to_string()))?;
    let options = options
        .map(
            |(bases, repository_urls, resolution_form, cordra, prefixes)| {
                options::read(bases, repository_urls, resolution_form, cordra, prefixes)
                    .map_err(|(what, value, error)| Refused::Parse { what, value, error })
            },
        )
        .transpose()?
        .unwrap_or_default();
    let call = match name {
        "is_valid" => Call::IsValid,
        "recognize" => Call::Recognize(options),
        "canonical" => Call::Canonical(options),
        "clean" => Call::Clean { keep_case, options },
        "to_form" => Call::ToForm {
            options,
            form: options::form(form.as_deref().unwrap_or_default()).map_err(|e| e.to_string())?,
            base: base
                .map(|b| {
                    handle_id::ProxyBase::parse(&b).map_err(|error| Refused::Parse {
                        what: "base",
                        value: b.clone(),
                        error,
                    })
                })
                .transpose()?,
        },
        _ => Call::Extract(options),
    };
    Ok((call, threads))
}

/// Keyword arguments, each taken once by name and type; any left over is an error.
struct Args(Vec<(String, Kwarg)>);

impl Args {
    fn read(bytes: &[u8]) -> Result<Self, Refused> {
        // (What the reader does not read is of a type no argument takes: a float, a set …)
        match kwargs::read(bytes).map_err(|e| Refused::Type(e.to_string()))? {
            Kwarg::Dict(items) => Ok(Self(items)),
            _ => Err("keyword arguments that are not a dict".into()),
        }
    }

    /// The argument `name`, taken; `None` where it was not given (`Kwarg::None` where it
    /// was given as `None`).
    fn take(&mut self, name: &str) -> Option<Kwarg> {
        let i = self.0.iter().position(|(k, _)| k == name)?;
        Some(self.0.remove(i).1)
    }

    /// (As Python's own functions take them: a bool, never `None`.)
    fn bool(&mut self, name: &str) -> Result<bool, Refused> {
        match self.take(name) {
            None => Ok(false),
            Some(Kwarg::Bool(b)) => Ok(b),
            Some(v) => Err(not(name, "a bool", &v)),
        }
    }

    /// (As Python's own functions take them: an int, a bool being one, or `None`.)
    fn int(&mut self, name: &str) -> Result<Option<isize>, Refused> {
        match self.take(name) {
            None | Some(Kwarg::None) => Ok(None),
            Some(Kwarg::Int(n)) => isize::try_from(n).map(Some).map_err(|_| too_large(name)),
            Some(Kwarg::Big) => Err(too_large(name)),
            Some(Kwarg::Bool(b)) => Ok(Some(isize::from(b))),
            Some(v) => Err(not(name, "an int or None", &v)),
        }
    }

    fn string(&mut self, name: &str) -> Result<Option<String>, Refused> {
        match self.take(name) {
            None | Some(Kwarg::None) => Ok(None),
            Some(Kwarg::Str(s)) => Ok(Some(s)),
            Some(v) => Err(not(name, "a str or None", &v)),
        }
    }

    fn strings(&mut self, name: &str) -> Result<Option<Vec<String>>, Refused> {
        let must = "a list of str or None";
        match self.take(name) {
            None | Some(Kwarg::None) => Ok(None),
            Some(Kwarg::List(items)) => items
                .into_iter()
                .map(|v| match v {
                    Kwarg::Str(s) => Ok(s),
                    v => Err(not(name, must, &v)),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            // (As a list argument of the functions says it: `crate::texts`.)
            Some(Kwarg::Str(_)) => Err(Refused::Type(format!("{name}: {}", crate::texts::ONE_STR))),
            Some(v) => Err(not(name, must, &v)),
        }
    }

    fn done(self, function: &str) -> Result<(), Refused> {
        match self.0.first() {
            None => Ok(()),
            Some((k, _)) => Err(Refused::Type(format!(
                "{function}() got an unexpected keyword argument {k:?}"
            ))),
        }
    }
}

/// The integer argument `name` beyond what this machine's `isize` holds.
fn too_large(name: &str) -> Refused {
    Refused::Overflow(format!("{name}: Python int too large to convert to C long"))
}

/// The argument `name` of another type than `must`, as Python names types.
fn not(name: &str, must: &str, given: &Kwarg) -> Refused {
    let kind = match given {
        Kwarg::None => "None",
        Kwarg::Bool(_) => "a bool",
        Kwarg::Int(_) | Kwarg::Big => "an int",
        Kwarg::Str(_) => "a str",
        Kwarg::List(_) => "a list",
        Kwarg::Dict(_) => "a dict",
    };
    Refused::Type(format!("{name} must be {must}, not {kind}"))
}

/// The bytes at `ptr` (none where `len` is 0, whatever `ptr` is).
///
/// # Safety
///
/// Where `len` is not 0, `ptr` points at `len` bytes that live as long as the call.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// The input series' field and chunks, its arrays taken (released as they drop here) and
/// the rest of it released, whatever happens.
///
/// # Safety
///
/// `series` is a series Polars made for this call, not released yet.
unsafe fn take_series(series: *mut SeriesExport) -> Result<(Field, Vec<ArrayRef>), String> {
    // SAFETY: the caller's.
    let s = unsafe { &mut *series };
    let taken = (|| {
        // SAFETY: `len` pointers to arrays, each Polars's to give.
        let pointers = unsafe { std::slice::from_raw_parts(s.arrays, s.len) };
        // All moved out first (each released as it drops, whatever fails after).
        // SAFETY: each array is moved out once; its release is now this value's.
        let arrays: Vec<FFI_ArrowArray> = pointers
            .iter()
            .map(|&array| unsafe { FFI_ArrowArray::from_raw(array) })
            .collect();
        // SAFETY: the field lives until the series is released, below.
        let schema = unsafe { &*s.field };
        let field = Field::try_from(schema).map_err(|e| e.to_string())?;
        let mut chunks = Vec::with_capacity(arrays.len());
        for array in arrays {
            if field.data_type() == &DataType::Null {
                // (Polars gives a column of nulls a buffer, which arrow-rs refuses: its
                // length is all there is to it.)
                chunks.push(Arc::new(NullArray::new(array.len())) as ArrayRef);
                continue;
            }
            // SAFETY: an array of the field's type; its data is checked before it is read
            // (`Input::of`).
            let data = unsafe { from_ffi(array, schema) }.map_err(|e| e.to_string())?;
            chunks.push(arrow_array::make_array(data));
        }
        Ok((field, chunks))
    })();
    match s.release {
        // SAFETY: Polars's release of its own series, once.
        Some(release) => unsafe { release(series) },
        None => return Err("an input series with no release".into()),
    }
    taken
}

/// What an output series holds until Polars releases it: its field, and the boxes of its
/// arrays (each array itself moved out by Polars as it reads the series).
struct Held {
    field: Box<FFI_ArrowSchema>,
    arrays: Vec<*mut FFI_ArrowArray>,
}

unsafe extern "C" fn release_series(series: *mut SeriesExport) {
    // SAFETY: a series `give_series` made, released once (Polars, dropping it).
    let s = unsafe { &mut *series };
    if s.private_data.is_null() {
        return;
    }
    // SAFETY: `private_data` is the `Held` `give_series` leaked.
    let held = unsafe { Box::from_raw(s.private_data.cast::<Held>()) };
    for &array in &held.arrays {
        // SAFETY: a box `give_series` leaked; the array in it was moved out by Polars, so
        // only the box is freed.
        drop(unsafe { Box::from_raw(array.cast::<ManuallyDrop<FFI_ArrowArray>>()) });
    }
    drop(held);
    s.release = None;
    s.private_data = std::ptr::null_mut();
}

/// `chunks` as a series named `name` into `out`.
///
/// # Safety
///
/// `out` points at a series Polars reads once this call returns.
unsafe fn give_series(
    name: &str,
    chunks: &[ArrayRef],
    out: *mut SeriesExport,
) -> Result<(), String> {
    let Some(first) = chunks.first() else {
        return Err("no chunks".into());
    };
    let field = Field::new(name, first.data_type().clone(), true);
    let field = Box::new(FFI_ArrowSchema::try_from(&field).map_err(|e| e.to_string())?);
    let mut arrays = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let (array, _) = to_ffi(&chunk.to_data()).map_err(|e| e.to_string())?;
        arrays.push(Box::into_raw(Box::new(array)));
    }
    let mut held = Box::new(Held { field, arrays });
    let series = SeriesExport {
        field: &mut *held.field,
        arrays: held.arrays.as_mut_ptr(),
        len: held.arrays.len(),
        release: Some(release_series),
        private_data: std::ptr::null_mut(),
    };
    // SAFETY: the caller's; the box lives until `release_series`.
    unsafe {
        out.write(SeriesExport {
            private_data: Box::into_raw(held).cast(),
            ..series
        })
    };
    Ok(())
}

/// `_polars_plugin_<name>`: the function `name` over the one input's chunks.
///
/// # Safety
///
/// Polars's call: `n` series at `inputs`, `kwargs_len` bytes at `kwargs`, `out` to fill.
unsafe fn call(
    name: &str,
    inputs: *mut SeriesExport,
    n: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    out: *mut SeriesExport,
    context: *const CallerContext,
) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut series = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: Polars's `n` series, each taken once (all of them, whatever fails).
            series.push(unsafe { take_series(inputs.add(i)) });
        }
        let (field, chunks) = match <[_; 1]>::try_from(series) {
            Ok([one]) => one?,
            Err(_) => return Err(format!("{name} takes one column, not {n}")),
        };
        // SAFETY: Polars's.
        let (call, threads) =
            resolve(name, unsafe { bytes(kwargs, kwargs_len) }).map_err(|r| r.to_string())?;
        // SAFETY: Polars's, where given.
        let parallel = !context.is_null() && unsafe { (*context).bitflags } & PARALLEL != 0;
        let threads = if parallel { Some(1) } else { threads };
        let columns = chunks
            .iter()
            .map(|chunk| column_of(&call, chunk.as_ref(), threads))
            .collect::<Result<Vec<_>, String>>()?;
        let columns = if columns.is_empty() {
            vec![empty_column(&call, &field)?]
        } else {
            columns
        };
        // SAFETY: Polars's.
        unsafe { give_series(field.name(), &columns, out) }
    }));
    told(result);
}

/// A call's outcome told Polars: nothing more where it succeeded, else its message (or
/// Polars's word for a panic) kept for `_polars_plugin_get_last_error_message`.
fn told(result: std::thread::Result<Result<(), String>>) {
    match result {
        Ok(Ok(())) => {}
        Ok(Err(message)) => fail(message),
        Err(_) => fail("PANIC".into()),
    }
}

/// The expression's column over `array` (checked first, as any input is), its strings as
/// views.
fn column_of(call: &Call, array: &dyn Array, threads: Option<isize>) -> Result<ArrayRef, String> {
    let input = Input::of(array.to_data()).map_err(|e| e.to_string())?;
    let column = call.run(&input, true, threads).map_err(|e| e.to_string())?;
    Ok(shaped(call, column))
}

/// The function's column over no rows of `field`'s type: what its output's type is.
fn empty_column(call: &Call, field: &Field) -> Result<ArrayRef, String> {
    column_of(call, new_empty_array(field.data_type()).as_ref(), Some(1))
}

/// The column an expression gives: `to_form`'s is its `output` (as the namespace's method
/// gives it by `map_batches`), the others' the function's whole.
fn shaped(call: &Call, column: ArrayRef) -> ArrayRef {
    match call {
        Call::ToForm { .. } => column
            .as_struct()
            .column_by_name("output")
            .expect("to_form's columns have an output")
            .clone(),
        _ => column,
    }
}

/// `_polars_plugin_field_<name>`: the output's field for the one input's.
///
/// # Safety
///
/// Polars's call: `n` fields at `fields` (Polars's), `out` to fill.
unsafe fn field(
    name: &str,
    fields: *const FFI_ArrowSchema,
    n: usize,
    out: *mut FFI_ArrowSchema,
    kwargs: *const u8,
    kwargs_len: usize,
) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        if n != 1 {
            return Err(format!("{name} takes one column, not {n}"));
        }
        // SAFETY: Polars's one field.
        let input = Field::try_from(unsafe { &*fields }).map_err(|e| e.to_string())?;
        // SAFETY: Polars's.
        let (call, _) =
            resolve(name, unsafe { bytes(kwargs, kwargs_len) }).map_err(|r| r.to_string())?;
        let column = empty_column(&call, &input)?;
        let output = Field::new(input.name(), column.data_type().clone(), true);
        let schema = FFI_ArrowSchema::try_from(&output).map_err(|e| e.to_string())?;
        // SAFETY: Polars's, which releases it.
        unsafe { out.write(schema) };
        Ok(())
    }));
    told(result);
}

/// The two functions Polars looks for of each of the plugin's functions.
macro_rules! exported {
    ($($name:literal: $call:ident, $field:ident;)*) => {$(
        /// See the module's documentation.
        ///
        /// # Safety
        ///
        /// Polars's call, as its plugin interface 0.1 makes it.
        #[no_mangle]
        pub unsafe extern "C" fn $call(
            inputs: *mut SeriesExport,
            n: usize,
            kwargs: *const u8,
            kwargs_len: usize,
            out: *mut SeriesExport,
            context: *const CallerContext,
        ) {
            // SAFETY: the caller's.
            unsafe { call($name, inputs, n, kwargs, kwargs_len, out, context) }
        }

        /// See the module's documentation.
        ///
        /// # Safety
        ///
        /// Polars's call, as its plugin interface 0.1 makes it.
        #[no_mangle]
        pub unsafe extern "C" fn $field(
            fields: *const FFI_ArrowSchema,
            n: usize,
            out: *mut FFI_ArrowSchema,
            kwargs: *const u8,
            kwargs_len: usize,
        ) {
            // SAFETY: the caller's.
            unsafe { field($name, fields, n, out, kwargs, kwargs_len) }
        }
    )*};
}

exported! {
    "is_valid": _polars_plugin_is_valid, _polars_plugin_field_is_valid;
    "recognize": _polars_plugin_recognize, _polars_plugin_field_recognize;
    "canonical": _polars_plugin_canonical, _polars_plugin_field_canonical;
    "clean": _polars_plugin_clean, _polars_plugin_field_clean;
    "to_form": _polars_plugin_to_form, _polars_plugin_field_to_form;
    "extract": _polars_plugin_extract, _polars_plugin_field_extract;
}
