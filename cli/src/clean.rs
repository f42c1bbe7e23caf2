//! `hdl clean`: from messy lines (labels, resolver URLs, brackets, punctuation, case) to
//! canonical handles, one output line per input line (SPEC C1, C2).

use std::io::{self, BufWriter, Write};

use handle_id::{clean, Cleaned, HandleRef};

use crate::args::Lines;
use crate::convert::Target;
use crate::output::{write_data, Extra, LineRecord, Problem};
use crate::reader::Reader;
use crate::tally::Tally;
use crate::Status;

/// Runs `hdl clean`: each line's handle, cleaned, in its canonical form (or as written with
/// `keep_case`), in the form `to` asks for; an empty line and an error on standard error
/// for a line that holds none. Exit status as for `check`.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, reader: &Reader, keep_case: bool, to: Target) -> io::Result<Status> {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    let read = lines.sources.for_each_line(|line| {
        let (input, line_text) = crate::reader::text(line.raw);
        let cleaned = line_text.and_then(|text| clean(text, reader.options()));
        let pick = |c| written(c, keep_case);
        let c = cleaned.as_ref().ok();
        let output = cleaned
            .as_ref()
            .map_err(|e| *e)
            .and_then(|c| to.write(pick(c), reader.first_base.as_ref()));
        let problem = output.as_ref().err().map(|e| Problem::Error(*e));
        tally.count(line.position, &input, problem)?;
        let warnings = c.map_or(&[][..], |c| c.lint());
        if lines.json {
            let record = LineRecord {
                position: line.position,
                input: &input,
                form: c.map(|c| c.form()).or_else(|| reader.form_of(&input)),
                handle: c.map(pick),
                warnings,
                problem,
                extra: Extra::Cleaned(output.as_deref().ok(), c.map_or(&[][..], |c| c.fixes())),
            };
            serde_json::to_writer(&mut out, &record)?;
        } else {
            if output.is_ok() {
                tally.warn(line.position, warnings)?;
            }
            write_data(&mut out, output.as_deref().unwrap_or(""))?;
        }
        out.write_all(b"\n")
    })?;
    out.flush()?;
    tally.finish("clean", read, "")
}

/// The handle `hdl clean` writes: canonical, or as written with `--keep-case`.
fn written(c: &Cleaned, keep_case: bool) -> HandleRef<'_> {
    if keep_case {
        c.as_written().as_handle_ref()
    } else {
        c.handle().as_handle_ref()
    }
}
