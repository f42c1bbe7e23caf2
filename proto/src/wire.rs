//! The primitives every layout is made of: big-endian integers and length-prefixed byte
//! strings, read from a slice with every length checked before anything is allocated,
//! and written to a `Vec<u8>`.

use std::fmt;

/// Why bytes are not a message, value or record: where, and what was wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    offset: usize,
    kind: DecodeErrorKind,
}

/// What was wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The bytes end before the field that starts here.
    Truncated,
    /// A length or count larger than what is left, or than the protocol allows.
    TooLong,
    /// Bytes left after a layout that must fill its space (a body, a site record).
    TrailingBytes,
    /// A field whose value the layout does not allow (named).
    Invalid(&'static str),
}

impl DecodeError {
    pub(crate) fn new(offset: usize, kind: DecodeErrorKind) -> Self {
        Self { offset, kind }
    }

    /// The byte offset, in what was decoded, of the field that was wrong.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What was wrong.
    #[must_use]
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The same error, `by` bytes further into a larger input.
    #[must_use]
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        self.offset += by;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset;
        match self.kind {
            DecodeErrorKind::Truncated => write!(f, "the bytes end inside the field at byte {at}"),
            DecodeErrorKind::TooLong => write!(
                f,
                "the length or count at byte {at} is more than the bytes left or the protocol allows"
            ),
            DecodeErrorKind::TrailingBytes => write!(f, "bytes left over at byte {at}"),
            DecodeErrorKind::Invalid(what) => write!(f, "{what} at byte {at}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// The most elements or bytes one length field may give (the reference's `MAX_ARRAY_SIZE`).
pub(crate) const MAX_ARRAY: usize = 1 << 20;

/// A cursor over the bytes being decoded.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Where the next field starts.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// How many bytes are left.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub(crate) fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(self.at, kind)
    }

    /// The next `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.error(DecodeErrorKind::Truncated));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    #[inline]
    pub(crate) fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, DecodeError> {
        self.u32().map(|n| n as i32)
    }

    /// A length or count, checked: at most [`MAX_ARRAY`], and at most what is left when
    /// each element takes at least `each` bytes.
    pub(crate) fn count(&mut self, each: usize) -> Result<usize, DecodeError> {
        let at = self.at;
        let n = self.u32()? as usize;
        if n > MAX_ARRAY || n.saturating_mul(each.max(1)) > self.remaining() {
            return Err(DecodeError::new(at, DecodeErrorKind::TooLong));
        }
        Ok(n)
    }

    /// A length-prefixed byte string (the RFC's UTF8-String, any bytes here).
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.count(1)?;
        self.take(n)
    }

    /// A counted list of byte strings.
    pub(crate) fn bytes_list(&mut self) -> Result<Vec<Vec<u8>>, DecodeError> {
        let n = self.count(4)?;
        (0..n).map(|_| self.bytes().map(<[u8]>::to_vec)).collect()
    }

    /// A counted list of 4-byte integers.
    pub(crate) fn u32_list(&mut self) -> Result<Vec<u32>, DecodeError> {
        let n = self.count(4)?;
        (0..n).map(|_| self.u32()).collect()
    }

    /// Refuses bytes left over.
    pub(crate) fn end(&self) -> Result<(), DecodeError> {
        if self.remaining() > 0 {
            return Err(self.error(DecodeErrorKind::TrailingBytes));
        }
        Ok(())
    }
}

/// Writes the same primitives.
pub(crate) trait Write {
    fn u32(&mut self, n: u32);
    fn bytes(&mut self, b: &[u8]);
    fn count(&mut self, n: usize);
}

impl Write for Vec<u8> {
    fn u32(&mut self, n: u32) {
        self.extend_from_slice(&n.to_be_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.extend_from_slice(b);
    }

    fn count(&mut self, n: usize) {
        // Every length written is of something held in memory and bounded by the
        // protocol's maximum message; a larger one is a bug of the caller.
        self.u32(u32::try_from(n).expect("a length that fits in 32 bits"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_is_checked_before_anything_is_allocated() {
        // Claims 1 GiB of bytes with 3 bytes left.
        let e = Reader::new(&[0x40, 0, 0, 0, 1, 2, 3]).bytes().unwrap_err();
        assert_eq!((e.offset(), e.kind()), (0, DecodeErrorKind::TooLong));
        // A count whose elements cannot fit in what is left.
        let e = Reader::new(&[0, 0, 0, 3, 0, 0, 0, 1])
            .u32_list()
            .unwrap_err();
        assert_eq!(e.kind(), DecodeErrorKind::TooLong);
        let mut r = Reader::new(&[0, 0, 0, 2, b'h', b'i']);
        assert_eq!(r.bytes().unwrap(), b"hi");
        assert!(r.end().is_ok());
    }
}
