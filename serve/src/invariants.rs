//! The invariants the fuzz targets `serve` and `import` hold the server to (and
//! `tests/invariants.rs` on stable): never a panic, answers and imports as documented. Not
//! part of the API; here, beside what they test, so that the library's tests need no server.

/// A store of a few records for [`serve_request`], made once per process in the temporary
/// directory.
fn serve_store() -> &'static crate::Store {
    static STORE: std::sync::OnceLock<crate::Store> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("handle-id-fuzz-{}.redb", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let store = crate::Store::open_with_cache(&path, 1 << 20).expect("a store");
        let loc = r#"<locations><location id=\"0\" href=\"http://uk/\" country=\"gb\"/><location id=\"1\" href=\"http://a/\"/></locations>"#;
        let records = [
            r#"{"responseCode":1,"handle":"20.1000/5555","values":[{"index":1,"type":"URL","data":{"format":"string","value":"http://example.org/"}},{"index":2,"type":"EMAIL","data":{"format":"string","value":"a@b"}}]}"#.to_owned(),
            format!(r#"{{"responseCode":1,"handle":"20.1000/loc","values":[{{"index":1,"type":"10320/loc","data":{{"format":"string","value":"{loc}"}}}}]}}"#),
            r#"{"responseCode":1,"handle":"1/a","values":[{"index":1,"type":"HS_ALIAS","data":{"format":"string","value":"1/b"}}]}"#.to_owned(),
            r#"{"responseCode":1,"handle":"1/b","values":[{"index":1,"type":"HS_ALIAS","data":{"format":"string","value":"1/a"}}]}"#.to_owned(),
        ];
        store.import(records.join("\n").as_bytes(), "fuzz").expect("records");
        store
    })
}

/// A store that imports only: apart from [`serve_store`], whose records the server's
/// invariants count on.
fn import_store() -> &'static crate::Store {
    static STORE: std::sync::OnceLock<crate::Store> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let path =
            std::env::temp_dir().join(format!("handle-id-fuzz-import-{}.redb", std::process::id()));
        let _ = std::fs::remove_file(&path);
        crate::Store::open_with_cache(&path, 1 << 20).expect("a store")
    })
}

/// An import stream (one REST API response per line, as `hdl serve import` and the import
/// socket send them) into a store: never a panic; all or nothing. An import counts every
/// line (a record or empty), and afterwards the store holds, for each handle, the record
/// of its last line, as `hdl record --json` writes it (a success without values as 200).
/// A refusal names the first line no record is on (or one over the limits of
/// `crate::limits`), and the store is as it was.
pub fn import_stream(text: &str) {
    use crate::limits::{MAX_RECORD_BYTES, MAX_RECORD_VALUES};
    use handle_id::record::{Filter, Response};
    let store = import_store();
    let lines: Vec<&str> = text.lines().collect();
    // What the store holds of the handles the stream names, before.
    let handles: Vec<handle_id::Handle> = lines
        .iter()
        .filter_map(|l| Some(Response::parse(l).ok()?.handle()?.clone()))
        .collect();
    let before: Vec<_> = handles
        .iter()
        .map(|h| store.get_json(h.as_handle_ref()).expect("a read"))
        .collect();
    let held = store.len().expect("a read");
    match store.import(text.as_bytes(), "fuzz") {
        Ok(done) => {
            assert_eq!(
                (done.records + done.empty_lines) as usize,
                lines.len(),
                "{text:?}"
            );
            let mut seen = std::collections::HashSet::new();
            for line in lines.iter().rev().filter(|l| !l.trim().is_empty()) {
                let record = Response::parse(line).expect("imported, so a record");
                let handle = record.handle().expect("imported, so with a handle");
                if seen.insert(handle.canonical().as_str().to_owned()) {
                    assert_eq!(
                        store.get_json(handle.as_handle_ref()).expect("a read"),
                        Some(record.filtered(&Filter::new()).to_json().into_bytes()),
                        "{text:?}"
                    );
                }
            }
        }
        Err(e) => {
            let e = e.to_string();
            let line: usize = e
                .strip_prefix("fuzz: line ")
                .and_then(|rest| rest.split([':', ',']).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{text:?}: {e}"));
            // The lines before it were records (or empty), and this one is not, or is
            // larger than a record may be.
            let bad = lines
                .get(line - 1)
                .unwrap_or_else(|| panic!("{text:?}: {e}"));
            let earlier_ok = lines[..line - 1]
                .iter()
                .all(|l| l.trim().is_empty() || Response::parse(l).is_ok());
            assert!(earlier_ok, "{text:?}: {e}");
            assert!(
                bad.len() > MAX_RECORD_BYTES
                    || Response::parse(bad).map_or(true, |r| r.handle().is_none()
                        || !matches!(r.code().as_u32(), 1 | 200)
                        || r.values().len() > MAX_RECORD_VALUES),
                "{text:?}: {e}"
            );
            // Nothing of it was stored.
            assert_eq!(store.len().expect("a read"), held, "{text:?}: {e}");
            for (h, was) in handles.iter().zip(&before) {
                assert_eq!(
                    &store.get_json(h.as_handle_ref()).expect("a read"),
                    was,
                    "{text:?}: {e}"
                );
            }
        }
    }
}

/// The server's answer to a request for `target` (a path and query as sent), as JSON and
/// as HTML: never a panic; a status the server documents; a `Location` on a redirect and
/// only there (and a redirect to the URL form of a handle answers a query as asked); an
/// API answer (`/api/handles/…`) that is a REST response `Response::parse` reads, or JSONP
/// of one, or, for a request that names no handle, code 102 echoing what was asked (P8).
pub fn serve_request(target: &str) {
    use crate::app::{answer, Request};
    for accept in [None, Some("application/json")] {
        let response = answer(
            serve_store(),
            &Request {
                method: &hyper::Method::GET,
                target,
                accept,
                accept_language: None,
                user_agent: None,
                host: Some("127.0.0.1"),
                origin: None,
                client: std::net::IpAddr::from([127, 0, 0, 1]),
                seed: 7,
            },
        );
        let status = response.status().as_u16();
        assert!(
            [200, 301, 302, 303, 307, 308, 400, 404, 414, 500].contains(&status),
            "{status} for {target:?}"
        );
        assert_eq!(
            response.headers().contains_key("location"),
            (301..=308).contains(&status) || target.contains("redirectionHeaders") && status == 200,
            "{target:?}"
        );
        let body = body_bytes(response.into_body());
        if target.starts_with("/api/handles/") && status != 414 {
            let text = std::str::from_utf8(&body).expect("UTF-8");
            if let Err(e) = handle_id::record::Response::parse(text) {
                let echo: serde_json::Value = serde_json::from_str(text)
                    .unwrap_or_else(|_| panic!("{target:?} answered {text:?}: {e}"));
                assert_eq!(
                    echo["responseCode"], 102,
                    "{target:?} answered {text:?}: {e}"
                );
                assert!(echo["handle"].is_string(), "{target:?} answered {text:?}");
            }
        }
    }
}

fn body_bytes(body: http_body_util::Full<hyper::body::Bytes>) -> Vec<u8> {
    use hyper::body::Body as _;
    let mut body = std::pin::pin!(body);
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut out = Vec::new();
    while let std::task::Poll::Ready(Some(frame)) = body.as_mut().poll_frame(&mut cx) {
        if let Ok(data) = frame.expect("infallible").into_data() {
            out.extend_from_slice(&data);
        }
    }
    out
}

/// A `PUT` body as the write API reads it (`writes::read_values`, SPEC W2): never a panic;
/// the values read have distinct positive indices, no more than a record holds, and a
/// record of them, as the one writer writes it, reads back the same values.
pub fn write_body(body: &[u8]) {
    use handle_id::record::Response;
    let handle = handle_id::Handle::parse("20.1000/w").expect("a handle");
    let Ok(values) = crate::writes::read_values(body, handle.as_handle_ref()) else {
        return;
    };
    assert!(values.len() <= crate::limits::MAX_RECORD_VALUES);
    let mut indices: Vec<u32> = values.iter().map(|v| v.index()).collect();
    assert!(indices.iter().all(|&i| i > 0), "{indices:?}");
    indices.sort_unstable();
    indices.dedup();
    assert_eq!(indices.len(), values.len(), "indices repeat");
    let record = Response::new(handle, values.clone());
    let again = Response::parse(&record.to_json()).expect("the writer's JSON reads");
    assert_eq!(again.values(), &values[..]);
}

/// An `Authorization` header as the write API reads it (`auth::parse_authorization`,
/// SPEC W3): never a panic. Basic credentials read name a handle that parses, and written
/// again as a client writes them (the user name URL-encoded, then base64) read back the
/// same. A `Handle` header's fields, written again as quoted strings (the `id`
/// percent-encoded), read back the same; checked against a store without the identity,
/// its answer never authenticates; and the challenge that answers it, with its reason in
/// it, is a header value whose parameters read back as the session and nonce written.
pub fn authorization(header: &[u8]) {
    use crate::auth::Credentials;
    let Ok(credentials) = crate::auth::parse_authorization(header) else {
        return;
    };
    let basic = match credentials {
        Credentials::Basic(basic) => basic,
        Credentials::Handle(h) => return handle_scheme(&h),
    };
    assert!(handle_id::Handle::parse(basic.identity.handle.as_str()).is_ok());
    let user = format!(
        "{}:{}",
        basic.identity.index,
        basic.identity.handle.as_str()
    );
    let mut plain: Vec<u8> = percent_encoded(&user).into_bytes();
    plain.push(b':');
    plain.extend_from_slice(&basic.password);
    let again = format!("Basic {}", handle_id::record::base64(&plain));
    if again.len() > crate::auth::MAX_AUTHORIZATION {
        return;
    }
    let read = crate::auth::parse_authorization(again.as_bytes()).expect("written again, it reads");
    assert_eq!(read, Credentials::Basic(basic));
}

fn percent_encoded(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn handle_scheme(h: &crate::auth::HandleHeader) {
    use crate::auth::Credentials;
    let quoted = |v: &str| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
    let mut params = Vec::new();
    for (name, value) in [
        ("version", &h.version),
        ("sessionId", &h.session_id),
        ("cnonce", &h.cnonce),
        ("type", &h.kind),
        ("alg", &h.alg),
        ("signature", &h.signature),
    ] {
        if let Some(v) = value {
            params.push(format!("{name}={}", quoted(v)));
        }
    }
    if let Some(id) = &h.id {
        params.push(format!("id={}", quoted(&percent_encoded(id))));
    }
    let again = format!("Handle {}", params.join(", "));
    if params.is_empty() {
        // Only names it passes over: nothing to write again.
    } else if again.len() <= crate::auth::MAX_AUTHORIZATION {
        let read =
            crate::auth::parse_authorization(again.as_bytes()).expect("written again, it reads");
        assert_eq!(read, Credentials::Handle(h.clone()), "{again}");
    }
    let empty = |_: handle_id::HandleRef<'_>| Ok(None);
    let verified = crate::auth::verify_handle(&empty, h, &[7; 16]).expect("no store error");
    let why = verified.expect_err("no identity without its record");
    let session = crate::sessions::SessionState {
        id: h
            .session_id
            .clone()
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_hexdigit)
            .collect(),
        nonce: [1; 16],
        identity: None,
    };
    let challenge = crate::writes::challenge(&session, Some(&why));
    assert!(
        hyper::header::HeaderValue::from_str(&challenge).is_ok(),
        "{challenge}"
    );
    let Ok(Credentials::Handle(read)) = crate::auth::parse_authorization(challenge.as_bytes())
    else {
        panic!("the challenge does not read: {challenge}");
    };
    assert_eq!(read.session_id.as_deref(), Some(session.id.as_str()));
}
