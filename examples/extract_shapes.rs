//! Writes the texts of `benches/extract-shapes.sh` into a directory: one line of 1 MiB of
//! ordinary text (prose with DOIs in context, as `cargo bench --bench extract` makes it,
//! its line breaks made spaces) and one of each costliest shape (tests/support/shapes.rs).
//!
//!     cargo run --release --example extract_shapes DIR

#[path = "../tests/support/mod.rs"]
mod support;

use support::contexts::{in_context, plain_corpus_dois, CONTEXTS};
use support::shapes::{repeated, SHAPES};

fn main() {
    let dir = std::env::args().nth(1).expect("usage: extract_shapes DIR");
    let sentence = "The results of the experiment were consistent with the earlier \
                    observations reported by the group, and the analysis follows it. ";
    let mut prose = String::new();
    for (i, d) in plain_corpus_dois().iter().cycle().take(2000).enumerate() {
        prose.push_str(&sentence.repeat(3));
        prose.push_str(&in_context(CONTEXTS[i % CONTEXTS.len()], d));
        prose.push(' ');
    }
    let write = |i: usize, name: &str, text: String| {
        let path = format!("{dir}/{i:02}.txt");
        std::fs::write(&path, text + "\n").expect("write a text");
        println!("{path}\t{name}");
    };
    write(
        0,
        "ordinary text (prose with DOIs in context)",
        repeated(&prose.replace('\n', " "), 1 << 20),
    );
    for (i, (name, unit)) in SHAPES.iter().enumerate() {
        write(i + 1, name, repeated(unit, 1 << 20));
    }
}
