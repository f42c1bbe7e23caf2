//! Inputs for the benchmarks: the real corpus and a seeded generator of realistic handles,
//! and the plain hand-written validator that is the floor every approach is measured against.

#![allow(dead_code)]

/// A small seeded generator (xorshift), so every run measures the same strings.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn chars(&mut self, alphabet: &str, len: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..len).map(|_| chars[self.below(chars.len())]).collect()
    }
}

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const SUFFIX: &str = "abcdefghijklmnopqrstuvwxyz0123456789.-_()/;:";

/// `n` realistic handles: DOIs, `20.500.x/…`, plain numeric prefixes, some non-ASCII, and
/// about 10% invalid (no '/', '@' in the prefix, an empty segment).
pub fn realistic(n: usize, seed: u64) -> Vec<String> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let valid = match r.below(20) {
                0..=9 => {
                    let prefix = format!("10.{}", 1000 + r.below(99_000));
                    let suffix = match r.below(4) {
                        0 => format!(
                            "j.{}.{}.{:02}.{:03}",
                            r.chars("abcdefghijklmnop", 5),
                            2000 + r.below(24),
                            r.below(12),
                            r.below(999)
                        ),
                        1 => format!(
                            "s{}-{:03}-{:04}-{}",
                            r.below(99_999),
                            r.below(999),
                            r.below(9999),
                            r.chars("xyz", 1)
                        ),
                        2 => format!(
                            "978-3-642-{}-{}_{}",
                            r.below(99_999),
                            r.below(9),
                            r.below(99)
                        ),
                        _ => {
                            let len = 8 + r.below(24);
                            r.chars(SUFFIX, len)
                        }
                    };
                    format!("{prefix}/{suffix}")
                }
                10..=13 => {
                    let (n, len) = (10_000 + r.below(9000), 6 + r.below(10));
                    format!("20.500.{n}/{}", r.chars(ALNUM, len))
                }
                14..=16 => format!("{}/{}", 1000 + r.below(99_999), r.below(999_999)),
                _ => format!(
                    "10.{}/{}",
                    1000 + r.below(9000),
                    r.pick(&["སྦ་བཞེད་", "Zürich-é", "東京/2020", "Ωmega.β"])
                ),
            };
            if r.below(10) == 0 {
                match r.below(3) {
                    0 => valid.replacen('/', "", 1),
                    1 => valid.replacen('.', "@", 1),
                    _ => valid.replacen('.', "..", 1),
                }
            } else {
                valid
            }
        })
        .collect()
}

/// The floor: a plain hand-written single-pass byte loop for the handle syntax (H1–H3).
/// Written here on purpose, as the peer every generated validator is measured against.
pub fn hand_validate(s: &str) -> bool {
    let mut segment = 0;
    for &b in s.as_bytes() {
        match b {
            b'/' => return segment > 0,
            b'.' if segment == 0 => return false,
            b'.' => segment = 0,
            b'@' => return false,
            _ => segment += 1,
        }
    }
    false
}

/// The hand-written floor with the parts: the offset of the separating '/'.
pub fn hand_parse(s: &str) -> Option<(&str, &str)> {
    let mut segment = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        match b {
            b'/' => return (segment > 0).then(|| (&s[..i], &s[i + 1..])),
            b'.' if segment == 0 => return None,
            b'.' => segment = 0,
            b'@' => return None,
            _ => segment += 1,
        }
    }
    None
}
