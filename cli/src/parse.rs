//! `hdl parse`: the parts of each identifier, for a person or as JSON.

use std::io::{self, BufWriter, Write};

use handle_id::HandleRef;
use serde_json::json;

use crate::output::{JsonError, Visible};
use crate::Status;

/// Runs `hdl parse`.
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(ids: &[String], json: bool) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut status = Status::AllValid;
    for id in ids {
        let result = HandleRef::parse(id);
        if result.is_err() {
            status = Status::SomeInvalid;
        }
        if json {
            serde_json::to_writer(&mut out, &breakdown_json(id, result))?;
            writeln!(out)?;
        } else {
            write_breakdown(&mut out, id, result)?;
        }
    }
    out.flush()?;
    Ok(status)
}

fn breakdown_json(
    input: &str,
    result: Result<HandleRef<'_>, handle_id::ParseError>,
) -> serde_json::Value {
    match result {
        Ok(h) => json!({
            "input": input,
            "valid": true,
            "handle": h.as_str(),
            "prefix": h.prefix(),
            "prefix_segments": h.prefix_segments().collect::<Vec<_>>(),
            "parent_prefixes": h.prefix_ancestors().collect::<Vec<_>>(),
            "local_name": h.local_name(),
            "is_doi": h.is_doi(),
            "is_prefix_handle": h.is_prefix_handle(),
            "prefix_handle": h.prefix_handle().as_str(),
            "error": null,
        }),
        Err(e) => json!({
            "input": input,
            "valid": false,
            "handle": null,
            "prefix": null,
            "prefix_segments": null,
            "parent_prefixes": null,
            "local_name": null,
            "is_doi": null,
            "is_prefix_handle": null,
            "prefix_handle": null,
            "error": JsonError(e),
        }),
    }
}

fn write_breakdown(
    out: &mut impl Write,
    input: &str,
    result: Result<HandleRef<'_>, handle_id::ParseError>,
) -> io::Result<()> {
    writeln!(out, "{}", Visible(input))?;
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
    let parents: Vec<_> = h.prefix_ancestors().map(Visible).collect();
    writeln!(out, "  {:<15}{}", "prefix", Visible(h.prefix()))?;
    writeln!(out, "  {:<15}{}", "segments", join(&segments, " | "))?;
    if parents.is_empty() {
        writeln!(out, "  {:<15}(none: a primary prefix)", "derived from")?;
    } else {
        writeln!(out, "  {:<15}{}", "derived from", join(&parents, " → "))?;
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
