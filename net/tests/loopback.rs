//! The server and the client on loopback: answers over UDP (one datagram and many) and
//! TCP, type and index filters, values without public read withheld, handles not found,
//! the server's site info, messages that do not read.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use handle_net::client::{ask, Timeouts, Transport};
use handle_net::limit::RateLimits;
use handle_net::server::{serve, Service};
use handle_net::Records;
use handle_proto::{
    Body, Interface, Message, Permissions, Protocol, ResponseCode, ServerInfo, SiteInfo, WireValue,
};
use tokio::net::{TcpListener, UdpSocket};

struct Map(HashMap<String, Vec<WireValue>>);

impl Records for Map {
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String> {
        Ok(self.0.get(handle).cloned())
    }
}

fn site(port: u16) -> SiteInfo {
    SiteInfo {
        format_version: 1,
        protocol: (2, 11),
        serial: 3,
        primary_mask: 0x80,
        hash_option: 2,
        hash_filter: Vec::new(),
        attributes: vec![(b"desc".to_vec(), b"loopback".to_vec())],
        servers: vec![ServerInfo {
            id: 1,
            address: ServerInfo::address_bytes([127, 0, 0, 1].into()),
            public_key: Vec::new(),
            interfaces: vec![
                Interface::query(Protocol::Tcp, port),
                Interface::query(Protocol::Udp, port),
            ],
        }],
    }
}

/// A server on a free port of loopback, UDP and TCP.
async fn start(records: Map, udp_limits: RateLimits) -> SocketAddr {
    loop {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let Ok(udp) = UdpSocket::bind(addr).await else {
            continue;
        };
        let mut service = Service::new(Arc::new(records), site(addr.port()));
        service.limits.udp = udp_limits;
        tokio::spawn(serve(service, udp, tcp, std::future::pending()));
        return addr;
    }
}

fn records() -> Map {
    let mut secret = WireValue::new(300, "HS_SECKEY", b"password");
    secret.permissions = Permissions(Permissions::ADMIN_READ | Permissions::ADMIN_WRITE);
    let small = vec![
        WireValue::new(1, "URL", b"https://example.org/"),
        WireValue::new(2, "EMAIL", b"a@example.org"),
        WireValue::new(3, "URL.thumbnail", b"https://example.org/t.png"),
        secret,
    ];
    let large: Vec<WireValue> = (1..=60)
        .map(|i| WireValue::new(i, "DESC", &[b'x'; 200]))
        .collect();
    Map(HashMap::from([
        ("TEST/1".to_owned(), small),
        ("TEST/large".to_owned(), large),
        (
            "0.NA/TEST".to_owned(),
            vec![WireValue::new(1, "HS_SITE", &site(2641).to_bytes())],
        ),
    ]))
}

async fn resolve(
    server: SocketAddr,
    transport: Transport,
    handle: &str,
    types: &[&[u8]],
    indexes: &[u32],
) -> Message {
    let request = Message::resolution(handle.as_bytes(), types, indexes, u32::MAX);
    let (envelope, answer) = ask(server, transport, &request, 77, &Timeouts::default())
        .await
        .unwrap_or_else(|e| panic!("{handle} over {transport:?}: {e}"));
    assert_eq!(envelope.request_id, 77);
    assert_eq!(envelope.version, (2, 11));
    answer
}

fn indexes(answer: &Message) -> Vec<u32> {
    match &answer.body {
        Body::Resolution { values, .. } => values.iter().map(|v| v.index).collect(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn resolution_over_udp_and_tcp() {
    // No UDP limits: the answer of many datagrams is given over UDP.
    let server = start(records(), RateLimits::NONE).await;
    for transport in [Transport::Udp, Transport::Tcp] {
        let all = resolve(server, transport, "TEST/1", &[], &[]).await;
        assert_eq!(all.header.response_code, ResponseCode::SUCCESS);
        // The value without public read is not there, and nothing says it was.
        assert_eq!(indexes(&all), [1, 2, 3]);
        assert!(
            all.header.flags.has(handle_proto::OpFlags::AUTH),
            "a primary's answer"
        );
        assert_eq!(all.header.site_serial, 3);
        // Types ignore ASCII case; `URL` is only `URL`, `URL.` its subtypes too (N4).
        assert_eq!(
            indexes(&resolve(server, transport, "TEST/1", &[b"url"], &[]).await),
            [1]
        );
        assert_eq!(
            indexes(&resolve(server, transport, "TEST/1", &[b"URL."], &[]).await),
            [1, 3]
        );
        assert_eq!(
            indexes(&resolve(server, transport, "TEST/1", &[b"EMAIL"], &[3]).await),
            [2, 3]
        );
        // 60 values of 200 bytes: an answer of many datagrams over UDP, put back together.
        assert_eq!(
            indexes(&resolve(server, transport, "TEST/large", &[], &[]).await).len(),
            60
        );
        let none = resolve(server, transport, "TEST/none", &[], &[]).await;
        assert_eq!(none.header.response_code, ResponseCode::HANDLE_NOT_FOUND);
        let withheld = resolve(server, transport, "TEST/1", &[b"HS_SECKEY"], &[]).await;
        assert_eq!(
            withheld.header.response_code,
            ResponseCode::VALUES_NOT_FOUND
        );
        // A handle without '/' is a prefix's handle.
        let prefix = resolve(server, transport, "TEST", &[], &[]).await;
        assert_eq!(indexes(&prefix), [1]);
    }
}

/// The text of an `RC_ERROR` answer.
/// Requests that wait on the socket together are taken in one batch and each answered to
/// its own sender with its own id, answers of many datagrams among them (more datagrams
/// than a batch sends at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_waiting_together_are_each_answered_to_their_sender() {
    let server = start(records(), RateLimits::NONE).await;
    let asks: Vec<_> = (0..48_u32)
        .map(|i| {
            tokio::spawn(async move {
                let handle = if i % 6 == 0 { "TEST/large" } else { "TEST/1" };
                let request = Message::resolution(handle.as_bytes(), &[], &[], u32::MAX);
                let (envelope, answer) = ask(
                    server,
                    Transport::Udp,
                    &request,
                    1000 + i,
                    &Timeouts::default(),
                )
                .await
                .unwrap_or_else(|e| panic!("{handle}, request {i}: {e}"));
                assert_eq!(envelope.request_id, 1000 + i);
                (handle, indexes(&answer).len())
            })
        })
        .collect();
    for a in asks {
        let (handle, values) = a.await.unwrap();
        assert_eq!(
            values,
            if handle == "TEST/large" { 60 } else { 3 },
            "{handle}"
        );
    }
}

fn refused(answer: &Message) -> String {
    assert_eq!(answer.header.response_code, ResponseCode::ERROR);
    match &answer.body {
        Body::Error { message, .. } => String::from_utf8_lossy(message).into_owned(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_answer_too_large_for_udp_is_given_over_tcp_only() {
    // By default at most 4 datagrams; 60 values of 200 bytes take 27.
    let server = start(records(), RateLimits::default()).await;
    let over_udp = resolve(server, Transport::Udp, "TEST/large", &[], &[]).await;
    assert_eq!(refused(&over_udp), "too large for UDP: ask over TCP");
    let over_tcp = resolve(server, Transport::Tcp, "TEST/large", &[], &[]).await;
    assert_eq!(indexes(&over_tcp).len(), 60);
    // What fits is answered over UDP as ever.
    assert_eq!(
        indexes(&resolve(server, Transport::Udp, "TEST/1", &[], &[]).await),
        [1, 2, 3]
    );
}

#[tokio::test]
async fn over_its_budget_a_network_is_sent_to_tcp_or_not_answered() {
    let limits = RateLimits {
        answers_per_second: 1,
        burst_seconds: 3,
        slip: 2,
        loopback: true,
        ..RateLimits::default()
    };
    let server = start(records(), limits).await;
    let quick = Timeouts {
        udp: vec![std::time::Duration::from_millis(100)],
        ..Timeouts::default()
    };
    let mut seen = Vec::new();
    for id in 0..7 {
        let request = Message::resolution(b"TEST/1", &[], &[], u32::MAX);
        seen.push(
            match ask(server, Transport::Udp, &request, id, &quick).await {
                Ok((_, answer)) if answer.header.response_code == ResponseCode::SUCCESS => "answer",
                Ok((_, answer)) => {
                    assert_eq!(refused(&answer), "UDP limit: ask over TCP");
                    "to TCP"
                }
                Err(_) => "none",
            },
        );
    }
    // Three answers at once (three seconds' worth), then every second request sent to
    // TCP (the test takes a fraction of a second: a fraction of an answer comes back)...
    assert_eq!(
        seen,
        ["answer", "answer", "answer", "none", "to TCP", "none", "to TCP"]
    );
    // ...where it is answered.
    assert_eq!(
        indexes(&resolve(server, Transport::Tcp, "TEST/1", &[], &[]).await),
        [1, 2, 3]
    );
}

#[tokio::test]
async fn site_info_and_what_is_not_answered() {
    let server = start(records(), RateLimits::default()).await;
    for transport in [Transport::Udp, Transport::Tcp] {
        let request = Message::site_info_request(u32::MAX);
        let (_, answer) = ask(server, transport, &request, 5, &Timeouts::default())
            .await
            .unwrap();
        let Body::SiteInfo { site: got, .. } = answer.body else {
            panic!("{:?}", answer.body)
        };
        assert_eq!(got, site(server.port()));
        // Administration: not supported, said so.
        let mut delete = Message::site_info_request(u32::MAX);
        delete.header.opcode = handle_proto::OpCode::DELETE_HANDLE;
        let (_, answer) = ask(server, transport, &delete, 6, &Timeouts::default())
            .await
            .unwrap();
        assert_eq!(
            answer.header.response_code,
            ResponseCode::OPERATION_NOT_SUPPORTED
        );
    }
    // Bytes that are no message, over TCP: answered with a protocol error.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server).await.unwrap();
    let mut bad = Vec::new();
    handle_proto::Envelope::new((2, 11), 9, 3).encode(&mut bad);
    bad.extend_from_slice(b"abc");
    stream.write_all(&bad).await.unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await.unwrap();
    let (envelope, message) = handle_proto::tcp::unframe(&reply).unwrap();
    assert_eq!(envelope.request_id, 9);
    assert_eq!(message.header.response_code, ResponseCode::PROTOCOL_ERROR);
}

/// A request that asks for a certified answer gets one signed as the reference signs it:
/// the envelope's fields and the header and body, under the key the site record names.
#[tokio::test]
async fn certified_answers_verify_with_the_site_key() {
    use handle_proto::{credential, Credential, PublicKey};
    use rsa::pkcs1v15::{Signature, VerifyingKey};
    use rsa::signature::Verifier;
    use rsa::{BigUint, RsaPublicKey};

    let key = Arc::new(handle_net::key::ServerKey::generate().unwrap());
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let udp = UdpSocket::bind(addr).await.unwrap();
    let mut served = site(addr.port());
    served.servers[0].public_key = key.public_key();
    let server_site = served.clone();
    let mut service = Service::new(Arc::new(records()), server_site);
    service.key = Some(key);
    tokio::spawn(serve(service, udp, tcp, std::future::pending()));
    let published = PublicKey::decode(&served.servers[0].public_key).unwrap();
    let public = RsaPublicKey::new(
        BigUint::from_bytes_be(&published.numbers[1]),
        BigUint::from_bytes_be(&published.numbers[0]),
    )
    .unwrap();
    let verifier = VerifyingKey::<sha2::Sha256>::new(public);
    for transport in [Transport::Udp, Transport::Tcp] {
        let mut request = Message::resolution(b"TEST/1", &[], &[], u32::MAX);
        request.header.flags = request.header.flags.with(handle_proto::OpFlags::CERT, true);
        for _ in 0..2 {
            // (Twice: a certified answer is made for each request, never kept.)
            let (envelope, answer) = ask(addr, transport, &request, 41, &Timeouts::default())
                .await
                .unwrap();
            let Credential::Signed(bytes) = &answer.credential else {
                panic!("unsigned: {:?}", answer.credential)
            };
            // The signature is the last byte string of the credential.
            let n = u32::from_be_bytes(
                bytes[bytes.len() - 260..bytes.len() - 256]
                    .try_into()
                    .unwrap(),
            );
            assert_eq!(n, 256, "a 2,048-bit signature");
            let signature = Signature::try_from(&bytes[bytes.len() - 256..]).unwrap();
            let unsigned = Message {
                credential: Credential::Empty,
                ..answer.clone()
            }
            .to_bytes();
            let data = credential::signed_data(&envelope, 0, &unsigned[..unsigned.len() - 4]);
            verifier
                .verify(&data, &signature)
                .expect("the signature verifies");
            assert_eq!(
                &credential::signed("SHA-256", &bytes[bytes.len() - 256..], 0),
                bytes
            );
        }
    }
}

/// What one flood did: bytes sent and received by the flooding socket, and the answers
/// another network's client got of those it asked for meanwhile.
struct Flood {
    sent: usize,
    received: usize,
    asked: usize,
    answered: usize,
}

/// `handle` asked of `server` `rate` times a second for `seconds` from one socket of
/// 127.0.0.1, while a client on 127.1.0.2 (another /24) asks for `TEST/1` 50 times a
/// second, waiting at most a second for each answer; `None` where 127.1.0.2 is not
/// loopback.
fn flood(server: SocketAddr, handle: &[u8], rate: usize, seconds: u64) -> Option<Flood> {
    use std::net::UdpSocket;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    let datagram = |handle: &[u8], id: u32| {
        let message = Message::resolution(handle, &[], &[], u32::MAX).to_bytes();
        let envelope = handle_proto::Envelope::new(handle_proto::VERSION, id, message.len() as u32);
        let mut out = Vec::new();
        handle_proto::udp::write_datagram(envelope, &message, 0, &mut out);
        out
    };
    let other = UdpSocket::bind("127.1.0.2:0").ok()?;
    let flooder = UdpSocket::bind("127.0.0.1:0").unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let received = {
        let (socket, done) = (flooder.try_clone().unwrap(), done.clone());
        socket
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        std::thread::spawn(move || {
            let (mut bytes, mut buffer) = (0, [0_u8; 2048]);
            loop {
                match socket.recv(&mut buffer) {
                    Ok(n) => bytes += n,
                    Err(_) if done.load(Ordering::Relaxed) => return bytes,
                    Err(_) => {}
                }
            }
        })
    };
    let asking = {
        let done = done.clone();
        std::thread::spawn(move || {
            other
                .set_read_timeout(Some(Duration::from_secs(1)))
                .unwrap();
            let (mut asked, mut answered, mut buffer) = (0, 0, [0_u8; 2048]);
            while !done.load(Ordering::Relaxed) {
                asked += 1;
                let id = 1_000_000 + asked as u32;
                other.send_to(&datagram(b"TEST/1", id), server).unwrap();
                // The answer to this request (one datagram), not a late one.
                while let Ok(n) = other.recv(&mut buffer) {
                    let envelope = handle_proto::Envelope::decode(&buffer[..n]).unwrap();
                    if envelope.request_id == id {
                        let answer = Message::decode(&buffer[20..n]).unwrap();
                        assert_eq!(answer.header.response_code, ResponseCode::SUCCESS);
                        answered += 1;
                        break;
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            (asked, answered)
        })
    };
    let start = Instant::now();
    let mut sent = 0;
    let mut n = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        // Paced in steps of 10 ms: what the rate allows by now.
        let due = (start.elapsed().as_secs_f64() * rate as f64) as usize;
        while n < due {
            let d = datagram(handle, n as u32);
            sent += flooder.send_to(&d, server).unwrap();
            n += 1;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500));
    done.store(true, Ordering::Relaxed);
    let (asked, answered) = asking.join().unwrap();
    Some(Flood {
        sent,
        received: received.join().unwrap(),
        asked,
        answered,
    })
}

/// The flood: 60 values of 200 bytes asked 5,000 times a second from one socket.
/// HDLNET's server sent such a source 190 times what it sent (N14); this server at most 3
/// times, with the UDP cap and without it (the budget alone), and another network's
/// client got every answer meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_flood_from_one_network_is_no_amplifier_and_others_are_answered() {
    // (Loopback limited too: the test's sources are on it.)
    let capped = RateLimits {
        loopback: true,
        ..RateLimits::default()
    };
    let budget_only = RateLimits {
        max_datagrams: 0,
        ..capped
    };
    for (name, limits) in [("capped", capped), ("budget only", budget_only)] {
        let server = start(records(), limits).await;
        let Some(f) = tokio::task::spawn_blocking(move || flood(server, b"TEST/large", 5000, 2))
            .await
            .unwrap()
        else {
            eprintln!("skipped: 127.1.0.2 is not an address of this machine");
            return;
        };
        eprintln!(
            "{name}: sent {} bytes, received {} ({:.2}x); the other network: {} of {} answered",
            f.sent,
            f.received,
            f.received as f64 / f.sent as f64,
            f.answered,
            f.asked
        );
        assert!(f.sent > 500_000, "{name}: the flood was sent: {}", f.sent);
        assert!(
            f.received <= 3 * f.sent,
            "{name}: {} for {}",
            f.received,
            f.sent
        );
        assert!(f.asked >= 20, "{name}: the other client asked");
        assert_eq!(
            f.answered, f.asked,
            "{name}: the other network was answered"
        );
    }
    // Without limits (and a tenth of the rate) the same measure sees the amplifier.
    let server = start(records(), RateLimits::NONE).await;
    let f = tokio::task::spawn_blocking(move || flood(server, b"TEST/large", 500, 1))
        .await
        .unwrap()
        .unwrap();
    eprintln!(
        "no limits: sent {} bytes, received {} ({:.0}x)",
        f.sent,
        f.received,
        f.received as f64 / f.sent as f64
    );
    assert!(f.received > 100 * f.sent, "{} for {}", f.received, f.sent);
}
