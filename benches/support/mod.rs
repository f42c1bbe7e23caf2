//! Inputs for the benchmarks: the real corpus and a seeded generator of realistic handles,
//! and the plain hand-written validator that is the floor every approach is measured against.

#![allow(dead_code, unused_imports)]

pub mod counting;

pub use handle_id_fuzz::inputs::realistic;

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
