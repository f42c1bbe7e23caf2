//! A random search for texts extraction reads in time more than linear in their length:
//! a head, a unit repeated N times and a tail, each a few pieces of the grammars'
//! delimiters and prefixes, under one of the option sets the `extract` fuzz target uses
//! (`handle_id_fuzz::option_sets`).
//! Extraction counts the bytes it reads (`Extract::work`); a text whose count a byte grows
//! with N (at N = 50, 200 and 800, by more than 1.8 each time) is printed, one a line: the
//! option set, the counts, and the head, unit and tail as Rust strings. Deterministic for a
//! seed: what `BENCHMARKS.md` counts, before and after a change.
//!
//!     cargo run --release --example extract_search [SEED] [TRIES]
//!     PROBE='cordra|head|unit|tail' cargo run --release --example extract_search
//!
//! (`PROBE` prints one text's three counts, under the option set of that name.)

use handle_id::{extract, Options};
use handle_id_fuzz::option_sets;

/// The pieces each part is made of: forms' prefixes, delimiters, escapes, brackets and
/// quotes, white space, and a few letters and digits.
const PIECES: &[&str] = &[
    "hdl:",
    "hdl://",
    "info:hdl/",
    "info:doi/",
    "doi:",
    "DOI ",
    "urn:hdl:",
    "urn:doi:",
    "https://",
    "http://",
    "doi.org/",
    "https://doi.org/",
    "hdl.handle.net/",
    "/api/handles/",
    "10.",
    "10.1000/",
    "1000",
    "29",
    ".",
    "/",
    "@",
    ":",
    "?",
    "#",
    "&",
    "=",
    "%",
    "%2F",
    "%2E",
    "%3A",
    "%29",
    "%28",
    "%C3",
    "%FF",
    "%20",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "\"",
    "'",
    "{",
    "}",
    " ",
    "a",
    "x",
    "1",
    "-",
    ";",
    ",",
    "«",
    "»",
    "“",
    "”",
    "\t",
    "%3E",
    "%5D",
];

/// xorshift64: the same texts for a seed on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `lo..=hi` pieces, joined.
    fn pieces(&mut self, lo: usize, hi: usize) -> String {
        let k = lo + self.below(hi - lo + 1);
        (0..k).map(|_| PIECES[self.below(PIECES.len())]).collect()
    }
}

/// The bytes extraction reads a byte of `text`.
fn per_byte(text: &str, options: &Options) -> f64 {
    let mut found = extract(text, options);
    found.by_ref().for_each(drop);
    found.work() as f64 / text.len().max(1) as f64
}

/// The counts a byte at N = 50, 200 and 800.
fn counts(head: &str, unit: &str, tail: &str, options: &Options) -> [f64; 3] {
    [50, 200, 800].map(|n| per_byte(&format!("{head}{}{tail}", unit.repeat(n)), options))
}

fn main() {
    let sets = option_sets();
    if let Ok(probe) = std::env::var("PROBE") {
        let parts: Vec<&str> = probe.split('|').collect();
        let [name, head, unit, tail] = parts[..] else {
            panic!("PROBE: set|head|unit|tail");
        };
        let (_, options) = sets
            .iter()
            .find(|(n, _)| *n == name)
            .expect("PROBE: an option set's name (handle_id_fuzz::option_sets)");
        println!("{:.1?}", counts(head, unit, tail, options));
        return;
    }
    let mut args = std::env::args().skip(1);
    let seed: u64 = args
        .next()
        .map_or(1, |s| s.parse().expect("SEED: a number"));
    let tries: usize = args
        .next()
        .map_or(100_000, |s| s.parse().expect("TRIES: a number"));
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut found = 0;
    for _ in 0..tries {
        let (head, unit, tail) = (rng.pieces(0, 2), rng.pieces(1, 4), rng.pieces(0, 2));
        let (name, options) = &sets[rng.below(sets.len())];
        // (Most texts are linear at once: the two shorter counts tell.)
        let short = |n: usize| per_byte(&format!("{head}{}{tail}", unit.repeat(n)), options);
        let (a, b) = (short(50), short(200));
        if b < 1.8 * a || b < 25.0 {
            continue;
        }
        let c = short(800);
        if c > 1.8 * b {
            found += 1;
            println!("{name}\t{a:.1}\t{b:.1}\t{c:.1}\t{head:?}\t{unit:?}\t{tail:?}");
        }
    }
    eprintln!("extract_search: {found} of {tries} texts read in more than linear time");
}
