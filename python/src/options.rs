//! The reading options every function takes as keyword arguments.

use handle_id::{Form, Options, ParseError, ProxyBase};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::parse_error;
use crate::failure::Failure;
use crate::texts::{texts, Texts};

/// [`Options`] from the keyword arguments: `proxy_bases` (resolver base URLs besides the
/// known ones), `repository_urls`, `resolution_form`, `cordra`, and for extraction
/// `handle_prefixes`.
pub fn options(
    py: Python<'_>,
    proxy_bases: Option<Texts>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    handle_prefixes: Option<Texts>,
) -> PyResult<Options> {
    read(
        texts(proxy_bases),
        repository_urls,
        resolution_form,
        cordra,
        texts(handle_prefixes),
    )
    .map_err(|(_, value, e)| parse_error(py, &e, &value))
}

/// [`options`] without Python: a proxy base or handle prefix that is not one is given back
/// with its argument's name and its error.
pub fn read(
    proxy_bases: Option<Vec<String>>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    handle_prefixes: Option<Vec<String>>,
) -> Result<Options, (&'static str, String, ParseError)> {
    let mut o = Options::new()
        .repository_urls(repository_urls)
        .resolution_form(resolution_form)
        .cordra(cordra);
    for base in proxy_bases.unwrap_or_default() {
        match ProxyBase::parse(&base) {
            Ok(b) => o = o.proxy_base(b),
            Err(e) => return Err(("proxy base", base, e)),
        }
    }
    for prefix in handle_prefixes.unwrap_or_default() {
        o = match o.try_handle_prefix(&prefix) {
            Ok(o) => o,
            Err(e) => return Err(("handle prefix", prefix, e)),
        };
    }
    Ok(o)
}

/// [`read`]'s inverse: the keyword arguments that give `o` (those at their defaults left
/// out), for an object that pickles as the call that made it.
pub fn keywords<'py>(py: Python<'py>, o: &Options) -> PyResult<Bound<'py, PyDict>> {
    let kw = PyDict::new(py);
    if !o.proxy_bases().is_empty() {
        let bases: Vec<&str> = o.proxy_bases().iter().map(ProxyBase::as_str).collect();
        kw.set_item("proxy_bases", bases)?;
    }
    for (name, on) in [
        ("repository_urls", o.reads_repository_urls()),
        ("resolution_form", o.reads_resolution_form()),
        ("cordra", o.is_cordra()),
    ] {
        if on {
            kw.set_item(name, true)?;
        }
    }
    if !o.handle_prefixes().is_empty() {
        kw.set_item("handle_prefixes", o.handle_prefixes())?;
    }
    Ok(kw)
}

/// `function(text, **keywords(o))` as `__reduce__` gives it: what pickles an object that
/// `function` made of `text` with the options `o`.
pub fn remade<'py>(
    function: &Bound<'py, PyAny>,
    text: &str,
    o: &Options,
) -> PyResult<(Bound<'py, PyAny>, (String,))> {
    let py = function.py();
    let partial = py.import("functools")?.getattr("partial")?;
    let call = partial.call((function,), Some(&keywords(py, o)?))?;
    Ok((call, (text.to_owned(),)))
}

/// A form by the name the `hdl` command gives it (`proxy`, `info-doi` …).
pub fn form(name: &str) -> Result<Form, Failure> {
    name.parse()
        .map_err(|_| unknown("form", name, Form::ALL.map(|f| f.name())))
}

/// The error for a `what` named `given` that is none of `known`.
pub fn unknown<const N: usize>(what: &str, given: &str, known: [&str; N]) -> Failure {
    Failure::Value(format!(
        "unknown {what} {given:?}: one of {}",
        known.join(", ")
    ))
}

/// A proxy base URL, or the default for the handle when `None`.
pub fn base(py: Python<'_>, base: Option<&str>) -> PyResult<Option<ProxyBase>> {
    base.map(|b| ProxyBase::parse(b).map_err(|e| parse_error(py, &e, b)))
        .transpose()
}
