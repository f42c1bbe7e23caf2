//! `hdl parse`: the parts of each identifier, for a person or as JSON.

use std::io::{self, BufWriter, Write};

use handle_id::{HandleRef, HdlUri};

use crate::args::Lines;
use crate::output::{Extra, LineRecord, Problem, Visible, SHOWN_PARENTS};
use crate::reader::Reader;
use crate::tally::Tally;
use crate::Status;

/// Runs `hdl parse`: the parts of each line's identifier, as a block of text or as one
/// JSON record.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, reader: &Reader) -> io::Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    let read = lines.sources.for_each_line(|line| {
        let reading = reader.read(line.raw);
        let input = &*reading.input;
        let uri = reading.result.as_ref().ok();
        let problem = reading.result.as_ref().err().map(|e| Problem::Error(*e));
        tally.count(line.position, input, problem)?;
        let warnings = uri.map(HdlUri::lint).unwrap_or_default();
        if lines.json {
            let record = LineRecord {
                position: line.position,
                input,
                form: reading.form,
                handle: uri.map(HdlUri::handle),
                warnings: &warnings,
                problem,
                extra: Extra::Parts(uri),
            };
            serde_json::to_writer(&mut out, &record)?;
            return out.write_all(b"\n");
        }
        writeln!(out, "{}", Visible(input))?;
        if let Some(uri) = uri {
            writeln!(out, "  {:<15}{}", "form", uri.form())?;
            if let Some(q) = uri.query() {
                writeln!(out, "  {:<15}{}", "query", Visible(q))?;
            }
            if let Some(f) = uri.fragment() {
                writeln!(out, "  {:<15}{}", "fragment", Visible(f))?;
            }
            for (i, w) in warnings.iter().enumerate() {
                writeln!(out, "  {:<15}{w}", if i == 0 { "warnings" } else { "" })?;
            }
        }
        write_breakdown(
            &mut out,
            input,
            reading.result.as_ref().map(HdlUri::handle).map_err(|e| *e),
        )
    })?;
    out.flush()?;
    tally.finish("parse", read, "")
}

/// The handle's parts, or the error with a caret, under the line's heading.
fn write_breakdown(
    out: &mut impl Write,
    input: &str,
    result: Result<HandleRef<'_>, handle_id::ParseError>,
) -> io::Result<()> {
    let h = match result {
        Ok(h) => h,
        Err(e) => {
            let rendered = e.render(input).to_string();
            for (i, line) in rendered.lines().enumerate() {
                let label = if i == 0 { "invalid" } else { "" };
                writeln!(out, "  {label:<15}{line}")?;
            }
            return writeln!(out);
        }
    };
    let segments: Vec<_> = h.prefix_segments().map(Visible).collect();
    let parents: Vec<_> = h
        .prefix_ancestors()
        .take(SHOWN_PARENTS)
        .map(Visible)
        .collect();
    writeln!(out, "  {:<15}{}", "handle", Visible(h.as_str()))?;
    writeln!(out, "  {:<15}{}", "prefix", Visible(h.prefix()))?;
    writeln!(out, "  {:<15}{}", "segments", join(&segments, " | "))?;
    if parents.is_empty() {
        writeln!(out, "  {:<15}(none: a primary prefix)", "derived from")?;
    } else {
        let more = h.prefix_ancestors().count() - parents.len();
        let rest = if more > 0 {
            format!(" → … ({more} more)")
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {:<15}{}{rest}",
            "derived from",
            join(&parents, " → ")
        )?;
    }
    writeln!(out, "  {:<15}{}", "local name", Visible(h.local_name()))?;
    writeln!(
        out,
        "  {:<15}{}",
        "DOI",
        if h.is_doi() { "yes" } else { "no" }
    )?;
    writeln!(
        out,
        "  {:<15}{}",
        "prefix handle",
        Visible(h.prefix_handle().as_str())
    )?;
    if h.is_prefix_handle() {
        writeln!(
            out,
            "  {:<15}yes: it names the prefix {}",
            "is one",
            Visible(h.local_name())
        )?;
    }
    writeln!(out)
}

fn join(items: &[Visible<'_>], separator: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}
