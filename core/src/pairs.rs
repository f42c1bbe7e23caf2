//! Two-byte start tables: whether a text that starts with two given bytes may start one of
//! a set of forms. Each row (a first byte) is worked out from the forms' own tests the
//! first time it is asked for, then read with one load: the forms are stated once, where
//! they are, and asking costs what a table costs.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// A table of the two-byte starts that `may_start` allows, filled a row at a time.
pub(crate) struct PairTable {
    may_start: fn([u8; 2]) -> bool,
    /// Bit `b` of row `a`: `may_start([a, b])`; row `a` is words `8a..8a+8`.
    bits: [AtomicU32; 2048],
    /// Whether row `a` is filled. Two threads may fill a row at once: they write the same.
    ready: [AtomicBool; 256],
}

impl PairTable {
    pub(crate) const fn new(may_start: fn([u8; 2]) -> bool) -> Self {
        Self {
            may_start,
            bits: [const { AtomicU32::new(0) }; 2048],
            ready: [const { AtomicBool::new(false) }; 256],
        }
    }

    /// Whether a text that starts with `a`, `b` may start one of the forms.
    #[inline]
    pub(crate) fn get(&self, a: u8, b: u8) -> bool {
        let row = usize::from(a);
        if !self.ready[row].load(Ordering::Acquire) {
            self.fill(a);
        }
        let i = (row << 8) | usize::from(b);
        (self.bits[i >> 5].load(Ordering::Relaxed) >> (i & 31)) & 1 != 0
    }

    #[cold]
    fn fill(&self, a: u8) {
        for w in 0..8_u8 {
            let mut word = 0_u32;
            for k in 0..32_u8 {
                if (self.may_start)([a, w * 32 + k]) {
                    word |= 1 << k;
                }
            }
            self.bits[usize::from(a) * 8 + usize::from(w)].store(word, Ordering::Relaxed);
        }
        self.ready[usize::from(a)].store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_as_its_test_says() {
        fn test(p: [u8; 2]) -> bool {
            (p[0] ^ p[1]) % 3 == 0 || p == *b"10"
        }
        static T: PairTable = PairTable::new(test);
        for a in 0..=255 {
            for b in 0..=255 {
                assert_eq!(T.get(a, b), test([a, b]), "{a} {b}");
            }
        }
    }
}
