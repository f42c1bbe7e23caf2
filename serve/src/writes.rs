//! Writes through the REST API (SPEC W1–W8): `PUT` and `DELETE` of
//! `/api/handles/<handle>`, as HANDLE.NET's `HandleJsonRestApiServlet` takes them and its
//! server carries them out: the same query parameters, bodies, checks in the same order,
//! `responseCode`s and HTTP statuses. Each request is one store transaction
//! ([`Store::change`]): atomic, durable when answered, seen at once by every reader.
//! No I/O here but the store's.

use bytes::Bytes;
use handle_id::record::{AdminPermissions as P, HandleValue, Response as Record};
use handle_id::{Handle, HandleRef, API_PATH};
use handle_proto::ResponseCode as RC;
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::{Method, Response, StatusCode};

use crate::auth::{self, Basic, Credentials, Identity};
use crate::sessions::{SessionState, Sessions};
use crate::store::{Change, Lookup, Store, StoreError};

/// The largest request body read: a record at its largest, and room for the JSON around
/// its values. Longer is answered 413 without reading on.
pub const MAX_BODY: usize = crate::limits::MAX_RECORD_BYTES + 64 * 1024;

/// A write request, as the server saw it.
pub struct WriteRequest<'a> {
    pub method: &'a Method,
    /// The path and query as sent, not decoded.
    pub target: &'a str,
    /// The `Content-Type` header.
    pub content_type: Option<&'a str>,
    /// The `Authorization` header.
    pub authorization: Option<&'a [u8]>,
    /// Whether credentials may travel on this connection (TLS, or a loopback peer: W4).
    pub secure: bool,
    /// The sessions of the `Handle` scheme (W3).
    pub sessions: &'a Sessions,
    /// The body, read whole (at most [`MAX_BODY`]).
    pub body: &'a [u8],
    /// Seconds since 1970: the timestamp of the values written.
    pub now: i64,
}

/// The answer to a write, and the log line of what it did (who, what handle, which
/// indices, the result: never a value's data).
pub struct Written {
    pub response: Response<Full<Bytes>>,
    pub log: String,
}

/// An answer that is not a success: the response code, a message if any, and the
/// handle it is about if any.
#[derive(Debug)]
struct Refused {
    code: u32,
    message: Option<String>,
    /// The HTTP status when it is not the one the code maps to.
    status: Option<StatusCode>,
    /// Whether the answer names the handle: not when the request was refused before the
    /// reference forms it (a body or query it cannot read, W7).
    echo: bool,
}

impl Refused {
    fn new(code: u32, message: impl Into<Option<String>>) -> Self {
        Self {
            code,
            message: message.into(),
            status: None,
            echo: true,
        }
    }

    fn status(mut self, status: StatusCode) -> Self {
        self.status = Some(status);
        self
    }
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Self::new(RC::ERROR.0, e.to_string())
    }
}

/// What was asked: the operation, with what it needs.
#[derive(Debug)]
enum Op {
    /// `PUT` without `index`: the handle with these values (created, or replaced unless
    /// `overwrite=false`); `mint` puts a new suffix after the handle given.
    Create {
        values: Vec<HandleValue>,
        overwrite: bool,
        mint: bool,
    },
    /// `PUT` with `index`: these values added, or replacing those at their indices
    /// unless `overwrite=false`.
    Add {
        values: Vec<HandleValue>,
        overwrite: bool,
    },
    /// `DELETE` without `index`.
    Delete,
    /// `DELETE` with `index`.
    Remove { indices: Vec<u32> },
}

impl Op {
    fn name(&self) -> &'static str {
        match self {
            Self::Create { .. } => "create",
            Self::Add { .. } => "add-values",
            Self::Delete => "delete",
            Self::Remove { .. } => "remove-values",
        }
    }

    fn indices(&self) -> Vec<u32> {
        match self {
            Self::Create { values, .. } | Self::Add { values, .. } => {
                values.iter().map(HandleValue::index).collect()
            }
            Self::Delete => Vec::new(),
            Self::Remove { indices } => indices.clone(),
        }
    }
}

/// The answer to a `PUT` or `DELETE` under `/api/handles/`.
#[must_use]
pub fn write(store: &Store, request: &WriteRequest<'_>) -> Written {
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target, ""));
    let asked = path
        .get(1..)
        .and_then(|p| p.strip_prefix(API_PATH))
        .map_or_else(|| Ok(String::new()), decode);
    // A handle is UTF-8 (H5): bytes that are not are refused, never replaced.
    let (asked, not_utf8) = match asked {
        Ok(text) => (text, false),
        Err(lossy) => (lossy, true),
    };
    let mut who = String::from("-");
    let mut op_name = if request.method == Method::DELETE {
        "delete"
    } else {
        "put"
    };
    let mut indices = Vec::new();
    let mut handle_shown = asked.clone();
    // The `Handle` session the request named and that is alive, and why its answer did
    // not authenticate, if it did not: for the challenge of a 401.
    let mut session: Option<SessionState> = None;
    let mut handle_error: Option<String> = None;
    let result = (|| {
        if not_utf8 {
            // Not echoed: it is no handle to name.
            return Err(Refused {
                echo: false,
                ..Refused::new(
                    RC::INVALID_HANDLE.0,
                    "the handle is not UTF-8 once percent-decoded (SPEC H5)".to_owned(),
                )
            });
        }
        let handle = parse_handle(&asked)?;
        let basic = credentials(store, request, &mut session, &mut handle_error)?;
        match &basic {
            Some(Creds::Basic(b)) => who = b.identity.to_string(),
            Some(Creds::Proven(id)) => who = id.to_string(),
            None => {}
        }
        let op = operation(request, query, handle.as_handle_ref()).map_err(|r| Refused {
            echo: r.code != RC::PROTOCOL_ERROR.0,
            ..r
        })?;
        op_name = op.name();
        indices = op.indices();
        let (done, written) = carry_out(store, handle, basic, op, request.now)?;
        handle_shown = written.as_str().to_owned();
        Ok::<_, Refused>(done)
    })();
    let (response, code) = match result {
        Ok(done) => {
            let status = if done.created {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            (
                json(
                    status,
                    &format!(
                        "{{\"responseCode\":1,\"handle\":{}}}",
                        json_string(&handle_shown)
                    ),
                ),
                RC::SUCCESS.0,
            )
        }
        Err(refused) => {
            let r = refusal(
                request,
                &refused,
                &handle_shown,
                session,
                handle_error.as_deref(),
            );
            (r, refused.code)
        }
    };
    let log = format!(
        "{{\"event\":\"write\",\"ts\":{},\"who\":{},\"op\":\"{op_name}\",\"handle\":{},\"indices\":{},\"responseCode\":{code},\"status\":{}}}",
        request.now,
        json_string(&who),
        json_string(&handle_shown.chars().take(512).collect::<String>()),
        serde_json::Value::from(indices),
        response.status().as_u16()
    );
    Written { response, log }
}

/// The answer of a refusal: its code, message and (unless `echo` is off) the handle, with
/// the reference's status; a 401 with the challenges of W3/W4: Basic unless the client
/// chose the Handle scheme, and the Handle scheme's where credentials may travel (the
/// request's session if it named one alive, else a new one).
fn refusal(
    request: &WriteRequest<'_>,
    refused: &Refused,
    handle_shown: &str,
    session: Option<SessionState>,
    handle_error: Option<&str>,
) -> Response<Full<Bytes>> {
    let status = refused.status.unwrap_or_else(|| status_of(refused.code));
    let mut body = format!("{{\"responseCode\":{}", refused.code);
    if let Some(m) = &refused.message {
        body.push_str(&format!(",\"message\":{}", json_string(m)));
    }
    if refused.echo && !handle_shown.is_empty() {
        body.push_str(&format!(",\"handle\":{}", json_string(handle_shown)));
    }
    body.push('}');
    let mut r = json(status, &body);
    if status == StatusCode::UNAUTHORIZED {
        let handle_scheme = request
            .authorization
            .is_some_and(|a| matches!(auth::parse_authorization(a), Ok(Credentials::Handle(_))));
        // Basic is offered unless the client chose the Handle scheme, as the
        // reference offers it; the Handle challenge only where credentials may
        // travel (W4): a session is made for it.
        if !handle_scheme {
            r.headers_mut().append(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"handle\""),
            );
        }
        if request.secure {
            let s = session.unwrap_or_else(|| request.sessions.open(std::time::Instant::now()));
            if let Ok(v) = HeaderValue::from_str(&challenge(&s, handle_error)) {
                r.headers_mut().append(WWW_AUTHENTICATE, v);
            }
        }
    }
    r
}

/// The most handles one listing answers without `page` and `pageSize` (or in one page):
/// the answer is built whole, so that it is bounded (about 5 MB); `totalCount` says how
/// many there are.
pub const MAX_LISTED: usize = 100_000;

/// `GET /api/handles?prefix=…` (SPEC W9): the handles under a prefix, to an identity
/// its prefix handle's admins give list-handles, as the reference's `ListCallback` and
/// server answer it: `prefix` a prefix (`20.5000`) or its handle (`0.NA/20.5000`);
/// `page` and `pageSize` (both, each from 0) for one page; the checks in the reference's
/// order: credentials, the prefix's handle held (else 301), authentication (402),
/// permission (400).
#[must_use]
pub fn list_handles(store: &Store, request: &WriteRequest<'_>) -> Written {
    let query = request.target.split_once('?').map_or("", |(_, q)| q);
    let params = parameters(query);
    let get = |name: &str| parameter(&params, name);
    let prefix = get("prefix").unwrap_or("").to_owned();
    let number = |name: &str| {
        get(name)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(-1)
    };
    let (page, page_size) = (number("page"), number("pageSize"));
    let paged = page >= 0 && page_size >= 0;
    let mut who = String::from("-");
    let mut session = None;
    let mut handle_error = None;
    let result = (|| {
        let creds = credentials(store, request, &mut session, &mut handle_error)?;
        match &creds {
            Some(Creds::Basic(b)) => who = b.identity.to_string(),
            Some(Creds::Proven(id)) => who = id.to_string(),
            None => {}
        }
        let na = if prefix.contains('/') {
            prefix.clone()
        } else {
            format!("0.NA/{prefix}")
        };
        let not_here = || {
            Refused::new(
                RC::SERVER_NOT_RESP.0,
                format!("this server does not hold the prefix handle {na} (SPEC W9)"),
            )
        };
        let na = Handle::parse(&na).map_err(|_| not_here())?;
        let local = match na.as_str().split_once('/') {
            Some((zero, local)) if zero.eq_ignore_ascii_case("0.NA") => local.to_owned(),
            _ => return Err(not_here()),
        };
        let Some(admins) = store.get_whole(na.as_handle_ref())? else {
            return Err(not_here());
        };
        let lookup = |h: HandleRef<'_>| store.get_whole(h);
        let identity = authenticated(&lookup, creds.as_ref())?;
        if !auth::permitted(&lookup, &identity, P::LIST_HANDLES, admins.values())? {
            return Err(not_admin());
        }
        let (skip, take) = if paged {
            (
                u64::try_from(page.saturating_mul(page_size)).unwrap_or(u64::MAX),
                usize::try_from(page_size)
                    .unwrap_or(usize::MAX)
                    .min(MAX_LISTED),
            )
        } else {
            (0, MAX_LISTED)
        };
        Ok(store.list_prefix(&local, skip, take)?)
    })();
    let (response, code) = match result {
        Ok((total, handles)) => {
            let mut body = format!(
                "{{\"responseCode\":1,\"prefix\":{},\"totalCount\":\"{total}\"",
                json_string(&prefix)
            );
            if paged {
                body.push_str(&format!(",\"page\":{page},\"pageSize\":{page_size}"));
            }
            body.push_str(&format!(
                ",\"handles\":{}}}",
                serde_json::Value::from(handles)
            ));
            (json(StatusCode::OK, &body), RC::SUCCESS.0)
        }
        Err(refused) => (
            refusal(request, &refused, "", session, handle_error.as_deref()),
            refused.code,
        ),
    };
    let log = format!(
        "{{\"event\":\"list\",\"ts\":{},\"who\":{},\"op\":\"list-handles\",\"prefix\":{},\"responseCode\":{code},\"status\":{}}}",
        request.now,
        json_string(&who),
        json_string(&prefix.chars().take(512).collect::<String>()),
        response.status().as_u16()
    );
    Written { response, log }
}

/// The HTTP status of a response code to a write, as the reference's
/// `statusCodeFromResponse` gives it (a success is 200 or 201, said elsewhere).
fn status_of(code: u32) -> StatusCode {
    match RC(code) {
        RC::SUCCESS => StatusCode::OK,
        RC::HANDLE_NOT_FOUND => StatusCode::NOT_FOUND,
        RC::HANDLE_ALREADY_EXISTS | RC::VALUE_ALREADY_EXISTS => StatusCode::CONFLICT,
        RC::PROTOCOL_ERROR
        | RC::INVALID_HANDLE
        | RC::INVALID_VALUE
        | RC::VALUES_NOT_FOUND
        | RC::SERVER_NOT_RESP => StatusCode::BAD_REQUEST,
        RC::AUTHENTICATION_NEEDED => StatusCode::UNAUTHORIZED,
        RC::INVALID_ADMIN
        | RC::INSUFFICIENT_PERMISSIONS
        | RC::AUTHENTICATION_FAILED
        | RC::INVALID_CREDENTIAL => StatusCode::FORBIDDEN,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn parse_handle(asked: &str) -> Result<Handle, Refused> {
    if asked.is_empty() {
        return Err(Refused::new(
            RC::INVALID_HANDLE.0,
            "Empty handle invalid".to_owned(),
        ));
    }
    Handle::parse(asked).map_err(|e| Refused::new(RC::INVALID_HANDLE.0, e.to_string()))
}

/// A `WWW-Authenticate` challenge of the `Handle` scheme: the session and its nonce, and
/// why an answer failed, if one did (escaped as the reference escapes it: `"` and `\`
/// behind a `\`, bytes outside printable ASCII and `%` as `%XX`).
#[must_use]
pub fn challenge(session: &SessionState, error: Option<&str>) -> String {
    let mut out = format!(
        "Handle sessionId=\"{}\", nonce=\"{}\"",
        session.id,
        handle_id::record::base64(&session.nonce)
    );
    if let Some(error) = error {
        out.push_str(", error=\"");
        for &b in error.as_bytes() {
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b' '..=b'~' if b != b'%' => out.push(char::from(b)),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out.push('"');
    }
    out
}

/// What a request's credentials are once read: Basic, checked in the write's
/// transaction, or an identity the `Handle` scheme proved.
enum Creds {
    Basic(Basic),
    Proven(Identity),
}

/// The credentials of the request, if it has any, on a connection they may travel on
/// (W4: TLS or loopback; elsewhere refused, as the reference refuses authentication on a
/// plain channel). A `Handle` header is decided here, before the request is read further,
/// as the reference's filter decides it: its session must be alive; an answer to its
/// nonce must verify (then the session keeps the identity); a session alone gives the
/// identity it proved, if any.
fn credentials(
    store: &Store,
    request: &WriteRequest<'_>,
    session: &mut Option<SessionState>,
    handle_error: &mut Option<String>,
) -> Result<Option<Creds>, Refused> {
    let Some(header) = request.authorization else {
        return Ok(None);
    };
    if !request.secure {
        return Err(Refused::new(
            RC::AUTHENTICATION_NEEDED.0,
            "credentials are taken only over TLS or from a loopback address: this connection is neither (SPEC W4)".to_owned(),
        )
        .status(StatusCode::FORBIDDEN));
    }
    let failed = |why: String| {
        Refused::new(RC::AUTHENTICATION_FAILED.0, why).status(StatusCode::UNAUTHORIZED)
    };
    let handle = match auth::parse_authorization(header) {
        Ok(Credentials::Basic(b)) => return Ok(Some(Creds::Basic(b))),
        Ok(Credentials::Handle(h)) => h,
        Err(e) => return Err(failed(e.to_string())),
    };
    let now = std::time::Instant::now();
    let alive = match &handle.session_id {
        Some(id) => match request.sessions.get(id, now) {
            Some(s) => Some(s),
            None => {
                let why = "the session is unknown or has ended: open another (SPEC W3)".to_owned();
                *handle_error = Some(why.clone());
                return Err(failed(why));
            }
        },
        None => None,
    };
    *session = alive.clone();
    if !handle.is_authenticating() {
        return Ok(alive.and_then(|s| s.identity).map(Creds::Proven));
    }
    let Some(alive) = alive else {
        let why = "an answer needs the session whose nonce it signs: sessionId".to_owned();
        *handle_error = Some(why.clone());
        return Err(failed(why));
    };
    let lookup = |h: HandleRef<'_>| store.get_whole(h);
    match auth::verify_handle(&lookup, &handle, &alive.nonce)? {
        Ok(who) => {
            request.sessions.authenticate(&alive.id, who.clone(), now);
            Ok(Some(Creds::Proven(who)))
        }
        Err(why) => {
            *handle_error = Some(why.clone());
            Err(failed(why))
        }
    }
}

/// The query's parameters, decoded as a servlet decodes them (`+` is a space).
fn parameters(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            let text = |t: &str| decode(&t.replace('+', " ")).unwrap_or_else(|lossy| lossy);
            (text(n), text(v))
        })
        .collect()
}

/// The first value of the parameter `name`, as the reference's `getParameter` gives it.
fn parameter<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Java's `Boolean.parseBoolean`: `true` in any case, anything else false.
fn java_bool(v: &str) -> bool {
    v.eq_ignore_ascii_case("true")
}

/// The operation asked for, with its body read (W1, W2).
fn operation(
    request: &WriteRequest<'_>,
    query: &str,
    handle: HandleRef<'_>,
) -> Result<Op, Refused> {
    let params = parameters(query);
    let get = |name: &str| parameter(&params, name);
    let raw_indices: Vec<&str> = params
        .iter()
        .filter(|(n, _)| n == "index")
        .map(|(_, v)| v.as_str())
        .collect();
    let various = request.method == Method::PUT && get("index") == Some("various");
    let indices = if various || raw_indices.is_empty() {
        None
    } else {
        Some(
            raw_indices
                .iter()
                .map(|i| {
                    i.parse::<i64>()
                        .ok()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(|| {
                            Refused::new(
                                RC::PROTOCOL_ERROR.0,
                                format!("the index {i:?} is not a number"),
                            )
                        })
                })
                .collect::<Result<Vec<i32>, _>>()?,
        )
    };
    if request.method == Method::DELETE {
        return Ok(match indices {
            None => Op::Delete,
            // A negative index names no value: not found, as the reference finds it.
            Some(indices) => Op::Remove {
                indices: indices
                    .into_iter()
                    .map(|i| u32::try_from(i).unwrap_or(0))
                    .collect(),
            },
        });
    }
    let json_body = request.content_type.is_some_and(|t| {
        let t = t.trim().to_ascii_lowercase();
        t == "application/json"
            || t.strip_prefix("application/json")
                .is_some_and(|rest| rest.trim_start().starts_with(';'))
    });
    if !json_body {
        return Err(Refused::new(
            RC::PROTOCOL_ERROR.0,
            format!(
                "Unsupported media type {}: the values are sent as application/json",
                request.content_type.unwrap_or("(none)")
            ),
        ));
    }
    let values = values_of(request.body, handle)?;
    if let Some(asked) = &indices {
        let mut a: Vec<i64> = asked.iter().map(|&i| i64::from(i)).collect();
        let mut v: Vec<i64> = values.iter().map(|v| i64::from(v.index())).collect();
        a.sort_unstable();
        a.dedup();
        v.sort_unstable();
        v.dedup();
        if a != v {
            return Err(Refused::new(
                RC::PROTOCOL_ERROR.0,
                "Mismatched indexes in PUT request".to_owned(),
            ));
        }
    }
    let overwrite = get("overwrite").is_none_or(java_bool);
    if indices.is_none() && !various {
        Ok(Op::Create {
            values,
            overwrite,
            mint: get("mintNewSuffix").is_some_and(java_bool),
        })
    } else {
        Ok(Op::Add { values, overwrite })
    }
}

/// The values of a `PUT` body (W2), as the reference reads them: an array of values, an
/// object with `values` (and a `handle`, which must be this one in any ASCII case), or one
/// value (an object with `index`, `type` and `data`). Each value is read by the one reader
/// of REST API values (`handle_id::record`).
///
/// # Errors
///
/// The body is none of these, or a value does not read: the message says which.
pub fn read_values(body: &[u8], handle: HandleRef<'_>) -> Result<Vec<HandleValue>, String> {
    values_of(body, handle)
        .map(Ok)
        .unwrap_or_else(|r| Err(r.message.unwrap_or_default()))
}

fn values_of(body: &[u8], handle: HandleRef<'_>) -> Result<Vec<HandleValue>, Refused> {
    let invalid = || {
        Refused::new(
            RC::PROTOCOL_ERROR.0,
            "Invalid JSON in PUT request".to_owned(),
        )
    };
    let json: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| Refused::new(RC::PROTOCOL_ERROR.0, format!("the body is not JSON: {e}")))?;
    let values = match json {
        serde_json::Value::Array(_) => json,
        serde_json::Value::Object(mut o) => {
            if let Some(values) = o.remove("values") {
                if let Some(h) = o.get("handle") {
                    let same = h
                        .as_str()
                        .is_some_and(|h| h.eq_ignore_ascii_case(handle.as_str()));
                    if !same {
                        return Err(Refused::new(
                            RC::PROTOCOL_ERROR.0,
                            "Mismatched handle in PUT request".to_owned(),
                        ));
                    }
                }
                values
            } else if ["index", "type", "data"].iter().all(|k| o.contains_key(*k)) {
                serde_json::Value::Array(vec![serde_json::Value::Object(o)])
            } else {
                return Err(invalid());
            }
        }
        _ => return Err(invalid()),
    };
    let mut values = match values {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::Array(v) => v,
        _ => return Err(invalid()),
    };
    for v in &mut values {
        // Data given as a bare string (or number): its text, as the reference reads it.
        if let Some(data) = v.get_mut("data") {
            let text = match data {
                serde_json::Value::String(s) => Some(std::mem::take(s)),
                serde_json::Value::Number(n) => Some(n.to_string()),
                serde_json::Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
            if let Some(text) = text {
                *data = serde_json::json!({"format": "string", "value": text});
            }
        }
    }
    // The reference's own checks and codes first: the record reader would refuse these
    // too, as an invalid record.
    let raw: Vec<u32> = values
        .iter()
        .filter_map(|v| v.get("index").and_then(serde_json::Value::as_i64))
        .map(|i| u32::try_from(i).unwrap_or(0))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for &i in &raw {
        if i == 0 {
            return Err(Refused::new(
                RC::INVALID_VALUE.0,
                "Indexes must be positive".to_owned(),
            ));
        }
        if !seen.insert(i) {
            return Err(Refused::new(
                RC::VALUE_ALREADY_EXISTS.0,
                format!("Index conflict for {i}"),
            ));
        }
    }
    let wrapped =
        serde_json::json!({"responseCode": 1, "handle": handle.as_str(), "values": values});
    // The reference's reader refuses what does not read as values before its server sees
    // them: a protocol error (4), as any request it cannot read.
    let record = Record::parse(&wrapped.to_string())
        .map_err(|e| Refused::new(RC::PROTOCOL_ERROR.0, format!("the values: {e}")))?;
    if record.values().len() > crate::limits::MAX_RECORD_VALUES {
        return Err(Refused::new(
            RC::INVALID_VALUE.0,
            format!(
                "{} values: a record holds at most {}",
                record.values().len(),
                crate::limits::MAX_RECORD_VALUES
            ),
        ));
    }
    Ok(record.values().to_vec())
}

/// What a write did.
struct Done {
    /// Answered 201: a handle made, or values added where none were.
    created: bool,
}

/// Positive, distinct indices (the reference's checks, in its order and codes).
fn check_indices(values: &[HandleValue]) -> Result<(), Refused> {
    let mut seen = std::collections::HashSet::new();
    for v in values {
        if v.index() == 0 || v.index() > i32::MAX as u32 {
            return Err(Refused::new(
                RC::INVALID_VALUE.0,
                "Indexes must be positive".to_owned(),
            ));
        }
        if !seen.insert(v.index()) {
            return Err(Refused::new(
                RC::VALUE_ALREADY_EXISTS.0,
                format!("Index conflict for {}", v.index()),
            ));
        }
    }
    Ok(())
}

/// The identity the credentials prove, or why there is none.
fn authenticated(lookup: &Lookup<'_>, creds: Option<&Creds>) -> Result<Identity, Refused> {
    let basic = match creds {
        Some(Creds::Basic(basic)) => basic,
        Some(Creds::Proven(who)) => return Ok(who.clone()),
        None => {
            return Err(Refused::new(
                RC::AUTHENTICATION_NEEDED.0,
                "Authentication needed: HTTP Basic with index:handle and its secret key, or the Handle scheme with a key of HS_PUBKEY".to_owned(),
            ))
        }
    };
    auth::verify(lookup, basic)?.ok_or_else(|| {
        Refused::new(
            RC::AUTHENTICATION_FAILED.0,
            "Identity not verified".to_owned(),
        )
        .status(StatusCode::UNAUTHORIZED)
    })
}

fn not_admin() -> Refused {
    Refused::new(RC::INVALID_ADMIN.0, None)
}

fn timestamp(now: i64) -> String {
    handle_proto::rest::iso8601(now)
}

/// A suffix as the reference mints one: a random (version 4) UUID.
fn uuid() -> Result<String, Refused> {
    use std::io::Read;
    let mut b = [0_u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|e| Refused::new(RC::ERROR.0, format!("no random bytes for a suffix: {e}")))?;
    b[6] = (b[6] & 0x0F) | 0x40;
    b[8] = (b[8] & 0x3F) | 0x80;
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    Ok(s)
}

/// The operation, in one store transaction; the handle written (a minted one, if so).
fn carry_out(
    store: &Store,
    handle: Handle,
    basic: Option<Creds>,
    op: Op,
    now: i64,
) -> Result<(Done, Handle), Refused> {
    let mut handle = handle;
    if let Op::Create { mint: true, .. } = &op {
        // The suffix is chosen before the transaction (it reads nothing) and checked in it.
        handle = Handle::parse(&format!("{}{}", handle.as_str(), uuid()?))
            .map_err(|e| Refused::new(RC::INVALID_HANDLE.0, e.to_string()))?;
    }
    let written = handle.clone();
    let outcome = store.change(handle.as_handle_ref(), |lookup, current| {
        match decide(lookup, &handle, basic.as_ref(), op, current, now) {
            Ok((change, done)) => (change, Ok(done)),
            Err(refused) => (Change::Keep, Err(refused)),
        }
    })?;
    outcome.map(|done| (done, written))
}

/// What becomes of the record, and the answer: the reference server's checks, in its
/// order (W5, W6).
fn decide(
    lookup: &Lookup<'_>,
    handle: &Handle,
    basic: Option<&Creds>,
    op: Op,
    current: Option<Record>,
    now: i64,
) -> Result<(Change, Done), Refused> {
    let stamp = timestamp(now);
    match op {
        Op::Create {
            values, overwrite, ..
        } => {
            let (creator, create_perm) = auth::creator(handle.as_handle_ref())
                .ok_or_else(|| Refused::new(RC::INVALID_HANDLE.0, None))?;
            let creator_record = lookup(creator.as_handle_ref())?;
            if creator_record.is_none() && current.is_none() {
                return Err(Refused::new(
                    RC::SERVER_NOT_RESP.0,
                    format!(
                        "this server does not hold {}, so it takes no handles under it (SPEC W6)",
                        creator.as_str()
                    ),
                ));
            }
            check_indices(&values)?;
            if current.is_some() && !overwrite {
                return Err(Refused::new(RC::HANDLE_ALREADY_EXISTS.0, None));
            }
            let who = authenticated(lookup, basic)?;
            let mut new_values = Vec::with_capacity(values.len());
            let mut needed = 0;
            if let Some(old) = &current {
                for v in old.values() {
                    if !values.iter().any(|n| n.index() == v.index()) {
                        needed |= auth::needed(Some(v), None);
                    }
                }
                for n in values {
                    let o = old.values().iter().find(|o| o.index() == n.index());
                    needed |= auth::needed(o, Some(&n));
                    new_values.push(match o {
                        Some(o) if auth::same_value(o, &n) => o
                            .timestamp()
                            .map_or(n.clone(), |t| n.clone().with_timestamp(t)),
                        _ => n.with_timestamp(&stamp),
                    });
                }
                let own = old.values();
                let authorised = needed == 0
                    || (needed & P::ADD_ADMIN == 0 && auth::permitted(lookup, &who, needed, own)?)
                    || auth::permitted(lookup, &who, P::ADD_ADMIN, own)?
                    || auth::permitted(lookup, &who, P::DELETE_HANDLE, own)?;
                if !authorised {
                    return Err(not_admin());
                }
            } else {
                let admins = creator_record
                    .map(|r| r.values().to_vec())
                    .unwrap_or_default();
                if !auth::permitted(lookup, &who, create_perm, &admins)? {
                    return Err(not_admin());
                }
                new_values = values
                    .into_iter()
                    .map(|v| v.with_timestamp(&stamp))
                    .collect();
            }
            let created = current.is_none();
            Ok((
                Change::Put(Record::new(handle.clone(), new_values)),
                Done { created },
            ))
        }
        Op::Add { values, overwrite } => {
            if values.is_empty() {
                return Err(Refused::new(
                    RC::INVALID_VALUE.0,
                    "Empty value list".to_owned(),
                ));
            }
            check_indices(&values)?;
            let who = authenticated(lookup, basic)?;
            let Some(old) = current else {
                return Err(Refused::new(RC::HANDLE_NOT_FOUND.0, None));
            };
            let mut merged = old.values().to_vec();
            let mut needed = 0;
            let mut replaced = None;
            for n in values {
                match merged.iter_mut().find(|o| o.index() == n.index()) {
                    Some(o) => {
                        replaced.get_or_insert(n.index());
                        needed |= auth::needed(Some(o), Some(&n));
                        *o = if auth::same_value(o, &n) {
                            o.clone()
                        } else {
                            n.with_timestamp(&stamp)
                        };
                    }
                    None => {
                        needed |= auth::needed(None, Some(&n));
                        merged.push(n.with_timestamp(&stamp));
                    }
                }
            }
            // In index order, as the reference merges them.
            merged.sort_by_key(HandleValue::index);
            if let (Some(i), false) = (replaced, overwrite) {
                return Err(Refused::new(
                    RC::VALUE_ALREADY_EXISTS.0,
                    format!("Index conflict for {i}"),
                ));
            }
            if merged.len() > crate::limits::MAX_RECORD_VALUES {
                return Err(Refused::new(
                    RC::INVALID_VALUE.0,
                    format!(
                        "a record holds at most {} values",
                        crate::limits::MAX_RECORD_VALUES
                    ),
                ));
            }
            if needed != 0 && !auth::permitted(lookup, &who, needed, old.values())? {
                return Err(not_admin());
            }
            Ok((
                Change::Put(Record::new(handle.clone(), merged)),
                Done {
                    created: replaced.is_none(),
                },
            ))
        }
        Op::Delete => {
            let who = authenticated(lookup, basic)?;
            let Some(old) = current else {
                return Err(Refused::new(RC::HANDLE_NOT_FOUND.0, None));
            };
            if !auth::permitted(lookup, &who, P::DELETE_HANDLE, old.values())? {
                return Err(not_admin());
            }
            Ok((Change::Delete, Done { created: false }))
        }
        Op::Remove { indices } => {
            let who = authenticated(lookup, basic)?;
            let Some(old) = current else {
                return Err(Refused::new(RC::HANDLE_NOT_FOUND.0, None));
            };
            let mut needed = 0;
            for &i in &indices {
                let Some(v) = old.values().iter().find(|v| v.index() == i) else {
                    return Err(Refused::new(RC::VALUES_NOT_FOUND.0, None));
                };
                needed |= auth::needed(Some(v), None);
            }
            if !auth::permitted(lookup, &who, needed, old.values())? {
                return Err(not_admin());
            }
            let kept = old
                .values()
                .iter()
                .filter(|v| !indices.contains(&v.index()))
                .cloned()
                .collect();
            Ok((
                Change::Put(Record::new(handle.clone(), kept)),
                Done { created: false },
            ))
        }
    }
}

/// The answer to a method the REST API does not take on `/api/…` (W1): JSON, as the
/// reference answers it: `OPTIONS` with what it takes, `TRACE` 405, any other method 501;
/// each with code 4.
#[must_use]
pub fn other_method(method: &Method, target: &str) -> Response<Full<Bytes>> {
    const ALLOW: &str = "GET, HEAD, POST, PUT, DELETE, OPTIONS";
    let path = target.split('?').next().unwrap_or("");
    if method == Method::OPTIONS {
        let mut r = Response::new(Full::new(Bytes::new()));
        r.headers_mut()
            .insert("allow", HeaderValue::from_static(ALLOW));
        return r;
    }
    // The servlet's own methods; it answers any other 501 (PATCH and CONNECT too). TRACE,
    // which the servlet would echo back, is refused here as a method it does not take.
    let known = [Method::TRACE, Method::PUT, Method::DELETE].contains(method);
    let (status, message) = if known {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            format!("Unknown HTTP API endpoint {method} {path}"),
        )
    } else {
        (
            StatusCode::NOT_IMPLEMENTED,
            format!("Unknown method {method}"),
        )
    };
    let mut r = json(
        status,
        &format!(
            "{{\"responseCode\":{},\"message\":{}}}",
            RC::PROTOCOL_ERROR.0,
            json_string(&message)
        ),
    );
    r.headers_mut()
        .insert("allow", HeaderValue::from_static(ALLOW));
    r
}

/// `GET /api/handles/<handle>` with credentials (SPEC W10), as the reference's REST API
/// reads for an authenticated request: the values selected (`type`, `index`) with those
/// that deny public read, to an identity the handle's `HS_ADMIN` values give read-value;
/// 403, code 401, when one of them denies admin read too; the credentials refused as a
/// write refuses them. `None`: answered as any read is (a connection credentials may not
/// travel on, credentials that prove no one, `publicOnly=true`, a handle not held or not
/// read, every value selected public).
#[must_use]
pub fn restricted_read(store: &Store, request: &WriteRequest<'_>) -> Option<Written> {
    // On a plain connection from afar the reference reads for no one: a public read.
    if !request.secure {
        return None;
    }
    let (path, raw_query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target, ""));
    if parameters(raw_query)
        .iter()
        .any(|(n, v)| n == "publicOnly" && java_bool(v))
    {
        return None;
    }
    let asked = decode(path.get(1..)?.strip_prefix(API_PATH)?).ok()?;
    let handle = Handle::parse(&asked).ok()?;
    let query = crate::app::lenient_query(raw_query).ok()?;
    let mut session = None;
    let mut handle_error = None;
    let mut who = String::from("-");
    let result = (|| {
        let creds = credentials(store, request, &mut session, &mut handle_error)?;
        let Some(creds) = creds else {
            return Ok(None);
        };
        let Some(record) = store.get_whole(handle.as_handle_ref())? else {
            return Ok(None);
        };
        let selected = record
            .filtered(&crate::app::filter(&query))
            .with_handle(handle.clone());
        let restricted: Vec<&HandleValue> = selected
            .values()
            .iter()
            .filter(|v| !crate::store::public_read(v))
            .collect();
        if restricted.is_empty() {
            return Ok(None);
        }
        // The permissions read from the right: admin read is the fourth.
        let admin_read = |v: &HandleValue| {
            v.permissions()
                .and_then(|p| p.as_bytes().iter().rev().nth(3))
                .is_none_or(|&b| b == b'1')
        };
        if !restricted.iter().all(|v| admin_read(v)) {
            return Err(Refused::new(RC::INSUFFICIENT_PERMISSIONS.0, None));
        }
        let lookup = |h: HandleRef<'_>| store.get_whole(h);
        let identity = authenticated(&lookup, Some(&creds))?;
        who = identity.to_string();
        if !auth::permitted(&lookup, &identity, P::READ_VALUE, record.values())? {
            return Err(not_admin());
        }
        Ok(Some(selected))
    })();
    let (response, code) = match result {
        Ok(None) => return None,
        Ok(Some(selected)) => (crate::app::json_response(&selected, &query), RC::SUCCESS.0),
        Err(refused) => (
            refusal(
                request,
                &refused,
                handle.as_str(),
                session,
                handle_error.as_deref(),
            ),
            refused.code,
        ),
    };
    let log = format!(
        "{{\"event\":\"read\",\"ts\":{},\"who\":{},\"op\":\"read-restricted\",\"handle\":{},\"responseCode\":{code},\"status\":{}}}",
        request.now,
        json_string(&who),
        json_string(&handle.as_str().chars().take(512).collect::<String>()),
        response.status().as_u16()
    );
    Some(Written { response, log })
}

/// The answer to a request under `/api/sessions` (SPEC W3), as the reference's
/// `SessionsServlet` gives it: `POST /api/sessions` opens a session (201, `Location:
/// /api/sessions/this`, its `sessionId` and `nonce`); on `/api/sessions/this` the session
/// named by `Authorization: Handle sessionId="…"` is read (`GET`, `HEAD`) or answered
/// (`PUT`, `POST`: the header's signature of its nonce authenticates it), 401 when an
/// answer fails, 403 when no session is named or it has ended; `DELETE` ends it (204).
/// Only where credentials may travel (W4): elsewhere 403. Every answer is JSON.
#[must_use]
pub fn session_request(
    store: &Store,
    sessions: &Sessions,
    method: &Method,
    target: &str,
    authorization: Option<&[u8]>,
    secure: bool,
) -> Response<Full<Bytes>> {
    const ALLOW_ROOT: &str = "POST, TRACE, OPTIONS";
    const ALLOW_THIS: &str = "GET, HEAD, POST, PUT, DELETE, TRACE, OPTIONS";
    let refused = body_refused;
    let with_allow = |mut r: Response<Full<Bytes>>, allow: &'static str| {
        r.headers_mut()
            .insert("allow", HeaderValue::from_static(allow));
        r
    };
    let path = target.split('?').next().unwrap_or("");
    let rest = path
        .strip_prefix("/api/sessions")
        .map(|r| r.strip_prefix('/').unwrap_or(r))
        .unwrap_or("");
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if method == Method::TRACE {
        return refused(StatusCode::METHOD_NOT_ALLOWED, "TRACE is not answered");
    }
    if !secure && method != Method::OPTIONS {
        return refused(
            StatusCode::FORBIDDEN,
            "sessions are kept only over TLS or from a loopback address (SPEC W4)",
        );
    }
    if rest.is_empty() {
        if method == Method::OPTIONS {
            return with_allow(Response::new(Full::new(Bytes::new())), ALLOW_ROOT);
        }
        if method != Method::POST {
            return with_allow(
                refused(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "a session is opened by POST",
                ),
                ALLOW_ROOT,
            );
        }
    } else {
        if method == Method::OPTIONS {
            return with_allow(Response::new(Full::new(Bytes::new())), ALLOW_THIS);
        }
        if rest != "this" {
            return refused(StatusCode::FORBIDDEN, "the session is /api/sessions/this");
        }
    }
    let header = match authorization.map(auth::parse_authorization) {
        None | Some(Ok(Credentials::Basic(_))) => None,
        Some(Ok(Credentials::Handle(h))) => Some(h),
        Some(Err(e)) => {
            return refused(StatusCode::BAD_REQUEST, &e.to_string());
        }
    };
    let now = std::time::Instant::now();
    let session = if rest.is_empty() {
        if header.as_ref().is_some_and(|h| h.session_id.is_some()) {
            return refused(
                StatusCode::BAD_REQUEST,
                "a new session is asked without a sessionId",
            );
        }
        Some(sessions.open(now))
    } else {
        let named = header
            .as_ref()
            .and_then(|h| h.session_id.as_deref())
            .and_then(|id| sessions.get(id, now));
        if named.is_none() && (method == Method::DELETE || header.is_some()) {
            return refused(
                StatusCode::FORBIDDEN,
                "no session is named, or it has ended",
            );
        }
        named
    };
    if method == Method::DELETE {
        if let Some(s) = &session {
            sessions.close(&s.id);
        }
        let mut r = Response::new(Full::new(Bytes::new()));
        *r.status_mut() = StatusCode::NO_CONTENT;
        return r;
    }
    let mut body = serde_json::Map::new();
    let mut status = if rest.is_empty() {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut identity = session.as_ref().and_then(|s| s.identity.clone());
    if let Some(s) = &session {
        body.insert("sessionId".into(), s.id.clone().into());
        body.insert("nonce".into(), handle_id::record::base64(&s.nonce).into());
        if let Some(h) = header.as_ref().filter(|h| h.is_authenticating()) {
            let lookup = |h: HandleRef<'_>| store.get_whole(h);
            match auth::verify_handle(&lookup, h, &s.nonce) {
                Ok(Ok(who)) => {
                    sessions.authenticate(&s.id, who.clone(), now);
                    identity = Some(who);
                }
                Ok(Err(why)) => {
                    body.insert("error".into(), why.into());
                    // A new session answers 201 whatever its answer did, as the reference.
                    if !rest.is_empty() {
                        status = StatusCode::UNAUTHORIZED;
                    }
                }
                Err(e) => {
                    return refused(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
                }
            }
        }
    }
    if let Some(who) = identity.filter(|_| status != StatusCode::UNAUTHORIZED) {
        body.insert("authenticated".into(), true.into());
        body.insert("id".into(), who.to_string().into());
    }
    if body.is_empty() {
        body.insert("authenticated".into(), false.into());
    }
    let mut r = json(status, &serde_json::Value::Object(body).to_string());
    if rest.is_empty() {
        r.headers_mut()
            .insert("location", HeaderValue::from_static("/api/sessions/this"));
    }
    r
}

/// A request refused with code 4 and `message` (W1, W7): a body too large, or not sent in
/// time (W8), a session request it cannot take.
#[must_use]
pub fn body_refused(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    json(
        status,
        &format!(
            "{{\"responseCode\":{},\"message\":{}}}",
            RC::PROTOCOL_ERROR.0,
            json_string(message)
        ),
    )
}

fn json(status: StatusCode, body: &str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(format!("{body}\n"))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/json;charset=utf-8"),
    );
    r
}

fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// `text` percent-decoded (a `%` without two hex digits stays); bytes that are not UTF-8
/// are an error, with the text where they are replaced.
fn decode(text: &str) -> Result<String, String> {
    String::from_utf8(crate::app::percent_decode(text.as_bytes()))
        .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Credentials from a peer that is not loopback, without TLS, are refused before the
    /// store is read (W4): even right ones.
    #[test]
    fn credentials_on_a_plain_connection_from_afar_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb")).unwrap();
        store
            .import(
                &br#"{"responseCode":1,"handle":"0.NA/1","values":[{"index":300,"type":"HS_SECKEY","data":{"format":"string","value":"k"}},{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/1","index":300,"permissions":"111111111111"}}}]}"#[..],
                "t",
            )
            .unwrap();
        // `300%3A0.NA%2F1` and `k`.
        let header = b"Basic MzAwJTNBMC5OQSUyRjE6aw==";
        let sessions = Sessions::new();
        let request = |secure| WriteRequest {
            sessions: &sessions,
            method: &Method::PUT,
            target: "/api/handles/1/a",
            content_type: Some("application/json"),
            authorization: Some(header),
            secure,
            body: b"[]",
            now: 0,
        };
        let refused = write(&store, &request(false));
        assert_eq!(refused.response.status(), StatusCode::FORBIDDEN);
        assert!(
            refused.log.contains("\"responseCode\":402"),
            "{}",
            refused.log
        );
        assert!(store
            .get(HandleRef::parse("1/a").unwrap())
            .unwrap()
            .is_none());
        let taken = write(&store, &request(true));
        assert_eq!(
            taken.response.status(),
            StatusCode::CREATED,
            "{}",
            taken.log
        );
        assert!(store
            .get(HandleRef::parse("1/a").unwrap())
            .unwrap()
            .is_some());
        // The log says who and what, never the key.
        assert!(
            taken.log.contains("\"who\":\"300:0.NA/1\""),
            "{}",
            taken.log
        );
        assert!(!taken.log.contains("\"k\""), "{}", taken.log);
    }
}
