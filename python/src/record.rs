//! Handle records: the proxy's REST API JSON (SPEC R1–R5) and `10320/loc` values (L1–L4).

use handle_id::record::{
    ClientContext, Data, Filter, HandleValue, Linked, Location, Locations, Redirect, Response,
    SplitMix64, Ttl,
};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::types::py_repr;
use pyo3::types::{IntoPyDict, PyBytes, PyDict, PyString, PyType};

use crate::errors::record_error;
use crate::types::{handle_object, PyHandle};

/// The hash of a value compared by value, made of the text its writer gives (which equal
/// values share).
fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A REST API response (`/api/handles/<handle>`): the response code, the handle and its
/// values.
#[pyclass(frozen, eq, module = "handle_id", name = "Record")]
pub struct PyRecord(Response);

// Equal as their JSON is (which their hash is of): `-0.0` and `0.0` in data kept as JSON,
// which serde_json's values call equal, are written apart.
impl PartialEq for PyRecord {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_json() == other.0.to_json()
    }
}

impl From<Response> for PyRecord {
    fn from(r: Response) -> Self {
        Self(r)
    }
}

#[pymethods]
impl PyRecord {
    /// Reads a REST API response: JSON, or JSONP (`callback(<json>);`), as a `str`, as
    /// UTF-8 `bytes` (a response's body), or as the `dict` `json.loads` made of it. Raises
    /// `HandleError` (with `at`, the JSON path) for a malformed one.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = json_text(text)?;
        Response::parse(&text)
            .map(Self)
            .map_err(|e| record_error(py, &e))
    }

    /// The same as `Record.parse(text)`.
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::parse(py, text)
    }

    /// Pickled (and copied) as its JSON, read again by `Record(json)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().0.to_json(),))
    }

    /// Hashed as its JSON (equal records write the same).
    fn __hash__(&self) -> u64 {
        text_hash(&self.0.to_json())
    }

    /// The handle, or None (an error response may have none).
    #[getter]
    fn handle<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyHandle>>> {
        self.0
            .handle()
            .map(|h| handle_object(py, h.clone()))
            .transpose()
    }

    /// The response code (1 is success, 100 handle not found …).
    #[getter]
    fn code(&self) -> u32 {
        self.0.code().as_u32()
    }

    /// What the code means.
    #[getter]
    fn code_meaning(&self) -> &'static str {
        self.0.code().meaning()
    }

    /// The HTTP status the proxy answers with for the code.
    #[getter]
    fn http_status(&self) -> u16 {
        self.0.code().http_status()
    }

    /// The response's message, or None.
    #[getter]
    fn message(&self) -> Option<&str> {
        self.0.message()
    }

    /// The values, in order.
    #[getter]
    fn values(&self) -> Vec<PyHandleValue> {
        self.0.values().iter().cloned().map(PyHandleValue).collect()
    }

    /// The response as the proxy writes it (its field order), pretty-printed on request.
    #[pyo3(signature = (pretty = false))]
    fn to_json(&self, pretty: bool) -> String {
        if pretty {
            self.0.to_json_pretty()
        } else {
            self.0.to_json()
        }
    }

    /// The values the proxy's `type` and `index` parameters select (a type ending in `.`
    /// selects its subtypes), as a new record.
    #[pyo3(signature = (types = None, indexes = None))]
    fn filtered(
        &self,
        types: Option<crate::texts::Texts>,
        indexes: Option<Vec<i64>>,
    ) -> PyResult<Self> {
        let mut filter = Filter::new();
        for t in types.unwrap_or_default() {
            filter = filter.value_type(&t);
        }
        for i in crate::resolve::value_indexes(indexes)? {
            filter = filter.index(i);
        }
        Ok(Self(self.0.filtered(&filter)))
    }

    /// The handle an `HS_ALIAS` value names, or None.
    fn alias<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyHandle>>> {
        self.0.alias().map(|h| handle_object(py, h)).transpose()
    }

    /// The `10320/loc` values, read: a list of `(HandleValue, Locations)`. Raises
    /// `HandleError` for the first that does not read.
    fn locations(&self, py: Python<'_>) -> PyResult<Vec<(PyHandleValue, PyLocations)>> {
        let read = self.0.locations().map_err(|e| record_error(py, &e))?;
        Ok(read
            .into_iter()
            .map(|(v, l)| (PyHandleValue(v.clone()), PyLocations(l)))
            .collect())
    }

    /// Where the proxy would redirect a client (PROXY §1, L2–L4): a `10320/loc` location
    /// chosen for the client (its `locatt` pairs `"key:value"`, IP address and country),
    /// else one of the URL values; None when there is neither. `seed` repeats the random
    /// choices.
    #[pyo3(signature = (*, locatt = None, client_ip = None, country = None, seed = None))]
    fn redirect(
        &self,
        py: Python<'_>,
        locatt: Option<crate::texts::Texts>,
        client_ip: Option<&str>,
        country: Option<String>,
        seed: Option<Seed>,
    ) -> PyResult<Option<PyRedirect>> {
        let (client, mut random) = chooser(py, locatt, client_ip, country, seed)?;
        Ok(self.0.redirect(&client, &mut random).map(|r| PyRedirect {
            url: r.url().to_owned(),
            value: PyHandleValue(r.value().clone()),
            location: match r {
                Redirect::Location(_, l) => Some(PyLocation(l)),
                _ => None,
            },
        }))
    }

    /// Where the reference proxy (and `hdl serve`, and `hdl record --url`) redirects a
    /// client (L5): one location chosen from every `10320/loc` value together, the URL
    /// values standing beside them at weight 0, read as that proxy reads them (any case of
    /// their types, subtypes, `<loc_template>`, any root); without, the first URL value.
    /// None when there is nowhere to go. The locations of other handles a value includes
    /// (L9) are not asked for. `seed` repeats the random choices.
    #[pyo3(signature = (*, locatt = None, client_ip = None, country = None, seed = None))]
    fn proxy_redirect(
        &self,
        py: Python<'_>,
        locatt: Option<crate::texts::Texts>,
        client_ip: Option<&str>,
        country: Option<String>,
        seed: Option<Seed>,
    ) -> PyResult<Option<PyProxyRedirect>> {
        let (client, mut random) = chooser(py, locatt, client_ip, country, seed)?;
        Ok(self
            .0
            .proxy_redirect(&client, &mut random, &Linked::new())
            .map(|r| PyProxyRedirect {
                url: r.url,
                status: r.status,
                headers: r.headers,
            }))
    }

    /// What `action=showurls` answers: every location, as one `<locations>` document.
    fn show_urls(&self) -> String {
        self.0.show_urls()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Record(handle={}, code={}, values={})",
            self.0
                .handle()
                .map_or_else(|| "None".into(), |h| py_repr(py, h.as_str())),
            self.0.code().as_u32(),
            self.0.values().len()
        )
    }
}

/// A response's JSON text: a `str` as it is, `bytes` as UTF-8, a `dict` as `json.dumps`
/// writes it (a NaN in it refused as JSON has none).
fn json_text(given: &Bound<'_, PyAny>) -> PyResult<String> {
    if given.is_instance_of::<PyString>() {
        return given.extract::<String>();
    }
    if let Ok(bytes) = given.cast::<PyBytes>() {
        return String::from_utf8(bytes.as_bytes().to_vec()).map_err(|e| {
            PyValueError::new_err(format!(
                "a response's bytes are UTF-8 JSON; byte {} is not UTF-8",
                e.utf8_error().valid_up_to()
            ))
        });
    }
    if given.is_instance_of::<PyDict>() {
        let py = given.py();
        let strict = [("allow_nan", false)].into_py_dict(py)?;
        return py
            .import("json")?
            .call_method("dumps", (given,), Some(&strict))?
            .extract();
    }
    Err(PyTypeError::new_err(format!(
        "a response as JSON text (str or bytes) or as a dict, not {}",
        given.get_type().name()?
    )))
}

/// The client a choice is made for, and the random choices it is made with (`seed`, else
/// the clock's).
fn chooser(
    py: Python<'_>,
    locatt: Option<crate::texts::Texts>,
    client_ip: Option<&str>,
    country: Option<String>,
    seed: Option<Seed>,
) -> PyResult<(ClientContext, SplitMix64)> {
    let client = client(py, locatt, client_ip, country)?;
    Ok((
        client,
        SplitMix64::new(seed.map_or_else(SplitMix64::seed_from_clock, |s| s.0)),
    ))
}

/// A `seed`: an int from 0 to 2**64 - 1. One out of range is an `OverflowError` that
/// names the argument (PyO3 names it in a `TypeError` only).
struct Seed(u64);

impl FromPyObject<'_, '_> for Seed {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match obj.extract::<u64>() {
            Ok(n) => Ok(Seed(n)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Err(PyOverflowError::new_err(format!(
                    "seed {} is not from 0 to 2**64 - 1",
                    obj.as_any()
                )))
            }
            Err(e) => Err(e),
        }
    }
}

fn client(
    py: Python<'_>,
    locatt: Option<crate::texts::Texts>,
    client_ip: Option<&str>,
    country: Option<String>,
) -> PyResult<ClientContext> {
    let mut c = ClientContext::new();
    for pair in locatt.unwrap_or_default() {
        c = c.with_locatt(&pair).map_err(|e| record_error(py, &e))?;
    }
    if let Some(ip) = client_ip {
        c.ip = Some(
            ip.parse()
                .map_err(|e| PyValueError::new_err(format!("client_ip {ip:?}: {e}")))?,
        );
    }
    c.country = country;
    Ok(c)
}

/// Where the proxy redirects: the URL, the value it comes from, and the `10320/loc`
/// location when one was chosen.
#[pyclass(frozen, eq, module = "handle_id", name = "Redirect", get_all)]
#[derive(PartialEq)]
pub struct PyRedirect {
    /// The URL.
    url: String,
    /// The value: a `URL` value, or the `10320/loc` value the location is in.
    value: PyHandleValue,
    /// The location chosen, or None for a URL value.
    location: Option<PyLocation>,
}

#[pymethods]
impl PyRedirect {
    /// The redirect to `location` of `value` (a `10320/loc` value), or, with no location,
    /// to `value`'s own text (a `URL` value, or one of its subtypes). Raises `ValueError`
    /// when there is no URL, or no location for a value of another type.
    #[new]
    #[pyo3(signature = (value, location = None))]
    fn new(
        value: &Bound<'_, PyHandleValue>,
        location: Option<&Bound<'_, PyLocation>>,
    ) -> PyResult<Self> {
        let value = value.get().clone();
        let location = location.map(|l| l.get().clone());
        let url = match &location {
            Some(l) => l.0.href(),
            None if !value.0.has_type("URL.") => {
                return Err(PyValueError::new_err(format!(
                    "a redirect without a location is to a URL value's text, not a {} value's",
                    value.0.value_type()
                )))
            }
            None => value.0.as_text().ok_or_else(|| {
                PyValueError::new_err(
                    "a redirect without a location is to a value's text, and this value has none",
                )
            })?,
        }
        .to_owned();
        Ok(Self {
            url,
            value,
            location,
        })
    }

    /// Pickled (and copied) as `Redirect(value, location)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, PyType>, (PyHandleValue, Option<PyLocation>)) {
        let r = slf.get();
        (slf.get_type(), (r.value.clone(), r.location.clone()))
    }

    /// Hashed as its value and location are.
    fn __hash__(&self) -> PyResult<u64> {
        let location = self.location.as_ref().map_or(0, PyLocation::__hash__);
        Ok(self.value.__hash__()? ^ location.rotate_left(1))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Redirect(url={})", py_repr(py, &self.url))
    }
}

/// What `ProxyRedirect(url, status, headers)` is made of.
type ProxyRedirectArgs = (String, u16, Vec<(String, String)>);

/// A redirect as the reference proxy sends it: the URL (before it is encoded for the
/// `Location` header), the status (302, or the `http_sc` asked for) and the headers besides
/// `Location` (`10320/headers` lines, then `Link`s, L8).
#[pyclass(
    frozen,
    eq,
    hash,
    module = "handle_id",
    name = "ProxyRedirect",
    get_all
)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyProxyRedirect {
    url: String,
    status: u16,
    headers: Vec<(String, String)>,
}

#[pymethods]
impl PyProxyRedirect {
    #[new]
    #[pyo3(signature = (url, status = 302, headers = Vec::new()))]
    fn new(url: String, status: u16, headers: Vec<(String, String)>) -> Self {
        Self {
            url,
            status,
            headers,
        }
    }

    /// Pickled (and copied) as `ProxyRedirect(url, status, headers)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, ProxyRedirectArgs) {
        let r = slf.get();
        (slf.get_type(), (r.url.clone(), r.status, r.headers.clone()))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "ProxyRedirect(url={}, status={})",
            py_repr(py, &self.url),
            self.status
        )
    }
}

/// One value of a handle record: its index, type, data, time to live and timestamp.
#[pyclass(
    frozen,
    eq,
    skip_from_py_object,
    module = "handle_id",
    name = "HandleValue"
)]
#[derive(Clone)]
pub struct PyHandleValue(HandleValue);

// Equal as their JSON is, as a record is.
impl PartialEq for PyHandleValue {
    fn eq(&self, other: &Self) -> bool {
        handle_id_json(&self.0).ok() == handle_id_json(&other.0).ok()
    }
}

#[pymethods]
impl PyHandleValue {
    /// The value's index.
    #[getter]
    fn index(&self) -> u32 {
        self.0.index()
    }

    /// The value's type (`URL`, `HS_ADMIN`, `10320/loc` …).
    #[getter]
    fn r#type(&self) -> &str {
        self.0.value_type()
    }

    /// The data's format (`string`, `base64`, `hex`, `admin`, `vlist`, `site` …).
    #[getter]
    fn format(&self) -> &str {
        self.0.data().format()
    }

    /// The data: a str for `string`, bytes for `base64` and `hex`, and for the other
    /// formats the JSON the REST API writes for its `value`, as Python objects.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.0.data() {
            Data::String(s) => Ok(s.into_pyobject(py)?.into_any()),
            Data::Base64 { bytes, .. } | Data::Hex { bytes, .. } => {
                Ok(PyBytes::new(py, bytes).into_any())
            }
            _ => {
                let value = self.to_dict(py)?;
                value.get_item("data")?.get_item("value")
            }
        }
    }

    /// The data as text: a `string` value's text, else None.
    #[getter]
    fn text(&self) -> Option<&str> {
        self.0.as_text()
    }

    /// The time to live: seconds (int), an absolute expiry time (str, as written), or None.
    #[getter]
    fn ttl<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match self.0.ttl() {
            Some(Ttl::Seconds(s)) => Some(s.into_pyobject(py)?.into_any()),
            Some(Ttl::Until(t)) => Some(t.into_pyobject(py)?.into_any()),
            None => None,
        })
    }

    /// The timestamp, as written, or None.
    #[getter]
    fn timestamp(&self) -> Option<&str> {
        self.0.timestamp()
    }

    /// Whether the type is `filter`, or under it when `filter` ends in `.`.
    fn has_type(&self, filter: &str) -> bool {
        self.0.has_type(filter)
    }

    /// Reads one value as the REST API writes it (a dict of `to_dict` as JSON). Raises
    /// `HandleError` (with `at`, the JSON path) for one that is not a value.
    #[new]
    fn new(py: Python<'_>, json: &str) -> PyResult<Self> {
        HandleValue::parse(json)
            .map(Self)
            .map_err(|e| record_error(py, &e))
    }

    /// Pickled (and copied) as its JSON, read again by `HandleValue(json)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, (String,))> {
        Ok((slf.get_type(), (handle_id_json(&slf.get().0)?,)))
    }

    /// Hashed as its JSON (equal values write the same).
    fn __hash__(&self) -> PyResult<u64> {
        Ok(text_hash(&handle_id_json(&self.0)?))
    }

    /// The value as the REST API writes it, as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = handle_id_json(&self.0)?;
        json_loads(py, &json)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "HandleValue(index={}, type={}, format={})",
            self.0.index(),
            py_repr(py, self.0.value_type()),
            py_repr(py, self.0.data().format())
        )
    }
}

/// A value as the REST API's JSON, as the library writes it.
fn handle_id_json(value: &HandleValue) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A `10320/loc` value (L1): how to choose, and the locations.
#[pyclass(frozen, eq, module = "handle_id", name = "Locations")]
#[derive(PartialEq)]
pub struct PyLocations(Locations);

#[pymethods]
impl PyLocations {
    /// Reads a `10320/loc` value's XML. Raises `HandleError` (with `at`, the line and
    /// column) when it is not one.
    #[staticmethod]
    fn parse(py: Python<'_>, xml: &str) -> PyResult<Self> {
        Locations::parse(xml)
            .map(Self)
            .map_err(|e| record_error(py, &e))
    }

    /// The same as `Locations.parse(xml)`.
    #[new]
    fn new(py: Python<'_>, xml: &str) -> PyResult<Self> {
        Self::parse(py, xml)
    }

    /// Pickled (and copied) as its XML, read again by `Locations(xml)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().0.to_xml(),))
    }

    /// Hashed as its XML (equal values write the same).
    fn __hash__(&self) -> u64 {
        text_hash(&self.0.to_xml())
    }

    /// The `chooseby` methods, in order (`locatt`, `country`, `weighted` …).
    #[getter]
    fn choose_by(&self) -> Vec<String> {
        self.0
            .choose_by()
            .iter()
            .map(|c| c.name().to_owned())
            .collect()
    }

    /// The locations, in document order.
    #[getter]
    fn locations(&self) -> Vec<PyLocation> {
        self.0.locations().iter().cloned().map(PyLocation).collect()
    }

    /// The location the proxy chooses for a client (L2, L3), or None when there are none.
    #[pyo3(signature = (*, locatt = None, client_ip = None, country = None, seed = None))]
    fn choose(
        &self,
        py: Python<'_>,
        locatt: Option<crate::texts::Texts>,
        client_ip: Option<&str>,
        country: Option<String>,
        seed: Option<Seed>,
    ) -> PyResult<Option<PyLocation>> {
        let (client, mut random) = chooser(py, locatt, client_ip, country, seed)?;
        Ok(self.0.choose(&client, &mut random).cloned().map(PyLocation))
    }

    /// The locations as XML, as `action=showurls` lists them.
    fn to_xml(&self) -> String {
        self.0.to_xml()
    }

    fn __repr__(&self) -> String {
        format!("Locations({} locations)", self.0.locations().len())
    }
}

/// One location of a `10320/loc` value.
#[pyclass(
    frozen,
    eq,
    skip_from_py_object,
    module = "handle_id",
    name = "Location"
)]
#[derive(Clone, PartialEq)]
pub struct PyLocation(Location);

#[pymethods]
impl PyLocation {
    /// The location of these attributes, (name, value) pairs named as written, read as
    /// `Locations.parse` reads a `<location>` element with them. Raises `HandleError` (with
    /// `at`) for a name that is not an XML attribute's or is given twice, no `href`, a
    /// `weight` that is not a number from 0 to 1, and so on.
    #[new]
    fn new(py: Python<'_>, attributes: Vec<(String, String)>) -> PyResult<Self> {
        Location::from_attributes(attributes)
            .map(Self)
            .map_err(|e| record_error(py, &e))
    }

    /// Pickled (and copied) as its attributes, read again by `Location(attributes)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (Vec<(String, String)>,)) {
        (slf.get_type(), (slf.get().0.attributes().to_vec(),))
    }

    /// Hashed as its attributes.
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.attributes().hash(&mut h);
        h.finish()
    }

    /// The URL.
    #[getter]
    fn href(&self) -> &str {
        self.0.href()
    }

    /// The attributes, as (name, value) pairs in document order.
    #[getter]
    fn attributes(&self) -> Vec<(String, String)> {
        self.0.attributes().to_vec()
    }

    /// The weight, 0 to 1 (1 when not given).
    #[getter]
    fn weight(&self) -> f64 {
        self.0.weight()
    }

    /// The score, or None.
    #[getter]
    fn score(&self) -> Option<f64> {
        self.0.score()
    }

    /// The `id` attribute, or None.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.0.id()
    }

    /// The `country` attribute, or None.
    #[getter]
    fn country(&self) -> Option<&str> {
        self.0.country()
    }

    /// An attribute's value, or None.
    fn attribute(&self, name: &str) -> Option<&str> {
        self.0.attribute(name)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Location(href={})", py_repr(py, self.0.href()))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRecord>()?;
    m.add_class::<PyHandleValue>()?;
    m.add_class::<PyRedirect>()?;
    m.add_class::<PyProxyRedirect>()?;
    m.add_class::<PyLocations>()?;
    m.add_class::<PyLocation>()?;
    Ok(())
}
