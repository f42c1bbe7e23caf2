//! The Handle System's native protocol, as plain data: RFC 3652's messages (protocol 2.x
//! as CNRI's HANDLE.NET 9.2 speaks it, the reference), the handle values they carry and
//! the site records (`HS_SITE`) that say where handles live.
//!
//! - [`Envelope`]: the 20 bytes before every message (versions, request id, the length
//!   of the message, a UDP fragment's number).
//! - [`Message`]: a header ([`OpCode`], [`ResponseCode`], [`OpFlags`], expiration …), a
//!   [`Body`] by opcode and response code, and the credential section.
//! - [`WireValue`]: a handle value as it travels, convertible to and from
//!   [`handle_id::record::HandleValue`], the REST API's model: one model, two encodings.
//! - [`SiteInfo`], [`AdminRef`], [`ValueRefList`], [`PublicKey`]: the data of `HS_SITE`,
//!   `HS_ADMIN`, `HS_VLIST` and `HS_PUBKEY` values.
//! - [`udp`]: a message split into datagrams and put back together; [`tcp`]: framing.
//!
//! Every decoder reads from a byte slice and checks each length against what is left
//! before it allocates, so a length field cannot make it allocate more than the input
//! holds; every encoder is the exact inverse of its decoder (what decodes re-encodes to
//! the same bytes). Nothing here does I/O: the client and server are elsewhere.
//!
//! The layouts follow the reference where it differs from the RFCs (a 4-byte value
//! timestamp, the site record's primary bits, the interface enumerations, the suggested
//! version in the envelope's flag bytes); `SPEC.md` (N1–N8) says where and why.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod codes;
pub mod credential;
mod data;
mod envelope;
#[doc(hidden)]
pub mod invariants;
mod message;
pub mod rest;
pub mod root;
mod site;
pub mod tcp;
pub mod udp;
mod value;
mod wire;

pub use codes::{OpCode, OpFlags, ResponseCode};
pub use data::{java_integer, AdminRef, PublicKey, ValueRefList};
pub use envelope::Envelope;
pub use message::{Body, Credential, Digest, Header, Message};
pub use site::{HashOption, Interface, Protocol, ServerInfo, ServiceKind, SiteInfo};
pub use value::{Permissions, Reference, Ttl, WireValue};
pub use wire::{DecodeError, DecodeErrorKind};

/// The largest message either side accepts: the length an envelope may give (the
/// reference's `MAX_MESSAGE_LENGTH`).
pub const MAX_MESSAGE_LENGTH: u32 = 262_144;

/// The most values a response may carry (the reference's `MAX_HANDLE_VALUES`).
pub const MAX_VALUES: usize = 2048;

/// The protocol version this crate speaks, and suggests to its peers: 2.11, the
/// reference's.
pub const VERSION: (u8, u8) = (2, 11);

/// The version a request goes out with when nothing is known of the site it goes to:
/// 2.3, as the reference client sends it.
pub const COMPATIBILITY_VERSION: (u8, u8) = (2, 3);
