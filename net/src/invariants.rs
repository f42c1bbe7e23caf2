//! What the fuzz target and the tests hold the server's answers to, on any bytes as a
//! datagram: no panic; an answer that re-reads as itself, to the request's id; a refusal
//! (N14) no larger than the request by more than a fixed amount; the UDP limiter's table
//! on any address; any bytes as a root info file. Not part of the API.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, OnceLock};

use handle_proto::{Envelope, Message, ResponseCode, SiteInfo, WireValue};

use crate::answer::{answer, refusal, Records};
use crate::limit::{Admission, Limiter, RateLimits};

struct Map(HashMap<String, Vec<WireValue>>);

impl Records for Map {
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String> {
        Ok(self.0.get(handle).cloned())
    }
}

/// A handle of a few values, one of many, a prefix handle.
fn records() -> &'static Map {
    static RECORDS: OnceLock<Map> = OnceLock::new();
    RECORDS.get_or_init(|| {
        let many = (1..=60)
            .map(|i| WireValue::new(i, "DESC", &[b'x'; 200]))
            .collect();
        Map(HashMap::from([
            (
                "TEST/1".to_owned(),
                vec![
                    WireValue::new(1, "URL", b"https://example.org/"),
                    WireValue::new(2, "EMAIL", b"a@example.org"),
                ],
            ),
            ("TEST/large".to_owned(), many),
            (
                "0.NA/TEST".to_owned(),
                vec![WireValue::new(1, "HS_SITE", b"")],
            ),
        ]))
    })
}

fn site() -> SiteInfo {
    SiteInfo {
        format_version: 1,
        protocol: (2, 11),
        serial: 1,
        primary_mask: 0x80,
        hash_option: 0,
        hash_filter: Vec::new(),
        attributes: Vec::new(),
        servers: Vec::new(),
    }
}

/// The most a refusal adds to the request it answers, besides what it says: its body's
/// digest of the request (33 bytes) and lengths, less the request's own header and body
/// length, which it shares.
const REFUSAL_OVERHEAD: usize = 41;

/// `bytes` as a datagram to the server: its envelope and message answered, and refused.
pub fn answers_datagram(bytes: &[u8]) {
    let Ok(envelope) = Envelope::decode(bytes) else {
        return;
    };
    let message = &bytes[Envelope::SIZE..];
    let (reply_envelope, reply) = answer(records(), &site(), &envelope, message, 1_000, None);
    assert_eq!(reply_envelope.request_id, envelope.request_id);
    let encoded = reply.to_bytes();
    assert_eq!(
        Message::decode(&encoded).as_ref(),
        Ok(&reply),
        "an answer re-reads as itself"
    );
    let why = "UDP limit: ask over TCP";
    match refusal(&site(), &envelope, message, 1_000, why) {
        Some((refused_envelope, refused)) => {
            assert_eq!(refused_envelope.request_id, envelope.request_id);
            assert_eq!(refused.header.response_code, ResponseCode::ERROR);
            let n = refused.to_bytes().len();
            assert!(
                n <= message.len() + why.len() + REFUSAL_OVERHEAD,
                "a refusal of {n} bytes for a request of {}",
                message.len()
            );
        }
        None => assert!(
            Message::decode(message).map_or(true, |m| !m.header.is_request()),
            "a request is refused"
        ),
    }
}

/// `bytes` as a datagram to a server that signs (N13): any certified answer it makes
/// verifies by its key, and fails by another's or with a byte of its body changed; and
/// `bytes` as an answer a client got, checked by a key: never a panic. Whether a signed
/// answer was checked.
pub fn certified_answers_verify(bytes: &[u8]) -> bool {
    static KEYS: OnceLock<(crate::key::ServerKey, Vec<u8>)> = OnceLock::new();
    let (key, other) = KEYS.get_or_init(|| {
        let key = crate::key::ServerKey::generate().expect("a key");
        let other = crate::key::ServerKey::generate()
            .expect("a key")
            .public_key();
        (key, other)
    });
    let Ok(envelope) = Envelope::decode(bytes) else {
        return false;
    };
    let message = &bytes[Envelope::SIZE..];
    if let Ok(got) = Message::decode(message) {
        let _ = crate::key::verify_answer(&envelope, &got, &key.public_key());
    }
    let (reply_envelope, reply) = answer(records(), &site(), &envelope, message, 1_000, Some(key));
    if !matches!(reply.credential, handle_proto::Credential::Signed(_)) {
        return false;
    }
    let public = key.public_key();
    assert_eq!(
        crate::key::verify_answer(&reply_envelope, &reply, &public),
        Ok(()),
        "a signed answer verifies"
    );
    assert!(crate::key::verify_answer(&reply_envelope, &reply, other).is_err());
    let mut changed = reply.clone();
    changed.header.expiration ^= 1;
    assert!(crate::key::verify_answer(&reply_envelope, &changed, &public).is_err());
    true
}

/// `bytes` as source addresses (each 4 or 16 bytes) admitted and charged on a small table.
pub fn limiter_admits_any_address(bytes: &[u8]) {
    let limiter = Limiter::new(
        RateLimits {
            table: 100,
            ipv6_prefix: bytes.first().copied().unwrap_or(56),
            ipv4_prefix: bytes.get(1).copied().unwrap_or(24),
            ..RateLimits::default()
        },
        Arc::default(),
    );
    let memory = limiter.memory();
    for chunk in bytes.chunks(16) {
        let from = match <[u8; 16]>::try_from(chunk) {
            Ok(v6) => IpAddr::V6(Ipv6Addr::from(v6)),
            Err(_) if chunk.len() >= 4 => {
                IpAddr::V4(Ipv4Addr::new(chunk[0], chunk[1], chunk[2], chunk[3]))
            }
            Err(_) => continue,
        };
        if let Admission::Answer(budget) = limiter.admit(from) {
            limiter.charge(budget, chunk.len() * 1000);
        }
    }
    assert_eq!(limiter.memory(), memory);
}

/// `bytes` as a root info file (`Resolver::from_root_info`, what `hdl resolve --root-info`
/// and Python's `root_info` read): never a panic; read exactly when the file's format
/// reads (`handle_proto::root::read`); the root's sites exactly its `HS_SITE` and
/// `HS_SITE.6` values that read as site info, in order.
pub fn root_info_reads(bytes: &[u8]) {
    let read = handle_proto::root::read(bytes);
    let resolver =
        crate::resolver::Resolver::from_root_info(Some(bytes), crate::client::Timeouts::default());
    match (read, resolver) {
        (Ok(values), Ok(resolver)) => {
            let sites: Vec<SiteInfo> = values
                .iter()
                .filter(|v| v.value_type == b"HS_SITE" || v.value_type == b"HS_SITE.6")
                .filter_map(|v| SiteInfo::decode(&v.data).ok())
                .collect();
            assert_eq!(resolver.root(), &sites[..], "the root's sites");
        }
        (Err(_), Err(why)) => assert!(why.starts_with("the root info does not read")),
        (read, resolver) => panic!(
            "root::read {} but from_root_info {}",
            if read.is_ok() { "reads" } else { "refuses" },
            if resolver.is_ok() { "reads" } else { "refuses" }
        ),
    }
}
