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

/// Whether `bytes` holds an ASCII capital letter, looked for eight bytes at a time (a
/// test holds it to `u8::is_ascii_uppercase` for every byte in every place).
#[inline]
pub(crate) fn has_ascii_uppercase(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    const LOW7: u64 = ONES * 0x7F;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Each byte below 0x80 and in b'A'..=b'Z' gets its high bit set, and no other
        // byte: its seven low bits subtracted from 127 + 0x5B and added to 127 - 0x40
        // neither borrow nor carry into the next byte.
        let low = x & LOW7;
        if (ONES * (127 + 0x5B) - low) & !x & (low + ONES * (127 - 0x40)) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(u8::is_ascii_uppercase)
}

/// Whether `bytes` holds ASCII white space (`u8::is_ascii_whitespace`), looked for eight
/// bytes at a time: a word with no byte below `!` holds none (most words of an identifier).
#[inline]
pub(crate) fn has_ascii_whitespace(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Some byte is below 0x21 exactly when this has a high bit set (the borrow of a
        // byte below it may set others too, which only the exact look below sees).
        if x.wrapping_sub(ONES * 0x21) & !x & HIGH != 0 && chunk.iter().any(u8::is_ascii_whitespace)
        {
            return true;
        }
    }
    chunks.remainder().iter().any(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::{has_ascii_uppercase, has_ascii_whitespace};

    #[test]
    fn white_space_found_as_one_byte_at_a_time_finds_it() {
        for len in 0..20 {
            for at in 0..len {
                for b in 0..=255_u8 {
                    let mut bytes = [b'a'; 20];
                    // Bytes around it near the white space's, and above 0x80.
                    bytes.iter_mut().enumerate().for_each(|(i, x)| {
                        *x = [b'!', 0x1F, 0x0E, 0x08, 0xA0, b'0', 0x85][i % 7];
                    });
                    bytes[at] = b;
                    let bytes = &bytes[..len];
                    assert_eq!(
                        has_ascii_whitespace(bytes),
                        bytes.iter().any(u8::is_ascii_whitespace),
                        "{bytes:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn capitals_found_as_one_byte_at_a_time_finds_them() {
        for len in 0..20 {
            for at in 0..len {
                for b in 0..=255_u8 {
                    let mut bytes = [b'a'; 20];
                    // Bytes around it that are near the range, and above 0x80.
                    bytes.iter_mut().enumerate().for_each(|(i, x)| {
                        *x = [b'@', b'[', 0xC1, 0xDA, b'z', b'0'][i % 6];
                    });
                    bytes[at] = b;
                    let bytes = &bytes[..len];
                    assert_eq!(
                        has_ascii_uppercase(bytes),
                        bytes.iter().any(u8::is_ascii_uppercase),
                        "{bytes:?}"
                    );
                }
            }
        }
    }
}
