//! What the proxy answers (PROXY §1–4), as the reference proxy answers (P6–P12): a
//! request's path and query read exactly as `recognize` reads proxy URLs (P3), then a
//! redirect, the values, the REST API's JSON, or a clear error. No I/O here but the
//! store's reads.

use std::cell::RefCell;
use std::net::IpAddr;

use bytes::Bytes;
use handle_id::record::{
    escape_markup as escape, ClientContext, Filter, Linked, Response as Record, ResponseCode,
    SplitMix64, Ttl, ALIAS_TYPE, NAMESPACE_TYPE,
};
use handle_id::{
    Action, Form, Handle, HandleRef, HdlUri, Options, ProxyBase, ProxyQuery, API_PATH,
};
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE, EXPIRES, LOCATION, VARY};
use hyper::{Method, Response, StatusCode};

use crate::store::{parse_stored, stored_handle, Store};
use crate::upstream::{Cached, Fetched, Upstream};

/// The longest path and query read: longer is answered 414 (a handle is at most a few
/// kilobytes; H9 warns past 2,048 bytes).
pub const MAX_TARGET: usize = 16 * 1024;

/// The longest alias chain followed (`HS_ALIAS`), as the reference follows: longer, or a
/// loop, is answered 404 (P9).
pub const MAX_ALIASES: usize = 20;

/// How many times a request is answered again after the handles it missed upstream were
/// fetched: once for each alias, each level of includes and of the namespace's includes
/// (each known only once the one before is read, L9), and the namespace itself.
pub const MAX_ROUNDS: usize = MAX_ALIASES + 2 * handle_id::record::MAX_INCLUDE_DEPTH + 6;

/// A request, as the server saw it.
pub struct Request<'a> {
    pub method: &'a Method,
    /// The path and query as sent, not decoded.
    pub target: &'a str,
    /// The `Accept` header.
    pub accept: Option<&'a str>,
    /// The `Accept-Language` header (content negotiation among locations, P11).
    pub accept_language: Option<&'a str>,
    /// The `User-Agent` header (content negotiation among locations, P11).
    pub user_agent: Option<&'a str>,
    /// The `Host` header: where an alias redirect points (P9).
    pub host: Option<&'a str>,
    /// The `Origin` header: a cross-origin request, answered with CORS headers (P12).
    pub origin: Option<&'a str>,
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
    answer_from(store, None, request)
}

/// [`answer`], reading what the store does not hold from what the request fetched and
/// `upstream`'s cache.
pub fn answer_from(
    store: &Store,
    upstream: Option<(&Upstream, &Fetched)>,
    request: &Request<'_>,
) -> Response<Full<Bytes>> {
    answer_with(store, upstream, request, usize::MAX).map_or_else(
        |Large| {
            page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Error",
                "A record beyond every bound.",
            )
        },
        |(response, _)| response,
    )
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
    answer_with(store, None, request, max_record).map(|(response, _)| response)
}

/// What an answer read beyond the store: the handles the upstream cache did not hold (to
/// fetch, and ask again), those it answered from, and whether the request asked for an
/// authoritative or a certified answer (`auth`, `cert`: fetched again whatever the cache
/// holds, SPEC P13).
#[derive(Debug, Default)]
pub struct Lookups {
    pub missed: Vec<String>,
    pub upstream: Vec<String>,
    pub auth: bool,
    pub cert: bool,
}

/// [`answer_within`], reading what the store does not hold from what the request fetched
/// and `upstream`'s cache, and saying what it looked up there.
///
/// # Errors
///
/// [`Large`], as [`answer_within`].
pub fn answer_with(
    store: &Store,
    upstream: Option<(&Upstream, &Fetched)>,
    request: &Request<'_>,
    max_record: usize,
) -> Result<(Response<Full<Bytes>>, Lookups), Large> {
    let reads = Reads {
        store,
        max_record,
        upstream,
        lookups: RefCell::default(),
    };
    let mut response = route(&reads, request)?;
    if let Some(origin) = request.origin.and_then(|o| HeaderValue::from_str(o).ok()) {
        // As the reference's CORS filter: the origin allowed back, to any answer.
        let h = response.headers_mut();
        h.insert("access-control-allow-origin", origin);
        h.insert(
            "access-control-expose-headers",
            HeaderValue::from_static("Vary,Content-Length"),
        );
        h.append(VARY, HeaderValue::from_static("Origin"));
    }
    if request.method == Method::HEAD {
        *response.body_mut() = Full::new(Bytes::new());
    }
    Ok((response, reads.lookups.into_inner()))
}

/// The store as a request reads it: records up to a length, and what it does not hold
/// from the upstream cache, if there is one.
struct Reads<'s> {
    store: &'s Store,
    max_record: usize,
    upstream: Option<(&'s Upstream, &'s Fetched)>,
    lookups: RefCell<Lookups>,
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
            Ok(None) => Ok(
                match self.upstream(handle, |bytes| parse_stored(handle.as_str(), bytes, filter))? {
                    Ok(Some(parsed)) => parsed.map(Some),
                    Ok(None) => Ok(None),
                    Err(e) => Err(e),
                },
            ),
            Ok(Some(None)) => Err(Large),
            Ok(Some(Some(parsed))) => Ok(parsed.map(Some)),
            Err(e) => Ok(Err(e)),
        }
    }

    /// `f` of what the upstream cache holds for `handle` (the store holds nothing):
    /// `Ok(None)` where it holds "not found", or nothing yet (then noted as missed), or
    /// there is no upstream; the failure it holds.
    fn upstream<T>(
        &self,
        handle: HandleRef<'_>,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<Result<Option<T>, crate::store::StoreError>, Large> {
        let Some((upstream, fetched)) = self.upstream else {
            return Ok(Ok(None));
        };
        let mut lookups = self.lookups.borrow_mut();
        let cached = fetched
            .get(handle.as_str())
            .cloned()
            .or_else(|| upstream.cached(handle.as_str()));
        Ok(match cached {
            Some(Cached::Found(json)) => {
                if json.len() > self.max_record {
                    return Err(Large);
                }
                lookups.upstream.push(handle.as_str().to_owned());
                Ok(Some(f(&json)))
            }
            Some(Cached::NotFound) => {
                lookups.upstream.push(handle.as_str().to_owned());
                Ok(None)
            }
            Some(Cached::Failed(message)) => Err(crate::store::StoreError(message.to_string())),
            None => {
                lookups.missed.push(handle.as_str().to_owned());
                Ok(None)
            }
        })
    }

    /// The stored JSON of `handle`'s record, as it is.
    fn get_json(&self, handle: HandleRef<'_>) -> Result<Option<Vec<u8>>, Large> {
        match self.store.with_json(handle, |bytes| {
            (bytes.len() <= self.max_record).then(|| bytes.to_vec())
        }) {
            Ok(Some(None)) => Err(Large),
            Ok(Some(Some(json))) => Ok(Some(json)),
            Ok(None) => Ok(self.upstream(handle, <[u8]>::to_vec)?.ok().flatten()),
            Err(_) => Ok(None),
        }
    }
}

fn route(store: &Reads<'_>, request: &Request<'_>) -> Result<Response<Full<Bytes>>, Large> {
    // POST is answered as GET, as the reference proxy answers it (P12).
    if request.method != Method::GET
        && request.method != Method::HEAD
        && request.method != Method::POST
    {
        let mut r = page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed",
            "Only GET, HEAD and POST are answered.",
        );
        r.headers_mut()
            .insert("allow", HeaderValue::from_static("GET, HEAD, POST"));
        return Ok(r);
    }
    if request.target.len() > MAX_TARGET {
        return Ok(page(
            StatusCode::URI_TOO_LONG,
            "URI Too Long",
            &format!("The path and query are longer than {MAX_TARGET} bytes."),
        ));
    }
    let path = request.target.split('?').next().unwrap_or("");
    match path {
        "" | "/" => {
            return Ok(page(
                StatusCode::OK,
                "Handle proxy",
                "Resolve a handle at /&lt;handle&gt;, or read its record at /api/handles/&lt;handle&gt;.",
            ))
        }
        "/help.html" => {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::FOUND;
            r.headers_mut().insert(
                LOCATION,
                HeaderValue::from_static("http://www.handle.net/proxy.html"),
            );
            return Ok(r);
        }
        "/robots.txt" => {
            let mut r = Response::new(Full::new(Bytes::from_static(ROBOTS)));
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
            return Ok(r);
        }
        _ => {}
    }
    if path == "/favicon.ico" {
        // No icon here (D11): not a handle either.
        return Ok(page(StatusCode::NOT_FOUND, "Not Found", "No icon here."));
    }
    if path == "/api" || (path.starts_with("/api/") && !path.starts_with("/api/handles/")) {
        let record = Record::error(
            ResponseCode::Other(4),
            None,
            Some(&format!(
                "Unknown HTTP API endpoint {} {path}",
                request.method
            )),
        );
        let mut r = json_response(&record, &ProxyQuery::new());
        *r.status_mut() = StatusCode::NOT_FOUND;
        return Ok(r);
    }
    let trimmed = trim_path(request.target);
    let uri = match HdlUri::from_request_path(&trimmed, &Options::new()) {
        Ok(uri) => uri,
        Err(e) => {
            let asked = request
                .target
                .get(1..)
                .and_then(|t| t.strip_prefix(API_PATH));
            return Ok(match asked {
                // The REST API echoes what was asked, as the reference does (P8).
                Some(asked) if !asked.is_empty() => {
                    let asked = asked.split('?').next().unwrap_or("");
                    let asked = percent_decode_lossy(asked);
                    let json = format!(
                        "{{\"responseCode\":{},\"handle\":{},\"message\":{}}}",
                        ResponseCode::InvalidHandle.as_u32(),
                        serde_json::Value::from(asked),
                        serde_json::Value::from(e.to_string())
                    );
                    let mut r = Response::new(Full::new(Bytes::from(format!("{json}\n"))));
                    *r.status_mut() = StatusCode::BAD_REQUEST;
                    r.headers_mut()
                        .insert(CONTENT_TYPE, HeaderValue::from_static(JSON_TYPE));
                    r
                }
                Some(_) => bad_request(true, &format!("{e}")),
                None => bad_request(false, &format!("{e}")),
            });
        }
    };
    let is_api = uri.form() == Form::Api;
    let query = match uri.query() {
        None => ProxyQuery::new(),
        Some(raw) if is_api => match ProxyQuery::parse_rest(raw) {
            Ok(q) => q,
            Err(e) => {
                // As the reference's REST servlet: a query it cannot read is code 4.
                let record = Record::error(
                    ResponseCode::Other(4),
                    None,
                    Some(&format!("in the query: {e}")),
                );
                let mut r = json_response(&record, &ProxyQuery::new());
                *r.status_mut() = StatusCode::BAD_REQUEST;
                return Ok(r);
            }
        },
        Some(raw) => match lenient_query(raw) {
            Ok(q) => q,
            Err(e) => return Ok(bad_request(false, &format!("in the query: {e}"))),
        },
    };
    let handle = uri.handle();
    {
        let mut lookups = store.lookups.borrow_mut();
        lookups.auth = query.auth;
        lookups.cert = query.cert;
    }
    match uri.form() {
        Form::Api => {
            // The REST API's path is the handle as it is: no `hdl:` or `doi:` taken off (P8).
            let raw = path.get(1 + API_PATH.len()..).map(percent_decode_lossy);
            match raw.filter(|raw| raw != handle.as_str()) {
                Some(raw) => match Handle::parse(&raw) {
                    Ok(h) => api(store, h.as_handle_ref(), &query),
                    Err(e) => Ok(bad_request(true, &e.to_string())),
                },
                None => api(store, handle, &query),
            }
        }
        _ if query.action == Some(Action::Api) => api(store, handle, &query),
        _ => resolve(store, handle, &query, request),
    }
}

/// The request's target with the handle's path trimmed as the reference proxy trims it
/// (P12): slashes and white space (percent-encoded, `%00`–`%20`) before the handle, and
/// white space after it, are not part of it. The REST API's paths are left as they are.
fn trim_path(target: &str) -> std::borrow::Cow<'_, str> {
    let (path, query) = match target.find('?') {
        Some(i) => target.split_at(i),
        None => (target, ""),
    };
    if path.get(1..).is_some_and(|p| p.starts_with(API_PATH)) {
        return target.into();
    }
    // `%XX` of a byte up to 0x20 at the start of `b` (all ASCII: slicing after is safe).
    let space = |b: &[u8]| match b {
        [b'%', h, l, ..] => {
            let hex = |c: &u8| char::from(*c).to_digit(16);
            matches!((hex(h), hex(l)), (Some(h), Some(l)) if h * 16 + l <= 0x20)
        }
        _ => false,
    };
    let mut rest = path;
    loop {
        if let Some(r) = rest.strip_prefix('/') {
            rest = r;
        } else if rest.len() < path.len() && space(rest.as_bytes()) {
            rest = &rest[3..];
        } else {
            break;
        }
    }
    while rest.len() >= 3 && space(&rest.as_bytes()[rest.len() - 3..]) {
        rest = &rest[..rest.len() - 3];
    }
    if rest.len() + 1 == path.len() {
        target.into()
    } else {
        format!("/{rest}{query}").into()
    }
}

/// `text` percent-decoded (a `%` without two hex digits stays), bytes that are not UTF-8
/// replaced.
fn percent_decode_lossy(text: &str) -> String {
    String::from_utf8_lossy(&percent_decode(text.as_bytes())).into_owned()
}

/// `b` percent-decoded (a `%` without two hex digits stays; a `+` is itself).
pub(crate) fn percent_decode(b: &[u8]) -> Vec<u8> {
    let hex = |c: u8| char::from(c).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The reference proxy's `robots.txt`.
const ROBOTS: &[u8] = b"User-agent: *\nCrawl-delay: 1\nRequest-rate: 1/1\n";

/// The query of a proxy page, read as the reference reads it (P12): a parameter it cannot
/// use (an `index` that is no number, a `locatt` without `:`) is passed over. More
/// parameters than [`ProxyQuery::MAX_PARAMETERS`], or a bad escape, are still an error.
pub(crate) fn lenient_query(raw: &str) -> Result<ProxyQuery, handle_id::ParseError> {
    let mut raw = raw.to_string();
    // Each round removes one parameter: bounded by their number.
    loop {
        match ProxyQuery::parse(&raw) {
            Ok(q) => return Ok(q),
            Err(e)
                if matches!(
                    e.kind(),
                    handle_id::ParseErrorKind::InvalidParameter
                        | handle_id::ParseErrorKind::PercentEncoding
                ) =>
            {
                let at = e.index().min(raw.len());
                let start = raw[..at].rfind('&').map_or(0, |i| i + 1);
                let end = raw[at..].find('&').map_or(raw.len(), |i| at + i + 1);
                if start >= end {
                    return Err(e);
                }
                raw.replace_range(start..end, "");
            }
            Err(e) => return Err(e),
        }
    }
}

/// The REST API (PROXY §4, R1–R5), or `action=api` (P8): the record of the handle as
/// asked (its own values; aliases are not followed), echoing the handle as asked.
fn api(
    store: &Reads<'_>,
    handle: HandleRef<'_>,
    query: &ProxyQuery,
) -> Result<Response<Full<Bytes>>, Large> {
    if query.index.is_empty() && query.types.is_empty() && !query.pretty && query.callback.is_none()
    {
        // The whole record, compact: the bytes `Response::to_json` wrote at import, as
        // they are (the one writer), without reading and writing them again; the handle
        // as asked when it was found in another ASCII case (P6).
        if let Some(mut json) = store
            .get_json(handle)?
            .filter(|json| !crate::store::may_restrict(json))
        {
            if let Some((at, stored)) = stored_handle(&json) {
                if stored != handle.as_str() {
                    let asked = serde_json::to_string(handle.as_str()).unwrap_or_default();
                    json.splice(at, asked.into_bytes());
                }
            }
            json.push(b'\n');
            let mut r = Response::new(Full::new(Bytes::from(json)));
            let h = r.headers_mut();
            h.insert(CONTENT_TYPE, HeaderValue::from_static(JSON_TYPE));
            return Ok(r);
        }
    }
    let record = match store.get(handle, None)? {
        Ok(Some(r)) => r.filtered(&filter(query)).with_handle(handle.to_handle()),
        Ok(None) => Record::error(ResponseCode::HandleNotFound, Some(handle.to_handle()), None),
        Err(e) => Record::error(ResponseCode::Error, None, Some(&e.to_string())),
    };
    Ok(json_response(&record, query))
}

const JSON_TYPE: &str = "application/json;charset=utf-8";
const HTML_TYPE: &str = "text/html;charset=utf-8";

/// The record as the REST API writes it: byte for byte what `hdl record --json` prints for
/// it (one writer), pretty-printed for `pretty`, as JSONP for `callback`.
pub(crate) fn json_response(record: &Record, query: &ProxyQuery) -> Response<Full<Bytes>> {
    let status = match record.code() {
        ResponseCode::Other(4) => StatusCode::BAD_REQUEST,
        code => {
            StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
        }
    };
    let json = if query.pretty {
        record.to_json_pretty()
    } else {
        record.to_json()
    };
    let (body, kind) = match &query.callback {
        None => (format!("{json}\n"), JSON_TYPE),
        Some(cb) => match handle_id::record::jsonp(cb, &json) {
            Ok(wrapped) => (
                format!("{wrapped}\n"),
                "application/javascript;charset=utf-8",
            ),
            Err(e) => return bad_request(true, &e.to_string()),
        },
    };
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}

pub(crate) fn filter(query: &ProxyQuery) -> Filter {
    let mut f = Filter::new();
    for &i in &query.index {
        f = f.index(i);
    }
    for t in &query.types {
        f = f.value_type(t);
    }
    f
}

/// Resolution (PROXY §1, §3), as the reference proxy resolves: the values the query
/// selects; an `HS_ALIAS` among them resolves its target instead, with the same selection
/// (P9), and a redirect to a handle reached so is a 301 to the target's own proxy URL;
/// then a redirect, the locations, or the values.
fn resolve(
    store: &Reads<'_>,
    asked: HandleRef<'_>,
    query: &ProxyQuery,
    request: &Request<'_>,
) -> Result<Response<Full<Bytes>>, Large> {
    let filtered = !(query.index.is_empty() && query.types.is_empty());
    let show =
        query.action == Some(Action::ShowValues) || (query.action.is_none() && query.noredirect);
    // A redirect (or `showurls`) reads only the values it can use: the URLs, the
    // locations and the aliases; the rest of the record is not built.
    let redirects = !filtered && !show;
    let selection = filter(query);
    let read = |handle: HandleRef<'_>| -> Result<Found, Large> {
        let record = found(
            store.get(handle, redirects.then(redirect_filter))?,
            handle.as_str(),
        );
        // The handle as asked (or as the alias names it): what `{hdl}` of a location's
        // template stands for (L5).
        let record = record.map(|r| r.with_handle(handle.to_handle()));
        Ok(record.map(|r| if filtered { r.filtered(&selection) } else { r }))
    };
    let mut record = match read(asked)? {
        Ok(r) => r,
        Err(answer) => return Ok(*answer),
    };
    // Aliases (P9): the chain followed to its end, at most MAX_ALIASES handles.
    let mut current = asked.to_handle();
    let mut hops = 0;
    let mut alias_ttl: Option<i64> = None;
    while let Some(alias) = record
        .values()
        .iter()
        .find(|v| !query.ignore_aliases && v.value_type().eq_ignore_ascii_case(ALIAS_TYPE))
    {
        if hops == MAX_ALIASES {
            return Ok(page(
                StatusCode::NOT_FOUND,
                "Alias chain too long",
                &format!(
                    "The aliases of {} loop or run longer than {MAX_ALIASES} handles.",
                    escape(asked.as_str())
                ),
            ));
        }
        if let Some(Ttl::Seconds(s)) = alias.ttl() {
            alias_ttl = Some(alias_ttl.map_or(*s, |t| t.min(*s)).max(0));
        }
        let text = alias.as_text().unwrap_or_default().to_owned();
        let Ok(next) = Handle::parse(&text) else {
            return Ok(not_found(&text));
        };
        record = match read(next.as_handle_ref())? {
            Ok(r) => r,
            Err(answer) => return Ok(*answer),
        };
        current = next;
        hops += 1;
    }
    if show || (filtered && record.values().is_empty()) {
        // The values below (none: what the query selects is not there).
    } else if query.action == Some(Action::ShowUrls) {
        if let Some(xml) = record.proxy_show_urls(&linked(store, &record)?) {
            let mut r = Response::new(Full::new(Bytes::from(xml)));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/xml;charset=utf-8"),
            );
            return Ok(r);
        }
    } else if hops > 0 && request.method != Method::POST {
        return Ok(alias_redirect(&current, alias_ttl, request));
    } else {
        let client = client_context(query, request);
        let linked = linked(store, &record)?;
        if let Some(to) =
            record.proxy_redirect(&client, &mut SplitMix64::new(request.seed), &linked)
        {
            let target = format!("{}{}", to.url, query.urlappend.as_deref().unwrap_or(""));
            let status = if query.other.iter().any(|(n, _)| n == "redirectionHeaders") {
                StatusCode::OK
            } else {
                StatusCode::from_u16(to.status).unwrap_or(StatusCode::FOUND)
            };
            let mut r = redirect_page(status, &target, &to.ttls, &to.page_head);
            let h = r.headers_mut();
            if to.vary_accept {
                h.append(VARY, HeaderValue::from_static("Accept"));
            }
            // The record's own headers (L8), but those that frame the answer.
            for (name, value) in &to.headers {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(value),
                ) {
                    if !FRAMING.contains(&name.as_str()) {
                        h.append(name, value);
                    }
                }
            }
            return Ok(r);
        }
    }
    // No redirect: the values are shown, all of them (or those the query selects), of
    // the handle at the end of the alias chain.
    let record = if redirects {
        match found(store.get(current.as_handle_ref(), None)?, current.as_str()) {
            Ok(r) => r,
            Err(answer) => return Ok(*answer),
        }
    } else {
        record
    };
    Ok(values_page(&record, current.as_handle_ref()))
}

/// The `locatt` pairs, address and country a location is chosen by (L5, P11): the query's
/// `locatt`, `action=metadata`, then what `Accept` and `Accept-Language` ask for, as the
/// reference proxy turns them into `locatt` pairs.
fn client_context(query: &ProxyQuery, request: &Request<'_>) -> ClientContext {
    ClientContext::of_request(
        query,
        request.accept,
        request.accept_language,
        request.user_agent,
        Some(request.client),
    )
}

/// Headers a record's `10320/headers` may not set (L8): the server frames its answers.
const FRAMING: [&str; 8] = [
    "connection",
    "content-length",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// A redirect to `target` (P7): the URL encoded as a URI, `Expires` after the smallest
/// time to live of the values used, and a short page naming the target, with `head`'s
/// lines in its head (L8).
fn redirect_page(
    status: StatusCode,
    target: &str,
    ttls: &[Ttl],
    head: &[String],
) -> Response<Full<Bytes>> {
    let shown = escape(target);
    let mut lines = String::new();
    for (i, line) in head.iter().enumerate() {
        if i == 0 {
            lines.push('\n');
        }
        lines.push_str(line);
        lines.push('\n');
    }
    let body = format!(
        "<html><head><title>Handle Redirect</title>{lines}</head>\n<body><a href=\"{shown}\">{shown}</a></body></html>"
    );
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&encode_location(target)) {
        h.insert(LOCATION, location);
    }
    if let Some(expires) = expires(ttls) {
        h.insert(EXPIRES, expires);
    }
    h.insert(CONTENT_TYPE, HeaderValue::from_static(HTML_TYPE));
    r
}

/// The answer to a handle with an alias (P9): 301 to the proxy URL of the handle at the
/// end of the chain, on this server, with the query as asked; no body.
fn alias_redirect(
    target: &Handle,
    ttl: Option<i64>,
    request: &Request<'_>,
) -> Response<Full<Bytes>> {
    let path = ProxyBase::request_path(target.as_handle_ref(), false);
    let query = request
        .target
        .split_once('?')
        .map_or(String::new(), |(_, q)| format!("?{q}"));
    let url = match request.host {
        Some(host) => format!("http://{host}{path}{query}"),
        None => format!("{path}{query}"),
    };
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::MOVED_PERMANENTLY;
    let h = r.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&encode_location(&url)) {
        h.insert(LOCATION, location);
    }
    if let Some(expires) = expires(&[Ttl::Seconds(ttl.unwrap_or(0))]) {
        h.insert(EXPIRES, expires);
    }
    r
}

/// `Expires` (P7): the earliest expiry of `ttls`, each now and so many seconds or a time
/// of its own, and no later than two days from now (the reference's bound,
/// `MAX_RECOGNIZED_TTL`); none when no value says.
fn expires(ttls: &[Ttl]) -> Option<HeaderValue> {
    const MAX_TTL: u64 = 2 * 86_400;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let at = earliest_expiry(ttls.iter(), now)?.min(now + MAX_TTL);
    HeaderValue::from_str(&http_date(at)).ok()
}

/// The earliest expiry of `ttls` in seconds since 1970, `now` being that many: each now and
/// so many seconds, or a time of its own; none when no value says.
pub(crate) fn earliest_expiry<'t>(ttls: impl Iterator<Item = &'t Ttl>, now: u64) -> Option<u64> {
    ttls.filter_map(|t| match t {
        Ttl::Seconds(s) => Some(now.saturating_add_signed(*s)),
        Ttl::Until(time) => iso_seconds(time),
    })
    .min()
}

/// Seconds since 1970 of a time as the REST API writes one (`2030-01-01T00:00:00Z`).
fn iso_seconds(time: &str) -> Option<u64> {
    u64::try_from(handle_proto::rest::time_seconds(time)?).ok()
}

/// An HTTP date (RFC 9110 §5.6.7, IMF-fixdate) of seconds since 1970.
pub fn http_date(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs / 86_400;
    let rest = secs % 86_400;
    let (year, month, day) = handle_proto::rest::civil(i64::try_from(days).unwrap_or(0));
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        DAYS[usize::try_from(days % 7).unwrap_or(0)],
        MONTHS[usize::try_from(month - 1).unwrap_or(0)],
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// A URL as a `Location` header holds it (P7): a non-ASCII host of an `http`, `https` or
/// `ftp` URL in its IDNA form, then every byte outside visible ASCII, and `` "<>\^`{|} ``,
/// percent-encoded (UTF-8); a `%` stays as it is, so what is encoded already stays so.
pub fn encode_location(url: &str) -> String {
    let url = url.trim();
    let url = idna_host(url).unwrap_or_else(|| url.to_string());
    let mut out = String::with_capacity(url.len());
    for b in url.bytes() {
        if b.is_ascii_graphic()
            && !matches!(
                b,
                b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
            )
        {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URL with its host in ASCII (IDNA), when it is an `http`, `https` or `ftp` URL whose
/// host is not ASCII and converts.
fn idna_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !["http", "https", "ftp"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
    {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_start = authority.rfind('@').map_or(0, |i| i + 1);
    let host_end = authority[host_start..]
        .find(':')
        .map_or(authority.len(), |i| host_start + i);
    let host = &authority[host_start..host_end];
    if host.is_ascii() {
        return None;
    }
    let ascii = idna::domain_to_ascii(host).ok()?;
    Some(format!(
        "{scheme}://{}{ascii}{}",
        &authority[..host_start],
        &rest[host_end..]
    ))
}

/// The values a redirect, `showurls` and alias following read (PROXY §1, §3).
fn redirect_filter() -> &'static Filter {
    static FILTER: std::sync::OnceLock<Filter> = std::sync::OnceLock::new();
    FILTER.get_or_init(|| {
        Filter::new()
            .value_type("URL.")
            .value_type("10320/loc.")
            .value_type("10320/links.")
            .value_type("10320/headers.")
            .value_type(ALIAS_TYPE)
    })
}

/// The values of other handles that the choice of a location for `record` reads (L9:
/// those its `<locations>` include or name, and its prefix's handle for the namespace),
/// from the store or upstream, each read once and at most
/// [`MAX_LINKED`](handle_id::record::MAX_LINKED) of them. One the
/// upstream cache does not hold yet counts as not found, and is noted as missed: the
/// request is answered again once it is fetched.
fn linked(store: &Reads<'_>, record: &Record) -> Result<Linked, Large> {
    let types = LINKED_FILTER.get_or_init(|| {
        Filter::new()
            .value_type("10320/loc.")
            .value_type("10320/links.")
            .value_type("10320/headers.")
            .value_type(NAMESPACE_TYPE)
    });
    let mut linked = Linked::new();
    // Each round adds at least one handle: at most MAX_LINKED rounds.
    loop {
        let wanted = record.linked_wanted(&linked);
        if wanted.is_empty() {
            return Ok(linked);
        }
        for handle in wanted {
            let values = match Handle::parse(&handle) {
                Ok(h) => match store.get(h.as_handle_ref(), Some(types))? {
                    Ok(Some(r)) => Some(r.values().to_vec()),
                    _ => None,
                },
                Err(_) => None,
            };
            linked.insert(&handle, values);
        }
    }
}

static LINKED_FILTER: std::sync::OnceLock<Filter> = std::sync::OnceLock::new();

/// A record found, or the answer to give when there is none.
type Found = Result<Record, Box<Response<Full<Bytes>>>>;

/// The record a store read found, or the answer when it found none (404) or failed (500).
fn found(read: Read, handle: &str) -> Found {
    match read {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err(Box::new(not_found(handle))),
        Err(e) => Err(Box::new(page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error",
            &escape(&e.to_string()),
        ))),
    }
}

fn not_found(handle: &str) -> Response<Full<Bytes>> {
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

/// The values of a record as an HTML table, titled with the handle as asked.
fn values_page(record: &Record, asked: HandleRef<'_>) -> Response<Full<Bytes>> {
    let title = escape(asked.as_str()).into_owned();
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
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(HTML_TYPE));
    r
}

#[cfg(test)]
mod tests {
    use super::{http_date, iso_seconds};

    /// RFC 9110's example, the epoch, and a time past what 4 signed bytes hold.
    #[test]
    fn dates_as_headers_and_records_write_them() {
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(iso_seconds("1994-11-06T08:49:37Z"), Some(784_111_777));
        assert_eq!(iso_seconds("1994-11-06T08:49:37.250Z"), Some(784_111_777));
        assert_eq!(iso_seconds("2040-01-01T00:00:00Z"), Some(2_208_988_800));
        assert_eq!(http_date(2_208_988_800), "Sun, 01 Jan 2040 00:00:00 GMT");
        assert_eq!(iso_seconds("1969-12-31T23:59:59Z"), None);
        assert_eq!(iso_seconds("2040-01-01 00:00:00Z"), None);
    }
}
