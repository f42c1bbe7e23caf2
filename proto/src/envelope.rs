//! The message envelope: the 20 bytes before every message on TCP, and before each
//! fragment of one on UDP (RFC 3652 §2.2.1, as the reference writes it: N2).

use crate::wire::{DecodeError, DecodeErrorKind, Reader};
use crate::{MAX_MESSAGE_LENGTH, VERSION};

/// The envelope of a message (or of one UDP fragment of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Envelope {
    /// The protocol version the sender speaks in this message.
    pub version: (u8, u8),
    /// The highest version the sender supports, written in the flag bytes (N2). The
    /// major version takes two bits: at most 3.
    pub suggested: (u8, u8),
    /// The message is compressed (never, in practice).
    pub compressed: bool,
    /// The message is encrypted with a session key.
    pub encrypted: bool,
    /// The message is split over several datagrams (a request's fragments must say so).
    pub truncated: bool,
    /// The session, 0 for none.
    pub session_id: u32,
    /// Pairs a response with its request.
    pub request_id: u32,
    /// A UDP fragment's number, from 0; 0 on TCP (the RFC's sequence number).
    pub sequence: u32,
    /// The length of the whole message, not of this fragment.
    pub message_length: u32,
}

impl Envelope {
    /// Its size on the wire.
    pub const SIZE: usize = 20;

    /// The envelope of a message of `message_length` bytes with request id `request_id`,
    /// in version `version`, suggesting this crate's version.
    #[must_use]
    pub fn new(version: (u8, u8), request_id: u32, message_length: u32) -> Self {
        Self {
            version,
            suggested: VERSION,
            compressed: false,
            encrypted: false,
            truncated: false,
            session_id: 0,
            request_id,
            sequence: 0,
            message_length,
        }
    }

    /// Reads an envelope from the first 20 bytes of `bytes`. The suggested version is
    /// read as written (a sender before 2.8 writes zeros there; see
    /// [`suggested_version`](Self::suggested_version)).
    ///
    /// # Errors
    ///
    /// Fewer than 20 bytes; a message length over [`MAX_MESSAGE_LENGTH`]; flag bits the
    /// protocol leaves unused set (kept zero so that what decodes re-encodes the same).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        // (Every datagram's path: read as one array when the bytes are there.)
        let Some(b) = bytes.first_chunk::<{ Self::SIZE }>() else {
            return Self::decode_fields(bytes);
        };
        let word = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let flags = b[2];
        if flags & 0x1C != 0 {
            return Err(DecodeError::new(
                2,
                DecodeErrorKind::Invalid("unused envelope flags set"),
            ));
        }
        let envelope = Self {
            version: (b[0], b[1]),
            suggested: (flags & 0x03, b[3]),
            compressed: flags & 0x80 != 0,
            encrypted: flags & 0x40 != 0,
            truncated: flags & 0x20 != 0,
            session_id: word(4),
            request_id: word(8),
            sequence: word(12),
            message_length: word(16),
        };
        if envelope.message_length > MAX_MESSAGE_LENGTH {
            return Err(DecodeError::new(16, DecodeErrorKind::TooLong));
        }
        Ok(envelope)
    }

    /// [`decode`](Self::decode) field by field: for fewer than 20 bytes, where they end or
    /// what is wrong before that.
    fn decode_fields(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let version = (r.u8()?, r.u8()?);
        let flags = r.u8()?;
        let minor = r.u8()?;
        if flags & 0x1C != 0 {
            return Err(DecodeError::new(
                2,
                DecodeErrorKind::Invalid("unused envelope flags set"),
            ));
        }
        let envelope = Self {
            version,
            suggested: (flags & 0x03, minor),
            compressed: flags & 0x80 != 0,
            encrypted: flags & 0x40 != 0,
            truncated: flags & 0x20 != 0,
            session_id: r.u32()?,
            request_id: r.u32()?,
            sequence: r.u32()?,
            message_length: r.u32()?,
        };
        if envelope.message_length > MAX_MESSAGE_LENGTH {
            return Err(DecodeError::new(16, DecodeErrorKind::TooLong));
        }
        Ok(envelope)
    }

    /// Writes the envelope's 20 bytes.
    ///
    /// # Panics
    ///
    /// When the suggested major version does not fit in its two bits.
    pub fn encode(&self, out: &mut Vec<u8>) {
        assert!(
            self.suggested.0 < 4,
            "a suggested major version of two bits"
        );
        let flags = u8::from(self.compressed) << 7
            | u8::from(self.encrypted) << 6
            | u8::from(self.truncated) << 5
            | self.suggested.0;
        // (One copy of the 20 bytes rather than five: this is on every datagram's path.)
        let mut bytes = [0; Self::SIZE];
        bytes[..4].copy_from_slice(&[self.version.0, self.version.1, flags, self.suggested.1]);
        bytes[4..8].copy_from_slice(&self.session_id.to_be_bytes());
        bytes[8..12].copy_from_slice(&self.request_id.to_be_bytes());
        bytes[12..16].copy_from_slice(&self.sequence.to_be_bytes());
        bytes[16..].copy_from_slice(&self.message_length.to_be_bytes());
        out.extend_from_slice(&bytes);
    }

    /// The version the sender suggests for the answer: the suggested one, or, from a
    /// sender that writes none (before 2.8), its own.
    #[must_use]
    pub fn suggested_version(&self) -> (u8, u8) {
        if self.suggested.0 == 0 {
            self.version
        } else {
            self.suggested
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_envelope_reads_as_the_fields_do() {
        // Bytes of every length up to past an envelope, flags and lengths of every kind.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for n in 0..=24 {
            for _ in 0..2_000 {
                let bytes: Vec<u8> = (0..n)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        // Mostly small bytes, so that lengths under the maximum come up.
                        (state >> 56) as u8 & if state & 1 == 0 { 0x03 } else { 0xFF }
                    })
                    .collect();
                assert_eq!(
                    Envelope::decode(&bytes),
                    Envelope::decode_fields(&bytes),
                    "{bytes:02x?}"
                );
            }
        }
    }
}
