//! A message after its envelope (RFC 3652 §2.2.2–2.2.4, as the reference writes it: N2):
//! the 24-byte header, the body by opcode and response code, and the credential section.

use crate::codes::{OpCode, OpFlags, ResponseCode};
use crate::site::SiteInfo;
use crate::value::WireValue;
use crate::wire::{DecodeError, DecodeErrorKind, Reader, Write};
use crate::MAX_VALUES;

/// The message header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// What is asked.
    pub opcode: OpCode,
    /// How it was answered; 0 in a request.
    pub response_code: ResponseCode,
    /// The flags.
    pub flags: OpFlags,
    /// The serial of the site record the client used (0xFFFF for none), or of the
    /// answering server's site.
    pub site_serial: u16,
    /// Hops made on the client's behalf.
    pub recursion: u8,
    /// When the message stops being valid: seconds since 1970. The reference client
    /// refuses an answer whose time has passed.
    pub expiration: u32,
}

impl Header {
    /// Its size on the wire.
    pub const SIZE: usize = 24;

    /// A request's header: `opcode`, the reference client's flags, no site serial,
    /// expiring at `expiration`.
    #[must_use]
    pub fn request(opcode: OpCode, expiration: u32) -> Self {
        Self {
            opcode,
            response_code: ResponseCode::RESERVED,
            flags: OpFlags::DEFAULT_REQUEST,
            site_serial: 0xFFFF,
            recursion: 0,
            expiration,
        }
    }

    /// Whether it is a request's (response code 0).
    #[must_use]
    pub fn is_request(&self) -> bool {
        self.response_code == ResponseCode::RESERVED
    }
}

/// A digest of the request at the start of a response's body (when the request asked for
/// one: [`OpFlags::RETURN_REQUEST_DIGEST`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Digest {
    /// 1 MD5, 2 SHA-1, 3 SHA-256.
    pub algorithm: u8,
    /// The digest of the request's header and body.
    pub bytes: Vec<u8>,
}

impl Digest {
    fn len(algorithm: u8) -> Option<usize> {
        match algorithm {
            1 => Some(16),
            2 => Some(20),
            3 => Some(32),
            _ => None,
        }
    }
}

/// A message's body, by its opcode and response code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    /// A resolution request: the handle, and the indexes and types wanted (both empty:
    /// every value; else the values of any listed type or index).
    ResolutionRequest {
        /// The handle, as the client wrote it.
        handle: Vec<u8>,
        /// Indexes wanted.
        indexes: Vec<u32>,
        /// Types wanted.
        types: Vec<Vec<u8>>,
    },
    /// A request whose body is one handle: site info (`/` by convention) and others.
    HandleRequest {
        /// The handle.
        handle: Vec<u8>,
    },
    /// A successful resolution: the handle as asked, and its values.
    Resolution {
        /// The request's digest, when asked for.
        digest: Option<Digest>,
        /// The handle, as the request wrote it.
        handle: Vec<u8>,
        /// The values, at most [`MAX_VALUES`].
        values: Vec<WireValue>,
    },
    /// The answering server's site record.
    SiteInfo {
        /// The request's digest, when asked for.
        digest: Option<Digest>,
        /// The record.
        site: SiteInfo,
    },
    /// A service or prefix referral: a handle, and the site values to ask.
    Referral {
        /// The request's digest, when asked for.
        digest: Option<Digest>,
        /// The handle whose sites to ask (empty in the reference's prefix referrals).
        handle: Vec<u8>,
        /// The values, when the body carries them.
        values: Option<Vec<WireValue>>,
    },
    /// An error answer, with its message (UTF-8, often empty).
    Error {
        /// The request's digest, when asked for.
        digest: Option<Digest>,
        /// The message.
        message: Vec<u8>,
    },
    /// Any other body (administration, sessions, challenges), kept as bytes.
    Other(Vec<u8>),
}

/// The credential section after the body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Credential {
    /// No length field at all (the reference accepts a message that ends after its body).
    Absent,
    /// A length of 0: unsigned.
    Empty,
    /// A signature or MAC, as its bytes (version, flags, signer, type, signed info).
    Signed(Vec<u8>),
}

/// A message: header, body and credential.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    /// The header.
    pub header: Header,
    /// The body.
    pub body: Body,
    /// The credential section.
    pub credential: Credential,
}

impl Message {
    /// A resolution request for `handle`, wanting `types` and `indexes` (both empty:
    /// every value).
    #[must_use]
    pub fn resolution(handle: &[u8], types: &[&[u8]], indexes: &[u32], expiration: u32) -> Self {
        Self {
            header: Header::request(OpCode::RESOLUTION, expiration),
            body: Body::ResolutionRequest {
                handle: handle.to_vec(),
                indexes: indexes.to_vec(),
                types: types.iter().map(|t| t.to_vec()).collect(),
            },
            credential: Credential::Empty,
        }
    }

    /// A site info request, for the handle `/` as the reference's tools send it.
    #[must_use]
    pub fn site_info_request(expiration: u32) -> Self {
        Self {
            header: Header::request(OpCode::GET_SITE_INFO, expiration),
            body: Body::HandleRequest {
                handle: b"/".to_vec(),
            },
            credential: Credential::Empty,
        }
    }

    /// An answer to `request` (its opcode, flags and recursion count, as the reference
    /// copies them: N6) with `code` and `body`, expiring at `expiration`.
    #[must_use]
    pub fn answer(request: &Header, code: ResponseCode, body: Body, expiration: u32) -> Self {
        // What the reference carries over from the request; `recursive` is set as in any
        // new message, the streaming and administration flags are not.
        let kept = OpFlags::AUTH
            | OpFlags::CERT
            | OpFlags::ENCRYPT
            | OpFlags::CACHE_CERTIFY
            | OpFlags::PUBLIC_ONLY
            | OpFlags::RETURN_REQUEST_DIGEST
            | OpFlags::DO_NOT_REFER;
        Self {
            header: Header {
                opcode: request.opcode,
                response_code: code,
                flags: OpFlags(request.flags.0 & kept | OpFlags::RECURSIVE),
                site_serial: request.site_serial,
                recursion: request.recursion,
                expiration,
            },
            body,
            credential: Credential::Empty,
        }
    }

    /// The handle a request's body names, if it names one.
    #[must_use]
    pub fn handle(&self) -> Option<&[u8]> {
        match &self.body {
            Body::ResolutionRequest { handle, .. }
            | Body::HandleRequest { handle }
            | Body::Resolution { handle, .. }
            | Body::Referral { handle, .. } => Some(handle),
            _ => None,
        }
    }

    /// Reads a message that fills `bytes` exactly (what follows an envelope).
    ///
    /// # Errors
    ///
    /// A header or body shorter than it says, a length or count past the end, more than
    /// [`MAX_VALUES`] values, bytes left over, a reserved byte that is not 0.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let opcode = OpCode(r.u32()?);
        let response_code = ResponseCode(r.u32()?);
        let flags = OpFlags(r.u32()?);
        let site_serial = r.u16()?;
        let recursion = r.u8()?;
        if r.u8()? != 0 {
            return Err(DecodeError::new(
                15,
                DecodeErrorKind::Invalid("a reserved byte that is not 0"),
            ));
        }
        let expiration = r.u32()?;
        let header = Header {
            opcode,
            response_code,
            flags,
            site_serial,
            recursion,
            expiration,
        };
        let n = r.count(1)?;
        let start = r.offset();
        let body = decode_body(&header, r.take(n)?).map_err(|e| e.shifted(start))?;
        let credential = match r.remaining() {
            0 => Credential::Absent,
            _ => match r.bytes()? {
                [] => Credential::Empty,
                signed => Credential::Signed(signed.to_vec()),
            },
        };
        r.end()?;
        Ok(Self {
            header,
            body,
            credential,
        })
    }

    /// Writes the message (what follows an envelope).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let h = &self.header;
        out.u32(h.opcode.0);
        out.u32(h.response_code.0);
        out.u32(h.flags.0);
        out.extend_from_slice(&h.site_serial.to_be_bytes());
        out.extend_from_slice(&[h.recursion, 0]);
        out.u32(h.expiration);
        // The body's length goes before it: written, then measured.
        let at = out.len();
        out.u32(0);
        encode_body(&self.body, out);
        let n = u32::try_from(out.len() - at - 4).expect("a body under 4 GiB");
        out[at..at + 4].copy_from_slice(&n.to_be_bytes());
        match &self.credential {
            Credential::Absent => {}
            Credential::Empty => out.u32(0),
            Credential::Signed(bytes) => out.bytes(bytes),
        }
    }

    /// The message as bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }
}

/// The body's layout, by the header: requests by opcode, answers by response code.
fn decode_body(header: &Header, bytes: &[u8]) -> Result<Body, DecodeError> {
    let mut r = Reader::new(bytes);
    let code = header.response_code;
    let body = if header.is_request() {
        if header.opcode == OpCode::RESOLUTION {
            Body::ResolutionRequest {
                handle: r.bytes()?.to_vec(),
                indexes: r.u32_list()?,
                types: r.bytes_list()?,
            }
        } else if header.opcode.has_handle_body() {
            Body::HandleRequest {
                handle: r.bytes()?.to_vec(),
            }
        } else {
            return Ok(Body::Other(bytes.to_vec()));
        }
    } else if code == ResponseCode::AUTHENTICATION_NEEDED
        || (code == ResponseCode::SUCCESS
            && header.opcode != OpCode::RESOLUTION
            && header.opcode != OpCode::GET_SITE_INFO)
    {
        return Ok(Body::Other(bytes.to_vec()));
    } else {
        let digest = if header.flags.has(OpFlags::RETURN_REQUEST_DIGEST) {
            let at = r.offset();
            let algorithm = r.u8()?;
            let n = Digest::len(algorithm).ok_or(DecodeError::new(
                at,
                DecodeErrorKind::Invalid("a digest algorithm other than 1, 2 or 3"),
            ))?;
            Some(Digest {
                algorithm,
                bytes: r.take(n)?.to_vec(),
            })
        } else {
            None
        };
        if code == ResponseCode::SUCCESS && header.opcode == OpCode::GET_SITE_INFO {
            let at = r.offset();
            let site = SiteInfo::decode(r.take(r.remaining())?).map_err(|e| e.shifted(at))?;
            Body::SiteInfo { digest, site }
        } else if code == ResponseCode::SUCCESS {
            let handle = r.bytes()?.to_vec();
            let values = values(&mut r)?;
            Body::Resolution {
                digest,
                handle,
                values,
            }
        } else if code.is_referral() {
            let handle = r.bytes()?.to_vec();
            let values = if r.remaining() > 0 {
                Some(values(&mut r)?)
            } else {
                None
            };
            Body::Referral {
                digest,
                handle,
                values,
            }
        } else {
            Body::Error {
                digest,
                message: r.bytes()?.to_vec(),
            }
        }
    };
    r.end()?;
    Ok(body)
}

/// A count of values, then the values.
fn values(r: &mut Reader<'_>) -> Result<Vec<WireValue>, DecodeError> {
    let at = r.offset();
    let n = r.count(WireValue::MIN_SIZE)?;
    if n > MAX_VALUES {
        return Err(DecodeError::new(at, DecodeErrorKind::TooLong));
    }
    (0..n).map(|_| WireValue::read(r)).collect()
}

fn encode_body(body: &Body, out: &mut Vec<u8>) {
    let digest = |d: &Option<Digest>, out: &mut Vec<u8>| {
        if let Some(d) = d {
            out.push(d.algorithm);
            out.extend_from_slice(&d.bytes);
        }
    };
    let values = |values: &[WireValue], out: &mut Vec<u8>| {
        out.count(values.len());
        for v in values {
            v.encode(out);
        }
    };
    match body {
        Body::ResolutionRequest {
            handle,
            indexes,
            types,
        } => {
            out.bytes(handle);
            out.count(indexes.len());
            for &i in indexes {
                out.u32(i);
            }
            out.count(types.len());
            for t in types {
                out.bytes(t);
            }
        }
        Body::HandleRequest { handle } => out.bytes(handle),
        Body::Resolution {
            digest: d,
            handle,
            values: v,
        } => {
            digest(d, out);
            out.bytes(handle);
            values(v, out);
        }
        Body::SiteInfo { digest: d, site } => {
            digest(d, out);
            site.encode(out);
        }
        Body::Referral {
            digest: d,
            handle,
            values: v,
        } => {
            digest(d, out);
            out.bytes(handle);
            if let Some(v) = v {
                values(v, out);
            }
        }
        Body::Error { digest: d, message } => {
            digest(d, out);
            out.bytes(message);
        }
        Body::Other(bytes) => out.extend_from_slice(bytes),
    }
}
