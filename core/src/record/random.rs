//! The random source the proxy's choices take (a URL among several, a weighted location):
//! the caller's, so that a choice can be repeated.

/// Where random choices come from: any `FnMut() -> u64`, or [`SplitMix64`] from a seed.
pub trait RandomSource {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// A number in `[0, 1)`.
    fn next_f64(&mut self) -> f64 {
        // The top 53 bits: every such double in [0, 1) equally likely.
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        // Multiply-shift: unbiased enough for choosing among a handful of values.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

impl<F: FnMut() -> u64> RandomSource for F {
    fn next_u64(&mut self) -> u64 {
        self()
    }
}

/// A small, fast, seeded generator (SplitMix64, Steele, Lea and Flood 2014): the same seed
/// gives the same choices on every platform. Not for secrets.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The generator of `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A seed for choices that need not repeat: the clock's nanoseconds and the process id
    /// (two processes started in the same nanosecond choose differently).
    #[cfg(feature = "std")]
    #[must_use]
    pub fn seed_from_clock() -> u64 {
        extern crate std;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ (u64::from(std::process::id()) << 32)
    }
}

impl RandomSource for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
