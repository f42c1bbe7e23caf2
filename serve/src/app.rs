//! What the proxy answers (PROXY §1–4): a request's path and query read exactly as
//! `recognize` reads proxy URLs (P3), then a redirect, the values, the REST API's JSON, or
//! a clear error. No I/O here but the store's reads.

use std::net::IpAddr;

use bytes::Bytes;
use handle_id::record::{
    escape_markup as escape, ClientContext, Filter, Response as Record, ResponseCode, SplitMix64,
    ALIAS_TYPE, LOC_TYPE, URL_TYPE,
};
use handle_id::{
    Action, Form, Handle, HandleRef, HdlUri, Options, ProxyBase, ProxyQuery, API_PATH,
};
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE, LOCATION};
use hyper::{Method, Response, StatusCode};

use crate::store::{parse_stored, Store};

/// The longest path and query read: longer is answered 414 (a handle is at most a few
/// kilobytes; H9 warns past 2,048 bytes).
pub const MAX_TARGET: usize = 16 * 1024;

/// The longest alias chain followed (`HS_ALIAS`): longer, or a loop, is answered 508.
pub const MAX_ALIASES: usize = 8;

/// A request, as the server saw it.
pub struct Request<'a> {
    pub method: &'a Method,
    /// The path and query as sent, not decoded.
    pub target: &'a str,
    /// The `Accept` header.
    pub accept: Option<&'a str>,
    /// The address of the connection's peer.
    pub client: IpAddr,
    /// A seed for the random choices (a URL among several, a weighted location).
    pub seed: u64,
}

/// A request whose answer reads a record longer than the bound [`answer_within`] was
/// given: one to answer with [`answer`] where long work does not hold others up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Large;

/// The answer to `request`.
pub fn answer(store: &Store, request: &Request<'_>) -> Response<Full<Bytes>> {
    answer_within(store, request, usize::MAX).unwrap_or_else(|Large| {
        page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error",
            "A record beyond every bound.",
        )
    })
}

/// The answer to `request`, unless it reads a record whose stored JSON is longer than
/// `max_record` bytes: then [`Large`], and nothing else was done that matters (a look-up
/// or two), so that the caller answers it with [`answer`] elsewhere.
///
/// # Errors
///
/// [`Large`], as said.
pub fn answer_within(
    store: &Store,
    request: &Request<'_>,
    max_record: usize,
) -> Result<Response<Full<Bytes>>, Large> {
    let mut response = route(&Reads { store, max_record }, request)?;
    if request.method == Method::HEAD {
        *response.body_mut() = Full::new(Bytes::new());
    }
    Ok(response)
}

/// The store as a request reads it: records up to a length.
struct Reads<'s> {
    store: &'s Store,
    max_record: usize,
}

/// A record read, not found (`None`), or a failed read.
type Read = Result<Option<Record>, crate::store::StoreError>;

impl Reads<'_> {
    /// The record of `handle`, with only the values `filter` selects when there is one.
    fn get(&self, handle: HandleRef<'_>, filter: Option<&Filter>) -> Result<Read, Large> {
        let found = self.store.with_json(handle, |bytes| {
            (bytes.len() <= self.max_record).then(|| parse_stored(handle.as_str(), bytes, filter))
        });
        match found {
            Ok(None) => Ok(Ok(None)),
            Ok(Some(None)) => Err(Large),
            Ok(Some(Some(parsed))) => Ok(parsed.map(Some)),
            Err(e) => Ok(Err(e)),
        }
    }

    /// The stored JSON of `handle`'s record, as it is.
    fn get_json(&self, handle: HandleRef<'_>) -> Result<Option<Vec<u8>>, Large> {
        match self.store.with_json(handle, |bytes| {
            (bytes.len() <= self.max_record).then(|| bytes.to_vec())
        }) {
            Ok(Some(None)) => Err(Large),
            Ok(Some(Some(json))) => Ok(Some(json)),
            Ok(None) | Err(_) => Ok(None),
        }
    }
}

fn route(store: &Reads<'_>, request: &Request<'_>) -> Result<Response<Full<Bytes>>, Large> {
    if request.method != Method::GET && request.method != Method::HEAD {
        let mut r = page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed",
            "Only GET and HEAD are answered.",
        );
        r.headers_mut()
            .insert("allow", HeaderValue::from_static("GET, HEAD"));
        return Ok(r);
    }
    if request.target.len() > MAX_TARGET {
        return Ok(page(
            StatusCode::URI_TOO_LONG,
            "URI Too Long",
            &format!("The path and query are longer than {MAX_TARGET} bytes."),
        ));
    }
    if request.target == "/" || request.target.is_empty() {
        return Ok(page(
            StatusCode::OK,
            "Handle proxy",
            "Resolve a handle at /&lt;handle&gt;, or read its record at /api/handles/&lt;handle&gt;.",
        ));
    }
    let uri = match HdlUri::from_request_path(request.target, &Options::new()) {
        Ok(uri) => uri,
        Err(e) => {
            let is_api = request
                .target
                .get(1..)
                .is_some_and(|t| t.starts_with(API_PATH));
            return Ok(bad_request(is_api, &format!("{e}")));
        }
    };
    let is_api = uri.form() == Form::Api;
    let query = match uri.proxy_query().transpose() {
        Ok(q) => q.unwrap_or_default(),
        Err(e) => return Ok(bad_request(is_api, &format!("in the query: {e}"))),
    };
    let handle = uri.handle();
    match uri.form() {
        Form::Api => api(store, handle, &query),
        _ => resolve(store, handle, &query, request),
    }
}

/// The REST API (PROXY §4, R1–R5).
fn api(
    store: &Reads<'_>,
    handle: HandleRef<'_>,
    query: &ProxyQuery,
) -> Result<Response<Full<Bytes>>, Large> {
    if query.index.is_empty() && query.types.is_empty() && !query.pretty && query.callback.is_none()
    {
        // The whole record, compact: the bytes `Response::to_json` wrote at import, as
        // they are (the one writer), without reading and writing them again.
        if let Some(mut json) = store.get_json(handle)? {
            json.push(b'\n');
            let mut r = Response::new(Full::new(Bytes::from(json)));
            let h = r.headers_mut();
            h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
            return Ok(r);
        }
    }
    let record = match store.get(handle, None)? {
        Ok(Some(r)) => r.filtered(&filter(query)),
        Ok(None) => Record::error(ResponseCode::HandleNotFound, Some(handle.to_handle()), None),
        Err(e) => Record::error(ResponseCode::Error, None, Some(&e.to_string())),
    };
    Ok(json_response(&record, query))
}

/// The record as the REST API writes it: byte for byte what `hdl record --json` prints for
/// it (one writer), pretty-printed for `pretty`, as JSONP for `callback`.
fn json_response(record: &Record, query: &ProxyQuery) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(record.code().http_status())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let json = if query.pretty {
        record.to_json_pretty()
    } else {
        record.to_json()
    };
    let (body, kind) = match &query.callback {
        None => (format!("{json}\n"), "application/json"),
        Some(cb) => match handle_id::record::jsonp(cb, &json) {
            Ok(wrapped) => (format!("{wrapped}\n"), "application/javascript"),
            Err(e) => return bad_request(true, &e.to_string()),
        },
    };
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    r
}

fn filter(query: &ProxyQuery) -> Filter {
    let mut f = Filter::new();
    for &i in &query.index {
        f = f.index(i);
    }
    for t in &query.types {
        f = f.value_type(t);
    }
    f
}

/// Resolution (PROXY §1, §3): follow aliases, then redirect, list the locations, or show
/// the values.
fn resolve(
    store: &Reads<'_>,
    asked: HandleRef<'_>,
    query: &ProxyQuery,
    request: &Request<'_>,
) -> Result<Response<Full<Bytes>>, Large> {
    // A redirect (or `showurls`) reads only the values it can use: the URLs, the
    // locations and the aliases; the rest of the record is not built.
    let redirects = query.index.is_empty()
        && query.types.is_empty()
        && !query.noredirect
        && matches!(
            query.action,
            None | Some(Action::Metadata | Action::ShowUrls)
        );
    let read = |handle: &Handle| store.get(handle.as_handle_ref(), redirects.then(redirect_filter));
    let mut handle = asked.to_handle();
    let mut seen = vec![handle.clone()];
    let record = loop {
        let record = match found(read(&handle)?, handle.as_str(), request) {
            Ok(r) => r,
            Err(answer) => return Ok(*answer),
        };
        match record.alias().filter(|_| !query.ignore_aliases) {
            Some(next) => {
                let next = next.clone();
                if seen.len() > MAX_ALIASES || seen.contains(&next) {
                    return Ok(page(
                        StatusCode::LOOP_DETECTED,
                        "Alias Loop",
                        &format!(
                            "The aliases of {} loop or run longer than {MAX_ALIASES} handles.",
                            escape(asked.as_str())
                        ),
                    ));
                }
                seen.push(next.clone());
                handle = next;
            }
            None => break record,
        }
    };
    // A filter copies the record; most requests have none.
    let record = if query.index.is_empty() && query.types.is_empty() {
        record
    } else {
        record.filtered(&filter(query))
    };
    if query.action == Some(Action::ShowUrls) {
        let mut r = Response::new(Full::new(Bytes::from(record.show_urls())));
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/xml"));
        return Ok(r);
    }
    let show = query.noredirect || query.action == Some(Action::ShowValues);
    if !show {
        let mut client = ClientContext::new();
        client.locatt.clone_from(&query.locatt);
        if query.action == Some(Action::Metadata) {
            client.locatt.push(("role".into(), "metadata".into()));
        }
        client.ip = Some(request.client);
        for (name, value) in &query.other {
            match (name.as_str(), value) {
                ("ip", Some(v)) => client.ip = v.parse().ok().or(client.ip),
                ("country", Some(v)) => client.country = Some(v.clone()),
                _ => {}
            }
        }
        // A 10320/loc value that does not read is passed over (the import warned of it).
        if let Some(to) = record.redirect(&client, &mut SplitMix64::new(request.seed)) {
            let target = format!("{}{}", to.url(), query.urlappend.as_deref().unwrap_or(""));
            if let Ok(location) = HeaderValue::from_str(&target) {
                let mut r = Response::new(Full::new(Bytes::new()));
                *r.status_mut() = StatusCode::FOUND;
                r.headers_mut().insert(LOCATION, location);
                return Ok(r);
            }
            // A URL that is no header value (a line break in it): the values instead.
        }
    }
    // No redirect: the values are shown, all of them.
    let record = if redirects {
        match found(
            store.get(handle.as_handle_ref(), None)?,
            handle.as_str(),
            request,
        ) {
            Ok(r) => r,
            Err(answer) => return Ok(*answer),
        }
    } else {
        record
    };
    if request
        .accept
        .is_some_and(|a| a.contains("application/json"))
    {
        return Ok(json_response(&record, query));
    }
    Ok(values_page(&record))
}

/// The values a redirect, `showurls` and alias following read (PROXY §1, §3).
fn redirect_filter() -> &'static Filter {
    static FILTER: std::sync::OnceLock<Filter> = std::sync::OnceLock::new();
    FILTER.get_or_init(|| {
        Filter::new()
            .value_type(URL_TYPE)
            .value_type(LOC_TYPE)
            .value_type(ALIAS_TYPE)
    })
}

/// The record a store read found, or the answer when it found none (404) or failed (500).
fn found(
    read: Read,
    handle: &str,
    request: &Request<'_>,
) -> Result<Record, Box<Response<Full<Bytes>>>> {
    match read {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err(Box::new(not_found(handle, request))),
        Err(e) => Err(Box::new(page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error",
            &escape(&e.to_string()),
        ))),
    }
}

fn not_found(handle: &str, request: &Request<'_>) -> Response<Full<Bytes>> {
    let mut text = format!("The handle <code>{}</code> was not found.", escape(handle));
    if let Some(without) = handle.strip_suffix('/').filter(|h| !h.is_empty()) {
        // PROXY §1: a handle with a trailing slash that is not found gets a warning and a
        // link to the handle without it.
        let href = handle_id::HandleRef::parse(without)
            .map(|h| ProxyBase::request_path(h, false))
            .unwrap_or_default();
        text.push_str(&format!(
            " Warning: the handle ends in a slash, which is unusual. Try <a href=\"{}\">{}</a>.",
            escape(&href),
            escape(without)
        ));
    }
    if request
        .accept
        .is_some_and(|a| a.contains("application/json"))
    {
        return json_response(
            &Record::error(
                ResponseCode::HandleNotFound,
                handle_id::Handle::parse(handle).ok(),
                None,
            ),
            &ProxyQuery::new(),
        );
    }
    page(StatusCode::NOT_FOUND, "Handle Not Found", &text)
}

/// A 400 page or, for the REST API, a 400 JSON answer (code 102), saying `message`.
pub(crate) fn bad_request(api: bool, message: &str) -> Response<Full<Bytes>> {
    if api {
        let record = Record::error(ResponseCode::InvalidHandle, None, Some(message));
        let mut r = json_response(&record, &ProxyQuery::new());
        *r.status_mut() = StatusCode::BAD_REQUEST;
        return r;
    }
    page(StatusCode::BAD_REQUEST, "Bad Request", &escape(message))
}

/// The values of a record as an HTML table.
fn values_page(record: &Record) -> Response<Full<Bytes>> {
    let title = record
        .handle()
        .map_or(String::new(), |h| escape(h.as_str()).into_owned());
    let mut rows = String::new();
    for v in record.values() {
        let data = match v.as_text() {
            Some(t) => escape(t).into_owned(),
            None => escape(&serde_json::to_string(v.data()).unwrap_or_default()).into_owned(),
        };
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            v.index(),
            escape(v.value_type()),
            escape(v.timestamp().unwrap_or("")),
            data
        ));
    }
    let body = format!(
        "<table>\n<tr><th>Index</th><th>Type</th><th>Timestamp</th><th>Data</th></tr>\n{rows}</table>"
    );
    page(
        StatusCode::OK,
        &format!("Handle Values for: {title}"),
        &body,
    )
}

/// A small HTML page; `body` is HTML already.
fn page(status: StatusCode, title: &str, body: &str) -> Response<Full<Bytes>> {
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body><h1>{title}</h1>\n<p>{body}</p>\n</body></html>\n"
    );
    let mut r = Response::new(Full::new(Bytes::from(html)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}
