//! Helpers shared by the integration tests: the corpus and a one-line description of a
//! parse result.

#![allow(dead_code)]

pub mod contexts;
pub mod grammars;
pub mod reference;
pub mod references;
pub mod shapes;

use std::fmt::Write;

use handle_id::HandleRef;
use serde_json::Value;

/// The rows of one corpus file (`tests/corpus/`, copied from the project's shared corpus;
/// see tests/corpus/README.md for provenance).
#[track_caller]
pub fn corpus(file: &str) -> Vec<Value> {
    let path = format!("{}/tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

/// Every identifier of the corpus files, in order.
pub fn corpus_identifiers() -> Vec<String> {
    ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"]
        .into_iter()
        .flat_map(corpus)
        .map(|row| identifier(&row).to_owned())
        .collect()
}

/// The identifier a corpus row is about: `input` (peers, spec examples) or `id` (real ids).
#[track_caller]
pub fn identifier(row: &Value) -> &str {
    row.get("input")
        .or_else(|| row.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("row without input or id: {row}"))
}

/// What the bare-handle parser makes of `input`, as a snapshot shows it: the parts of a
/// valid handle, or the rendered error.
pub fn describe(input: &str) -> String {
    let mut out = format!("{input:?}\n");
    match HandleRef::parse(input) {
        Ok(h) => {
            let segments: Vec<_> = h.prefix_segments().collect();
            writeln!(
                out,
                "  valid  prefix {:?} segments {segments:?} local name {:?}{}",
                h.prefix(),
                h.local_name(),
                if h.is_doi() { " (DOI)" } else { "" }
            )
            .unwrap();
        }
        Err(e) => {
            for line in e.render(input).to_string().lines() {
                writeln!(out, "  {line}").unwrap();
            }
        }
    }
    out
}

/// Percent-decoding written here independently of the library: `None` for a bad escape or
/// bytes that are not UTF-8.
pub fn percent_decoded(s: &str) -> Option<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(s.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
