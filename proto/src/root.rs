//! The root info file: the global root's values (the prefix handle `0.NA/0.NA`), where
//! resolution from the root starts, as the reference ships it: a 4-byte length of what
//! follows, a 4-byte count, then the values.

use crate::value::WireValue;

/// The root info HANDLE.NET 9.2 ships (`data/root_info`): where resolution starts when
/// no other is given.
pub const BUILT_IN: &[u8] = include_bytes!("../data/root_info");
use crate::wire::{DecodeError, DecodeErrorKind, Reader, Write};

/// Reads a root info file.
///
/// # Errors
///
/// A length that is not the rest of the file, a count or value past the end.
pub fn read(bytes: &[u8]) -> Result<Vec<WireValue>, DecodeError> {
    let mut r = Reader::new(bytes);
    let n = r.u32()? as usize;
    if n != r.remaining() {
        return Err(DecodeError::new(
            0,
            DecodeErrorKind::Invalid("a length that is not the rest of the file"),
        ));
    }
    let count = r.count(WireValue::MIN_SIZE)?;
    let values = (0..count)
        .map(|_| WireValue::read(&mut r))
        .collect::<Result<_, _>>()?;
    r.end()?;
    Ok(values)
}

/// Writes a root info file of `values`.
#[must_use]
pub fn write(values: &[WireValue]) -> Vec<u8> {
    let mut body = Vec::new();
    body.count(values.len());
    for v in values {
        v.encode(&mut body);
    }
    let mut out = Vec::with_capacity(4 + body.len());
    out.count(body.len());
    out.extend_from_slice(&body);
    out
}
