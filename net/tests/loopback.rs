//! The server and the client on loopback: answers over UDP (one datagram and many) and
//! TCP, type and index filters, values without public read withheld, handles not found,
//! the server's site info, messages that do not read.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use handle_net::client::{ask, Timeouts, Transport};
use handle_net::server::{serve, Limits};
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
async fn start(records: Map) -> SocketAddr {
    loop {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let Ok(udp) = UdpSocket::bind(addr).await else {
            continue;
        };
        tokio::spawn(serve(
            Arc::new(records),
            site(addr.port()),
            None,
            udp,
            tcp,
            Limits::default(),
            std::future::pending(),
        ));
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
    let server = start(records()).await;
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

#[tokio::test]
async fn site_info_and_what_is_not_answered() {
    let server = start(records()).await;
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
    tokio::spawn(serve(
        Arc::new(records()),
        server_site,
        Some(key),
        udp,
        tcp,
        Limits::default(),
        std::future::pending(),
    ));
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
