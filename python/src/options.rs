//! The reading options every function takes as keyword arguments.

use handle_id::{Form, Options, ProxyBase};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::parse_error;

/// [`Options`] from the keyword arguments: `proxy_bases` (resolver base URLs besides the
/// known ones), `repository_urls`, `resolution_form`, `cordra`, and for extraction
/// `handle_prefixes`.
pub fn options(
    py: Python<'_>,
    proxy_bases: Option<Vec<String>>,
    repository_urls: bool,
    resolution_form: bool,
    cordra: bool,
    handle_prefixes: Option<Vec<String>>,
) -> PyResult<Options> {
    let mut o = Options::new()
        .repository_urls(repository_urls)
        .resolution_form(resolution_form)
        .cordra(cordra);
    for base in proxy_bases.unwrap_or_default() {
        let b = ProxyBase::parse(&base).map_err(|e| parse_error(py, &e, &base))?;
        o = o.proxy_base(b);
    }
    for prefix in handle_prefixes.unwrap_or_default() {
        o = o.handle_prefix(&prefix);
    }
    Ok(o)
}

/// A form by the name the `hdl` command gives it (`proxy`, `info-doi` …).
pub fn form(name: &str) -> PyResult<Form> {
    name.parse().map_err(|_| {
        let names: Vec<&str> = Form::ALL.iter().map(|f| f.name()).collect();
        PyValueError::new_err(format!(
            "unknown form {name:?}: one of {}",
            names.join(", ")
        ))
    })
}

/// A proxy base URL, or the default for the handle when `None`.
pub fn base(py: Python<'_>, base: Option<&str>) -> PyResult<Option<ProxyBase>> {
    base.map(|b| ProxyBase::parse(b).map_err(|e| parse_error(py, &e, b)))
        .transpose()
}
