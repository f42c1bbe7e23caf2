//! The reading options every function takes as keyword arguments.

use handle_id::{Form, Options, ParseError, ProxyBase};
use pyo3::prelude::*;

use crate::errors::parse_error;
use crate::failure::Failure;

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
    read(
        proxy_bases,
        repository_urls,
        resolution_form,
        cordra,
        handle_prefixes,
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

/// A form by the name the `hdl` command gives it (`proxy`, `info-doi` …).
pub fn form(name: &str) -> Result<Form, Failure> {
    name.parse().map_err(|_| {
        let names: Vec<&str> = Form::ALL.iter().map(|f| f.name()).collect();
        Failure::Value(format!(
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
