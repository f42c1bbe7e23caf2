//! `hdl serve --upstream` (SPEC P13): handles the store does not hold, resolved through the
//! Handle protocol from a handle server (this project's, in process, over loopback), asked
//! directly or found from a root whose site is that server, kept
//! as their TTLs say, one query for many requests, failures answered with code 2, and a
//! cache that stays within its bounds.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handle_id::record::Response;
use handle_net::client::Timeouts;
use handle_net::key::ServerKey;
use handle_net::resolver::Resolver;
use handle_net::server::{Limits as ServerLimits, Service};
use handle_net::Records;
use handle_proto::{rest, WireValue};
use handle_serve::upstream::{Limits, Upstream, Via};
use handle_serve::{Config, Store};

/// The handle server's records, changed as a test goes; each look-up takes `delay`.
#[derive(Default)]
struct Held {
    values: Mutex<HashMap<String, Vec<WireValue>>>,
    generation: AtomicU64,
    delay: Duration,
}

impl Held {
    fn set(&self, handle: &str, url: &str, ttl: u32) {
        self.set_value(handle, "URL", url, ttl);
    }

    fn set_value(&self, handle: &str, value_type: &str, data: &str, ttl: u32) {
        let data = serde_json::Value::from(data);
        let json = format!(
            r#"{{"responseCode":1,"handle":"{handle}","values":[{{"index":1,"type":"{value_type}","data":{{"format":"string","value":{data}}},"ttl":{ttl}}}]}}"#
        );
        let values = Response::parse(&json)
            .unwrap()
            .values()
            .iter()
            .map(|v| rest::from_rest(v).unwrap())
            .collect();
        self.values
            .lock()
            .unwrap()
            .insert(handle.to_ascii_lowercase(), values);
        self.generation.fetch_add(1, Ordering::Relaxed);
    }
}

impl Records for Held {
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String> {
        std::thread::sleep(self.delay);
        Ok(self
            .values
            .lock()
            .unwrap()
            .get(&handle.to_ascii_lowercase())
            .cloned())
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }
}

/// A handle server holding `held`, and `hdl serve` with an empty store in front of it.
struct Setup {
    http: SocketAddr,
    upstream: Arc<Upstream>,
    held: Arc<Held>,
    stop_handle_server: Option<tokio::sync::oneshot::Sender<()>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

fn setup(limits: Limits, delay: Duration) -> Setup {
    setup_via(limits, delay, false)
}

/// [`setup`], with the handle server found from a root (`root`): its site is the root's,
/// and it holds the prefix handle `0.NA/4263537`, whose site is its own.
fn setup_via(limits: Limits, delay: Duration, root: bool) -> Setup {
    setup_signed(limits, delay, root, None, Vec::new())
}

/// [`setup_via`], with the handle server signing certified answers with `key` while its
/// site publishes `published`.
fn setup_signed(
    limits: Limits,
    delay: Duration,
    root: bool,
    key: Option<Arc<ServerKey>>,
    published: Vec<u8>,
) -> Setup {
    let held = Arc::new(Held {
        delay,
        ..Held::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("store.redb")).unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_handle_server, handle_server_stopped) = tokio::sync::oneshot::channel::<()>();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let records: Arc<dyn Records> = held.clone();
    let prefixes = held.clone();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            // One port for both (the site names one): another one when its TCP side is taken.
            let (udp, tcp) = loop {
                let udp = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
                if let Ok(tcp) = tokio::net::TcpListener::bind(udp.local_addr().unwrap()).await {
                    break (udp, tcp);
                }
            };
            let address = tcp.local_addr().unwrap();
            let site = handle_serve::native::site(address, published);
            let site_value = WireValue::new(1, "HS_SITE", &site.to_bytes());
            if root {
                prefixes
                    .values
                    .lock()
                    .unwrap()
                    .insert("0.na/4263537".into(), vec![site_value.clone()]);
            }
            let service = Service {
                records,
                site,
                key,
                limits: ServerLimits::default(),
                counters: Arc::default(),
            };
            tokio::spawn(handle_net::server::serve(service, udp, tcp, async {
                let _ = handle_server_stopped.await;
            }));
            let via = if root {
                Via::Root(Box::new(Resolver::new(&[site_value], Timeouts::default())))
            } else {
                Via::Server(address)
            };
            let upstream = Arc::new(Upstream::new(via, Timeouts::default(), limits));
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send((listener.local_addr().unwrap(), upstream.clone()))
                .unwrap();
            let config = Config {
                access_log: false,
                upstream: Some(upstream),
                ..Config::default()
            };
            handle_serve::serve(store, listener, config, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
    });
    let (http, upstream) = rx.recv().unwrap();
    Setup {
        http,
        upstream,
        held,
        stop_handle_server: Some(stop_handle_server),
        stop: Some(stop),
        thread: Some(thread),
        _dir: dir,
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        if let Some(stop) = self.stop_handle_server.take() {
            let _ = stop.send(());
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            self.thread.take().unwrap().join().unwrap();
        }
    }
}

/// Status, `Location` and body of `GET target`.
fn get(addr: SocketAddr, target: &str) -> (u16, Option<String>, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let location = head
        .lines()
        .find_map(|l| l.strip_prefix("location: "))
        .map(str::to_owned);
    (status, location, body.to_owned())
}

#[test]
fn an_upstream_handle_is_served_as_a_stored_one() {
    let s = setup(Limits::default(), Duration::ZERO);
    s.held
        .set("4263537/PAGE", "https://example.org/page", 86_400);
    let (status, location, _) = get(s.http, "/4263537/PAGE");
    assert_eq!(
        (status, location.as_deref()),
        (302, Some("https://example.org/page"))
    );
    // The REST API, in another ASCII case (H6), from the cache: no second query.
    let (status, _, body) = get(s.http, "/api/handles/4263537/page");
    assert_eq!(status, 200);
    let r = Response::parse(&body).unwrap();
    assert_eq!(r.handle().map(|h| h.as_str()), Some("4263537/page"));
    assert_eq!(r.values().len(), 1);
    assert_eq!(s.upstream.queries(), 1);
    // Not there: 404, and the REST API's code 100; "not found" is kept too.
    let (status, _, _) = get(s.http, "/4263537/NONE");
    assert_eq!(status, 404);
    let (status, _, body) = get(s.http, "/api/handles/4263537/NONE");
    assert_eq!(status, 404);
    assert!(body.contains("\"responseCode\":100"), "{body}");
    assert_eq!(s.upstream.queries(), 2);
}

#[test]
fn an_upstream_handle_is_found_from_the_root() {
    let s = setup_via(Limits::default(), Duration::ZERO, true);
    s.held
        .set("4263537/ROOTED", "https://example.org/rooted", 86_400);
    let (status, location, _) = get(s.http, "/4263537/ROOTED");
    assert_eq!(
        (status, location.as_deref()),
        (302, Some("https://example.org/rooted"))
    );
    let (status, _, body) = get(s.http, "/api/handles/4263537/NONE");
    assert_eq!(status, 404);
    assert!(body.contains("\"responseCode\":100"), "{body}");
    // A prefix the root holds no site for: the Handle System's answer, as the REST API says it.
    let (status, _, body) = get(s.http, "/api/handles/99999/x");
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("\"responseCode\":100"), "{body}");
    assert_eq!(s.upstream.queries(), 3);
}

/// L9: the handles a location value includes, and its prefix's namespace, are resolved
/// upstream like the handle itself, and kept.
#[test]
fn included_and_namespace_handles_are_resolved_upstream() {
    let s = setup(Limits::default(), Duration::ZERO);
    s.held.set_value(
        "4263537/OWN",
        "10320/loc",
        r#"<locations include="4263537/INC"><location href="https://own.example/" weight="0"/></locations>"#,
        86_400,
    );
    s.held.set_value(
        "4263537/INC",
        "10320/loc",
        r#"<locations><location href="https://included.example/" weight="0"/></locations>"#,
        86_400,
    );
    s.held.set_value(
        "0.NA/4263537",
        "HS_NAMESPACE",
        "<namespace><locs>4263537/NS</locs></namespace>",
        86_400,
    );
    s.held.set_value(
        "4263537/NS",
        "10320/loc",
        r#"<locations><location href="https://namespace.example/"/></locations>"#,
        86_400,
    );
    let (status, _, body) = get(s.http, "/4263537/OWN?action=showurls");
    assert_eq!(status, 200, "{body}");
    let own = body.find("https://own.example/").unwrap();
    let included = body.find("https://included.example/").unwrap();
    let namespace = body.find("https://namespace.example/").unwrap();
    assert!(own < included && included < namespace, "{body}");
    let (status, location, _) = get(s.http, "/4263537/OWN");
    assert_eq!(
        (status, location.as_deref()),
        (302, Some("https://namespace.example/"))
    );
    // Four handles, each asked once: the second request is answered from the cache.
    assert_eq!(s.upstream.queries(), 4);
}

/// `cert` (SPEC P13, N13): a certified answer is asked for whatever the cache holds, and
/// served only when it verifies by the server's key; one that does not is a clear error,
/// and what the cache holds still answers the requests without `cert`.
#[test]
fn cert_asks_for_a_certified_answer_and_checks_it() {
    let key = Arc::new(ServerKey::generate().unwrap());
    for (published, verifies) in [
        (key.public_key(), true),
        (ServerKey::generate().unwrap().public_key(), false),
    ] {
        for root in [false, true] {
            let s = setup_signed(
                Limits::default(),
                Duration::ZERO,
                root,
                Some(key.clone()),
                published.clone(),
            );
            s.held
                .set("4263537/CERT", "https://example.org/cert", 86_400);
            let (status, _, _) = get(s.http, "/4263537/CERT");
            assert_eq!(status, 302);
            let before = s.upstream.queries();
            let (status, location, body) = get(s.http, "/4263537/CERT?cert");
            assert_eq!(s.upstream.queries(), before + 1, "asked again");
            if verifies {
                assert_eq!(
                    (status, location.as_deref()),
                    (302, Some("https://example.org/cert")),
                    "{body}"
                );
            } else {
                assert_eq!(status, 500, "{body}");
                assert!(body.contains("does not verify"), "{body}");
            }
            // The cache's answer stands for the others.
            let (status, _, _) = get(s.http, "/4263537/CERT");
            assert_eq!((status, s.upstream.queries()), (302, before + 1));
        }
    }
}

#[test]
fn many_requests_for_one_handle_make_one_query() {
    // Each look-up takes 300 ms: the requests come while the first query is out.
    let s = setup(Limits::default(), Duration::from_millis(300));
    s.held.set("4263537/HOT", "https://example.org/hot", 86_400);
    let http = s.http;
    let clients: Vec<_> = (0..100)
        .map(|_| std::thread::spawn(move || get(http, "/4263537/HOT")))
        .collect();
    for c in clients {
        let (status, location, _) = c.join().unwrap();
        assert_eq!(
            (status, location.as_deref()),
            (302, Some("https://example.org/hot"))
        );
    }
    assert_eq!(s.upstream.queries(), 1);
}

#[test]
fn values_are_kept_as_long_as_their_ttl_and_auth_asks_again() {
    let s = setup(Limits::default(), Duration::ZERO);
    s.held.set("4263537/TTL", "https://example.org/a", 2);
    assert_eq!(
        get(s.http, "/4263537/TTL").1.as_deref(),
        Some("https://example.org/a")
    );
    s.held.set("4263537/TTL", "https://example.org/b", 2);
    // Within its TTL: the answer kept.
    assert_eq!(
        get(s.http, "/4263537/TTL").1.as_deref(),
        Some("https://example.org/a")
    );
    // `auth`: asked again, at once, and kept.
    assert_eq!(
        get(s.http, "/4263537/TTL?auth=true").1.as_deref(),
        Some("https://example.org/b")
    );
    assert_eq!(
        get(s.http, "/4263537/TTL").1.as_deref(),
        Some("https://example.org/b")
    );
    s.held.set("4263537/TTL", "https://example.org/c", 2);
    // Past its TTL: asked again.
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        get(s.http, "/4263537/TTL").1.as_deref(),
        Some("https://example.org/c")
    );
    assert_eq!(s.upstream.queries(), 3);
}

#[test]
fn a_stopped_handle_server_is_a_clear_error_and_what_is_kept_still_answers() {
    let mut s = setup(Limits::default(), Duration::ZERO);
    s.held
        .set("4263537/KEPT", "https://example.org/kept", 86_400);
    assert_eq!(get(s.http, "/4263537/KEPT").0, 302);
    let _ = s.stop_handle_server.take().unwrap().send(());
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        get(s.http, "/4263537/KEPT").1.as_deref(),
        Some("https://example.org/kept")
    );
    let (status, _, body) = get(s.http, "/api/handles/4263537/OTHER");
    assert_eq!(status, 500);
    let r = Response::parse(&body).unwrap();
    assert_eq!(r.code().as_u32(), 2, "{body}");
    assert!(
        r.message().is_some_and(|m| m.contains("handle server")),
        "{body}"
    );
    assert_eq!(get(s.http, "/4263537/OTHER").0, 500);
    // And the server goes on.
    assert_eq!(get(s.http, "/4263537/KEPT").0, 302);
}

#[test]
fn the_cache_holds_no_more_than_its_bounds() {
    let limits = Limits {
        entries: 3,
        bytes: 4096,
        ..Limits::default()
    };
    let s = setup(limits, Duration::ZERO);
    for i in 0..20 {
        let handle = format!("4263537/{i}");
        s.held
            .set(&handle, &format!("https://example.org/{i}"), 86_400);
        assert_eq!(get(s.http, &format!("/{handle}")).0, 302);
        let (entries, bytes) = s.upstream.held();
        assert!(
            entries <= 3 && bytes <= 4096,
            "{entries} entries, {bytes} bytes"
        );
    }
    // A record larger than the whole cache is served, and not kept.
    let long = format!("https://example.org/{}", "x".repeat(8000));
    s.held.set("4263537/LONG", &long, 86_400);
    assert_eq!(
        get(s.http, "/4263537/LONG").1.as_deref(),
        Some(long.as_str())
    );
    assert!(s.upstream.held().1 <= 4096);
}
