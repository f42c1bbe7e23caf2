//! The message envelope: the 20 bytes before every message on TCP, and before each
//! fragment of one on UDP (RFC 3652 §2.2.1, as the reference writes it: N2).

use crate::wire::{DecodeError, DecodeErrorKind, Reader, Write};
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
        out.extend_from_slice(&[self.version.0, self.version.1, flags, self.suggested.1]);
        out.u32(self.session_id);
        out.u32(self.request_id);
        out.u32(self.sequence);
        out.u32(self.message_length);
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
