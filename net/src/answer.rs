//! What a server answers, as data: a request's bytes in, a response out (SPEC N9). No
//! I/O: the server around it reads and writes the sockets.

use handle_proto::{
    Body, Digest, Envelope, Message, OpCode, OpFlags, ResponseCode, SiteInfo, WireValue, VERSION,
};
use sha2::{Digest as _, Sha256};

/// Where a server finds handles' values: a store, a cache, anything.
pub trait Records: Send + Sync + 'static {
    /// The values of `handle`, in their stored order; `None` when there is no such handle.
    ///
    /// # Errors
    ///
    /// The source failed (the client is answered `RC_ERROR`, and tries another server).
    fn values(&self, handle: &str) -> Result<Option<Vec<WireValue>>, String>;

    /// Changes whenever what [`values`](Self::values) answers may have changed: answers
    /// made before are no longer the records' (a server's cache of answers checks it).
    fn generation(&self) -> u64 {
        0
    }
}

/// How long an answer stays valid, from when it is made: the reference's 12 hours.
pub const ANSWER_LIFETIME: u32 = 43_200;

/// The answer to the message whose envelope is `envelope` and whose bytes (after the
/// envelope) are `message`, from a server of `site`, at `now` (seconds since 1970).
pub fn answer(
    records: &dyn Records,
    site: &SiteInfo,
    envelope: &Envelope,
    message: &[u8],
    now: u32,
    key: Option<&crate::key::ServerKey>,
) -> (Envelope, Message) {
    let reply_envelope = reply_envelope(envelope);
    let expiration = now.saturating_add(ANSWER_LIFETIME);
    let request = match Message::decode(message) {
        Ok(m) if m.header.is_request() => m,
        Ok(m) => {
            // (With the digest it asks for: an answer that says it holds one must.)
            let body = Body::Error {
                digest: digest(&m, message),
                message: b"a response where a request was expected".to_vec(),
            };
            return (
                reply_envelope,
                Message::answer(&m.header, ResponseCode::PROTOCOL_ERROR, body, expiration),
            );
        }
        Err(e) => {
            let header = handle_proto::Header::request(OpCode::RESERVED, expiration);
            let body = error_body(&format!("the message does not read: {e}"));
            return (
                reply_envelope,
                Message::answer(&header, ResponseCode::PROTOCOL_ERROR, body, expiration),
            );
        }
    };
    let digest = digest(&request, message);
    let (code, body) = match (&request.header.opcode, &request.body) {
        (
            &OpCode::RESOLUTION,
            Body::ResolutionRequest {
                handle,
                indexes,
                types,
            },
        ) => resolve(records, handle, indexes, types, digest),
        (&OpCode::GET_SITE_INFO, _) => (
            ResponseCode::SUCCESS,
            Body::SiteInfo {
                digest,
                site: site.clone(),
            },
        ),
        _ => (
            ResponseCode::OPERATION_NOT_SUPPORTED,
            Body::Error {
                digest,
                message: format!(
                    "this server answers resolution and site info requests, not {}",
                    request.header.opcode
                )
                .into_bytes(),
            },
        ),
    };
    let mut reply = Message::answer(&request.header, code, body, expiration);
    reply.header.site_serial = site.serial;
    if site.is_primary() {
        reply.header.flags = reply.header.flags.with(OpFlags::AUTH, true);
    }
    // A certified answer, as the reference signs one (N13): its header and body, after
    // the envelope's fields, with the server's key. Without a key the answer goes unsigned,
    // and a client that checks says so.
    if let (true, Some(key)) = (request.header.flags.has(OpFlags::CERT), key) {
        let bytes = reply.to_bytes();
        // The credential's length closes the message: header and body are the rest.
        let header_and_body = &bytes[..bytes.len() - 4];
        let data = handle_proto::credential::signed_data(&reply_envelope, 0, header_and_body);
        let signature = key.sign(&data);
        reply.credential = handle_proto::Credential::Signed(handle_proto::credential::signed(
            "SHA-256", &signature, 0,
        ));
    }
    (reply_envelope, reply)
}

/// The digest of a request, when it asks for one: of its header and body as received.
fn digest(request: &Message, message: &[u8]) -> Option<Digest> {
    request
        .header
        .flags
        .has(OpFlags::RETURN_REQUEST_DIGEST)
        .then(|| {
            let body_length = u32::from_be_bytes(message[20..24].try_into().expect("4 bytes"));
            let signed = &message[..(24 + body_length as usize).min(message.len())];
            Digest {
                algorithm: 3,
                bytes: Sha256::digest(signed).to_vec(),
            }
        })
}

/// An `RC_ERROR` answer saying `why`, short and unsigned, to the request whose envelope is
/// `envelope` and whose bytes are `message`: a client takes it as this server's failure and
/// asks again by its next protocol (HDLNET's client: TCP after UDP) (N14). `None` for a
/// message that is no request, which is not answered.
#[must_use]
pub fn refusal(
    site: &SiteInfo,
    envelope: &Envelope,
    message: &[u8],
    now: u32,
    why: &str,
) -> Option<(Envelope, Message)> {
    let request = Message::decode(message)
        .ok()
        .filter(|m| m.header.is_request())?;
    let reply_envelope = reply_envelope(envelope);
    let body = Body::Error {
        digest: digest(&request, message),
        message: why.as_bytes().to_vec(),
    };
    let expiration = now.saturating_add(ANSWER_LIFETIME);
    let mut reply = Message::answer(&request.header, ResponseCode::ERROR, body, expiration);
    reply.header.site_serial = site.serial;
    Some((reply_envelope, reply))
}

/// A resolution (N4, N9): the values the request selects that anyone may read, or why none.
fn resolve(
    records: &dyn Records,
    handle: &[u8],
    indexes: &[u32],
    types: &[Vec<u8>],
    digest: Option<Digest>,
) -> (ResponseCode, Body) {
    let not_found = |code| {
        (
            code,
            Body::Error {
                digest: digest.clone(),
                message: Vec::new(),
            },
        )
    };
    let Ok(text) = std::str::from_utf8(handle) else {
        return not_found(ResponseCode::HANDLE_NOT_FOUND);
    };
    // A handle without a '/' is a prefix's handle (the reference's reading).
    let asked = if text.contains('/') {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("0.NA/{text}"))
    };
    let values = match records.values(&asked) {
        Ok(Some(values)) => values,
        Ok(None) => return not_found(ResponseCode::HANDLE_NOT_FOUND),
        Err(e) => {
            return (
                ResponseCode::ERROR,
                Body::Error {
                    digest,
                    message: format!("the server could not read its records: {e}").into_bytes(),
                },
            )
        }
    };
    let all = indexes.is_empty() && types.is_empty();
    let values: Vec<WireValue> = values
        .into_iter()
        .filter(|v| {
            all || indexes.contains(&v.index) || types.iter().any(|t| v.selected_by_type(t))
        })
        .filter(|v| v.permissions.public_read())
        .take(handle_proto::MAX_VALUES)
        .collect();
    if values.is_empty() {
        return not_found(ResponseCode::VALUES_NOT_FOUND);
    }
    (
        ResponseCode::SUCCESS,
        Body::Resolution {
            digest,
            handle: handle.to_vec(),
            values,
        },
    )
}

fn error_body(message: &str) -> Body {
    Body::Error {
        digest: None,
        message: message.as_bytes().to_vec(),
    }
}

/// An answer's envelope: the request's id and session, in the version it suggests (at most
/// this server's).
fn reply_envelope(request: &Envelope) -> Envelope {
    Envelope {
        version: min_version(request.suggested_version(), VERSION),
        session_id: request.session_id,
        ..Envelope::new(VERSION, request.request_id, 0)
    }
}

fn min_version(a: (u8, u8), b: (u8, u8)) -> (u8, u8) {
    if a < b {
        a
    } else {
        b
    }
}
