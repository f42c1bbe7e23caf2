//! The scalar API: `validate`, `parse`, `recognize`, `detect`, `clean`, `extract`, `lint`,
//! and the types they return.

use std::sync::{LazyLock, OnceLock};

use handle_id::{Form, HandleRef, Options};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::Borrowed;
use smallvec::SmallVec;

use crate::attached::Attached;
use crate::errors::{parse_error, set_parse_error};
use crate::fastcall::{self, One, Quick};
use crate::made::{self, Made, Value};
use crate::offsets::CharIndex;
use crate::options::{self, options};
use crate::text::Text;

/// A handle (SPEC H1): a naming authority (prefix), `/`, and a local name. Compared by
/// its exact text; `eq_ignore_ascii_case` compares as DOIs are compared.
// (`subclass`: the objects are of a subtype, `made::Made`.)
#[pyclass(
    frozen,
    subclass,
    skip_from_py_object,
    module = "handle_id",
    name = "Handle"
)]
pub struct PyHandle(pub handle_id::Handle);

// It holds no Python reference.
impl Value for PyHandle {
    const STR: Option<fn(&Self) -> &str> = Some(|h| h.0.as_str());

    unsafe fn release(self) {}
}

/// The class of the objects of `Handle`, made at import.
static HANDLE: OnceLock<Made<PyHandle>> = OnceLock::new();

/// An object of `handle`, of the class `HANDLE` says.
pub fn handle_object(py: Python<'_>, handle: handle_id::Handle) -> PyResult<Bound<'_, PyHandle>> {
    match HANDLE.get() {
        Some(made) => made.make(py, PyHandle(handle)),
        None => Bound::new(py, PyHandle(handle)),
    }
}

impl PyHandle {
    fn r(&self) -> HandleRef<'_> {
        self.0.as_handle_ref()
    }
}

#[pymethods]
impl PyHandle {
    /// Reads a bare handle (SPEC D5): the same as `handle_id.parse`.
    #[new]
    fn new(py: Python<'_>, text: Text) -> PyResult<Self> {
        read(py, &text).map(Self)
    }

    /// The handle's text.
    #[getter]
    fn text(&self) -> &str {
        self.0.as_str()
    }

    /// Pickled (and copied) as its text, read again by `Handle(text)`: so that a handle
    /// crosses to another process (`multiprocessing`, a Spark or Dask task).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, pyo3::types::PyType>, (Bound<'py, PyString>,)) {
        let text = PyString::new(slf.py(), slf.get().0.as_str());
        (slf.get_type(), (text,))
    }

    /// The naming authority, before the first `/`.
    #[getter]
    fn prefix(&self) -> &str {
        self.0.prefix()
    }

    /// The local name, after the first `/`.
    #[getter]
    fn local_name(&self) -> &str {
        self.0.local_name()
    }

    /// The naming authority's segments, split at `.`.
    #[getter]
    fn segments(&self) -> Vec<&str> {
        self.0.prefix_segments().collect()
    }

    /// The naming authority this one is derived from (`10.978` for `10.978.8896471`), or
    /// None.
    #[getter]
    fn parent_prefix(&self) -> Option<&str> {
        self.0.parent_prefix()
    }

    /// Every naming authority this one is derived from, nearest first.
    #[getter]
    fn prefix_ancestors(&self) -> Vec<&str> {
        self.0.prefix_ancestors().collect()
    }

    /// Whether the handle is a DOI (its naming authority is `10` or under it).
    #[getter]
    fn is_doi(&self) -> bool {
        self.0.is_doi()
    }

    /// Whether the handle is a prefix handle (`0.NA/…`).
    #[getter]
    fn is_prefix_handle(&self) -> bool {
        self.0.is_prefix_handle()
    }

    /// Whether the handle is already in its canonical form.
    #[getter]
    fn is_canonical(&self) -> bool {
        self.r().is_canonical()
    }

    /// The prefix handle of the naming authority (`0.NA/10.1045`).
    fn prefix_handle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, Self>> {
        handle_object(py, self.0.prefix_handle())
    }

    /// The canonical form (SPEC C1): a DOI in ASCII lowercase; other handles as they are.
    fn canonical<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, Self>> {
        handle_object(py, self.0.canonical())
    }

    /// Whether the handle is under naming authority `prefix` (or is in it).
    fn is_derived_from(&self, prefix: &str) -> bool {
        self.0.is_derived_from(prefix)
    }

    /// Whether `other` (a `Handle`, or its text as a `str`, as `==` takes) is the same
    /// handle ignoring ASCII case.
    fn eq_ignore_ascii_case(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        match handle_text(other) {
            Some(text) => Ok(self.0.as_str().eq_ignore_ascii_case(&text)),
            // (A `str` with no UTF-8, a lone surrogate, is no handle's text: not equal, as
            // for `==`.)
            None if other.is_instance_of::<PyString>() => Ok(false),
            None => Err(PyTypeError::new_err(format!(
                "eq_ignore_ascii_case: a Handle or str, not {}",
                other
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            ))),
        }
    }

    /// The handle written in `form` (a name of `handle_id.FORMS`: `hdl`, `doi`, `proxy`,
    /// `info-hdl` …), with `base` as the resolver of the URL forms (the default for the
    /// handle when None; the repository's own for `repository`). Raises `HandleError` (kind
    /// `unwritable`) when no text in that form reads back as this handle: a `urn:` form of a
    /// naming authority with `:`, a repository URL without its base.
    #[pyo3(signature = (form, base = None))]
    fn to_form(&self, py: Python<'_>, form: &str, base: Option<&str>) -> PyResult<String> {
        let form = options::form(form)?;
        let base = options::base(py, base)?;
        self.r()
            .to_form(form, base.as_ref())
            .map_err(|e| parse_error(py, &e, self.0.as_str()))
    }

    /// The warnings for the handle as a bare handle (SPEC D5, H9, H10 …).
    fn lint(&self) -> Vec<LintWarning> {
        let text = self.0.as_str();
        warnings(text, &self.0.lint())
    }

    fn __str__(&self) -> &str {
        self.0.as_str()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Handle({})", py_repr(py, self.0.as_str()))
    }

    /// The hash of its text as a `str`: a handle equals its text (`__eq__`), so the two
    /// must hash alike for a set or dict that holds both.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyString::new(py, self.0.as_str()).hash()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Some(other) = handle_text(other) else {
            return Ok(py.NotImplemented());
        };
        Ok(op
            .matches(self.0.as_str().cmp(&other))
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }
}

/// A fix `clean` applied: its stable code, where (a Python string offset into the input,
/// and the same in bytes), whether it was made in the handle a URL or URI holds, the
/// library's message and the rule that allows it.
#[pyclass(frozen, eq, hash, skip_from_py_object, module = "handle_id", get_all)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Fix {
    /// The stable code (`label`, `trailing-punctuation` …).
    code: &'static str,
    /// Where in the input, as a Python string offset.
    index: usize,
    /// Where in the input, in UTF-8 bytes (as the message says).
    byte_index: usize,
    /// Made in the handle a URL or URI holds, cleaned again as a string of its own.
    held: bool,
    /// The library's message.
    message: String,
    /// The SPEC rule.
    rule: &'static str,
}

#[pymethods]
impl Fix {
    /// A fix of `code` (one of `handle_id.FIX_CODES`), its rule the code's: what pickling
    /// one makes it again with.
    #[new]
    fn new(
        code: &str,
        index: usize,
        byte_index: usize,
        held: bool,
        message: String,
    ) -> PyResult<Self> {
        let code: handle_id::FixCode = code.parse().map_err(|()| {
            options::unknown("fix code", code, handle_id::FixCode::ALL.map(|c| c.code()))
        })?;
        Ok(Fix::of(code, index, byte_index, held, message))
    }

    /// Pickled (and copied) as `Fix(code, index, byte_index, held, message)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (&'static str, usize, usize, bool, String),
    ) {
        let f = slf.get();
        let args = (f.code, f.index, f.byte_index, f.held, f.message.clone());
        (slf.get_type(), args)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let held = if self.held { ", held=True" } else { "" };
        format!(
            "Fix(code={}, index={}{held})",
            py_repr(py, self.code),
            self.index
        )
    }
}

/// A warning for a valid handle that is rarely meant as written: its stable code, where
/// (a Python string offset into the text linted, and the same in bytes), the library's
/// message and the rule.
#[pyclass(frozen, eq, hash, skip_from_py_object, module = "handle_id", get_all)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct LintWarning {
    /// The stable code (`trailing-slash`, `bidi-control` …).
    code: &'static str,
    /// Where, as a Python string offset.
    index: usize,
    /// Where, in UTF-8 bytes (as the message says).
    byte_index: usize,
    /// The library's message.
    message: String,
    /// The SPEC rule.
    rule: &'static str,
}

#[pymethods]
impl LintWarning {
    /// A warning of `code` (`trailing-slash`, `bidi-control` …), its rule the code's: what
    /// pickling one makes it again with.
    #[new]
    fn new(code: &str, index: usize, byte_index: usize, message: String) -> PyResult<Self> {
        let code: handle_id::LintCode = code.parse().map_err(|_| {
            options::unknown(
                "warning code",
                code,
                handle_id::LintCode::ALL.map(|c| c.code()),
            )
        })?;
        Ok(LintWarning::of(code, index, byte_index, message))
    }

    /// Pickled (and copied) as `LintWarning(code, index, byte_index, message)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (&'static str, usize, usize, String),
    ) {
        let w = slf.get();
        (
            slf.get_type(),
            (w.code, w.index, w.byte_index, w.message.clone()),
        )
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "LintWarning(code={}, index={})",
            py_repr(py, self.code),
            self.index
        )
    }
}

impl Fix {
    /// A fix of `code`, its code's name and rule.
    fn of(
        code: handle_id::FixCode,
        index: usize,
        byte_index: usize,
        held: bool,
        message: String,
    ) -> Self {
        Fix {
            code: code.code(),
            index,
            byte_index,
            held,
            message,
            rule: code.rule(),
        }
    }
}

impl LintWarning {
    /// A warning of `code`, its code's name and rule.
    fn of(code: handle_id::LintCode, index: usize, byte_index: usize, message: String) -> Self {
        LintWarning {
            code: code.code(),
            index,
            byte_index,
            message,
            rule: code.rule(),
        }
    }
}

fn warnings(text: &str, ws: &[handle_id::Warning]) -> Vec<LintWarning> {
    let mut at = CharIndex::new(text);
    ws.iter()
        .map(|w| LintWarning::of(w.code(), at.at(w.index()), w.index(), w.to_string()))
        .collect()
}

/// `PartialEq`, `Eq` and `Hash` of a result compared by value (its pyclass `eq`, `hash`):
/// those of what its `key` method gives.
macro_rules! by_key {
    ($type:ty) => {
        impl PartialEq for $type {
            fn eq(&self, other: &Self) -> bool {
                self.key() == other.key()
            }
        }

        impl Eq for $type {}

        impl std::hash::Hash for $type {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                self.key().hash(h);
            }
        }
    };
}

/// An identifier read by `recognize`: the form it is written in, the handle, and the parts
/// of the written form.
#[pyclass(frozen, eq, hash, module = "handle_id", name = "Uri")]
pub struct PyUri {
    /// The text, held (the parts below are its slices, as byte ranges).
    text: Text,
    options: Options,
    form: Form,
    handle: UriHandle,
    base: Option<std::ops::Range<usize>>,
    handle_span: (usize, usize),
    query: Option<std::ops::Range<usize>>,
    fragment: Option<std::ops::Range<usize>>,
    /// The canonical text of the form, made when first asked for.
    canonical: std::sync::OnceLock<String>,
}

/// Where a recognized handle is: in the text as it is written there, or decoded, a copy.
enum UriHandle {
    Text(std::ops::Range<usize>),
    Decoded(handle_id::Handle),
}

// Equal to another reading of the same text as the same form and handle (whatever options
// read it), so that two readings compare as their results do.
by_key!(PyUri);

impl PyUri {
    /// What a reading is compared and hashed by.
    fn key(&self) -> (&str, Form, &str) {
        (&self.text, self.form, self.handle_text())
    }

    fn read(&self) -> handle_id::HdlUri<'_> {
        handle_id::recognize(&self.text, &self.options).expect("read before")
    }

    /// The handle's text.
    fn handle_text(&self) -> &str {
        match &self.handle {
            UriHandle::Text(span) => &self.text[span.clone()],
            UriHandle::Decoded(h) => h.as_str(),
        }
    }

    /// The part of the text at `span`.
    fn part(&self, span: &Option<std::ops::Range<usize>>) -> Option<&str> {
        span.clone().map(|span| &self.text[span])
    }
}

#[pymethods]
impl PyUri {
    /// The text as given.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// The form's name (`handle`, `hdl`, `proxy` …, one of `handle_id.FORMS`).
    #[getter]
    fn form(&self) -> &'static str {
        self.form.name()
    }

    /// The handle, decoded.
    #[getter]
    fn handle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyHandle>> {
        let handle = match &self.handle {
            UriHandle::Text(span) => {
                handle_id::Handle::parse(&self.text[span.clone()]).expect("read before")
            }
            UriHandle::Decoded(h) => h.clone(),
        };
        handle_object(py, handle)
    }

    /// The resolution form's server, or a URL's base, or None.
    #[getter]
    fn base(&self) -> Option<&str> {
        self.part(&self.base)
    }

    /// Where the handle is written in the text: (start, end) Python string offsets.
    #[getter]
    fn handle_span(&self) -> (usize, usize) {
        self.handle_span
    }

    /// The query, as written (without `?`), or None.
    #[getter]
    fn query(&self) -> Option<&str> {
        self.part(&self.query)
    }

    /// The fragment, as written (without `#`), or None.
    #[getter]
    fn fragment(&self) -> Option<&str> {
        self.part(&self.fragment)
    }

    /// The warnings for the identifier as written.
    fn lint(&self) -> Vec<LintWarning> {
        warnings(&self.text, &self.read().lint())
    }

    /// Pickled (and copied) as the call that read it, `recognize(text, **options)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let this = slf.get();
        options::remade(&function(slf.py(), "recognize")?, &this.text, &this.options)
    }

    /// The canonical text of the form: the handle encoded as the form's rules say.
    fn __str__(&self) -> &str {
        self.canonical.get_or_init(|| self.read().to_string())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Uri(form={}, handle={})",
            py_repr(py, self.form.name()),
            py_repr(py, self.handle_text())
        )
    }
}

/// `s` as Python writes a `str` in a repr (`'10.1/x'`, `'\x00\u200b'`), so that a result's
/// repr reads as Python.
pub(crate) fn py_repr(py: Python<'_>, s: &str) -> String {
    PyString::new(py, s)
        .repr()
        .and_then(|r| r.to_cow().map(std::borrow::Cow::into_owned))
        .unwrap_or_else(|_| format!("{s:?}"))
}

/// The module's function `name`, which an object pickles as a call of.
fn function<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("handle_id._handle_id")?.getattr(name)
}

/// The text of a handle given as a `Handle` or a `str` (`None` for anything else): what a
/// `Handle` compares with, and what `resolve` takes.
pub fn handle_text(obj: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(h) = obj.cast::<PyHandle>() {
        return Some(h.get().0.as_str().to_owned());
    }
    obj.extract::<Text>().ok().map(|s| String::from(&*s))
}

/// The options at their defaults, as the quick calls (`fastcall`) read them. (A static, not
/// one made and dropped in each call: its drop is not inlined, and cost a tenth of the glue
/// around `clean_into`. `recognize`'s result keeps its own.)
static DEFAULTS: LazyLock<Options> = LazyLock::new(Options::new);

/// What `clean` found: the handle in its canonical form, the handle as written, the form
/// it was written in, the fixes and the warnings.
///
/// The call cleans without the lint (`handle_id::clean_into`); what a value that is read
/// less often needs is asked of the library when it is read: the warnings (of
/// `handle_id::clean`, the same reading with the lint), the handle as written (of
/// `clean_into` keeping the case) and the fixes' Python string offsets. The input and the
/// options are kept for that.
// (`subclass`: the objects `clean` returns are of a subtype, `made::Made`.)
#[pyclass(frozen, subclass, eq, hash, module = "handle_id", name = "Cleaned")]
pub struct PyCleaned {
    /// The input, as given (the Python string itself, not a copy; a `str` of its text for
    /// an instance of a subclass, `Text`).
    text: Text,
    /// The options, None for the defaults: what most calls give, and then the object has
    /// no `Options` to fill, copy and drop.
    options: Option<Box<Options>>,
    /// The handle's canonical text: where it is in the input as it is there (most values),
    /// or a copy (case-folded or decoded). The copy and the fixes are kept in the object
    /// itself where they fit (a handle of 64 bytes or fewer, four fixes or fewer), so that
    /// a value cleaned costs no allocation of its own (`cleaned`). (The handle is made of it
    /// when asked for, each time: a `Handle` given to Python is its own copy in any case,
    /// and the object is the smaller for not keeping one.)
    canonical: Canonical,
    form: Form,
    fixes: SmallVec<[handle_id::Fix; 4]>,
}

/// Where a cleaned value's canonical text is.
enum Canonical {
    /// In the input, as it is there.
    Input(std::ops::Range<usize>),
    /// Copied.
    Copy(SmallVec<[u8; 64]>),
}

// Equal to another cleaning of the same text to the same handle, form and fixes (whatever
// options read it), as `Uri` is.
by_key!(PyCleaned);

// Its one Python reference is the text's.
impl Value for PyCleaned {
    const STR: Option<fn(&Self) -> &str> = Some(Self::canonical);

    /// The input itself where its whole text is the canonical handle (a clean one).
    #[cfg(not(windows))]
    fn same_str(&self) -> Option<*mut pyo3::ffi::PyObject> {
        let whole =
            matches!(&self.canonical, Canonical::Input(span) if *span == (0..self.text.len()));
        whole.then(|| self.text.as_ptr())
    }

    #[cfg(not(windows))]
    unsafe fn release(self) {
        // SAFETY: attached, as this function's caller.
        unsafe { self.text.release() }
    }

    /// (Never called: on Windows PyO3 makes and frees the objects, see `Made::new`.)
    #[cfg(windows)]
    unsafe fn release(self) {}
}

/// The class of the objects `clean` returns, made at import.
static CLEANED: OnceLock<Made<PyCleaned>> = OnceLock::new();

impl PyCleaned {
    fn canonical(&self) -> &str {
        match &self.canonical {
            Canonical::Input(span) => &self.text[span.clone()],
            Canonical::Copy(bytes) => std::str::from_utf8(bytes).expect("copied from a str"),
        }
    }

    fn read_handle(&self) -> handle_id::Handle {
        handle_id::Handle::parse(self.canonical()).expect("a cleaned handle is a handle")
    }

    fn options(&self) -> &Options {
        self.options.as_deref().unwrap_or(&DEFAULTS)
    }

    /// What a cleaning is compared and hashed by.
    fn key(&self) -> (&str, &str, Form, &[handle_id::Fix]) {
        (&self.text, self.canonical(), self.form, &self.fixes)
    }

    /// The library's `Cleaned`, the warnings with it.
    fn cleaned(&self) -> handle_id::Cleaned {
        handle_id::clean(&self.text, self.options()).expect("cleaned before")
    }
}

#[pymethods]
impl PyCleaned {
    /// The handle in its canonical form (SPEC C1).
    #[getter]
    fn handle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyHandle>> {
        handle_object(py, self.read_handle())
    }

    /// The handle with its case as written.
    #[getter]
    fn as_written<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyHandle>> {
        let folded = self
            .fixes
            .iter()
            .any(|f| f.code() == handle_id::FixCode::CaseFolded);
        if !folded {
            return handle_object(py, self.read_handle());
        }
        let (mut buffer, mut fixes) = (String::new(), Vec::new());
        let (_, at) =
            handle_id::clean_in_place(&self.text, self.options(), true, &mut buffer, &mut fixes)
                .expect("cleaned before");
        let written = at.handle_in(&self.text, &buffer);
        handle_object(
            py,
            handle_id::Handle::parse(written).expect("a cleaned handle is a handle"),
        )
    }

    /// The form the identifier was written in.
    #[getter]
    fn form(&self) -> &'static str {
        self.form.name()
    }

    /// The fixes, in the order they were applied; empty for a clean identifier.
    #[getter]
    fn fixes(&self) -> Vec<Fix> {
        let mut at = CharIndex::new(&self.text);
        self.fixes
            .iter()
            .map(|f| {
                Fix::of(
                    f.code(),
                    at.at(f.index()),
                    f.index(),
                    f.held(),
                    f.to_string(),
                )
            })
            .collect()
    }

    /// The warnings for the handle as written, at their offsets in the input.
    #[getter]
    fn warnings(&self) -> Vec<LintWarning> {
        warnings(&self.text, self.cleaned().lint())
    }

    fn __str__(&self) -> &str {
        self.canonical()
    }

    /// Pickled (and copied) as the call that made it, `clean(text, **options)`: so that
    /// `multiprocessing`'s `Pool.map(clean, lines)` gives its results back.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let this = slf.get();
        options::remade(&function(slf.py(), "clean")?, &this.text, this.options())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let codes: Vec<String> = self
            .fixes
            .iter()
            .map(|f| py_repr(py, f.code().code()))
            .collect();
        format!(
            "Cleaned(handle={}, form={}, fixes=[{}])",
            py_repr(py, self.canonical()),
            py_repr(py, self.form.name()),
            codes.join(", ")
        )
    }
}

/// An identifier `extract` found: where (Python string offsets into the text), the text,
/// the form and the handle.
#[pyclass(frozen, eq, hash, module = "handle_id", get_all)]
pub struct Found {
    /// Where it starts, as a Python string offset.
    start: usize,
    /// Where it ends (exclusive).
    end: usize,
    /// The identifier as written: `text[start:end]`.
    text: String,
    /// The form's name.
    form: &'static str,
    /// The handle.
    handle: Py<PyHandle>,
}

#[pymethods]
impl Found {
    /// An identifier found at `start`..`end`, written `text`, in `form` (one of
    /// `handle_id.FORMS`), of `handle` (a `Handle` or its text): what pickling one makes it
    /// again with.
    #[new]
    fn new(
        py: Python<'_>,
        start: usize,
        end: usize,
        text: String,
        form: &str,
        handle: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let form = options::form(form)?.name();
        // (`text[start:end]` is the text found: its length in characters is the span's.)
        if start > end || end - start != text.chars().count() {
            return Err(PyValueError::new_err(format!(
                "Found({start}, {end}, …): a span of {} characters holds no text of {}",
                end.saturating_sub(start),
                text.chars().count()
            )));
        }
        let handle = match handle.cast::<PyHandle>() {
            Ok(h) => h.clone().unbind(),
            Err(_) => handle_object(py, read(py, &handle.extract::<Text>()?)?)?.unbind(),
        };
        Ok(Found {
            start,
            end,
            text,
            form,
            handle,
        })
    }

    /// Pickled (and copied) as `Found(start, end, text, form, handle)`.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (usize, usize, String, &'static str, Py<PyHandle>),
    ) {
        let f = slf.get();
        let handle = f.handle.clone_ref(slf.py());
        (
            slf.get_type(),
            (f.start, f.end, f.text.clone(), f.form, handle),
        )
    }

    /// `(start, end)`.
    #[getter]
    fn span(&self) -> (usize, usize) {
        (self.start, self.end)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Found(start={}, end={}, form={}, handle={})",
            self.start,
            self.end,
            py_repr(py, self.form),
            py_repr(py, self.handle.get().0.as_str())
        )
    }
}

// Equal to another found at the same place, of the same text, form and handle: so that two
// extractions compare as their results do.
by_key!(Found);

impl Found {
    /// What a found identifier is compared and hashed by.
    fn key(&self) -> (usize, usize, &str, &str, &str) {
        (
            self.start,
            self.end,
            &self.text,
            self.form,
            self.handle.get().0.as_str(),
        )
    }
}

/// Checks that `text` is a bare handle (SPEC H1–H5, D5); raises `HandleError` saying where
/// and why when it is not.
#[pyfunction]
fn validate(py: Python<'_>, text: Text) -> PyResult<()> {
    handle_id::validate(&text).map_err(|e| parse_error(py, &e, &text))
}

/// Whether `text` is a bare handle (SPEC H1–H5, D5).
#[pyfunction]
fn is_valid(text: &Bound<'_, PyString>) -> PyResult<bool> {
    match crate::text::of(text.as_borrowed()) {
        Ok(text) => Ok(handle_id::validate(&text).is_ok()),
        Err(e) => no_handle(text.py(), e),
    }
}

/// A `str` that has no UTF-8 (a lone surrogate) is no handle (H5): `false` for its error,
/// any other raised.
fn no_handle(py: Python<'_>, e: PyErr) -> PyResult<bool> {
    if crate::errors::is_handle_error(py, &e) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Reads a bare handle (SPEC D5): nothing is trimmed, decoded or case-folded
/// (`hdl:1234/567` is a handle whose naming authority is `hdl:1234`; `recognize` reads
/// written forms).
#[pyfunction]
fn parse(py: Python<'_>, text: Text) -> PyResult<Py<PyHandle>> {
    Ok(handle_object(py, read(py, &text)?)?.unbind())
}

/// `parse`'s reading.
fn read(py: Python<'_>, text: &str) -> PyResult<handle_id::Handle> {
    handle_id::Handle::parse(text).map_err(|e| parse_error(py, &e, text))
}

/// Reads `text` in any written form (SPEC D5: bare handle, `hdl:`, `doi:`, `info:`, `urn:`,
/// proxy and REST API URLs …), saying which. A URL of a site that is no resolver is
/// refused unless its base is in `proxy_bases`.
#[pyfunction]
#[pyo3(signature = (text, *, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false))]
fn recognize(
    py: Python<'_>,
    text: Text,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
) -> PyResult<PyUri> {
    let options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    recognize_with(py, text, options)
}

fn recognize_with(py: Python<'_>, text: Text, options: Options) -> PyResult<PyUri> {
    let uri = handle_id::recognize(&text, &options).map_err(|e| parse_error(py, &e, &text))?;
    let mut at = CharIndex::new(&text);
    let span = uri.handle_span();
    let handle_span = (at.at(span.start), at.at(span.end));
    // (The parts are slices of the text: kept as where they are. The handle is one too
    // unless it was decoded.)
    let within = |part: &str| span_of(&text, part);
    let handle = match within(uri.handle().as_str()) {
        Some(span) => UriHandle::Text(span),
        None => UriHandle::Decoded(uri.handle().to_handle()),
    };
    let (form, base, query, fragment) = (
        uri.form(),
        uri.base().and_then(within),
        uri.query().and_then(within),
        uri.fragment().and_then(within),
    );
    drop(uri);
    Ok(PyUri {
        text,
        form,
        handle,
        base,
        handle_span,
        query,
        fragment,
        canonical: std::sync::OnceLock::new(),
        options,
    })
}

/// Where `part` is in `text`, when it is a slice of it (the addresses compared).
fn span_of(text: &str, part: &str) -> Option<std::ops::Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= text.len()).then_some(start..end)
}

/// The form `text` is written in, judged by its prefix alone: what `recognize` will read
/// it as, whether or not the rest is right; None for a URI or URL of a form that holds no
/// handle.
#[pyfunction]
#[pyo3(signature = (text, *, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false))]
fn detect(
    py: Python<'_>,
    text: Text,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
) -> PyResult<Option<&'static str>> {
    let options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    detect_with(py, text, &options)
}

fn detect_with(_: Python<'_>, text: Text, options: &Options) -> PyResult<Option<&'static str>> {
    Ok(handle_id::detect(&text, options).map(Form::name))
}

/// The handle a messy string most likely holds (SPEC C1–C2: white space, brackets,
/// labels, resolver URLs, percent-encoding, trailing punctuation, a DOI's case), with the
/// fixes. What it cannot clean raises `HandleError`, never a guess.
#[pyfunction]
#[pyo3(signature = (text, *, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false))]
fn clean(
    py: Python<'_>,
    text: Text,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
) -> PyResult<Py<PyCleaned>> {
    let options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    let options = (options != *DEFAULTS).then(|| Box::new(options));
    cleaned(py, text, options)
}

/// `text` cleaned with `options`, None for the defaults.
///
/// The object is made here, of the value as it is written, not returned to be made by the
/// caller: one copy of the value (into the object) and not two.
fn cleaned(py: Python<'_>, text: Text, options: Option<Box<Options>>) -> PyResult<Py<PyCleaned>> {
    cleaned_or(py, text, options).unwrap_or_else(|(e, text)| Err(parse_error(py, &e, &text)))
}

/// [`cleaned`], the library's error given back with the text rather than made into the
/// exception (the quick call raises it its own way: `clean_quick`).
#[inline(always)]
fn cleaned_or(
    py: Python<'_>,
    text: Text,
    options: Option<Box<Options>>,
) -> Result<PyResult<Py<PyCleaned>>, (handle_id::ParseError, Text)> {
    /// The most bytes `WRITTEN`'s handle keeps once a value is cleaned.
    const KEPT: usize = 1 << 10;
    /// What `clean_in_place` writes, kept between calls.
    static WRITTEN: Attached<(String, Vec<handle_id::Fix>)> =
        Attached::new((String::new(), Vec::new()));
    let made = CLEANED.get();
    // Without the lint: the warnings are read from the library when asked for. The object
    // is made inside, where the handle and the fixes are lent, and the value written there
    // (`Made::place`); its exception outside, where Python's objects may be made.
    let clean = move |(buffer, fixes): &mut (String, Vec<handle_id::Fix>)| {
        let read = handle_id::clean_in_place(
            &text,
            options.as_deref().unwrap_or(&DEFAULTS),
            false,
            buffer,
            fixes,
        );
        let (form, at) = match read {
            Ok(read) => read,
            Err(e) => return Err((e, text)),
        };
        let value = || PyCleaned {
            canonical: match at {
                handle_id::Written::Text(span) => Canonical::Input(span),
                handle_id::Written::Buffer => {
                    Canonical::Copy(SmallVec::from_slice(buffer.as_bytes()))
                }
            },
            fixes: SmallVec::from_slice(fixes),
            form,
            options,
            text,
        };
        let placed = match made {
            Some(made) => made.place(value),
            None => Err(value()),
        };
        if buffer.capacity() > KEPT {
            *buffer = String::new();
        }
        Ok(placed)
    };
    // SAFETY: `clean` runs no Python code.
    unsafe { WRITTEN.with(py, clean) }.map(|placed| made::object(py, placed).map(Bound::unbind))
}

/// The DOIs and handles in running text (SPEC C3), in order, with their spans as Python
/// string offsets (`text[f.start:f.end] == f.text`). Bare handles that are not DOIs are
/// found only under `handle_prefixes`.
#[pyfunction]
#[pyo3(signature = (text, *, handle_prefixes = None, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false))]
fn extract(
    py: Python<'_>,
    text: Text,
    handle_prefixes: Option<crate::texts::Texts>,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
) -> PyResult<Vec<Found>> {
    let options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        handle_prefixes,
    )?;
    extract_with(py, text, &options)
}

fn extract_with(py: Python<'_>, text: Text, options: &Options) -> PyResult<Vec<Found>> {
    let mut at = CharIndex::new(&text);
    handle_id::extract(&text, options)
        .map(|f| {
            let span = f.span();
            Ok(Found {
                start: at.at(span.start),
                end: at.at(span.end),
                text: f.text().to_owned(),
                form: f.form().name(),
                handle: handle_object(py, f.handle().to_handle())?.unbind(),
            })
        })
        .collect()
}

/// The warnings for `text` read in any written form (as `recognize` reads it): valid, but
/// rarely meant as written. Raises `HandleError` when `text` holds no handle.
#[pyfunction]
#[pyo3(signature = (text, *, proxy_bases = None, repository_urls = false, resolution_form = false, cordra = false))]
fn lint(
    py: Python<'_>,
    text: Text,
    proxy_bases: Option<crate::texts::Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
) -> PyResult<Vec<LintWarning>> {
    let options = options(
        py,
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        None,
    )?;
    lint_with(py, text, &options)
}

fn lint_with(py: Python<'_>, text: Text, options: &Options) -> PyResult<Vec<LintWarning>> {
    let uri = handle_id::recognize(&text, options).map_err(|e| parse_error(py, &e, &text))?;
    Ok(warnings(&text, &uri.lint()))
}

/// The calls of the functions of one text with one `str`, their options at their defaults:
/// what a loop over values makes, which takes the quick way in (`fastcall`).
macro_rules! one {
    ($($marker:ident: $name:literal -> $out:ty = $call:expr $(, quick $quick:expr)? $(, unreadable $unreadable:expr)?;)*) => {$(
        struct $marker;

        impl One for $marker {
            const NAME: &'static str = $name;
            type Out = $out;

            fn call(py: Python<'_>, text: Text) -> PyResult<$out> {
                ($call)(py, text)
            }

            $(
                fn unreadable(py: Python<'_>, e: PyErr) -> PyResult<$out> {
                    ($unreadable)(py, e)
                }
            )?

            $(
                fn quick<'py>(py: Python<'py>, text: Borrowed<'_, 'py, PyString>) -> Quick<'py> {
                    ($quick)(py, text)
                }
            )?
        }
    )*};
}

/// `clean` outside PyO3's trampoline (`One::quick`): the value made, or the input's error
/// raised (its exception made of `Bound` values, the text released at once); anything else
/// (no memory, a lone surrogate) through the trampoline, which makes the call again. (What
/// is dropped on the way there is released by the trampoline.)
fn clean_quick<'py>(py: Python<'py>, text: Borrowed<'_, 'py, PyString>) -> Quick<'py> {
    // (A `str` itself: `fastcall` checked.)
    let Ok(text) = crate::text::exact(text) else {
        return Quick::Through;
    };
    match cleaned_or(py, text, None) {
        Ok(Ok(made)) => Quick::Made(made.into_bound(py).into_any()),
        Ok(Err(_)) => Quick::Through,
        Err((e, text)) => {
            set_parse_error(py, &e, &text);
            // SAFETY: attached, as a quick call is.
            #[cfg(not(windows))]
            unsafe {
                text.release()
            };
            #[cfg(windows)]
            drop(text);
            Quick::Raised
        }
    }
}

/// `parse` outside PyO3's trampoline: the text borrowed, the handle's object made here
/// (`Made`), or the input's error raised; anything else through the trampoline.
fn parse_quick<'py>(py: Python<'py>, text: Borrowed<'_, 'py, PyString>) -> Quick<'py> {
    let Some(text) = crate::text::borrowed(text) else {
        return Quick::Through;
    };
    match handle_id::Handle::parse(text) {
        Ok(handle) => {
            handle_object(py, handle).map_or(Quick::Through, |h| Quick::Made(h.into_any()))
        }
        Err(e) => {
            set_parse_error(py, &e, text);
            Quick::Raised
        }
    }
}

/// `is_valid` outside PyO3's trampoline: the text borrowed, nothing of PyO3's own made or
/// dropped.
fn is_valid_quick<'py>(py: Python<'py>, text: Borrowed<'_, 'py, PyString>) -> Quick<'py> {
    match crate::text::borrowed(text) {
        Some(text) => {
            let valid = handle_id::validate(text).is_ok();
            Quick::Made(pyo3::types::PyBool::new(py, valid).to_owned().into_any())
        }
        None => Quick::Through,
    }
}

one! {
    // (Its `None`: a unit converts to an empty tuple.)
    ValidateOne: "validate" -> Py<PyAny> = |py: Python<'_>, text| validate(py, text).map(|()| py.None());
    IsValidOne: "is_valid" -> bool = |_, text: Text| Ok(handle_id::validate(&text).is_ok()), quick is_valid_quick, unreadable no_handle;
    ParseOne: "parse" -> Py<PyHandle> = parse, quick parse_quick;
    RecognizeOne: "recognize" -> PyUri = |py, text| recognize_with(py, text, Options::new());
    DetectOne: "detect" -> Option<&'static str> = |py, text| detect_with(py, text, &DEFAULTS);
    CleanOne: "clean" -> Py<PyCleaned> = |py, text| cleaned(py, text, None), quick clean_quick;
    ExtractOne: "extract" -> Vec<Found> = |py, text| extract_with(py, text, &DEFAULTS);
    LintOne: "lint" -> Vec<LintWarning> = |py, text| lint_with(py, text, &DEFAULTS);
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    Made::add(m, &HANDLE, c"handle_id.Handle", || {
        Ok(PyHandle(
            handle_id::Handle::parse("10.1000/1").expect("a handle"),
        ))
    })?;
    m.add_class::<PyUri>()?;
    Made::add(m, &CLEANED, c"handle_id.Cleaned", || {
        Ok(PyCleaned {
            text: crate::text::exact(PyString::new(m.py(), "10.1000/1").as_borrowed())?,
            options: None,
            canonical: Canonical::Input(0..9),
            form: Form::Handle,
            fixes: SmallVec::new(),
        })
    })?;
    m.add_class::<Fix>()?;
    m.add_class::<LintWarning>()?;
    m.add_class::<Found>()?;
    fastcall::add::<ValidateOne>(m, wrap_pyfunction!(validate, m)?)?;
    fastcall::add::<IsValidOne>(m, wrap_pyfunction!(is_valid, m)?)?;
    fastcall::add::<ParseOne>(m, wrap_pyfunction!(parse, m)?)?;
    fastcall::add::<RecognizeOne>(m, wrap_pyfunction!(recognize, m)?)?;
    fastcall::add::<DetectOne>(m, wrap_pyfunction!(detect, m)?)?;
    fastcall::add::<CleanOne>(m, wrap_pyfunction!(clean, m)?)?;
    fastcall::add::<ExtractOne>(m, wrap_pyfunction!(extract, m)?)?;
    fastcall::add::<LintOne>(m, wrap_pyfunction!(lint, m)?)?;
    Ok(())
}
