//! What can be wrong in a handle record: where (a JSON path, or a line and column) and what.

use alloc::string::String;
use core::fmt;

use crate::error::ParseError;

/// What a [`RecordError`] found wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecordErrorKind {
    /// The text is not JSON (or not `callback(<json>);` JSONP).
    Json,
    /// A field is missing or has the wrong JSON type (R1, R2).
    Shape,
    /// A number out of its range: an index beyond 32 bits, a response code beyond 32 bits.
    Number,
    /// A `handle` field that is not a handle (H1–H4).
    Handle,
    /// A `base64` value that is not base64 (R3).
    Base64,
    /// A `hex` value that is not hexadecimal digits in pairs (R3).
    Hex,
    /// An admin value's permissions that are not a string of `0` and `1` (R3).
    Permissions,
    /// A `10320/loc` value that is not well-formed XML, or XML with a DTD (L1).
    Xml,
    /// A `10320/loc` value whose XML is not `<locations>` of `<location href=…>` (L1).
    Locations,
    /// More than a reader takes: values, nesting, or locations (see the limits).
    TooLarge,
    /// A name written twice in one JSON object, or two values with one index (R2): which
    /// one was meant cannot be known.
    Duplicate,
}

/// An error reading a handle record (the proxy's REST API JSON) or a `10320/loc` value:
/// where it is, what kind, and a message that names the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    kind: RecordErrorKind,
    at: String,
    message: String,
}

impl RecordError {
    pub(crate) fn new(
        kind: RecordErrorKind,
        at: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            at: at.into(),
            message: message.into(),
        }
    }

    pub(crate) fn handle(at: impl Into<String>, e: &ParseError) -> Self {
        Self::new(
            RecordErrorKind::Handle,
            at,
            alloc::format!("not a handle: {e}"),
        )
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> RecordErrorKind {
        self.kind
    }

    /// Where: a JSON path such as `values[2].data.value`, or `line 3, column 7` of the
    /// text; in a `10320/loc` value, the position in its XML after the value's path.
    #[must_use]
    pub fn at(&self) -> &str {
        &self.at
    }

    /// The message, without the place.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, inside the value at `path`.
    pub(crate) fn within(mut self, path: &str) -> Self {
        self.at = alloc::format!("{path}: {}", self.at);
        self
    }
}

impl fmt::Display for RecordError {
    /// `values[2].data.value: invalid base64 at byte 3 (SPEC R3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.at, self.message)
        }
    }
}

impl core::error::Error for RecordError {}
