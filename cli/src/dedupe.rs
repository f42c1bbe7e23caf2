//! `hdl dedupe`: identifiers that name the same handle, written differently or in another
//! ASCII case (DOIs are case-insensitive, H6; real catalogues hold many such duplicates).
//!
//! One pass, in bounded memory: for each distinct handle it keeps a 96-bit fingerprint of
//! its key (the handle, ASCII-lowercased unless `--case exact`) and the number of its first
//! line, 16 bytes in a hash table (about 40 bytes a handle with the table's spare room:
//! BENCHMARKS.md), never the line. Each line that repeats an earlier handle is reported as it is
//! read, with the line it repeats; `--unique` writes the first line of each handle instead.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{self, BufWriter, Write};

use clap::ValueEnum;

use crate::args::Lines;
use crate::input::Position;
use crate::output::{write_visible, Extra, LineRecord, Problem};
use crate::reader::Reader;
use crate::tally::{counted, Tally};
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

/// Runs `hdl dedupe`. Without `unique`, each line that repeats an earlier handle, with
/// where that handle was first seen (exit status 1 when there is one); with `unique`, the
/// first line of each handle, byte for byte as read (exit status 0). Invalid lines are
/// reported on standard error and left out (exit status 1); 2 when a file could not be
/// read.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, reader: &Reader, case: CaseArg, unique: bool) -> io::Result<Status> {
    let mut first_lines = Seen::new();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    let (mut duplicate_lines, mut duplicated_handles) = (0_u64, 0_u64);
    let mut key = Vec::new();
    // Where each source's lines start in the count of all lines, to name the line an entry
    // holds: one entry a source.
    let mut sources: Vec<(u64, Option<String>)> = Vec::new();
    let read = lines.sources.for_each_line(|line| {
        let reading = reader.read(line.raw);
        let input = &*reading.input;
        tally.count(
            line.position,
            input,
            reading.result.as_ref().err().map(|e| Problem::Error(*e)),
        )?;
        if line.position.line == 1 {
            sources.push((tally.lines, line.position.source.map(str::to_owned)));
        }
        let uri = match &reading.result {
            Ok(uri) => uri,
            // Under --json the records say every line that was not read, as in the other
            // subcommands (without, standard error does).
            Err(e) if lines.json => {
                let record = LineRecord {
                    position: line.position,
                    input,
                    form: reading.form,
                    handle: None,
                    warnings: &[],
                    problem: Some(Problem::Error(*e)),
                    extra: Extra::Repeat(None),
                };
                serde_json::to_writer(&mut out, &record)?;
                return out.write_all(b"\n");
            }
            Err(_) => return Ok(()),
        };
        let handle = uri.handle();
        key.clear();
        key.extend_from_slice(handle.as_str().as_bytes());
        if case == CaseArg::Ascii {
            key.make_ascii_lowercase();
        }
        let record = |first| LineRecord {
            position: line.position,
            input,
            form: reading.form,
            handle: Some(handle),
            warnings: &[],
            problem: None,
            extra: Extra::Repeat(first),
        };
        let entry = match first_lines.entry(Fingerprint::of(&key)) {
            MapEntry::Vacant(vacant) => {
                // Lines past 2³¹ are kept as the last number an entry holds.
                vacant.insert(Entry::try_from(tally.lines).unwrap_or(LINE).min(LINE));
                if !unique {
                    return Ok(());
                }
                // The first line of its handle: the deduplicated list.
                if lines.json {
                    serde_json::to_writer(&mut out, &record(None))?;
                    return out.write_all(b"\n");
                }
                out.write_all(line.raw)?;
                let end: &[u8] = if line.terminator.is_empty() {
                    b"\n"
                } else {
                    line.terminator
                };
                return out.write_all(end);
            }
            MapEntry::Occupied(occupied) => occupied.into_mut(),
        };
        let first = u64::from(*entry & LINE);
        duplicate_lines += 1;
        if *entry & SEEN_AGAIN == 0 {
            duplicated_handles += 1;
            *entry |= SEEN_AGAIN;
        }
        if unique {
            return Ok(());
        }
        // The source and line of the first: the last source that began at or before it.
        let k = sources.partition_point(|(start, _)| *start <= first) - 1;
        let first = Position {
            source: sources[k].1.as_deref(),
            line: first - sources[k].0 + 1,
        };
        if lines.json {
            serde_json::to_writer(&mut out, &record(Some(first)))?;
            return out.write_all(b"\n");
        }
        match first.source {
            Some(_) => write!(out, "{}\tsame handle as {first}\t", line.position)?,
            None => write!(
                out,
                "{}\tsame handle as line {}\t",
                line.position, first.line
            )?,
        }
        write_visible(&mut out, input)?;
        out.write_all(b"\t")?;
        write_visible(&mut out, handle.as_str())?;
        out.write_all(b"\n")
    })?;
    out.flush()?;
    let more = format!(
        "; {} written more than once, {} an earlier one",
        counted(duplicated_handles, "handle"),
        match duplicate_lines {
            1 => "1 line repeats".to_owned(),
            n => format!("{n} lines repeat"),
        }
    );
    let status = tally.finish("dedupe", read, &more)?;
    Ok(match status {
        Status::AllValid if duplicate_lines > 0 && !unique => Status::SomeInvalid,
        status => status,
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
