//! Finding delimiters in short texts (arguments in `memchr`'s order). Identifiers are short (tens of bytes), where a plain
//! loop beats `memchr`'s dispatch; long texts go to `memchr`.

/// Texts at least this long are searched with `memchr`.
const LONG: usize = 64;

/// The index of the first `a` in `bytes`: a few bytes one at a time, a short text eight at
/// a time (most texts looked in hold none: a handle's `%` or `#`), a long one by `memchr`.
#[inline]
pub(crate) fn find(a: u8, bytes: &[u8]) -> Option<usize> {
    match bytes.len() {
        0..FEW => bytes.iter().position(|&b| b == a),
        FEW..LONG => find_by_words(bytes, |x| zero_bytes(x ^ (ONES * u64::from(a)))),
        _ => memchr::memchr(a, bytes),
    }
}

/// The index of the first `a` or `b` in `bytes`, as [`find`] looks.
#[inline]
pub(crate) fn find2(a: u8, b: u8, bytes: &[u8]) -> Option<usize> {
    match bytes.len() {
        0..FEW => bytes.iter().position(|&x| x == a || x == b),
        FEW..LONG => find_by_words(bytes, |x| {
            zero_bytes(x ^ (ONES * u64::from(a))) | zero_bytes(x ^ (ONES * u64::from(b)))
        }),
        _ => memchr::memchr2(a, b, bytes),
    }
}

/// The most bytes [`find`] looks at one at a time.
const FEW: usize = 16;

/// The first byte of `bytes` that `marks` marks, eight bytes at a time (the last in the
/// word that ends with them): `marks` of a word (little-endian) sets the high bit of each
/// byte sought, and may set others only above one (the borrows of [`zero_bytes`]), so
/// that the lowest marked is the first. (Not inlined: the callers of `find` are.)
#[inline(never)]
fn find_by_words(bytes: &[u8], marks: impl Fn(u64) -> u64) -> Option<usize> {
    debug_assert!(bytes.len() >= 8);
    let word = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        marks(u64::from_le_bytes(w))
    };
    let found = |at: usize, marked: u64| at + (marked.trailing_zeros() / 8) as usize;
    let n = bytes.len();
    let mut at = 0;
    while at + 8 < n {
        let marked = word(at);
        if marked != 0 {
            return Some(found(at, marked));
        }
        at += 8;
    }
    // (Its bytes before `at` were seen and hold none.)
    let marked = word(n - 8) & (u64::MAX << (8 * (at - (n - 8))));
    (marked != 0).then(|| found(n - 8, marked))
}

/// The index of the first `a`, `b` or `c` in `bytes`, as [`find`] looks.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, bytes: &[u8]) -> Option<usize> {
    match bytes.len() {
        0..FEW => bytes.iter().position(|&x| x == a || x == b || x == c),
        FEW..LONG => find_by_words(bytes, |x| {
            zero_bytes(x ^ (ONES * u64::from(a)))
                | zero_bytes(x ^ (ONES * u64::from(b)))
                | zero_bytes(x ^ (ONES * u64::from(c)))
        }),
        _ => memchr::memchr3(a, b, c, bytes),
    }
}

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGH: u64 = ONES * 0x80;

/// Whether a byte of `bytes` is one `exact` says, looked for eight bytes at a time:
/// `may_hold` of a word (eight bytes, little-endian) is false only when none of its bytes
/// is; `exact` decides the words it lets through and the last bytes.
#[inline]
fn any_by_words(bytes: &[u8], may_hold: impl Fn(u64) -> bool, exact: impl Fn(&u8) -> bool) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        if may_hold(u64::from_le_bytes(word)) && chunk.iter().any(&exact) {
            return true;
        }
    }
    chunks.remainder().iter().any(exact)
}

/// The high bit of each byte of `x` (eight bytes, little-endian) below 0x80 and in
/// `lo..=hi` (ASCII, `lo` above 0), and no other: its seven low bits subtracted from
/// 127 + `hi` + 1 and added to 127 - (`lo` - 1) neither borrow nor carry into the next byte.
#[inline]
fn in_ascii_range(x: u64, lo: u8, hi: u8) -> u64 {
    const LOW7: u64 = ONES * 0x7F;
    let low = x & LOW7;
    (ONES * (127 + u64::from(hi) + 1) - low)
        & !x
        & (low + ONES * (127 - (u64::from(lo) - 1)))
        & HIGH
}

/// Whether `exact` holds of a word (eight bytes, little-endian) of `bytes`, eight bytes long
/// or more: each word in turn, and the last bytes in the word that ends with them (over
/// bytes seen already). `exact` is the answer for its word's bytes, which are not looked at
/// again.
#[inline]
fn any_word(bytes: &[u8], exact: impl Fn(u64) -> bool) -> bool {
    debug_assert!(bytes.len() >= 8);
    let word = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        exact(u64::from_le_bytes(w))
    };
    let n = bytes.len();
    let mut i = 0;
    while i + 8 < n {
        if word(i) {
            return true;
        }
        i += 8;
    }
    word(n - 8)
}

/// A word of the first and the last four bytes of `s` (four to eight bytes long): what a
/// look that asks of every byte, or compares two texts of one length, can ask of one word.
#[inline]
fn first_and_last_four(s: &[u8]) -> [u8; 8] {
    let mut w = [0; 8];
    w[..4].copy_from_slice(&s[..4]);
    w[4..].copy_from_slice(&s[s.len() - 4..]);
    w
}

/// Whether `bytes` holds an ASCII capital letter, looked for eight bytes at a time (a
/// test holds it to `u8::is_ascii_uppercase` for every byte in every place).
#[inline]
pub(crate) fn has_ascii_uppercase(bytes: &[u8]) -> bool {
    if bytes.len() < 8 {
        return bytes.iter().any(u8::is_ascii_uppercase);
    }
    any_word(bytes, |x| in_ascii_range(x, b'A', b'Z') != 0)
}

/// Whether `bytes` may hold white space: a byte below `!`, or one beyond ASCII (whose
/// character the caller asks of), looked for eight bytes at a time.
#[inline]
pub(crate) fn may_hold_space(bytes: &[u8]) -> bool {
    if bytes.len() < 8 {
        return bytes.iter().any(|&b| !(b'!'..0x80).contains(&b));
    }
    any_word(bytes, maybe_space)
}

/// Whether a word (eight bytes, little-endian) holds a byte below `!` or beyond ASCII. (A
/// byte below 0x21 sets its high bit in the difference when no borrow came into it; a
/// borrow comes only from a byte below 0x21 before it: the word's answer is exact.)
#[inline]
fn maybe_space(x: u64) -> bool {
    (x.wrapping_sub(ONES * 0x21) & !x | x) & HIGH != 0
}

/// Whether `b` is ASCII white space as `char::is_whitespace` counts it, the vertical tab
/// included (`u8::is_ascii_whitespace` leaves it out): what splits a DOI's pieces and ends
/// a token is what cleaning refuses inside one (`is_space`).
#[inline]
pub(crate) const fn is_ascii_space(b: &u8) -> bool {
    matches!(*b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// Whether `bytes` holds ASCII white space ([`is_ascii_space`]), looked for eight bytes at
/// a time: a word with no byte below `!` holds none (most words of an identifier).
#[inline]
pub(crate) fn has_ascii_whitespace(bytes: &[u8]) -> bool {
    // Some byte is below 0x21 exactly when this has a high bit set (the borrow of a byte
    // below it may set others too: the exact look sees).
    let below_bang = |x: u64| x.wrapping_sub(ONES * 0x21) & !x & HIGH != 0;
    any_by_words(bytes, below_bang, is_ascii_space)
}

/// The high bit of each zero byte of `y` (eight bytes, little-endian), and at times of a
/// byte above one (its borrow carried on): never of a byte below the lowest zero one.
#[inline]
fn zero_bytes(y: u64) -> u64 {
    y.wrapping_sub(ONES) & !y & HIGH
}

/// The high bit of each byte of `x` (eight bytes, little-endian) that is `b`, and of no
/// other (no borrow runs from one byte to the next).
#[inline]
fn bytes_equal_to(x: u64, b: u8) -> u64 {
    const LOW7: u64 = ONES * 0x7F;
    let y = x ^ (ONES * u64::from(b));
    !(((y & LOW7) + LOW7) | y | LOW7)
}

/// The place of the first `/` of `bytes` where what comes before it is ASCII digits in
/// segments split by single dots (`10.1045/…`: no dot first, last or after another), else
/// `None`. The first eight bytes are looked at as one word (most naming authorities end
/// in them), the rest one at a time.
#[inline]
pub(crate) fn digits_and_dots_to_slash(bytes: &[u8]) -> Option<usize> {
    if let Some(first) = bytes.first_chunk::<8>() {
        let x = u64::from_le_bytes(*first);
        let slashes = bytes_equal_to(x, b'/');
        if slashes != 0 {
            // (Bytes are numbered from the low end: the lowest slash is the first.)
            let at = slashes.trailing_zeros() as usize / 8;
            let before = HIGH & ((1_u64 << (8 * at)) - 1);
            let dots = bytes_equal_to(x, b'.') & before;
            let digits = in_ascii_range(x, b'0', b'9');
            let ends = 0x80 | (0x80 << (8 * at)) >> 8;
            let fits = at > 0
                && (digits | dots) & before == before
                && dots & (dots << 8) == 0
                && dots & ends == 0;
            return fits.then_some(at);
        }
    }
    // (Whether a segment is open: a dot or the slash may end only one that is.)
    let mut open = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => open = true,
            b'.' if open => open = false,
            b'/' if open => return Some(i),
            _ => return None,
        }
    }
    None
}

/// Whether `bytes` holds one of `of`, looked for eight bytes at a time: what most
/// identifiers hold none of (a pair's characters, a URL's `%`, `?` and `#`). Each word is
/// asked exactly (`bytes_equal_to`), so a word that holds none is never looked at again,
/// and the last bytes are read in the word that ends with them.
#[inline]
pub(crate) fn has_any<const N: usize>(bytes: &[u8], of: &[u8; N]) -> bool {
    if bytes.len() < 8 {
        // (Not `contains`, which calls `memchr` for each byte.)
        return bytes.iter().any(|c| of.iter().any(|b| b == c));
    }
    // (The classes' bits gathered first: one branch a word, not one a class.)
    any_word(bytes, |x| {
        of.iter().fold(0, |hits, &b| hits | bytes_equal_to(x, b)) != 0
    })
}

/// Whether `bytes` is `lower` ignoring ASCII case, where `lower` has no ASCII capital (the
/// fixed texts cleaning looks for: schemes, hosts): `<[u8]>::eq_ignore_ascii_case`, eight
/// bytes at a time (a test holds the two to each other).
#[inline]
pub(crate) fn eq_ignore_ascii_case_lower(bytes: &[u8], lower: &[u8]) -> bool {
    debug_assert!(
        !lower.iter().any(u8::is_ascii_uppercase),
        "a lower-case pattern"
    );
    if bytes.len() != lower.len() {
        return false;
    }
    // A word of `lower`'s: the bits a capital of each of its letters lacks (0x20 where the
    // byte is in b'a'..=b'z', else 0), so that `(x | that) == word` holds exactly where each
    // byte of `x` is the pattern's or, for a letter, its capital.
    let word_eq = |x: &[u8], p: &[u8]| {
        let mut w = [0; 8];
        w.copy_from_slice(x);
        let x = u64::from_le_bytes(w);
        w.copy_from_slice(p);
        let p = u64::from_le_bytes(w);
        let letters = in_ascii_range(p, b'a', b'z');
        (x | (letters >> 2)) == p
    };
    let n = bytes.len();
    if n < 8 {
        if n < 4 {
            return bytes.eq_ignore_ascii_case(lower);
        }
        return word_eq(&first_and_last_four(bytes), &first_and_last_four(lower));
    }
    let mut i = 0;
    while i + 8 <= n {
        if !word_eq(&bytes[i..i + 8], &lower[i..i + 8]) {
            return false;
        }
        i += 8;
    }
    // The last eight bytes, over what the words saw already.
    i == n || word_eq(&bytes[n - 8..], &lower[n - 8..])
}

#[cfg(test)]
mod tests {
    use super::{
        digits_and_dots_to_slash, eq_ignore_ascii_case_lower, find, find2, find3, has_any,
        has_ascii_uppercase, has_ascii_whitespace, is_ascii_space, may_hold_space,
    };
    use alloc::vec::Vec;

    /// `find` gives the first place `position` gives, for a byte in every place (and in
    /// two) of texts up to 70 bytes long, among bytes that differ from it by one bit or by
    /// a borrow.
    #[test]
    fn a_byte_found_eight_at_a_time_is_the_first() {
        for a in [b'%', b'#', 0x00, 0x01, 0x80, 0xFF] {
            let around = [
                a ^ 1,
                a.wrapping_sub(1),
                a.wrapping_add(1),
                a ^ 0x80,
                0x00,
                b'0',
            ];
            for len in 0..70 {
                for at in 0..=len {
                    for second in [None, Some(at + 1), Some(at + 8)] {
                        let mut bytes: Vec<u8> =
                            (0..len).map(|i| around[i % around.len()]).collect();
                        if let Some(b) = bytes.get_mut(at) {
                            *b = a;
                        }
                        if let Some(b) = second.and_then(|s| bytes.get_mut(s)) {
                            *b = a;
                        }
                        let want = bytes.iter().position(|&b| b == a);
                        assert_eq!(find(a, &bytes), want, "{a} in {bytes:?}");
                        let other = around[at % around.len()];
                        let want = bytes.iter().position(|&b| b == a || b == other);
                        assert_eq!(find2(a, other, &bytes), want, "{a} {other} in {bytes:?}");
                        assert_eq!(find2(other, a, &bytes), want, "{other} {a} in {bytes:?}");
                        let third = around[(at + 3) % around.len()];
                        let want = bytes.iter().position(|&b| [a, other, third].contains(&b));
                        assert_eq!(find3(third, a, other, &bytes), want, "{bytes:?}");
                    }
                }
            }
        }
    }

    /// `fast` gives what `exact` of every byte gives, for every byte in every place of up
    /// to 20 bytes, among bytes `around` (those near its range, and above 0x80).
    fn agrees_byte_at_a_time(
        fast: impl Fn(&[u8]) -> bool,
        exact: impl Fn(&u8) -> bool,
        around: &[u8],
    ) {
        for len in 0..20 {
            for at in 0..len {
                for b in 0..=255_u8 {
                    let mut bytes = [b'a'; 20];
                    for (i, x) in bytes.iter_mut().enumerate() {
                        *x = around[i % around.len()];
                    }
                    bytes[at] = b;
                    let bytes = &bytes[..len];
                    assert_eq!(fast(bytes), bytes.iter().any(&exact), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn white_space_found_as_one_byte_at_a_time_finds_it() {
        let around = [b'!', 0x1F, 0x0E, 0x08, 0xA0, b'0', 0x85];
        agrees_byte_at_a_time(has_ascii_whitespace, is_ascii_space, &around);
    }

    #[test]
    fn bytes_that_may_be_space_found_as_one_byte_at_a_time_finds_them() {
        let may_be = |c: &u8| !(b'!'..0x80).contains(c);
        let around = [
            b'!', b'~', b'0', b' ', 0x7F, 0x80, 0xA1, 0x00, 0x20, 0x21, 0xFF,
        ];
        agrees_byte_at_a_time(may_hold_space, may_be, &around);
        let around = [b'!', b'~', b'0', b'.'];
        agrees_byte_at_a_time(may_hold_space, may_be, &around);
    }

    #[test]
    fn delimiters_found_as_one_byte_at_a_time_finds_them() {
        let around = [b'$', b'&', b'>', b'@', 0x24 ^ 0x80, b'a', 0x00];
        agrees_byte_at_a_time(|b| has_any(b, b"%?#"), |c| b"%?#".contains(c), &around);
        let around = [b'\'', b'*', b'0', 0xA8, b')' + 1];
        agrees_byte_at_a_time(|b| has_any(b, b"()"), |c| b"()".contains(c), &around);
    }

    #[test]
    fn capitals_found_as_one_byte_at_a_time_finds_them() {
        let around = [b'@', b'[', 0xC1, 0xDA, b'z', b'0'];
        agrees_byte_at_a_time(has_ascii_uppercase, u8::is_ascii_uppercase, &around);
    }

    /// Every pattern byte that is not a capital against every text byte, in every place of
    /// every length up to 17 (each path: under four bytes, two halves, words and an
    /// overlapping last word), the rest of the text as the pattern or in capitals.
    #[test]
    fn a_lower_case_text_compared_by_words_as_byte_by_byte() {
        for len in 1..=17 {
            for at in 0..len {
                for p in (0..=255_u8).filter(|b| !b.is_ascii_uppercase()) {
                    let mut pattern = vec![b'k'; len];
                    pattern[at] = p;
                    for rest in [b'k', b'K'] {
                        let mut text = vec![rest; len];
                        for b in 0..=255_u8 {
                            text[at] = b;
                            assert_eq!(
                                eq_ignore_ascii_case_lower(&text, &pattern),
                                text.eq_ignore_ascii_case(&pattern),
                                "{text:?} {pattern:?}"
                            );
                        }
                    }
                }
            }
            assert!(!eq_ignore_ascii_case_lower(
                &[b'k'; 17][..len - 1],
                &[b'k'; 17][..len]
            ));
        }
    }

    /// `digits_and_dots_to_slash` finds the slash where the text before it, split at its
    /// dots, is digits in every part, and only there: on every text of up to nine bytes of
    /// `0`, `.`, `/` and `a` (the first eight read as a word, where there are eight), and
    /// with a byte that differs from a digit, a dot or a slash by one bit or by a borrow in
    /// every place of the first nine.
    #[test]
    fn digits_and_dots_to_a_slash_read_as_a_word_as_split_at_dots() {
        // (The text before its first slash, split at its dots: each part digits, none empty.)
        let bytewise = |b: &[u8]| {
            let slash = b.iter().position(|&c| c == b'/')?;
            b[..slash]
                .split(|&c| c == b'.')
                .all(|part| !part.is_empty() && part.iter().all(u8::is_ascii_digit))
                .then_some(slash)
        };
        let alphabet = b"0./a";
        for len in 0..=9_u32 {
            for mut n in 0..4_usize.pow(len) {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[n % 4];
                        n /= 4;
                        b
                    })
                    .collect();
                assert_eq!(digits_and_dots_to_slash(&text), bytewise(&text), "{text:?}");
            }
        }
        let near = [
            b'/' ^ 1,
            b'.' ^ 1,
            b'0' - 1,
            b'9' + 1,
            b'/' + 1,
            0x80 | b'.',
            0xFF,
            0,
        ];
        for base in [&b"10.1000/x"[..], b"1.2.3.4/x", b"12345678/", b"1234567/x"] {
            for i in 0..base.len() {
                for &b in &near {
                    let mut text = base.to_vec();
                    text[i] = b;
                    assert_eq!(digits_and_dots_to_slash(&text), bytewise(&text), "{text:?}");
                }
            }
        }
    }
}
