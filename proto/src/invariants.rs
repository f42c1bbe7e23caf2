//! What the fuzz target and the tests hold every decoder to, on any bytes: no panic, and
//! what decodes re-encodes to exactly the bytes it was read from. Not part of the API.

use crate::{tcp, udp, AdminRef, Envelope, Message, PublicKey, SiteInfo, ValueRefList, WireValue};

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
