//! `hdl check`: one verdict per input line, streaming.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use handle_id::{HandleRef, HdlUri, ParseError};

use crate::lines::for_each_line;
use crate::output::{CheckRecord, Visible};
use crate::read::Reader;
use crate::Status;

/// How many invalid lines get a caret rendering on standard error; the rest are counted.
pub const RENDERED_ERRORS: u64 = 100;

/// Reads one line: invalid UTF-8 is an error at its byte index (H5), judged on the raw
/// bytes; otherwise the reader decides.
pub fn read_line<'a>(
    reader: &Reader,
    raw: &'a [u8],
    input: &'a Cow<'a, str>,
) -> (Option<handle_id::Form>, Result<HdlUri<'a>, ParseError>) {
    match input {
        Cow::Borrowed(text) => reader.read(text),
        Cow::Owned(_) => (None, HandleRef::parse_bytes(raw).map(HdlUri::from_handle)),
    }
}

/// Counts lines and errors, and renders the first errors on standard error.
pub struct Tally<W: Write> {
    pub lines: u64,
    pub invalid: u64,
    pub err: W,
    pub render: bool,
}

impl<W: Write> Tally<W> {
    /// Counts a line, and renders its error if it has one.
    pub fn count(&mut self, input: &str, error: Option<&ParseError>) -> io::Result<()> {
        self.lines += 1;
        if let Some(e) = error {
            self.invalid += 1;
            if self.render && self.invalid <= RENDERED_ERRORS {
                writeln!(self.err, "line {}: {}", self.lines, e.render(input))?;
            }
        }
        Ok(())
    }

    /// The closing lines on standard error, and the exit status.
    pub fn finish(mut self, command: &str) -> io::Result<Status> {
        if self.render && self.invalid > RENDERED_ERRORS {
            writeln!(
                self.err,
                "({} more invalid lines not shown here; --json gives every error)",
                self.invalid - RENDERED_ERRORS
            )?;
        }
        writeln!(
            self.err,
            "hdl {command}: {} lines, {} valid, {} invalid",
            self.lines,
            self.lines - self.invalid,
            self.invalid
        )?;
        self.err.flush()?;
        Ok(if self.invalid == 0 {
            Status::AllValid
        } else {
            Status::SomeInvalid
        })
    }
}

/// Runs `hdl check`.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(files: &[PathBuf], json: bool, reader: &Reader) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let stderr = io::stderr();
    let mut tally = Tally {
        lines: 0,
        invalid: 0,
        err: BufWriter::new(stderr.lock()),
        render: !json,
    };
    for_each_line(files, |raw| {
        let input = String::from_utf8_lossy(raw);
        let (form, result) = read_line(reader, raw, &input);
        tally.count(&input, result.as_ref().err())?;
        if json {
            let record = CheckRecord {
                input: &input,
                form,
                result: &result,
            };
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            match &result {
                Ok(uri) => writeln!(
                    out,
                    "valid\t{}\t{}\t{}",
                    Visible(&input),
                    uri.form(),
                    Visible(uri.handle().as_str())
                ),
                Err(e) => writeln!(out, "invalid\t{}\t{e}", Visible(&input)),
            }
        }
    })?;
    out.flush()?;
    tally.finish("check")
}
