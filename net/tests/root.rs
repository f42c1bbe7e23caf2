//! Resolution from a root whose site is a server on loopback, so that the whole path runs
//! without the internet: the prefix handle at the root, its site of two servers, the
//! server the site's hash picks (each handle is held by that server only), a service
//! handle, and answers for handles that are not there.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use handle_net::client::{Timeouts, Transport};
use handle_net::hash::server_index;
use handle_net::resolver::{expiration, ResolveError, Resolver};
use handle_net::server::{serve, Service};
use handle_net::Records;
use handle_proto::{
    Body, Interface, Message, Protocol, ResponseCode, ServerInfo, SiteInfo, WireValue,
};
use tokio::net::{TcpListener, UdpSocket};

/// A server's records, and how many look-ups it was asked for.
struct Map(HashMap<String, Vec<WireValue>>, Arc<AtomicUsize>);

impl Records for Map {
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String> {
        self.1.fetch_add(1, Ordering::Relaxed);
        Ok(self.0.get(handle).cloned())
    }
}

async fn bind() -> (UdpSocket, TcpListener, u16) {
    loop {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = tcp.local_addr().unwrap().port();
        if let Ok(udp) = UdpSocket::bind(("127.0.0.1", port)).await {
            return (udp, tcp, port);
        }
    }
}

fn site(ports: &[u16], serial: u16) -> SiteInfo {
    SiteInfo {
        format_version: 1,
        protocol: (2, 11),
        serial,
        primary_mask: 0x80,
        hash_option: 2,
        hash_filter: Vec::new(),
        attributes: Vec::new(),
        servers: ports
            .iter()
            .enumerate()
            .map(|(i, &port)| ServerInfo {
                id: i as u32 + 1,
                address: ServerInfo::address_bytes([127, 0, 0, 1].into()),
                public_key: Vec::new(),
                interfaces: vec![
                    Interface::query(Protocol::Udp, port),
                    Interface::query(Protocol::Tcp, port),
                ],
            })
            .collect(),
    }
}

/// Starts a server of `records`: the count of its look-ups.
fn start(
    records: HashMap<String, Vec<WireValue>>,
    sockets: (UdpSocket, TcpListener, u16),
    site: SiteInfo,
) -> Arc<AtomicUsize> {
    let (udp, tcp, _) = sockets;
    let asked = Arc::new(AtomicUsize::new(0));
    let service = Service::new(Arc::new(Map(records, asked.clone())), site);
    tokio::spawn(serve(service, udp, tcp, std::future::pending()));
    asked
}

/// A root server, a site of two servers for the prefix `TEST`, and a service handle for
/// the prefix `SERV` whose site is the same two servers.
async fn world() -> Resolver {
    world_counted().await.0
}

/// [`world`], and the count of the root's look-ups.
async fn world_counted() -> (Resolver, Arc<AtomicUsize>) {
    let root_sockets = bind().await;
    let (one, two) = (bind().await, bind().await);
    let test_site = site(&[one.2, two.2], 7);
    let root_site = site(&[root_sockets.2], 1);
    let site_value = |index| WireValue::new(index, "HS_SITE", &test_site.to_bytes());
    let root_records = HashMap::from([
        ("0.NA/TEST".to_owned(), vec![site_value(1)]),
        (
            "0.NA/SERV".to_owned(),
            vec![WireValue::new(1, "HS_SERV", b"0.SERV/test")],
        ),
        ("0.SERV/test".to_owned(), vec![site_value(1)]),
    ]);
    // Each handle on the server the site's hash picks, and only there.
    let mut held = [HashMap::new(), HashMap::new()];
    for prefix in ["TEST", "SERV"] {
        for i in 0..20 {
            let handle = format!("{prefix}/{i}");
            let k = server_index(&test_site, handle.as_bytes()).unwrap();
            held[k].insert(
                handle.clone(),
                vec![WireValue::new(1, "URL", handle.as_bytes())],
            );
        }
    }
    assert!(
        !held[0].is_empty() && !held[1].is_empty(),
        "both servers hold some"
    );
    let [held_one, held_two] = held;
    start(held_one, one, test_site.clone());
    start(held_two, two, test_site);
    let root_asked = start(root_records, root_sockets, root_site.clone());
    let resolver = Resolver::new(
        &[WireValue::new(1, "HS_SITE", &root_site.to_bytes())],
        Timeouts::default(),
    );
    (resolver, root_asked)
}

/// The answer `resolver` gets for `handle` (any error fails the test).
async fn resolved(resolver: &Resolver, handle: &str) -> Message {
    resolver
        .resolve(&Message::resolution(
            handle.as_bytes(),
            &[],
            &[],
            expiration(),
        ))
        .await
        .unwrap_or_else(|e| panic!("{handle}: {e}"))
}

/// A prefix's sites are asked of the root once and kept (as their values' TTLs allow):
/// the prefix's other handles, through the resolver or its clones, go to its sites at once.
#[tokio::test]
async fn a_prefix_s_sites_are_asked_of_the_root_once() {
    let (resolver, root_asked) = world_counted().await;
    for i in 0..10 {
        let handle = format!("TEST/{i}");
        let answer = resolved(&resolver.clone(), &handle).await;
        assert_eq!(
            answer.header.response_code,
            ResponseCode::SUCCESS,
            "{handle}"
        );
    }
    assert_eq!(root_asked.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn from_the_root_to_the_server_that_holds_the_handle() {
    let resolver = world().await;
    for transports in [vec![Transport::Udp], vec![Transport::Tcp]] {
        let resolver = resolver.clone().with_transports(transports);
        for prefix in ["TEST", "SERV", "test"] {
            for i in 0..20 {
                let handle = format!("{prefix}/{i}");
                let answer = resolved(&resolver, &handle).await;
                // (The servers' records are case-sensitive: `test/…` is not held.)
                if prefix == "test" {
                    assert_eq!(answer.header.response_code, ResponseCode::HANDLE_NOT_FOUND);
                    continue;
                }
                let Body::Resolution { values, .. } = &answer.body else {
                    panic!("{handle}: {:?}", answer.header.response_code)
                };
                assert_eq!(values[0].data, handle.as_bytes());
            }
        }
    }
    // A prefix the root does not know: no service, said so.
    let e = resolver
        .resolve(&Message::resolution(b"NOPE/1", &[], &[], expiration()))
        .await
        .unwrap_err();
    assert!(matches!(e, ResolveError::NoService(_)), "{e}");
    assert!(e.to_string().contains("0.NA/NOPE"), "{e}");
}

/// A root that does not answer: the resolver gives up after its timeouts, on every
/// transport, and says so.
#[tokio::test]
async fn an_unreachable_root_is_an_error() {
    let (udp, tcp, port) = bind().await;
    drop((udp, tcp));
    let root = site(&[port], 1);
    let timeouts = Timeouts {
        udp: vec![std::time::Duration::from_millis(50)],
        tcp: std::time::Duration::from_millis(200),
    };
    let resolver = Resolver::new(&[WireValue::new(1, "HS_SITE", &root.to_bytes())], timeouts);
    let e = resolver
        .resolve(&Message::resolution(b"TEST/1", &[], &[], expiration()))
        .await
        .unwrap_err();
    assert!(matches!(e, ResolveError::Unreachable(_)), "{e}");
    let _ = SocketAddr::from(([127, 0, 0, 1], port));
}

/// A root, and the prefix `CERT` on one server that signs with `signing` (or not at all)
/// while its site publishes `published`: a resolver from that root.
async fn certified_world(
    signing: Option<Arc<handle_net::key::ServerKey>>,
    published: Vec<u8>,
) -> Resolver {
    let (root_sockets, one) = (bind().await, bind().await);
    let mut cert_site = site(&[one.2], 3);
    cert_site.servers[0].public_key = published;
    let root_site = site(&[root_sockets.2], 1);
    let root_records = HashMap::from([(
        "0.NA/CERT".to_owned(),
        vec![WireValue::new(1, "HS_SITE", &cert_site.to_bytes())],
    )]);
    let records = HashMap::from([("CERT/1".to_owned(), vec![WireValue::new(1, "URL", b"u")])]);
    let (udp, tcp, _) = one;
    let mut service = Service::new(Arc::new(Map(records, Arc::default())), cert_site);
    service.key = signing;
    tokio::spawn(serve(service, udp, tcp, std::future::pending()));
    start(root_records, root_sockets, root_site.clone());
    Resolver::new(
        &[WireValue::new(1, "HS_SITE", &root_site.to_bytes())],
        Timeouts::default(),
    )
}

fn certified_request() -> Message {
    let mut request = Message::resolution(b"CERT/1", &[], &[], expiration());
    request.header.flags = request.header.flags.with(handle_proto::OpFlags::CERT, true);
    request
}

/// N13: a certified request's answer is taken only when it verifies by the key the
/// server's site publishes; signed by another key, or not signed, it is an error that
/// says so, and an uncertified request is answered as ever.
#[tokio::test]
async fn a_certified_answer_verifies_by_the_site_s_key_or_is_refused() {
    let key = Arc::new(handle_net::key::ServerKey::generate().unwrap());
    let other = handle_net::key::ServerKey::generate().unwrap();
    let resolver = certified_world(Some(key.clone()), key.public_key()).await;
    let answer = resolver.resolve(&certified_request()).await.unwrap();
    assert_eq!(answer.header.response_code, ResponseCode::SUCCESS);
    let resolver = certified_world(Some(key.clone()), other.public_key()).await;
    match resolver.resolve(&certified_request()).await {
        Err(e @ ResolveError::Unverified(..)) => {
            assert!(e.to_string().contains("does not verify"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let plain = resolved(&resolver, "CERT/1").await;
    assert_eq!(plain.header.response_code, ResponseCode::SUCCESS);
    let resolver = certified_world(None, key.public_key()).await;
    match resolver.resolve(&certified_request()).await {
        Err(e @ ResolveError::Unverified(..)) => {
            assert!(e.to_string().contains("not signed"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}
