//! A handle value as it travels (RFC 3651 §3.1 as the reference encodes it: N3): index,
//! timestamp, time to live, permissions, type, data and references.

use crate::wire::{DecodeError, DecodeErrorKind, Reader, Write};

/// One handle value, every field as it is on the wire: the type and data are bytes (a
/// server may hold any), the timestamp and TTL seconds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WireValue {
    /// The index, unique within the handle.
    pub index: u32,
    /// When the value last changed: seconds since 1970 (4 bytes; RFC 3651 says 8: N3).
    pub timestamp: u32,
    /// How long a client may cache it.
    pub ttl: Ttl,
    /// Who may read and write it.
    pub permissions: Permissions,
    /// The type (`URL`, `HS_ADMIN`, `10320/loc` …), UTF-8 in practice.
    pub value_type: Vec<u8>,
    /// The data, read according to the type.
    pub data: Vec<u8>,
    /// Values of other handles this one refers to.
    pub references: Vec<Reference>,
}

/// A value's time to live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ttl {
    /// Cache for this many seconds (type 0).
    Relative(i32),
    /// Cache until this time, seconds since 1970 (type 1).
    Absolute(i32),
}

/// A value's permissions: four bits (the upper four are kept as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Permissions(pub u8);

impl Permissions {
    /// Administrators may read it.
    pub const ADMIN_READ: u8 = 0x08;
    /// Administrators may change it.
    pub const ADMIN_WRITE: u8 = 0x04;
    /// Anyone may read it.
    pub const PUBLIC_READ: u8 = 0x02;
    /// Anyone may change it.
    pub const PUBLIC_WRITE: u8 = 0x01;
    /// What a new value gets: administrators read and write, anyone reads (0x0E).
    pub const DEFAULT: Self = Self(0x0E);

    /// Whether anyone may read it: a server answers with it to any client.
    #[must_use]
    pub fn public_read(self) -> bool {
        self.0 & Self::PUBLIC_READ != 0
    }

    /// The REST API's string of the four flags, administrators' read first: `1110`.
    #[must_use]
    pub fn to_rest(self) -> String {
        [
            Self::ADMIN_READ,
            Self::ADMIN_WRITE,
            Self::PUBLIC_READ,
            Self::PUBLIC_WRITE,
        ]
        .iter()
        .map(|&bit| if self.0 & bit != 0 { '1' } else { '0' })
        .collect()
    }
}

/// A reference to a value of another handle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    /// The handle.
    pub handle: Vec<u8>,
    /// The value's index there.
    pub index: u32,
}

impl WireValue {
    /// The fixed part of a value: index, timestamp, TTL type and TTL, permissions, the
    /// lengths of type and data, the count of references.
    pub(crate) const MIN_SIZE: usize = 4 + 4 + 1 + 4 + 1 + 4 + 4 + 4;

    /// A value with the reference's defaults: relative TTL of a day, the default
    /// permissions, no timestamp and no references.
    #[must_use]
    pub fn new(index: u32, value_type: &str, data: &[u8]) -> Self {
        Self {
            index,
            timestamp: 0,
            ttl: Ttl::Relative(86_400),
            permissions: Permissions::DEFAULT,
            value_type: value_type.as_bytes().to_vec(),
            data: data.to_vec(),
            references: Vec::new(),
        }
    }

    /// Reads one value that fills `bytes` exactly.
    ///
    /// # Errors
    ///
    /// A length or count past the end, a TTL type other than 0 or 1, bytes left over.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let value = Self::read(&mut r)?;
        r.end()?;
        Ok(value)
    }

    /// Reads one value at the reader's place.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let index = r.u32()?;
        let timestamp = r.u32()?;
        let at = r.offset();
        let ttl = match r.u8()? {
            0 => Ttl::Relative(r.i32()?),
            1 => Ttl::Absolute(r.i32()?),
            _ => {
                return Err(DecodeError::new(
                    at,
                    DecodeErrorKind::Invalid("a TTL type other than 0 or 1"),
                ))
            }
        };
        let permissions = Permissions(r.u8()?);
        let value_type = r.bytes()?.to_vec();
        let data = r.bytes()?.to_vec();
        let count = r.count(8)?;
        let references = (0..count)
            .map(|_| {
                Ok(Reference {
                    handle: r.bytes()?.to_vec(),
                    index: r.u32()?,
                })
            })
            .collect::<Result<_, DecodeError>>()?;
        Ok(Self {
            index,
            timestamp,
            ttl,
            permissions,
            value_type,
            data,
            references,
        })
    }

    /// Writes the value.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.u32(self.index);
        out.u32(self.timestamp);
        let (kind, ttl) = match self.ttl {
            Ttl::Relative(s) => (0, s),
            Ttl::Absolute(t) => (1, t),
        };
        out.push(kind);
        out.u32(ttl as u32);
        out.push(self.permissions.0);
        out.bytes(&self.value_type);
        out.bytes(&self.data);
        out.count(self.references.len());
        for r in &self.references {
            out.bytes(&r.handle);
            out.u32(r.index);
        }
    }

    /// The type as text, when it is UTF-8.
    #[must_use]
    pub fn type_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.value_type).ok()
    }

    /// Whether a resolution's type filter `filter` selects this value, as the reference
    /// server selects (N4): ignoring ASCII case, the same type, or for a filter ending in
    /// `.` that type and its subtypes (`URL` does not select `URL.x` here; `URL.` does).
    #[must_use]
    pub fn selected_by_type(&self, filter: &[u8]) -> bool {
        let value_type = &self.value_type[..];
        match filter.strip_suffix(b".") {
            Some(parent) => {
                value_type.eq_ignore_ascii_case(parent)
                    || (value_type.len() >= filter.len()
                        && value_type[..filter.len()].eq_ignore_ascii_case(filter))
            }
            None => value_type.eq_ignore_ascii_case(filter),
        }
    }
}
