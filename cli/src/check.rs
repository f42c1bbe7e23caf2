//! `hdl check`: one verdict per input line, streaming.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use handle_id::HandleRef;

use crate::lines::for_each_line;
use crate::output::{CheckRecord, Visible};
use crate::{Form, Status};

/// How many invalid lines get a caret rendering on standard error; the rest are counted.
const RENDERED_ERRORS: u64 = 100;

/// Runs `hdl check`.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(files: &[PathBuf], json: bool, form: Form) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let (mut lines, mut invalid) = (0_u64, 0_u64);

    for_each_line(files, |raw| {
        lines += 1;
        let input = String::from_utf8_lossy(raw);
        // Invalid UTF-8 is judged on the raw bytes, so the error's index is a byte index
        // into the line as read.
        let result = match &input {
            Cow::Borrowed(text) => HandleRef::parse(text),
            Cow::Owned(_) => HandleRef::parse_bytes(raw),
        };
        if let Err(e) = &result {
            invalid += 1;
            if !json && invalid <= RENDERED_ERRORS {
                writeln!(err, "line {lines}: {}", e.render(&input))?;
            }
        }
        if json {
            let record = CheckRecord {
                input: &input,
                form: form.name(),
                result,
            };
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            match result {
                Ok(_) => writeln!(out, "valid\t{}", Visible(&input)),
                Err(e) => writeln!(out, "invalid\t{}\t{e}", Visible(&input)),
            }
        }
    })?;
    out.flush()?;

    if !json && invalid > RENDERED_ERRORS {
        writeln!(
            err,
            "({} more invalid lines not shown here; --json gives every error)",
            invalid - RENDERED_ERRORS
        )?;
    }
    writeln!(
        err,
        "hdl check: {lines} lines, {} valid, {invalid} invalid",
        lines - invalid
    )?;
    err.flush()?;
    Ok(if invalid == 0 {
        Status::AllValid
    } else {
        Status::SomeInvalid
    })
}
