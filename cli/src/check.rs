//! `hdl check`: one verdict per input line, streaming.

use std::io::{self, BufWriter, Write};

use crate::args::{Lines, LintArgs};
use crate::output::{write_visible, Extra, LineRecord, Problem, Visible};
use crate::reader::Reader;
use crate::tally::Tally;
use crate::Status;

/// Runs `hdl check`: one line of output per input line, `valid` or `invalid` (or a JSON
/// record); diagnostics and exit status as [`Tally`] gives them.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, reader: &Reader, lints: &LintArgs) -> io::Result<Status> {
    let (out_style, err_style) = lines.styles;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::new(!lines.json, err_style);
    let read = lines.sources.for_each_line(|line| {
        let reading = reader.read(line.raw);
        let input = &*reading.input;
        let mut warnings = reading
            .result
            .as_ref()
            .map(|u| u.lint())
            .unwrap_or_default();
        warnings.retain(|w| !lints.allow.contains(&w.code()));
        // Valid, or the error (or under --strict the first warning) that makes it not.
        let verdict = match &reading.result {
            Err(e) => Err(Problem::Error(*e)),
            Ok(uri) => match warnings.first().filter(|_| lints.strict) {
                Some(w) => Err(Problem::Strict(*w)),
                None => Ok(uri),
            },
        };
        let problem = verdict.err();
        tally.count(line.position, input, problem)?;
        if lines.json {
            let uri = reading.result.as_ref().ok();
            let record = LineRecord {
                position: line.position,
                input,
                form: reading.form,
                handle: uri.map(|u| u.handle()),
                warnings: &warnings,
                problem,
                extra: Extra::None,
            };
            serde_json::to_writer(&mut out, &record)?;
            return out.write_all(b"\n");
        }
        match verdict {
            Ok(uri) => {
                // The line most inputs make, written piece by piece.
                out_style.write_good(&mut out, "valid")?;
                out.write_all(b"\t")?;
                write_visible(&mut out, input)?;
                out.write_all(b"\t")?;
                out.write_all(uri.form().name().as_bytes())?;
                out.write_all(b"\t")?;
                write_visible(&mut out, uri.handle().as_str())?;
                for (i, w) in warnings.iter().enumerate() {
                    let sep = if i == 0 { "\twarning: " } else { ", " };
                    write!(out, "{sep}{}", out_style.warn(w.code()))?;
                }
                writeln!(out)
            }
            Err(Problem::Strict(w)) => writeln!(
                out,
                "{}\t{}\t{w} (--strict)",
                out_style.bad("invalid"),
                Visible(input)
            ),
            Err(Problem::Error(e)) => {
                writeln!(out, "{}\t{}\t{e}", out_style.bad("invalid"), Visible(input))
            }
        }
    })?;
    out.flush()?;
    tally.finish("check", read, "")
}
