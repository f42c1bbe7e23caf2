//! Finding delimiters in short texts (arguments in `memchr`'s order). Identifiers are short (tens of bytes), where a plain
//! loop beats `memchr`'s dispatch; long texts go to `memchr`.

/// Texts at least this long are searched with `memchr`.
const LONG: usize = 64;

/// The index of the first `a` in `bytes`.
#[inline]
pub(crate) fn find(a: u8, bytes: &[u8]) -> Option<usize> {
    if bytes.len() < LONG {
        bytes.iter().position(|&b| b == a)
    } else {
        memchr::memchr(a, bytes)
    }
}

/// The index of the first `a` or `b` in `bytes`.
#[inline]
pub(crate) fn find2(a: u8, b: u8, bytes: &[u8]) -> Option<usize> {
    if bytes.len() < LONG {
        bytes.iter().position(|&x| x == a || x == b)
    } else {
        memchr::memchr2(a, b, bytes)
    }
}

/// The index of the first `a`, `b` or `c` in `bytes`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, bytes: &[u8]) -> Option<usize> {
    if bytes.len() < LONG {
        bytes.iter().position(|&x| x == a || x == b || x == c)
    } else {
        memchr::memchr3(a, b, c, bytes)
    }
}
