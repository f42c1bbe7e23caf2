//! `hdl serve` end to end: the real server on a loopback port, spoken to over HTTP by a
//! small client written here, for every behaviour of PROXY §1–4 and the bad requests.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use handle_id::record::Response;
use handle_serve::{Config, Store};

/// The source document's response for `/api/handles/4263537/4000` (PROXY §4), as it
/// prints it.
const FULL: &str = r#"{ "responseCode":1, "handle":"4263537/4000", "values":[ { "index":100, "type":"HS_ADMIN", "data":{ "format":"admin", "value":{ "handle":"0.NA/4263537", "index":200, "permissions":"011111111111" } }, "ttl":86400, "timestamp":"2000-04-10T22:41:46Z" }, { "index":1, "type":"URL", "data":{ "format":"string", "value":"https://www.handle.net/index.html" }, "ttl":86400, "timestamp":"2001-11-21T16:21:35Z" }, { "index":2, "type":"EMAIL", "data":{ "format":"string", "value":"hdladmin@cnri.reston.va.us" }, "ttl":86400, "timestamp":"2000-04-10T22:41:46Z" } ] }"#;

/// The same page's response to `…?type=URL&type=EMAIL&callback=processResponse`.
const FILTERED: &str = r#"processResponse({ "responseCode":1, "handle":"4263537/4000", "values":[ { "index":1, "type":"URL", "data":{ "format":"string", "value":"https://www.handle.net/index.html" }, "ttl":86400, "timestamp":"2001-11-21T16:21:35Z" }, { "index":2, "type":"EMAIL", "data":{ "format":"string", "value":"hdladmin@cnri.reston.va.us" }, "ttl":86400, "timestamp":"2000-04-10T22:41:46Z" } ] });"#;

/// The records the tests serve: the source document's, L4's example, aliases, handles with
/// characters that need encoding, a DOI in capitals.
fn records() -> String {
    let loc = r#"<locations><location id="0" href="http://uk.example/" country="gb" weight="0"/><location id="1" href="http://one.example/"/><location id="2" href="http://two.example/"/><location id="3" href="http://local.example/" addresses="127.0.0.2/32" weight="0"/></locations>"#;
    let url = |h: &str, u: &str| {
        format!(
            r#"{{"responseCode":1,"handle":{},"values":[{{"index":1,"type":"URL","data":{{"format":"string","value":{}}}}}]}}"#,
            serde_json::Value::from(h),
            serde_json::Value::from(u)
        )
    };
    let alias = |h: &str, to: &str| {
        format!(
            r#"{{"responseCode":1,"handle":"{h}","values":[{{"index":1,"type":"HS_ALIAS","data":{{"format":"string","value":"{to}"}}}}]}}"#
        )
    };
    [
        FULL.replace('\n', ""),
        format!(
            r#"{{"responseCode":1,"handle":"20.1000/loc","values":[{{"index":1,"type":"10320/loc","data":{{"format":"string","value":{}}}}},{{"index":2,"type":"URL","data":{{"format":"string","value":"http://fallback.example/"}}}}]}}"#,
            serde_json::Value::from(loc)
        ),
        url("20.1000/5555", "https://example.org/5555"),
        url("20.1000/5555#resolve", "https://example.org/hash"),
        url("20.1000/a?b", "https://example.org/question"),
        url("20.1000/a/b", "https://example.org/slash"),
        url("20.1000/é", "https://example.org/accent"),
        url("10.1000/ABC", "https://example.org/doi"),
        alias("1/alias", "20.1000/5555"),
        alias("1/loop-a", "1/loop-b"),
        alias("1/loop-b", "1/loop-a"),
    ]
    .join("\n")
}

struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
    store_path: PathBuf,
}

impl Server {
    fn start(config: Config) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store_path = dir.path().join("store.redb");
        let store = Store::open(&store_path).unwrap();
        store.import(records().as_bytes(), "records").unwrap();
        Self::on(store, config, dir, store_path)
    }

    fn on(store: Store, config: Config, dir: tempfile::TempDir, store_path: PathBuf) -> Self {
        Self::on_shared(Arc::new(store), config, dir, store_path)
    }

    fn on_shared(
        store: Arc<Store>,
        config: Config,
        dir: tempfile::TempDir,
        store_path: PathBuf,
    ) -> Self {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let store_path_for_imports = store_path.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                // Imports while running, as `hdl serve` takes them.
                #[cfg(unix)]
                let _imports = (!store_path_for_imports.as_os_str().is_empty()).then(|| {
                    handle_serve::imports::listen(
                        store.clone(),
                        &handle_serve::imports::socket_path(&store_path_for_imports),
                        handle_serve::limits::IMPORT_READ_TIMEOUT,
                    )
                    .unwrap()
                });
                // Listening for imports before the test is told the address.
                tx.send(listener.local_addr().unwrap()).unwrap();
                handle_serve::serve(store, listener, config, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        let addr = rx.recv().unwrap();
        Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
            store_path,
        }
    }

    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            self.thread.take().unwrap().join().unwrap();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn quiet() -> Config {
    Config {
        access_log: false,
        ..Config::default()
    }
}

/// An HTTP answer: status, headers (lowercase names), body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_answer(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// Sends `request` as it is and reads the answer until the server closes.
fn send(addr: SocketAddr, request: &[u8]) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse_answer(&raw)
}

fn get_with(addr: SocketAddr, target: &str, headers: &str) -> Answer {
    send(
        addr,
        format!("GET {target} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n{headers}\r\n")
            .as_bytes(),
    )
}

fn get(addr: SocketAddr, target: &str) -> Answer {
    get_with(addr, target, "")
}

#[test]
fn the_source_documents_examples() {
    let server = Server::start(quiet());
    let a = get(server.addr, "/api/handles/4263537/4000");
    assert_eq!(
        (a.status, a.header("content-type")),
        (200, Some("application/json;charset=utf-8"))
    );
    // CORS headers answer a request with an Origin, as the reference's filter does.
    assert_eq!(a.header("access-control-allow-origin"), None);
    let cors = get_with(
        server.addr,
        "/api/handles/4263537/4000",
        "origin: https://app.example\r\n",
    );
    assert_eq!(
        cors.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(cors.header("vary"), Some("Origin"));
    let expected = Response::parse(FULL).unwrap();
    assert_eq!(Response::parse(&a.body).unwrap(), expected);
    // Byte for byte what `hdl record --json` prints: the one writer, and a line break.
    assert_eq!(a.body, format!("{}\n", expected.to_json()));
    let a = get(
        server.addr,
        "/api/handles/4263537/4000?type=URL&type=EMAIL&callback=processResponse",
    );
    assert_eq!(
        a.header("content-type"),
        Some("application/javascript;charset=utf-8")
    );
    let filtered = Response::parse(FILTERED).unwrap();
    assert_eq!(
        a.body,
        format!("processResponse({});\n", filtered.to_json())
    );
    let a = get(server.addr, "/api/handles/4263537/4000?index=2&pretty");
    assert_eq!(
        a.body,
        format!(
            "{}\n",
            expected
                .filtered(&handle_id::record::Filter::new().index(2))
                .to_json_pretty()
        )
    );
}

#[test]
fn rest_api_codes_r1() {
    let server = Server::start(quiet());
    let a = get(server.addr, "/api/handles/20.1000/none");
    assert_eq!(
        (a.status, a.body.as_str()),
        (404, "{\"responseCode\":100,\"handle\":\"20.1000/none\"}\n")
    );
    let a = get(server.addr, "/api/handles/20.1000/5555?type=EMAIL");
    assert_eq!(
        (a.status, a.body.as_str()),
        (
            200,
            "{\"responseCode\":200,\"handle\":\"20.1000/5555\",\"values\":[]}\n"
        )
    );
    let a = get(server.addr, "/api/handles/20.1000/5555?callback=alert(1)");
    assert_eq!(a.status, 400, "{a:?}");
    let a = get(server.addr, "/api/handles/nohandle");
    assert_eq!(a.status, 400);
    assert!(a.body.starts_with("{\"responseCode\":102,"), "{}", a.body);
    assert!(a.body.contains("\"handle\":\"nohandle\""), "{}", a.body);
}

#[test]
fn resolution() {
    let server = Server::start(quiet());
    let to = |target: &str| {
        let a = get(server.addr, target);
        (a.status, a.header("location").map(str::to_owned))
    };
    assert_eq!(
        to("/4263537/4000"),
        (302, Some("https://www.handle.net/index.html".into()))
    );
    assert_eq!(
        to("/20.1000/5555?urlappend=%3Fpage%3D2"),
        (302, Some("https://example.org/5555?page=2".into()))
    );
    // Handles read exactly as `recognize` reads proxy URLs (P3).
    assert_eq!(
        to("/20.1000/5555%23resolve").1.as_deref(),
        Some("https://example.org/hash")
    );
    assert_eq!(
        to("/20.1000/5555#resolve").1.as_deref(),
        Some("https://example.org/5555")
    );
    assert_eq!(
        to("/20.1000/a%3Fb").1.as_deref(),
        Some("https://example.org/question")
    );
    assert_eq!(
        to("/20.1000/a%2Fb").1.as_deref(),
        Some("https://example.org/slash")
    );
    assert_eq!(
        to("/20.1000/%C3%A9").1.as_deref(),
        Some("https://example.org/accent")
    );
    assert_eq!(
        to("/hdl:20.1000/5555").1.as_deref(),
        Some("https://example.org/5555")
    );
    assert_eq!(
        to("/doi:10.1000/abc").1.as_deref(),
        Some("https://example.org/doi")
    );
    // A DOI in any case (C1).
    assert_eq!(
        to("/10.1000/aBc").1.as_deref(),
        Some("https://example.org/doi")
    );
    // Aliases: a 301 to the target's own proxy URL on this server (P9), unless asked not
    // to follow them, with a bound on the chain.
    assert_eq!(
        to("/1/alias"),
        (301, Some("http://test/20.1000/5555".into()))
    );
    assert_eq!(to("/1/alias?ignore_aliases").0, 200);
    assert_eq!(to("/1/loop-a").0, 404);
    // noredirect: the values; as REST JSON when asked for JSON.
    let a = get(server.addr, "/4263537/4000?noredirect");
    assert_eq!(a.status, 200);
    assert!(
        a.body.contains("<td>hdladmin@cnri.reston.va.us</td>"),
        "{}",
        a.body
    );
    // JSON only from the REST API or action=api (P8), whatever Accept says.
    let a = get_with(
        server.addr,
        "/4263537/4000?noredirect",
        "accept: application/json\r\n",
    );
    assert_eq!(a.header("content-type"), Some("text/html;charset=utf-8"));
    let a = get(server.addr, "/4263537/4000?action=api");
    assert_eq!(
        Response::parse(&a.body).unwrap(),
        Response::parse(FULL).unwrap()
    );
    // type and index select which values redirect.
    let a = get(server.addr, "/4263537/4000?type=EMAIL");
    assert_eq!(a.status, 200, "no URL value left: the values");
    // showurls.
    let a = get(server.addr, "/20.1000/loc?action=showurls");
    assert_eq!(a.header("content-type"), Some("text/xml;charset=utf-8"));
    // The four locations, and the URL value beside them as the reference lists it (P10).
    assert_eq!(a.body.matches("<location ").count(), 5, "{}", a.body);
    assert!(
        a.body
            .contains(r#"<location mode="legacy" weight="0.0" href="http://fallback.example/"/>"#),
        "{}",
        a.body
    );
    // Not found, and the trailing slash warning with a link without it.
    let a = get(server.addr, "/20.1000/none");
    assert_eq!(a.status, 404);
    assert!(a.body.contains("Handle Not Found"));
    let a = get(server.addr, "/20.1000/5555/");
    assert_eq!(a.status, 404);
    assert!(a.body.contains("<a href=\"/20.1000/5555\">"), "{}", a.body);
    // HEAD: the same status and headers, no body.
    let a = send(
        server.addr,
        b"HEAD /4263537/4000 HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n",
    );
    assert_eq!((a.status, a.body.as_str()), (302, ""));
    let a = send(
        server.addr,
        b"POST /4263537/4000 HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(a.status, 302, "POST is answered as GET (P12)");
    let a = send(
        server.addr,
        b"PUT /4263537/4000 HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(a.status, 405);
}

/// L4's example through real requests: `locatt`, the client's country, and the client's
/// address as the test sets it (a connection from 127.0.0.2).
#[test]
fn l4_through_requests() {
    let server = Server::start(quiet());
    let to = |target: &str| {
        get(server.addr, target)
            .header("location")
            .map(str::to_owned)
    };
    assert_eq!(
        to("/20.1000/loc?locatt=id:1").as_deref(),
        Some("http://one.example/")
    );
    assert_eq!(
        to("/20.1000/loc?locatt=id:0").as_deref(),
        Some("http://uk.example/")
    );
    assert_eq!(
        to("/20.1000/loc?country=gb").as_deref(),
        Some("http://uk.example/")
    );
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..60 {
        let url = to("/20.1000/loc?country=us").unwrap();
        assert_ne!(url, "http://uk.example/", "outside GB, never id 0");
        assert_ne!(
            url, "http://local.example/",
            "weight 0, not this client's address"
        );
        seen.insert(url);
    }
    assert_eq!(seen.len(), 2, "ids 1 and 2 at random: {seen:?}");
    // An `ip=` in the query is not the client's address, as the reference reads none.
    for _ in 0..20 {
        assert_ne!(
            to("/20.1000/loc?country=us&ip=127.0.0.2").as_deref(),
            Some("http://local.example/")
        );
    }
    // From 127.0.0.2: the location of that address.
    let from = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let s = tokio::net::TcpSocket::new_v4().unwrap();
        s.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let mut stream = s.connect(server.addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream
            .write_all(b"GET /20.1000/loc HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        parse_answer(&raw)
    });
    assert_eq!(from.header("location"), Some("http://local.example/"));
}

/// A `10320/loc` value that does not read is passed over, as the reference proxy passes
/// it over: the URL value redirects, `showurls` lists it, the values are shown.
#[test]
fn an_unreadable_location_value_is_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    store
        .import(
            r#"{"responseCode":1,"handle":"20.1000/bad-loc","values":[{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations><location href="}},{"index":2,"type":"URL","data":{"format":"string","value":"https://fallback.example/"}}]}"#.as_bytes(),
            "records",
        )
        .unwrap();
    let server = Server::on(store, quiet(), dir, path);
    let a = get(server.addr, "/20.1000/bad-loc");
    assert_eq!(
        (a.status, a.header("location")),
        (302, Some("https://fallback.example/")),
        "{a:?}"
    );
    let a = get(server.addr, "/20.1000/bad-loc?action=showurls");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(
        a.body.contains(r#"href="https://fallback.example/""#),
        "{a:?}"
    );
    assert_eq!(get(server.addr, "/20.1000/bad-loc?noredirect").status, 200);
}

/// L8: `10320/headers` lines and `10320/links` (and locations with `rel`) go out with the
/// redirect, as the reference proxy sends them (tests/loc_oracle.rs holds them to it); a
/// header that frames the answer is not the record's to set.
#[test]
fn a_redirect_carries_the_record_s_headers_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let value = |i: u32, t: &str, v: &str| {
        format!(
            r#"{{"index":{i},"type":"{t}","data":{{"format":"string","value":{}}}}}"#,
            serde_json::Value::from(v)
        )
    };
    let record = format!(
        r#"{{"responseCode":1,"handle":"20.1000/h","values":[{},{},{}]}}"#,
        value(1, "URL", "https://example.org/h"),
        value(
            2,
            "10320/headers",
            "X-Handle: {hdl}\nContent-Length: 0\nTransfer-Encoding: chunked\n<meta name=\"h\" content=\"{hdl}\">"
        ),
        value(
            3,
            "10320/links",
            r#"<links><location href="https://example.org/h.json" rel="describedby" media-type="application/json"/></links>"#
        ),
    );
    store.import(record.as_bytes(), "records").unwrap();
    let server = Server::on(store, quiet(), dir, path);
    let a = get(server.addr, "/20.1000/h");
    assert_eq!(
        (a.status, a.header("location")),
        (302, Some("https://example.org/h")),
        "{a:?}"
    );
    assert_eq!(a.header("x-handle"), Some("20.1000%2Fh"), "{a:?}");
    assert_eq!(
        a.header("link"),
        Some(r#"<https://example.org/h.json>; rel="describedby"; type="application/json""#)
    );
    assert_eq!(a.header("transfer-encoding"), None, "{a:?}");
    let length: usize = a.header("content-length").unwrap().parse().unwrap();
    assert_eq!(length, a.body.len(), "{a:?}");
    assert!(
        a.body.starts_with(
            "<html><head><title>Handle Redirect</title>\n<meta name=\"h\" content=\"20.1000%2Fh\">\n</head>"
        ),
        "{a:?}"
    );
}

/// L9: locations a record includes, and its prefix's namespace's, are read from the store
/// (tests/loc_oracle.rs holds the choice among them to the reference's): `showurls` lists
/// them in the reference's order, a redirect goes to the one left, and a record that
/// includes itself is followed no deeper than the bound.
#[test]
fn included_and_namespace_locations_are_read_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let record = |handle: &str, t: &str, v: &str| {
        format!(
            r#"{{"responseCode":1,"handle":"{handle}","values":[{{"index":1,"type":"{t}","data":{{"format":"string","value":{}}}}}]}}"#,
            serde_json::Value::from(v)
        )
    };
    let records = [
        record(
            "20.1000/own",
            "10320/loc",
            r#"<locations include="20.1000/inc"><location href="https://own.example/" weight="0"/></locations>"#,
        ),
        record(
            "20.1000/inc",
            "10320/loc",
            r#"<locations><location href="https://included.example/" weight="0"/></locations>"#,
        ),
        record(
            "0.NA/20.1000",
            "HS_NAMESPACE",
            "<namespace><locs>20.1000/ns</locs></namespace>",
        ),
        record(
            "20.1000/ns",
            "10320/loc",
            r#"<locations><location href="https://namespace.example/"/></locations>"#,
        ),
        record(
            "20.1000/loop",
            "10320/loc",
            r#"<locations no_nslocs="true" include="20.1000/loop"><location href="https://loop.example/"/></locations>"#,
        ),
    ];
    store
        .import(records.join("\n").as_bytes(), "records")
        .unwrap();
    let server = Server::on(store, quiet(), dir, path);
    let a = get(server.addr, "/20.1000/own?action=showurls");
    let hrefs: Vec<&str> = a
        .body
        .split("href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    assert_eq!(
        hrefs,
        [
            "https://own.example/",
            "https://included.example/",
            "https://namespace.example/"
        ],
        "{a:?}"
    );
    // The only location of any weight is the namespace's.
    let a = get(server.addr, "/20.1000/own");
    assert_eq!(
        (a.status, a.header("location")),
        (302, Some("https://namespace.example/")),
        "{a:?}"
    );
    // Its own location, then one for each level of includes (the reference's depth, 20).
    let a = get(server.addr, "/20.1000/loop?action=showurls");
    assert_eq!(
        a.body.matches("https://loop.example/").count(),
        handle_id::record::MAX_INCLUDE_DEPTH + 2,
        "{a:?}"
    );
}

#[test]
fn bad_requests_are_answered_never_hang() {
    let server = Server::start(Config {
        header_timeout: Duration::from_secs(1),
        max_connections: 8,
        ..quiet()
    });
    // Invalid percent-encoding is a literal '%' (P3); invalid UTF-8 after decoding is 400.
    assert_eq!(get(server.addr, "/20.1000/%ZZ").status, 404);
    assert_eq!(get(server.addr, "/20.1000/%FF").status, 400);
    // A 100 KB path: refused, not read as a handle.
    let long = format!("/20.1000/{}", "a".repeat(100_000));
    let status = get(server.addr, &long).status;
    assert!(status == 414 || status == 431, "{status}");
    let long = format!("/20.1000/{}", "a".repeat(20_000));
    assert_eq!(get(server.addr, &long).status, 414);
    // Thousands of query parameters: 400 (ProxyQuery reads at most 1,000).
    let many = format!("/20.1000/5555?{}", vec!["index=1"; 1500].join("&"));
    assert_eq!(get(server.addr, &many).status, 400);
    // A silent client is closed after the header timeout.
    let started = std::time::Instant::now();
    let mut silent = TcpStream::connect(server.addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = Vec::new();
    let _ = silent.read_to_end(&mut buf);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A half-closed client: part of a request, then its write side shut.
    let mut half = TcpStream::connect(server.addr).unwrap();
    half.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    half.write_all(b"GET /20.1000/5555 HTTP/1.1\r\nhost")
        .unwrap();
    half.shutdown(std::net::Shutdown::Write).unwrap();
    let mut buf = Vec::new();
    let _ = half.read_to_end(&mut buf);
    // Garbage instead of HTTP: an error answer or a close, and the server goes on.
    let a = send(server.addr, b"\x00\x01\x02 nonsense\r\n\r\n");
    assert!(a.status == 400 || a.status == 0, "{a:?}");
    assert_eq!(get(server.addr, "/20.1000/5555").status, 302);
}

/// `n` keep-alive connections to `addr`, each answered once and then idle.
fn idle_connections(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET /20.1000/5555 HTTP/1.1\r\nhost: t\r\n\r\n")
                .unwrap();
            let mut buf = [0_u8; 512];
            let _ = s.read(&mut buf).unwrap();
            s
        })
        .collect()
}

#[test]
fn connections_beyond_the_limit_get_503() {
    let server = Server::start(Config {
        max_connections: 4,
        ..quiet()
    });
    // Four idle keep-alive connections hold every slot.
    let held = idle_connections(server.addr, 4);
    let a = get(server.addr, "/20.1000/5555");
    assert_eq!(a.status, 503);
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(get(server.addr, "/20.1000/5555").status, 302);
}

#[test]
fn one_client_holds_at_most_its_share_of_connections() {
    let server = Server::start(Config {
        max_connections: 8,
        max_connections_per_client: 2,
        ..quiet()
    });
    // Two idle keep-alive connections from this address hold its share; slots are left.
    let held = idle_connections(server.addr, 2);
    let a = get(server.addr, "/20.1000/5555");
    assert_eq!((a.status, a.header("retry-after")), (503, Some("1")));
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(get(server.addr, "/20.1000/5555").status, 302);
}

#[test]
fn restart_with_an_existing_store() {
    let mut server = Server::start(quiet());
    server.stop();
    let store = Store::open(&server.store_path).unwrap();
    assert_eq!(
        store.len().unwrap(),
        11,
        "the records are still there, nothing reloaded"
    );
    let dir = tempfile::tempdir().unwrap();
    let restarted = Server::on(store, quiet(), dir, PathBuf::new());
    assert_eq!(get(restarted.addr, "/20.1000/5555").status, 302);
}

/// Imports replace records while the server answers (in its process, and through its
/// import socket as `hdl serve import` sends them): each answer holds a record entirely as
/// one import wrote it, never a mix.
#[test]
fn concurrent_import_and_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Arc::new(Store::open(&path).unwrap());
    let version = |v: u32| -> String {
        (0..50)
            .map(|h| {
                let values: Vec<String> = (1..=5)
                    .map(|i| format!(r#"{{"index":{i},"type":"URL","data":{{"format":"string","value":"http://v{v}.example/{i}"}}}}"#))
                    .collect();
                format!(r#"{{"responseCode":1,"handle":"20.1000/{h}","values":[{}]}}"#, values.join(","))
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    store.import(version(0).as_bytes(), "v0").unwrap();
    let server = Server::on_shared(store.clone(), quiet(), dir, path);
    // The writer goes on until the readers are done: every read overlaps an import.
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let done = done.clone();
        #[cfg(unix)]
        let socket = handle_serve::imports::socket_path(&server.store_path);
        std::thread::spawn(move || {
            let mut v = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) || v < 20 {
                v += 1;
                #[cfg(unix)]
                if v % 2 == 1 {
                    // Through the server's import socket, as `hdl serve import` does.
                    let through =
                        handle_serve::imports::import_through(&socket, version(v).as_bytes(), "v");
                    assert_eq!(through.unwrap().unwrap().imported.records, 50);
                    continue;
                }
                store.import(version(v).as_bytes(), "v").unwrap();
            }
            v
        })
    };
    let addr = server.addr;
    let readers: Vec<_> = (0..2)
        .map(|r| {
            std::thread::spawn(move || {
                for n in 0..300 {
                    let a = get(addr, &format!("/api/handles/20.1000/{}", (n + r) % 50));
                    let record = Response::parse(&a.body).unwrap();
                    let versions: std::collections::BTreeSet<_> = record
                        .values()
                        .iter()
                        .map(|v| v.as_text().unwrap().split('.').next().unwrap().to_owned())
                        .collect();
                    assert_eq!(versions.len(), 1, "a mix: {versions:?}");
                }
            })
        })
        .collect();
    for r in readers {
        r.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let last_version = writer.join().unwrap();
    let last = Response::parse(&get(addr, "/api/handles/20.1000/7").body).unwrap();
    let expected = format!("http://v{last_version}.");
    assert!(
        last.values()[0].as_text().unwrap().starts_with(&expected),
        "{last:?}"
    );
}

#[test]
fn shutdown_stops_accepting_and_returns() {
    let mut server = Server::start(quiet());
    let mut open = TcpStream::connect(server.addr).unwrap();
    open.write_all(b"GET /20.1000/5555 HTTP/1.1\r\nhost: t\r\n\r\n")
        .unwrap();
    let mut buf = [0_u8; 4096];
    assert!(open.read(&mut buf).unwrap() > 0);
    let addr = server.addr;
    server.stop();
    // The idle keep-alive connection was closed; new ones are refused.
    open.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(open.read(&mut buf).unwrap_or(0), 0);
    assert!(TcpStream::connect(addr).is_err());
}

#[test]
fn import_refuses_what_is_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let e = store
        .import("\n{\"responseCode\":1,\"handle\":\"1/2\"}\n{\"responseCode\":100,\"handle\":\"1/3\"}\n".as_bytes(), "in.jsonl")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "in.jsonl: line 3: not a record: its responseCode is not 1 or 200 (SPEC R1)"
    );
    let e = store
        .import("{\"responseCode\":1,\"values\":[]}".as_bytes(), "x")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "x: line 1: not a record: no handle (SPEC R1)"
    );
    let e = store.import("not json".as_bytes(), "x").unwrap_err();
    assert!(
        e.to_string().starts_with("x: line 1, column 2: not JSON"),
        "{e}"
    );
}

/// RFC 9112 §3.2: an HTTP/1.1 request without `Host`, any request with two, or with one
/// that is no host, is answered 400; HTTP/1.0 may leave it out.
#[test]
fn host_headers_rfc_9112() {
    let server = Server::start(quiet());
    let ask = |head: &str| {
        send(
            server.addr,
            format!("GET /20.1000/5555 {head}\r\n\r\n").as_bytes(),
        )
    };
    for head in [
        "HTTP/1.1\r\nconnection: close",
        "HTTP/1.1\r\nhost: a\r\nhost: b\r\nconnection: close",
        "HTTP/1.0\r\nhost: a\r\nhost: a",
        "HTTP/1.1\r\nhost: a b\r\nconnection: close",
        "HTTP/1.1\r\nhost: a/b\r\nconnection: close",
    ] {
        let a = ask(head);
        assert_eq!(a.status, 400, "{head:?}: {a:?}");
        assert!(a.body.contains("RFC 9112"), "{a:?}");
    }
    for head in [
        "HTTP/1.0",
        "HTTP/1.1\r\nhost: proxy.example:8000\r\nconnection: close",
        "HTTP/1.1\r\nhost: [::1]:80\r\nconnection: close",
        "HTTP/1.1\r\nhost: \r\nconnection: close",
    ] {
        let a = ask(head);
        assert_eq!(a.status, 302, "{head:?}: {a:?}");
    }
}

/// A server of no connections would answer every request 503: refused.
#[test]
fn no_connections_at_all_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("s.redb")).unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let e = runtime
        .block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            handle_serve::serve(
                store,
                listener,
                Config {
                    max_connections: 0,
                    ..quiet()
                },
                std::future::pending(),
            )
            .await
        })
        .unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
}

/// Records above `LARGE_RECORD` are read and answered off the async workers: on a server
/// of one worker, a small request is answered at once while many requests for a large
/// record are under way (on the worker, it would wait for them all).
#[test]
fn large_records_do_not_hold_up_small_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Arc::new(Store::open(&path).unwrap());
    let values: Vec<String> = (1..=2000)
        .map(|i| {
            format!(
                r#"{{"index":{i},"type":"DESC","data":{{"format":"string","value":"{}"}}}}"#,
                "v".repeat(400)
            )
        })
        .collect();
    let large = format!(
        r#"{{"responseCode":1,"handle":"20.1000/large","values":[{}]}}"#,
        values.join(",")
    );
    assert!(large.len() > handle_serve::limits::LARGE_RECORD);
    store
        .import(
            format!("{large}\n{{\"responseCode\":1,\"handle\":\"20.1000/small\",\"values\":[{{\"index\":1,\"type\":\"URL\",\"data\":{{\"format\":\"string\",\"value\":\"http://s/\"}}}}]}}\n").as_bytes(),
            "r",
        )
        .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                handle_serve::serve(store, listener, quiet(), async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
    });
    let addr = rx.recv().unwrap();
    // The HTML page of the large record (every value read, a page written), 24 times.
    let started = std::time::Instant::now();
    let heavy: Vec<_> = (0..24)
        .map(|_| std::thread::spawn(move || get(addr, "/20.1000/large?noredirect")))
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    let small_started = std::time::Instant::now();
    assert_eq!(get(addr, "/20.1000/small").status, 302);
    let small = small_started.elapsed();
    for h in heavy {
        assert_eq!(h.join().unwrap().status, 200);
    }
    let all = started.elapsed();
    assert!(small * 4 < all, "small {small:?}, all {all:?}");
    let _ = stop.send(());
    thread.join().unwrap();
}

/// An import connection that sends nothing is dropped after the read timeout, importing
/// nothing; one that is silent when the server stops is ended at once.
#[cfg(unix)]
#[test]
fn silent_import_connections_end() {
    use std::os::unix::net::UnixStream;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Arc::new(Store::open(&path).unwrap());
    let socket = handle_serve::imports::socket_path(&path);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listening = runtime
        .block_on(async {
            handle_serve::imports::listen(store.clone(), &socket, Duration::from_millis(300))
        })
        .unwrap();
    let answer = |mut client: UnixStream| {
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut answer = String::new();
        let _ = client.read_to_string(&mut answer);
        answer
    };
    let mut client = UnixStream::connect(&socket).unwrap();
    client
        .write_all(b"hdl-import 2 slow\n40\n{\"responseCode\":1,\"handle\":\"1/2\",")
        .unwrap();
    let started = std::time::Instant::now();
    let said = answer(client);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(said.starts_with("{\"error\":\"slow: line 1: "), "{said}");
    assert_eq!(store.len().unwrap(), 0);
    // Silent at stop: dropping the listener ends it, and returns soon.
    let mut client = UnixStream::connect(&socket).unwrap();
    client.write_all(b"hdl-import 2 silent\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let started = std::time::Instant::now();
    drop(listening);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(answer(client).starts_with("{\"error\":\"the server is stopping"));
    assert!(!socket.exists());
}
