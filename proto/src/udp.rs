//! Messages over UDP: a message of more than [`MAX_PAYLOAD`] bytes is split over several
//! datagrams, each with its own envelope (the fragment's number, the whole message's
//! length), and put back together by number (N7).

use crate::envelope::Envelope;
use crate::wire::{DecodeError, DecodeErrorKind};

/// The message bytes one datagram carries after its envelope (512 bytes in all).
pub const MAX_PAYLOAD: usize = 492;

/// The datagrams that carry `message` with `envelope`'s fields: fragment `k` holds bytes
/// `k * 492 ..` of it. When there are several, each says so (`truncated`), as the
/// reference requires of a request's fragments.
pub fn datagrams(envelope: Envelope, message: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    (0..Reassembly::fragments(u32::try_from(message.len()).expect("a message under 4 GiB"))).map(
        move |k| {
            let mut out = Vec::with_capacity(Envelope::SIZE + MAX_PAYLOAD);
            write_datagram(envelope, message, k, &mut out);
            out
        },
    )
}

/// Writes datagram `k` of `message` (see [`datagrams`]) into `out`, emptied first: for a
/// sender that reuses one buffer.
#[inline]
pub fn write_datagram(envelope: Envelope, message: &[u8], k: usize, out: &mut Vec<u8>) {
    let start = (k * MAX_PAYLOAD).min(message.len());
    let payload = &message[start..(start + MAX_PAYLOAD).min(message.len())];
    out.clear();
    Envelope {
        sequence: u32::try_from(k).expect("fewer than 2^32 fragments"),
        message_length: u32::try_from(message.len()).expect("a message under 4 GiB"),
        truncated: message.len() > MAX_PAYLOAD,
        ..envelope
    }
    .encode(out);
    out.extend_from_slice(payload);
}

/// A message being put back together from its datagrams. It holds the message's bytes
/// (at most [`MAX_MESSAGE_LENGTH`](crate::MAX_MESSAGE_LENGTH)) and one bit a fragment.
#[derive(Debug)]
pub struct Reassembly {
    request_id: u32,
    buffer: Vec<u8>,
    received: Vec<bool>,
    missing: usize,
}

impl Reassembly {
    /// The number of datagrams a message of `length` bytes takes.
    #[must_use]
    #[inline]
    pub fn fragments(length: u32) -> usize {
        (length as usize).div_ceil(MAX_PAYLOAD).max(1)
    }

    /// Starts putting together the message that the datagram with `envelope` belongs to.
    #[must_use]
    pub fn new(envelope: &Envelope) -> Self {
        let n = Self::fragments(envelope.message_length);
        Self {
            request_id: envelope.request_id,
            buffer: vec![0; envelope.message_length as usize],
            received: vec![false; n],
            missing: n,
        }
    }

    /// Adds the datagram `bytes` (envelope and payload): the whole message once every
    /// fragment is in, `None` before. A fragment seen before is ignored.
    ///
    /// # Errors
    ///
    /// A datagram of another message (request id, length), a fragment number past the
    /// last, a payload of the wrong size for its place.
    pub fn add(&mut self, bytes: &[u8]) -> Result<Option<Vec<u8>>, DecodeError> {
        if self.missing == 0 {
            // Handed out already: a late repeat.
            return Ok(None);
        }
        let envelope = Envelope::decode(bytes)?;
        let payload = &bytes[Envelope::SIZE..];
        if envelope.request_id != self.request_id {
            return Err(DecodeError::new(
                8,
                DecodeErrorKind::Invalid("a datagram of another request"),
            ));
        }
        if envelope.message_length as usize != self.buffer.len() {
            return Err(DecodeError::new(
                16,
                DecodeErrorKind::Invalid("a fragment of another length"),
            ));
        }
        let k = envelope.sequence as usize;
        if k >= self.received.len() {
            return Err(DecodeError::new(
                12,
                DecodeErrorKind::Invalid("a fragment number past the last"),
            ));
        }
        let start = k * MAX_PAYLOAD;
        let end = (start + MAX_PAYLOAD).min(self.buffer.len());
        if payload.len() != end - start {
            return Err(DecodeError::new(
                Envelope::SIZE,
                DecodeErrorKind::Invalid("a fragment of the wrong size"),
            ));
        }
        if !self.received[k] {
            self.received[k] = true;
            self.missing -= 1;
            self.buffer[start..end].copy_from_slice(payload);
        }
        Ok((self.missing == 0).then(|| std::mem::take(&mut self.buffer)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_split_and_put_back_in_any_order() {
        let message: Vec<u8> = (0..2000_u32).map(|i| i as u8).collect();
        let envelope = Envelope::new((2, 11), 7, 0);
        let mut parts: Vec<Vec<u8>> = datagrams(envelope, &message).collect();
        assert_eq!(parts.len(), 5);
        assert!(parts.iter().all(|p| p.len() <= 512));
        parts.reverse();
        let first = Envelope::decode(&parts[0]).unwrap();
        assert!(first.truncated);
        let mut r = Reassembly::new(&first);
        for (i, p) in parts.iter().enumerate().take(4) {
            assert_eq!(r.add(p).unwrap(), None, "{i}");
            // A repeat is ignored.
            assert_eq!(r.add(p).unwrap(), None, "{i}");
        }
        assert_eq!(r.add(&parts[4]).unwrap().as_deref(), Some(&message[..]));
        assert_eq!(r.add(&parts[4]).unwrap(), None);
        // A fragment of the wrong size is refused.
        let mut bad = parts[1].clone();
        bad.pop();
        assert!(Reassembly::new(&first).add(&bad).is_err());
        // One datagram, not marked.
        let one: Vec<_> = datagrams(envelope, b"short").collect();
        assert_eq!(one.len(), 1);
        assert!(!Envelope::decode(&one[0]).unwrap().truncated);
    }
}
