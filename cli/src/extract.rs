//! `hdl extract`: the DOIs and handles in running text (reference lists, HTML, BibTeX,
//! Markdown), one per output line (SPEC C3).

use std::collections::hash_map::Entry as MapEntry;
use std::io::{self, BufWriter, Write};

use handle_id::{extract, Options};

use crate::args::Lines;
use crate::dedupe::{Fingerprint, Seen};
use crate::output::{first_control_or_replacement, FoundRecord};
use crate::tally::{counted, Tally};
use crate::Status;

/// Runs `hdl extract`: every identifier found, in order, as its handle (or a JSON record
/// with its line, byte span in that line as read, text as written, form and handle); with
/// `unique`, each handle (ASCII case ignored for DOIs, C1) once. Exit status: 0 when
/// something was found, 1 when nothing was, 2 when a file could not be read.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, options: &Options, unique: bool) -> io::Result<Status> {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    tally.judging = false;
    let mut seen = Seen::new();
    let mut found = 0_u64;
    let read = lines.sources.for_each_line(|line| {
        tally.count(line.position, "", None)?;
        for (offset, text) in text_runs(line.raw) {
            for f in extract(text, options) {
                if unique {
                    let key = f.handle().canonical();
                    match seen.entry(Fingerprint::of(key.as_str().as_bytes())) {
                        MapEntry::Occupied(_) => continue,
                        MapEntry::Vacant(first) => {
                            first.insert(0);
                        }
                    }
                }
                found += 1;
                if lines.json {
                    let span = f.span();
                    let record = FoundRecord {
                        position: line.position,
                        span: offset + span.start..offset + span.end,
                        text: f.text(),
                        form: f.form(),
                        handle: f.handle(),
                    };
                    serde_json::to_writer(&mut out, &record)?;
                } else {
                    // Found in a run of text (`text_runs`): no control character to escape.
                    out.write_all(f.handle().as_str().as_bytes())?;
                }
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    })?;
    out.flush()?;
    let status = tally.finish(
        "extract",
        read,
        &format!(", {} found", counted(found, "identifier")),
    )?;
    Ok(match status {
        Status::Failed => Status::Failed,
        _ if found == 0 => Status::SomeInvalid,
        _ => Status::AllValid,
    })
}

/// The runs of a line that are text, with their byte offsets: the line is cut at bytes
/// that are not UTF-8, at control characters (but ASCII white space: the tab, vertical tab,
/// form feed and carriage return, which extraction reads as white space, a split DOI's too) and at
/// U+FFFD (what a decoder leaves of bytes it could not read), none of which an identifier
/// found in text holds. Offsets stay those of the line as read.
fn text_runs(raw: &[u8]) -> impl Iterator<Item = (usize, &str)> {
    // Most lines are one run: UTF-8 with no control character and no U+FFFD, found on the
    // bytes (a tab or other white space of ASCII's controls, rare, takes the way of the rest).
    let whole = std::str::from_utf8(raw)
        .ok()
        .filter(|text| first_control_or_replacement(text).is_none());
    let rest = if whole.is_some() { &[][..] } else { raw };
    let whole = whole.filter(|text| !text.is_empty()).map(|text| (0, text));
    whole.into_iter().chain(split_runs(rest))
}

/// [`text_runs`] of any line, character by character.
fn split_runs(raw: &[u8]) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    raw.utf8_chunks().flat_map(move |chunk| {
        let start = offset;
        offset += chunk.valid().len() + chunk.invalid().len();
        let valid = chunk.valid();
        valid
            .split(|c: char| {
                // (ASCII white space as `char::is_whitespace` counts it, as the library does.)
                (c.is_control() && !(c.is_ascii() && c.is_whitespace())) || c == '\u{FFFD}'
            })
            .filter(|run| !run.is_empty())
            .map(move |run| {
                (
                    start + (run.as_ptr() as usize - valid.as_ptr() as usize),
                    run,
                )
            })
    })
}

#[cfg(test)]
mod tests {
    use super::text_runs;

    #[test]
    fn runs_keep_the_offsets_of_the_line_as_read() {
        let runs: Vec<_> = text_runs(b"a\xff\xfe 10.1000/182\x00b\xef\xbf\xbdc\td").collect();
        assert_eq!(
            runs,
            [(0, "a"), (3, " 10.1000/182"), (16, "b"), (20, "c\td")]
        );
        assert_eq!(text_runs(b"").count(), 0);
        assert_eq!(
            text_runs("a 10.1000/182 é".as_bytes()).collect::<Vec<_>>(),
            [(0, "a 10.1000/182 é")]
        );
        assert_eq!(
            text_runs("a\u{85}b".as_bytes()).collect::<Vec<_>>(),
            [(0, "a"), (3, "b")]
        );
        // ASCII's white space is text: a DOI split across a page's form feed stays whole.
        assert_eq!(
            text_runs(b"\x0cdoi: 10.1038/npg-\x0c19\x0b2\r\x01x").collect::<Vec<_>>(),
            [(0, "\x0cdoi: 10.1038/npg-\x0c19\x0b2\r"), (25, "x")]
        );
    }
}
