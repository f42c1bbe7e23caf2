//! Messages over TCP: an envelope, then exactly the message it announces (N7).

use crate::envelope::Envelope;
use crate::message::Message;
use crate::wire::{DecodeError, DecodeErrorKind};

/// The bytes of `message` framed for TCP: its envelope (`envelope`'s fields, with the
/// message's length), then the message.
#[must_use]
pub fn frame(envelope: Envelope, message: &Message) -> Vec<u8> {
    frame_bytes(envelope, &message.to_bytes())
}

/// [`frame`] for a message already encoded.
#[must_use]
pub fn frame_bytes(envelope: Envelope, message: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(Envelope::SIZE + message.len());
    Envelope {
        message_length: u32::try_from(message.len()).expect("a message under 4 GiB"),
        ..envelope
    }
    .encode(&mut out);
    out.extend_from_slice(message);
    out
}

/// Reads one framed message that fills `bytes`: the envelope and the message.
///
/// # Errors
///
/// The envelope's errors; a message shorter or longer than the envelope says; the
/// message's errors (offsets from the start of `bytes`).
pub fn unframe(bytes: &[u8]) -> Result<(Envelope, Message), DecodeError> {
    let envelope = Envelope::decode(bytes)?;
    let rest = &bytes[Envelope::SIZE..];
    if rest.len() != envelope.message_length as usize {
        return Err(DecodeError::new(
            16,
            if rest.len() < envelope.message_length as usize {
                DecodeErrorKind::Truncated
            } else {
                DecodeErrorKind::TrailingBytes
            },
        ));
    }
    let message = Message::decode(rest).map_err(|e| e.shifted(Envelope::SIZE))?;
    Ok((envelope, message))
}
