//! The credential section of a message signed as the reference signs it (N13): what is
//! signed, and the layout of an `HS_SIGNED` credential, read and written. The signature
//! itself is the signer's, and checking it the verifier's (a key is no part of this crate).

use crate::envelope::Envelope;
use crate::wire::{DecodeError, Reader, Write};

/// A credential (what follows the credential section's length): who signed, how, and the
/// signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SignedCredential {
    /// The credential's version (0).
    pub version: u8,
    /// Reserved (0).
    pub reserved: u8,
    /// Options (0).
    pub options: u16,
    /// The signer's handle (empty for a server's own signature).
    pub signer: Vec<u8>,
    /// The signer's index; in a server's signature, the session counter.
    pub index: u32,
    /// The credential's type: `HS_SIGNED` (a signature) or `HS_MAC` (a session's MAC).
    pub kind: Vec<u8>,
    /// The digest algorithm, as the wire names it (`SHA-256`, `SHA1` …).
    pub algorithm: Vec<u8>,
    /// The signature's bytes.
    pub signature: Vec<u8>,
}

impl SignedCredential {
    /// Reads a credential that fills `bytes` exactly.
    ///
    /// # Errors
    ///
    /// A field or length past the end, or bytes left over (in the credential or in its
    /// signed information).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let (version, reserved, options) = (r.u8()?, r.u8()?, r.u16()?);
        let signer = r.bytes()?.to_vec();
        let index = r.u32()?;
        let kind = r.bytes()?.to_vec();
        let at = r.offset() + 4;
        let info = r.bytes()?;
        r.end()?;
        let mut i = Reader::new(info);
        let read = |i: &mut Reader<'_>| -> Result<(Vec<u8>, Vec<u8>), DecodeError> {
            let algorithm = i.bytes()?.to_vec();
            let signature = i.bytes()?.to_vec();
            i.end()?;
            Ok((algorithm, signature))
        };
        let (algorithm, signature) = read(&mut i).map_err(|e| e.shifted(at))?;
        Ok(Self {
            version,
            reserved,
            options,
            signer,
            index,
            kind,
            algorithm,
            signature,
        })
    }

    /// Writes the credential: the exact inverse of [`SignedCredential::decode`].
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[self.version, self.reserved]);
        out.extend_from_slice(&self.options.to_be_bytes());
        out.bytes(&self.signer);
        out.u32(self.index);
        out.bytes(&self.kind);
        out.count(4 + self.algorithm.len() + 4 + self.signature.len());
        out.bytes(&self.algorithm);
        out.bytes(&self.signature);
    }
}

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
    SignedCredential {
        version: 0,
        reserved: 0,
        options: 0,
        signer: Vec::new(),
        index: counter,
        kind: b"HS_SIGNED".to_vec(),
        algorithm: algorithm.as_bytes().to_vec(),
        signature: signature.to_vec(),
    }
    .encode(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_credential_reads_back_as_written() {
        let bytes = signed("SHA-256", &[1, 2, 3], 7);
        let c = SignedCredential::decode(&bytes).unwrap();
        assert_eq!(
            (c.index, &c.kind[..], &c.algorithm[..], &c.signature[..]),
            (7, &b"HS_SIGNED"[..], &b"SHA-256"[..], &[1, 2, 3][..])
        );
        let mut again = Vec::new();
        c.encode(&mut again);
        assert_eq!(again, bytes);
    }

    #[test]
    fn a_credential_shorter_or_longer_than_it_says_does_not_read() {
        let bytes = signed("SHA-256", &[1, 2, 3], 7);
        for n in 0..bytes.len() {
            assert!(SignedCredential::decode(&bytes[..n]).is_err(), "{n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SignedCredential::decode(&longer).is_err());
        // A signature length past its signed information's.
        let mut inner = bytes;
        let at = inner.len() - 3 - 4;
        inner[at + 3] = 4;
        assert!(SignedCredential::decode(&inner).is_err());
    }
}
