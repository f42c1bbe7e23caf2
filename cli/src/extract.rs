//! `hdl extract`: the DOIs and handles in running text (reference lists, HTML, BibTeX,
//! Markdown, CSV), one per output line (SPEC C3).

use std::collections::hash_map::Entry as MapEntry;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use handle_id::{extract, Form, Options};
use serde_json::json;

use crate::dedupe::{Fingerprint, Seen};
use crate::lines::for_each_line;
use crate::output::write_visible;
use crate::Status;

/// Runs `hdl extract`: every identifier found, in order, as its handle (or a JSON object
/// with its line, byte span in that line, text as written, form and handle); with `unique`,
/// each handle (ASCII case ignored for DOIs, C1) once. Exit status: 0 when something was
/// found, 1 when nothing was.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(files: &[PathBuf], json: bool, unique: bool, options: &Options) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut seen = Seen::new();
    let (mut line, mut found) = (0_u64, 0_u64);
    for_each_line(files, |raw| {
        line += 1;
        let text = crate::lines::text(raw);
        for f in extract(&text, options) {
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
            if json {
                let span = f.span();
                let record = json!({
                    "line": line,
                    "start": span.start,
                    "end": span.end,
                    "text": f.text(),
                    "form": Form::name(f.form()),
                    "handle": f.handle().as_str(),
                });
                serde_json::to_writer(&mut out, &record)?;
                out.write_all(b"\n")?;
            } else {
                write_visible(&mut out, f.handle().as_str())?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(if found > 0 {
        Status::AllValid
    } else {
        Status::SomeInvalid
    })
}
