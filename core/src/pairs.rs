//! Two-byte start tables: whether a text that starts with two given bytes may start one of
//! a set of forms. Built when the crate is compiled from what the generator worked out of
//! each form's rule (`crate::generated`'s `PAIRS_<RULE>`) and from literal prefixes (URL
//! schemes, resolvers' hosts), then read with one load.

/// The first bytes of a rule's matches and, for each, the second bytes (four 64-bit words).
pub(crate) type Rows = &'static [(u8, [u64; 4])];

/// A table of two-byte starts: bit `b` of row `a` (words `8a..8a+8`) says whether a text
/// that starts with `a`, `b` may start one of the table's forms.
pub(crate) struct PairTable {
    bits: [u32; 2048],
}

impl PairTable {
    /// The starts of any of the rules of `rules` (lists of them), or of any of the
    /// `prefixes` (their first two bytes, in any ASCII case).
    pub(crate) const fn new(rules: &[&[Rows]], prefixes: &[&[&str]]) -> Self {
        let mut bits = [0_u32; 2048];
        let mut l = 0;
        while l < rules.len() {
            let mut r = 0;
            while r < rules[l].len() {
                let rows = rules[l][r];
                let mut k = 0;
                while k < rows.len() {
                    let (first, words) = rows[k];
                    let mut second = 0;
                    while second < 256 {
                        if words[second / 64] >> (second % 64) & 1 != 0 {
                            let i = (first as usize) << 8 | second;
                            bits[i >> 5] |= 1 << (i & 31);
                        }
                        second += 1;
                    }
                    k += 1;
                }
                r += 1;
            }
            l += 1;
        }
        let mut l = 0;
        while l < prefixes.len() {
            let mut p = 0;
            while p < prefixes[l].len() {
                let b = prefixes[l][p].as_bytes();
                let (firsts, seconds) = (cases(b[0]), cases(b[1]));
                let mut f = 0;
                while f < 2 {
                    let mut s = 0;
                    while s < 2 {
                        let i = (firsts[f] as usize) << 8 | seconds[s] as usize;
                        bits[i >> 5] |= 1 << (i & 31);
                        s += 1;
                    }
                    f += 1;
                }
                p += 1;
            }
            l += 1;
        }
        Self { bits }
    }

    /// Whether a text that starts with `a`, `b` may start one of the table's forms.
    #[inline]
    pub(crate) fn get(&self, a: u8, b: u8) -> bool {
        let i = (usize::from(a) << 8) | usize::from(b);
        (self.bits[i >> 5] >> (i & 31)) & 1 != 0
    }
}

/// `c` in both ASCII cases.
const fn cases(c: u8) -> [u8; 2] {
    [c.to_ascii_lowercase(), c.to_ascii_uppercase()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_prefixes_as_they_say() {
        static ROWS: Rows = &[(b'1', [1 << 48, 0, 0, 0]), (b'x', [0, 1 << 1, 0, 0])];
        static T: PairTable = PairTable::new(&[&[ROWS]], &[&["Ab://"]]);
        for a in 0..=255_u8 {
            for b in 0..=255_u8 {
                let want = matches!(
                    (a, b),
                    (b'1', b'0') | (b'x', b'A') | (b'a' | b'A', b'b' | b'B')
                );
                assert_eq!(T.get(a, b), want, "{a} {b}");
            }
        }
    }
}
