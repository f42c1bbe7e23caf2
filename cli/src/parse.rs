//! `hdl parse`: the parts of each identifier, for a person or as JSON.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};

use handle_id::{HandleRef, HdlUri};
use serde_json::json;

use crate::check::read_line;
use crate::lines::for_each_line;
use crate::output::{JsonError, JsonWarning, Visible};
use crate::read::Reader;
use crate::Status;

/// Runs `hdl parse` on the identifiers given, or, when there are none, on every line of
/// standard input.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(ids: &[String], json: bool, reader: &Reader) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut status = Status::AllValid;
    let mut each = |raw: &[u8], input: &Cow<'_, str>| {
        // A line that is not UTF-8 is an error at its byte index, as in `check`.
        let (form, read) = read_line(reader, raw, input);
        if read.is_err() {
            status = Status::SomeInvalid;
        }
        write_one(&mut out, input, form, &read, json)
    };
    if ids.is_empty() {
        for_each_line(&[], |raw| each(raw, &crate::lines::text(raw)))?;
    } else {
        for id in ids {
            each(id.as_bytes(), &Cow::Borrowed(id))?;
        }
    }
    out.flush()?;
    Ok(status)
}

/// The parts of one identifier, as text or as one JSON line.
fn write_one(
    out: &mut impl Write,
    id: &str,
    form: Option<handle_id::Form>,
    read: &Result<HdlUri<'_>, handle_id::ParseError>,
    json: bool,
) -> io::Result<()> {
    let result = read.as_ref().map(HdlUri::handle).map_err(|e| *e);
    let warnings = read.as_ref().map(HdlUri::lint).unwrap_or_default();
    if json {
        let mut value = breakdown_json(id, result);
        let uri = read.as_ref().ok();
        value["form"] = json!(form.map(handle_id::Form::name));
        value["query"] = json!(uri.and_then(HdlUri::query));
        value["fragment"] = json!(uri.and_then(HdlUri::fragment));
        // As `check --json` writes them.
        let warnings: Vec<_> = warnings.iter().map(|w| JsonWarning(*w, false)).collect();
        value["warnings"] = json!(warnings);
        serde_json::to_writer(&mut *out, &value)?;
        return writeln!(out);
    }
    if let Ok(uri) = read {
        writeln!(out, "{}", Visible(id))?;
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
    write_breakdown(out, id, result, read.is_ok())
}

/// The parent prefixes shown, nearest first: each is a prefix of the one before, so showing
/// all of them would make the output grow with the square of the prefix's segments.
const SHOWN_PARENTS: usize = 16;

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
            "parent_prefixes": h.prefix_ancestors().take(SHOWN_PARENTS).collect::<Vec<_>>(),
            "parent_prefix_count": h.prefix_ancestors().count(),
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
            "parent_prefix_count": null,
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
    heading_written: bool,
) -> io::Result<()> {
    if !heading_written {
        writeln!(out, "{}", Visible(input))?;
    }
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
