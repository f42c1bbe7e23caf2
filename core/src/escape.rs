//! Percent-encoding: the sets of characters each written form keeps as they are, and
//! decoding that keeps track of byte indices.
//!
//! Each set is a named constant citing the rule it comes from; `tests/escape.rs` checks each
//! against the grammar of the form it writes (every kept character is accepted there).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::error::{ParseError, ParseErrorKind};

/// A set of ASCII characters written as they are; every other character is written as the
/// `%XX` escapes of its UTF-8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EscapeSet {
    keep: u128,
}

impl EscapeSet {
    /// The set that keeps nothing.
    pub const NONE: Self = Self { keep: 0 };

    /// This set and the ASCII characters `lo..=hi`.
    #[must_use]
    pub const fn range(self, lo: u8, hi: u8) -> Self {
        let mut keep = self.keep;
        let mut c = lo;
        while c <= hi && c < 128 {
            keep |= 1 << c;
            c += 1;
        }
        Self { keep }
    }

    /// This set and the characters of `chars` (ASCII).
    #[must_use]
    pub const fn chars(self, chars: &[u8]) -> Self {
        let mut keep = self.keep;
        let mut i = 0;
        while i < chars.len() {
            keep |= 1 << chars[i];
            i += 1;
        }
        Self { keep }
    }

    /// This set without the characters of `chars`.
    #[must_use]
    pub const fn without(self, chars: &[u8]) -> Self {
        let mut keep = self.keep;
        let mut i = 0;
        while i < chars.len() {
            keep &= !(1 << chars[i]);
            i += 1;
        }
        Self { keep }
    }

    /// Whether `c` is written as it is.
    #[must_use]
    pub const fn keeps(&self, c: char) -> bool {
        (c as u32) < 128 && self.keep >> (c as u32) & 1 == 1
    }

    /// `text` with every character this set does not keep percent-encoded.
    ///
    /// ```
    /// use handle_id::escape::{EscapeSet, LOCAL_NAME};
    /// assert_eq!(LOCAL_NAME.encode("a b/é?").to_string(), "a%20b/%C3%A9%3F");
    /// ```
    #[must_use]
    pub fn encode<'a>(&'a self, text: &'a str) -> Encoded<'a> {
        Encoded { set: self, text }
    }
}

/// [`EscapeSet::encode`]: writes the encoded text without building it first.
#[derive(Clone, Copy, Debug)]
pub struct Encoded<'a> {
    set: &'a EscapeSet,
    text: &'a str,
}

impl fmt::Display for Encoded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.text;
        while !rest.is_empty() {
            let kept = rest.find(|c| !self.set.keeps(c)).unwrap_or(rest.len());
            f.write_str(&rest[..kept])?;
            rest = &rest[kept..];
            if let Some(c) = rest.chars().next() {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    write!(f, "%{b:02X}")?;
                }
                rest = &rest[c.len_utf8()..];
            }
        }
        Ok(())
    }
}

const ALPHA_DIGIT: EscapeSet = EscapeSet::NONE
    .range(b'a', b'z')
    .range(b'A', b'Z')
    .range(b'0', b'9');

/// U6: what a naming authority segment keeps as it is in an `hdl:` URI, WIKI's comment on
/// `u-na-segment` (`%x21 / %x24 / %x26-2D / %x30-39 / %x3B / %x3D / %x41-5A / %x5F /
/// %x61-7A / %x7E`), as rule `u_na_segment_kept` of grammar/hdl-uri.pest states it (the
/// set is generated from it). Everything else, `.` included, is percent-encoded (the `.`
/// that joins segments is written by the caller).
pub const NA_SEGMENT: EscapeSet = EscapeSet {
    keep: crate::generated::U_NA_SEGMENT_KEPT,
};

/// U6: what the local name keeps as it is in an `hdl:` URI, WIKI's comment on
/// `u-local-name` (`%x21 / %x24 / %x26-2F / %x30-39 / %x3B / %x3D / %x41-5A / %x5F /
/// %x61-7A / %x7E`), as rule `u_local_name_kept` of grammar/hdl-uri.pest states it
/// (generated).
pub const LOCAL_NAME: EscapeSet = EscapeSet {
    keep: crate::generated::U_LOCAL_NAME_KEPT,
};

/// U5: what the local name keeps as it is in the CORDRA profile's URIs, whose local name is
/// one path segment: [`LOCAL_NAME`] without `/`, which is written `%2F`.
pub const CORDRA_LOCAL_NAME: EscapeSet = LOCAL_NAME.without(b"/");

/// P2: what a proxy URL's path keeps as it is, the reference proxy's own path set:
/// `ALPHA DIGIT - . _ ~ ! $ ( ) * , : @ / ; =`. PROXY's minimum list (`%`, `#`, space,
/// `?`) is outside it, and so are `\`, `'`, `&` and `+`.
pub const PROXY_PATH: EscapeSet = ALPHA_DIGIT.chars(b"-._~!$()*,:@/;=");

/// U8: what the identifier of an `info:hdl/` or `info:doi/` URI keeps as it is: RFC 4452's
/// `identifier = *( pchar / "/" / "?" )`, that is unreserved, sub-delims, `:`, `@`, `/`, `?`.
pub const INFO_IDENTIFIER: EscapeSet = ALPHA_DIGIT.chars(b"-._~!$&'()*+,;=:@/?");

/// RFC 3986 `unreserved`: what a query parameter's value keeps as it is (P4). Everything
/// else, `&`, `=`, `+` and `#` included, is encoded, so any value round-trips.
pub const QUERY_VALUE: EscapeSet = ALPHA_DIGIT.chars(b"-._~");

/// L5: what the reference proxy's `{hdl}` of a `10320/loc` `href_template` keeps as it is
/// (its URL-component encoding): `ALPHA DIGIT . - * _`; a space is `%20`.
pub const URL_COMPONENT: EscapeSet = ALPHA_DIGIT.chars(b".-*_");

/// What the reference proxy's `encodeURL` keeps of a `Link` header's target (L8): every
/// character a URI may hold (RFC 3986's unreserved and reserved) and `%` (escapes, and a
/// `%` that starts none, stay as written).
#[cfg(feature = "json")]
pub(crate) const LINK_TARGET: EscapeSet = ALPHA_DIGIT.chars(b"-._~:/?#[]@!$&'()*+,;=%");

/// The value of a hex digit.
const fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `HEX[b]`: the value of hex digit `b`, or [`NOT_HEX`].
static HEX: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut b = 0;
    while b < 256 {
        if let Some(v) = hex(b as u8) {
            table[b] = v;
        }
        b += 1;
    }
    table
};

/// A byte that is not a hex digit; its bits cover every digit's value.
const NOT_HEX: u8 = 0xff;

/// Percent-decodes `text`, which starts at byte `offset` of the input errors refer to.
/// `+` stays `+` (P3). Borrowed when there is nothing to decode.
///
/// # Errors
///
/// A `%` not followed by two hex digits ([`ParseErrorKind::PercentEncoding`]), or decoded
/// bytes that are not UTF-8 ([`ParseErrorKind::InvalidUtf8`] at the `%` of the first bad
/// byte): never a replacement character.
pub(crate) fn decode(text: &str, offset: usize) -> Result<Cow<'_, str>, ParseError> {
    if crate::bytes::find(b'%', text.as_bytes()).is_none() {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = Vec::with_capacity(text.len());
    decode_into(text, offset, &mut out)?;
    utf8(out, |valid| offset + original_index(text, valid)).map(Cow::Owned)
}

/// Percent-decodes the path of a proxy URL as a browser's URL parser does (P3): as
/// [`decode`], but a `%` not followed by two hex digits is a `%` (real DOIs hold them:
/// `10.1006/rwei.1999%.0001`). Also the index in `text` of the first such `%`, if any.
/// `first`: the index of `text`'s first `%`, as the caller found it (`None`: it holds none).
///
/// # Errors
///
/// Decoded bytes that are not UTF-8 ([`ParseErrorKind::InvalidUtf8`]).
pub(crate) fn decode_path(
    text: &str,
    offset: usize,
    first: Option<usize>,
) -> Result<(Cow<'_, str>, Option<usize>), ParseError> {
    let bytes = text.as_bytes();
    debug_assert_eq!(first, crate::bytes::find(b'%', bytes));
    // (Most paths hold no '%': nothing to decode, and no '%' as itself.)
    let Some(first) = first else {
        return Ok((Cow::Borrowed(text), None));
    };
    let literal = (first..bytes.len()).find(|&i| {
        bytes[i] == b'%'
            && !bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(|&b| hex(b).is_some()))
    });
    if literal.is_none() {
        return decode(text, offset).map(|d| (d, None));
    }
    let mut out = Vec::with_capacity(text.len());
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|&b| b == b'%') {
        out.extend_from_slice(&rest[..i]);
        match (
            rest.get(i + 1).and_then(|&b| hex(b)),
            rest.get(i + 2).and_then(|&b| hex(b)),
        ) {
            (Some(hi), Some(lo)) => {
                out.push(hi << 4 | lo);
                rest = &rest[i + 3..];
            }
            _ => {
                out.push(b'%');
                rest = &rest[i + 1..];
            }
        }
    }
    out.extend_from_slice(rest);
    let decoded = utf8(out, |valid| offset + original_index(text, valid))?;
    Ok((Cow::Owned(decoded), literal))
}

/// Appends the percent-decoded bytes of `text` (at byte `offset` of the input) to `out`:
/// the runs between escapes whole, each escape through a table.
///
/// # Errors
///
/// A `%` not followed by two hex digits ([`ParseErrorKind::PercentEncoding`]); `out` then
/// holds what was decoded before it, and room after.
pub(crate) fn decode_into(text: &str, offset: usize, out: &mut Vec<u8>) -> Result<(), ParseError> {
    let bytes = text.as_bytes();
    let start = out.len();
    // Decoding never lengthens: write into room for the whole text, then cut to size.
    out.resize(start + bytes.len(), 0);
    let room = &mut out[start..];
    let bad_escape =
        |at: usize| ParseError::new(offset + at, ParseErrorKind::PercentEncoding, Some('%'));
    let (mut rest, mut n) = (bytes, 0);
    loop {
        let (byte, tail) = match rest {
            [b'%', hi, lo, tail @ ..] => {
                let (hi, lo) = (HEX[usize::from(*hi)], HEX[usize::from(*lo)]);
                // Digits are at most 15; NOT_HEX has every bit.
                if hi | lo == NOT_HEX {
                    return Err(bad_escape(bytes.len() - rest.len()));
                }
                (hi << 4 | lo, tail)
            }
            [b'%', ..] => return Err(bad_escape(bytes.len() - rest.len())),
            [b, tail @ ..] => (*b, tail),
            [] => break,
        };
        room[n] = byte;
        n += 1;
        rest = tail;
    }
    out.truncate(start + n);
    Ok(())
}

/// The decoded bytes as a string; when they are not UTF-8, [`ParseErrorKind::InvalidUtf8`]
/// at `at(valid_up_to)`.
pub(crate) fn utf8(bytes: Vec<u8>, at: impl FnOnce(usize) -> usize) -> Result<String, ParseError> {
    String::from_utf8(bytes).map_err(|e| {
        ParseError::new(
            at(e.utf8_error().valid_up_to()),
            ParseErrorKind::InvalidUtf8,
            None,
        )
    })
}

/// The byte index in `text` of byte `decoded` of its percent-decoded form: the `%` of an
/// escape, or the character itself. `text.len()` past the end.
pub(crate) fn original_index(text: &str, decoded: usize) -> usize {
    original_index_and_escape(text, decoded).0
}

/// [`original_index`], and whether an escape starts there.
fn original_index_and_escape(text: &str, decoded: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let escape_at = |i: usize| {
        bytes.get(i) == Some(&b'%')
            && bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(|&b| hex(b).is_some()))
    };
    let (mut i, mut d) = (0, 0);
    while i < bytes.len() && d < decoded {
        i += if escape_at(i) { 3 } else { 1 };
        d += 1;
    }
    (i.min(bytes.len()), escape_at(i))
}

/// An error of a percent-decoded part of `text`, moved to where it lies in `text`: `raw` is
/// the part as written, from `start`, and `decoded` the error's index into its decoded
/// text. A character written as an escape keeps the value the grammar judged, marked
/// [`ParseError::escaped`]; anywhere else the error names the character of `text` at its
/// index (at the end of the part, the one that ended it, such as a `#`).
pub(crate) fn relocate(
    error: ParseError,
    text: &str,
    start: usize,
    raw: &str,
    decoded: usize,
) -> ParseError {
    let (i, escape) = original_index_and_escape(raw, decoded);
    if escape && error.found().is_some() {
        error.at(start + i).written_escaped()
    } else {
        error.at_in(text, start + i)
    }
}

/// The escapes of `raw` that decode to an ASCII character, with their index: the only
/// escaped characters a grammar of this crate can exclude (every rule allows all non-ASCII
/// characters or none).
pub(crate) fn ascii_escapes(raw: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let bytes = raw.as_bytes();
    bytes.iter().enumerate().filter_map(move |(i, &b)| {
        let (hi, lo) = (hex(*bytes.get(i + 1)?)?, hex(*bytes.get(i + 2)?)?);
        let byte = hi << 4 | lo;
        (b == b'%' && byte.is_ascii()).then_some((i, char::from(byte)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert_eq!(decode("a%20b+c", 0).unwrap(), "a b+c");
        assert!(matches!(decode("abc", 0).unwrap(), Cow::Borrowed("abc")));
        assert_eq!(decode("%C3%A9", 0).unwrap(), "é");
        let e = decode("ab%zz", 10).unwrap_err();
        assert_eq!(
            (e.index(), e.kind(), e.found()),
            (12, ParseErrorKind::PercentEncoding, Some('%'))
        );
        let e = decode("ab%4", 0).unwrap_err();
        assert_eq!(e.index(), 2);
        let e = decode("x%C3%28", 5).unwrap_err();
        assert_eq!((e.index(), e.kind()), (6, ParseErrorKind::InvalidUtf8));
        let e = decode("é%FF", 0).unwrap_err();
        assert_eq!(e.index(), 2);
    }

    #[test]
    fn original_indices() {
        assert_eq!(original_index("a%20b", 0), 0);
        assert_eq!(original_index("a%20b", 1), 1);
        assert_eq!(original_index("a%20b", 2), 4);
        assert_eq!(original_index("a%20b", 9), 5);
    }

    #[test]
    fn sets() {
        assert!(NA_SEGMENT.keeps('a') && !NA_SEGMENT.keeps('.') && !NA_SEGMENT.keeps('/'));
        assert!(LOCAL_NAME.keeps('.') && LOCAL_NAME.keeps('/') && !LOCAL_NAME.keeps('%'));
        assert!(!PROXY_PATH.keeps('#') && !PROXY_PATH.keeps('?') && !PROXY_PATH.keeps(' '));
        assert!(!PROXY_PATH.keeps('\\') && PROXY_PATH.keeps('@') && !PROXY_PATH.keeps('é'));
        assert_eq!(PROXY_PATH.encode("a b#c").to_string(), "a%20b%23c");
    }
}
