//! What the fuzz target and the tests hold every decoder to, on any bytes: no panic, and
//! what decodes re-encodes to exactly the bytes it was read from. Not part of the API.

/// The seeded generator the invariants' tests take (the same cases on every run).
pub use handle_id::record::{RandomSource, SplitMix64};

use crate::{tcp, udp, AdminRef, Envelope, Message, PublicKey, SiteInfo, ValueRefList, WireValue};

/// `bytes` changed once at random, as a decoder's test changes its inputs: a bit flipped,
/// the end cut, a 4-byte length or count (or code, or flags) set to something near or
/// far, a byte put in or taken out.
pub fn mutate(bytes: &[u8], random: &mut impl RandomSource) -> Vec<u8> {
    let mut m = bytes.to_vec();
    if m.is_empty() {
        return vec![random.next_u64() as u8];
    }
    match random.below(5) {
        0 => {
            let i = random.below(m.len());
            m[i] ^= 1 << random.below(8);
        }
        1 => m.truncate(random.below(m.len())),
        2 => {
            let i = random.below(m.len().saturating_sub(4).max(1));
            let n = [0, 1, 2, 3, 255, 0x7fff_ffff, 0xffff_ffff][random.below(7)];
            for (k, b) in u32::to_be_bytes(n).into_iter().enumerate() {
                if let Some(slot) = m.get_mut(i + k) {
                    *slot = b;
                }
            }
        }
        3 => {
            let i = random.below(m.len() + 1);
            m.insert(i, random.next_u64() as u8);
        }
        _ => {
            let i = random.below(m.len());
            m.remove(i);
        }
    }
    m
}

/// Runs every decoder on `bytes` and checks the round trip of each that accepts them.
pub fn decoders_round_trip(bytes: &[u8]) {
    fn check<T: std::fmt::Debug>(
        name: &str,
        bytes: &[u8],
        decoded: Result<T, crate::DecodeError>,
        encode: impl Fn(&T, &mut Vec<u8>),
    ) {
        match decoded {
            Ok(value) => {
                let mut out = Vec::new();
                encode(&value, &mut out);
                assert_eq!(out, bytes, "{name}: {value:?}");
            }
            Err(e) => assert!(e.offset() <= bytes.len(), "{name}: {e:?} past the end"),
        }
    }
    check("message", bytes, Message::decode(bytes), Message::encode);
    if let Ok(message) = Message::decode(bytes) {
        // Any answer has a REST form (`hdl resolve`, `hdl serve --upstream`): its values, or
        // a code; a success only with the handle asked.
        let response = crate::rest::answer("20.1000/x", &message);
        if response.code() == handle_id::record::ResponseCode::Success {
            assert!(response.handle().is_some(), "{message:?}");
        }
    }
    check("value", bytes, WireValue::decode(bytes), WireValue::encode);
    check("site", bytes, SiteInfo::decode(bytes), SiteInfo::encode);
    check("admin", bytes, AdminRef::decode(bytes), AdminRef::encode);
    check(
        "vlist",
        bytes,
        ValueRefList::decode(bytes),
        ValueRefList::encode,
    );
    check("key", bytes, PublicKey::decode(bytes), PublicKey::encode);
    check(
        "credential",
        bytes,
        crate::credential::SignedCredential::decode(bytes),
        crate::credential::SignedCredential::encode,
    );
    check("root", bytes, crate::root::read(bytes), |v, out| {
        out.extend_from_slice(&crate::root::write(v));
    });
    if let Ok((envelope, message)) = tcp::unframe(bytes) {
        assert_eq!(tcp::frame(envelope, &message), bytes);
    }
    if bytes.len() >= Envelope::SIZE {
        if let Ok(envelope) = Envelope::decode(bytes) {
            let mut out = Vec::new();
            envelope.encode(&mut out);
            assert_eq!(out, bytes[..Envelope::SIZE]);
            // A datagram: any may start a reassembly, which never holds more than the
            // protocol's largest message.
            let mut r = udp::Reassembly::new(&envelope);
            let _ = r.add(bytes);
        }
    }
}
