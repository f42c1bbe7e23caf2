//! A handle value as the REST API writes it (R2, R3): index, type, data by format, ttl,
//! timestamp, and what the reference server may add.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::handle::Handle;

/// One value of a handle record (R2).
#[derive(Clone, Debug, PartialEq)]
pub struct HandleValue {
    pub(crate) index: u32,
    pub(crate) value_type: String,
    pub(crate) data: Data,
    pub(crate) ttl: Option<Ttl>,
    pub(crate) timestamp: Option<String>,
    pub(crate) permissions: Option<String>,
    pub(crate) references: Option<Vec<ValueReference>>,
}

impl HandleValue {
    /// A value of `value_type` at `index` holding `data`, with no ttl or timestamp.
    #[must_use]
    pub fn new(index: u32, value_type: &str, data: Data) -> Self {
        Self {
            index,
            value_type: value_type.into(),
            data,
            ttl: None,
            timestamp: None,
            permissions: None,
            references: None,
        }
    }

    /// The same value with a time to live.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Ttl) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The same value with a timestamp (ISO 8601, kept as written).
    #[must_use]
    pub fn with_timestamp(mut self, timestamp: &str) -> Self {
        self.timestamp = Some(timestamp.into());
        self
    }

    /// The same value with its own permissions, as the reference server writes them
    /// (`"1110"`: administrators read and write, anyone reads; R2).
    #[must_use]
    pub fn with_permissions(mut self, permissions: &str) -> Self {
        self.permissions = Some(permissions.into());
        self
    }

    /// The same value with references to values of other handles.
    #[must_use]
    pub fn with_references(mut self, references: Vec<ValueReference>) -> Self {
        self.references = Some(references);
        self
    }

    /// The index, unique within the record.
    #[must_use]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The type: `URL`, `EMAIL`, `HS_ADMIN`, `10320/loc`, …
    #[must_use]
    pub fn value_type(&self) -> &str {
        &self.value_type
    }

    /// The data, by its format (R3).
    #[must_use]
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The time to live, when the response gives one.
    #[must_use]
    pub fn ttl(&self) -> Option<&Ttl> {
        self.ttl.as_ref()
    }

    /// When the value was last changed (ISO 8601, as written), when the response gives it.
    #[must_use]
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }

    /// The value's own permissions, as the reference server may write them (`"1110"`).
    #[must_use]
    pub fn permissions(&self) -> Option<&str> {
        self.permissions.as_deref()
    }

    /// The values this one refers to, as the reference server may write them.
    #[must_use]
    pub fn references(&self) -> Option<&[ValueReference]> {
        self.references.as_deref()
    }

    /// The data as text: a `string` value's text (what URL, EMAIL and `10320/loc` hold).
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match &self.data {
            Data::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether a type filter selects this value (R4): the same type without ASCII case, or,
    /// for a filter that ends in `.`, that type and its subtypes (`HS_SITE.` selects
    /// `HS_SITE` and `HS_SITE.PREFIX`).
    #[must_use]
    pub fn has_type(&self, filter: &str) -> bool {
        type_matches(filter, &self.value_type)
    }
}

/// R4: `filter` selects `value_type`.
/// Types compare without ASCII case, as the reference proxy and server compare them.
pub(crate) fn type_matches(filter: &str, value_type: &str) -> bool {
    match filter.strip_suffix('.') {
        Some(parent) => {
            value_type.eq_ignore_ascii_case(parent)
                || (value_type
                    .get(..parent.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(parent))
                    && value_type.as_bytes().get(parent.len()) == Some(&b'.'))
        }
        None => value_type.eq_ignore_ascii_case(filter),
    }
}

/// `value_type` is `of` or one of its subtypes (`URL.mirror` of `URL`), without ASCII case:
/// what the reference's `hasType` says.
pub(crate) fn is_type_or_subtype(value_type: &str, of: &str) -> bool {
    value_type.eq_ignore_ascii_case(of)
        || (value_type
            .get(..of.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(of))
            && value_type.as_bytes().get(of.len()) == Some(&b'.'))
}

/// A time to live (R2): seconds, or, rarely, an absolute expiry time (ISO 8601, as written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ttl {
    /// Relative: this many seconds.
    Seconds(i64),
    /// Absolute: the value expires at this time.
    Until(String),
}

/// A value's data, by its `format` (R3).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Data {
    /// `string`: UTF-8 text.
    String(String),
    /// `base64`: the bytes, and the text they were written as.
    Base64 {
        /// The decoded bytes.
        bytes: Vec<u8>,
        /// The base64 text, as written.
        text: String,
    },
    /// `hex`: the bytes, and the text they were written as.
    Hex {
        /// The decoded bytes.
        bytes: Vec<u8>,
        /// The hex digits, as written.
        text: String,
    },
    /// `admin`: an `HS_ADMIN` value.
    Admin(Admin),
    /// `vlist`: an `HS_VLIST` value, a list of values of other handles.
    Vlist(Vec<ValueReference>),
    /// `site`: an `HS_SITE` value, kept as the JSON it was (its shape is not documented).
    Site(serde_json::Value),
    /// Any other format, kept as written.
    Other {
        /// The format's name.
        format: String,
        /// The value, as the JSON it was.
        value: serde_json::Value,
    },
}

impl Data {
    /// The `format` name the REST API writes for it.
    #[must_use]
    pub fn format(&self) -> &str {
        match self {
            Data::String(_) => "string",
            Data::Base64 { .. } => "base64",
            Data::Hex { .. } => "hex",
            Data::Admin(_) => "admin",
            Data::Vlist(_) => "vlist",
            Data::Site(_) => "site",
            Data::Other { format, .. } => format,
        }
    }
}

/// A reference to a value of a handle: the handle and the value's index (`vlist`, an admin
/// value's administrator, `references`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueReference {
    /// The handle.
    pub handle: Handle,
    /// The value's index in that handle's record.
    pub index: u32,
}

/// An `HS_ADMIN` value (R3): who administers the handle, and what they may do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Admin {
    /// The administrator: a handle and the index of its key or group value.
    pub admin: ValueReference,
    /// What the administrator may do.
    pub permissions: AdminPermissions,
}

/// The permissions of an `HS_ADMIN` value: twelve flags, written in the REST API as a
/// string of `0` and `1` with the highest flag first (`011111111111`: everything but
/// [`LIST_HANDLES`](AdminPermissions::LIST_HANDLES), the default of a handle's own
/// administrator). The flags' numbers are those of the reference implementation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AdminPermissions {
    bits: u16,
    /// How many characters the string was written with (12 unless a server wrote other).
    width: u8,
}

impl AdminPermissions {
    /// Create handles under the prefix.
    pub const ADD_HANDLE: u16 = 1 << 0;
    /// Delete handles.
    pub const DELETE_HANDLE: u16 = 1 << 1;
    /// Create derived prefixes (was "add naming authority").
    pub const ADD_DERIVED_PREFIX: u16 = 1 << 2;
    /// Delete derived prefixes.
    pub const DELETE_DERIVED_PREFIX: u16 = 1 << 3;
    /// Modify values.
    pub const MODIFY_VALUE: u16 = 1 << 4;
    /// Remove values.
    pub const REMOVE_VALUE: u16 = 1 << 5;
    /// Add values.
    pub const ADD_VALUE: u16 = 1 << 6;
    /// Modify admin values.
    pub const MODIFY_ADMIN: u16 = 1 << 7;
    /// Remove admin values.
    pub const REMOVE_ADMIN: u16 = 1 << 8;
    /// Add admin values.
    pub const ADD_ADMIN: u16 = 1 << 9;
    /// Read values that are not publicly readable.
    pub const READ_VALUE: u16 = 1 << 10;
    /// List the handles under the prefix.
    pub const LIST_HANDLES: u16 = 1 << 11;

    /// Every flag with its name, lowest first.
    pub const NAMES: [(u16, &'static str); 12] = [
        (Self::ADD_HANDLE, "add-handle"),
        (Self::DELETE_HANDLE, "delete-handle"),
        (Self::ADD_DERIVED_PREFIX, "add-derived-prefix"),
        (Self::DELETE_DERIVED_PREFIX, "delete-derived-prefix"),
        (Self::MODIFY_VALUE, "modify-value"),
        (Self::REMOVE_VALUE, "remove-value"),
        (Self::ADD_VALUE, "add-value"),
        (Self::MODIFY_ADMIN, "modify-admin"),
        (Self::REMOVE_ADMIN, "remove-admin"),
        (Self::ADD_ADMIN, "add-admin"),
        (Self::READ_VALUE, "read-value"),
        (Self::LIST_HANDLES, "list-handles"),
    ];

    /// The permissions of these flags, written with twelve characters.
    #[must_use]
    pub const fn from_bits(bits: u16) -> Self {
        Self {
            bits: bits & 0x0FFF,
            width: 12,
        }
    }

    /// Reads the REST API's string, highest flag first. At most 16 characters, each `0`
    /// or `1`; flags past the twelfth are kept.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || text.len() > 16 || !text.bytes().all(|b| b == b'0' || b == b'1') {
            return None;
        }
        let bits = text
            .bytes()
            .fold(0_u16, |acc, b| (acc << 1) | u16::from(b - b'0'));
        Some(Self {
            bits,
            width: u8::try_from(text.len()).ok()?,
        })
    }

    /// The flags, as bits (see the constants).
    #[must_use]
    pub const fn bits(self) -> u16 {
        self.bits
    }

    /// Whether every flag of `flags` is set.
    #[must_use]
    pub const fn contains(self, flags: u16) -> bool {
        self.bits & flags == flags
    }

    /// The names of the flags set, lowest first.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |&(flag, _)| self.contains(flag))
            .map(|(_, name)| name)
    }
}

impl fmt::Display for AdminPermissions {
    /// The REST API's string: `011111111111`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in (0..self.width).rev() {
            f.write_str(if self.bits >> i & 1 == 1 { "1" } else { "0" })?;
        }
        Ok(())
    }
}
