//! The credential section of a message signed as the reference signs it (N13): what is
//! signed, and the layout of an `HS_SIGNED` credential. The signature itself is the
//! signer's (a key is no part of this crate).

use crate::envelope::Envelope;
use crate::wire::Write;

/// The bytes a signature covers: from version 2.6 on, the envelope's versions (its
/// suggested version too from 2.8), session id, request id and the session counter, then
/// the message's header and body (`header_and_body`, exactly as sent).
#[must_use]
pub fn signed_data(envelope: &Envelope, counter: u32, header_and_body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + header_and_body.len());
    if envelope.version >= (2, 6) {
        out.extend_from_slice(&[envelope.version.0, envelope.version.1]);
        if envelope.version >= (2, 8) {
            out.extend_from_slice(&[envelope.suggested.0, envelope.suggested.1]);
        }
        out.u32(envelope.session_id);
        out.u32(envelope.request_id);
        out.u32(counter);
    }
    out.extend_from_slice(header_and_body);
    out
}

/// An `HS_SIGNED` credential (what follows the credential's length): version, reserved
/// and flags 0, no signer handle, the session `counter` where the signer's index goes,
/// then the signature's algorithm (`SHA-256`) and bytes.
#[must_use]
pub fn signed(algorithm: &str, signature: &[u8], counter: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(40 + signature.len());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.bytes(b"");
    out.u32(counter);
    out.bytes(b"HS_SIGNED");
    out.count(4 + algorithm.len() + 4 + signature.len());
    out.bytes(algorithm.as_bytes());
    out.bytes(signature);
    out
}
