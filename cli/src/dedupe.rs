//! `hdl dedupe`: identifiers that name the same handle, written differently or in another
//! ASCII case (DOIs are case-insensitive, H6; real catalogues hold many such duplicates).
//!
//! One pass, in bounded memory: for each distinct handle it keeps a 96-bit fingerprint of
//! its key (the handle, ASCII-lowercased unless `--case exact`) and the number of its first
//! line, 16 bytes in a hash table (at most about 37 bytes a handle with the table's spare
//! room), never the line. Each line that repeats an earlier handle is reported as it is
//! read, with the line it repeats; `--unique` writes the first line of each handle instead.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::json;

use crate::check::{read_line, Tally};
use crate::lines::for_each_line;
use crate::output::{write_visible, Visible};
use crate::read::Reader;
use crate::style::Style;
use crate::Status;

/// `--case`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum CaseArg {
    /// Handles that differ only in ASCII case are the same (H6; every DOI).
    Ascii,
    /// Only the same handle, exactly, is the same.
    Exact,
}

/// A handle's key, as 96 bits of two SipHash-1-3 hashes (std's, with fixed keys: the same
/// in every run): two distinct keys share one with a chance of about n²/2⁹⁷, one in 10¹³
/// for 100 million handles. Twelve bytes, aligned to four: with its line, a table entry
/// takes sixteen.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint([u32; 3]);

impl Fingerprint {
    /// The fingerprint of `key`.
    pub fn of(key: &[u8]) -> Self {
        let hash = |salt: u8| {
            let mut h = std::hash::DefaultHasher::new();
            salt.hash(&mut h);
            key.hash(&mut h);
            h.finish()
        };
        let (a, b) = (hash(0), hash(1));
        // The truncations keep 96 of the 128 bits.
        #[allow(clippy::cast_possible_truncation)]
        Self([a as u32, (a >> 32) as u32, b as u32])
    }
}

/// The table's hash of a fingerprint is its first 64 bits: they are a hash already.
impl Hash for Fingerprint {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.0[1]) << 32 | u64::from(self.0[0]));
    }
}

/// The hasher of the table: what a [`Fingerprint`] writes, as it is.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not used by fingerprints; a plain fold for anything else.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The fingerprints seen, with their entries, in 256 tables by one byte of the fingerprint
/// (not one the tables hash by): a table that grows copies 1/256 of what is kept, so the
/// peak stays near the size of the tables themselves.
pub struct Seen {
    shards: Vec<HashMap<Fingerprint, Entry, BuildHasherDefault<Identity>>>,
}

impl Seen {
    /// No fingerprint seen yet.
    pub fn new() -> Self {
        Self {
            shards: (0..256).map(|_| HashMap::default()).collect(),
        }
    }

    /// The entry of `fingerprint`.
    pub fn entry(&mut self, fingerprint: Fingerprint) -> MapEntry<'_, Fingerprint, Entry> {
        self.shards[(fingerprint.0[2] & 0xff) as usize].entry(fingerprint)
    }
}

/// Per distinct handle: the number of its first line (at most [`LINE`]), and in [`SEEN_AGAIN`]
/// whether a later line repeated it.
pub type Entry = u32;
const SEEN_AGAIN: Entry = 1 << 31;
const LINE: Entry = SEEN_AGAIN - 1;

/// Runs `hdl dedupe`. Exit status: 0 when no handle is written twice, 1 when one is, 2 on a
/// usage or I/O error. Invalid lines are counted, reported on standard error and skipped.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(
    files: &[PathBuf],
    case: CaseArg,
    json: bool,
    unique: bool,
    reader: &Reader,
    err_style: Style,
) -> io::Result<Status> {
    let mut first_lines = Seen::new();
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut tally = Tally::on_stderr(true, err_style);
    let (mut duplicate_lines, mut duplicated_handles) = (0_u64, 0_u64);
    let mut key = Vec::new();
    for_each_line(files, |raw| {
        let input = crate::lines::text(raw);
        let (_, result) = read_line(reader, raw, &input);
        tally.count(&input, result.as_ref().err(), None)?;
        let Ok(uri) = result else { return Ok(()) };
        let handle = uri.handle().as_str();
        key.clear();
        key.extend_from_slice(handle.as_bytes());
        if case == CaseArg::Ascii {
            key.make_ascii_lowercase();
        }
        let entry = match first_lines.entry(Fingerprint::of(&key)) {
            MapEntry::Vacant(vacant) => {
                // Lines past 2³¹ are kept as the last number an entry holds.
                vacant.insert(Entry::try_from(tally.lines).unwrap_or(LINE).min(LINE));
                if !unique {
                    return Ok(());
                }
                // The first line of its handle: the deduplicated list.
                if json {
                    let record = json!({"line": tally.lines, "input": &*input, "handle": handle});
                    serde_json::to_writer(&mut out, &record)?;
                } else {
                    write_visible(&mut out, &input)?;
                }
                return out.write_all(b"\n");
            }
            MapEntry::Occupied(occupied) => occupied.into_mut(),
        };
        let first = *entry & LINE;
        duplicate_lines += 1;
        if *entry & SEEN_AGAIN == 0 {
            duplicated_handles += 1;
            *entry |= SEEN_AGAIN;
        }
        if unique {
            return Ok(());
        }
        if json {
            let record = json!({
                "line": tally.lines,
                "input": &*input,
                "handle": handle,
                "first_line": first,
            });
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            writeln!(
                out,
                "line {}\tsame handle as line {first}\t{}\t{}",
                tally.lines,
                Visible(&input),
                Visible(handle)
            )
        }
    })?;
    out.flush()?;
    writeln!(
        tally.err,
        "hdl dedupe: {duplicated_handles} handles written more than once, \
         {duplicate_lines} lines repeat an earlier one"
    )?;
    tally.finish("dedupe")?;
    Ok(if duplicate_lines == 0 {
        Status::AllValid
    } else {
        Status::SomeInvalid
    })
}

#[cfg(test)]
mod tests {
    use super::{Entry, Fingerprint, Seen};

    /// What `hdl dedupe` keeps per distinct handle: 16 bytes in a table entry (and the
    /// table's control byte), whatever the line or the handle.
    #[test]
    fn dedupe_keeps_sixteen_bytes_per_handle() {
        assert_eq!(std::mem::size_of::<(Fingerprint, Entry)>(), 16);
        let mut seen = Seen::new();
        let (a, b) = (
            Fingerprint::of(b"10.1000/abc"),
            Fingerprint::of(b"10.1000/abd"),
        );
        assert!(a != b && a == Fingerprint::of(b"10.1000/abc"));
        seen.entry(a).or_insert(1);
        assert_eq!(*seen.entry(a).or_insert(2), 1);
        assert_eq!(*seen.entry(b).or_insert(3), 3);
    }
}
