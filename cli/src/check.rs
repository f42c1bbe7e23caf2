//! `hdl check`: one verdict per input line, streaming.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::Args;
use handle_id::{HandleRef, HdlUri, LintCode, ParseError, Warning};

use crate::lines::for_each_line;
use crate::output::{write_visible, CheckRecord, Diagnostics, Visible};
use crate::read::Reader;
use crate::style::Style;
use crate::Status;

/// How many invalid lines get a caret rendering on standard error; the rest are counted.
pub const RENDERED_ERRORS: u64 = 100;

/// The lint options of `check`.
#[derive(Args, Clone, Debug)]
pub struct LintArgs {
    /// Treat every warning as an error: a line with one is invalid.
    #[arg(long)]
    pub strict: bool,
    /// Silence a warning, by code (repeatable): empty-local-name, trailing-slash,
    /// control-character, unprintable-character, zero-width-character, bidi-control,
    /// outside-bmp, surrounding-whitespace, not-nfc, percent-encoded, query-or-fragment,
    /// uri-prefix, trailing-punctuation, over-2048-bytes.
    #[arg(long, value_name = "CODE", value_parser = parse_code)]
    pub allow: Vec<LintCode>,
}

fn parse_code(s: &str) -> Result<LintCode, String> {
    s.parse().map_err(|_| {
        let codes: Vec<_> = LintCode::ALL.iter().map(|c| c.code()).collect();
        format!("unknown warning code; the codes are {}", codes.join(", "))
    })
}

impl LintArgs {
    /// The warnings of what `uri` holds that are not allowed.
    pub fn warnings(&self, uri: &HdlUri<'_>) -> Vec<Warning> {
        let mut warnings = uri.lint();
        warnings.retain(|w| !self.allow.contains(&w.code()));
        warnings
    }
}

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
    /// Lines with warnings that were reported (`warn`).
    pub warned: u64,
    pub err: W,
    pub render: bool,
    pub style: Style,
}

impl Tally<BufWriter<Diagnostics<io::StderrLock<'static>>>> {
    /// A tally that writes to standard error, rendering errors if `render`; what cannot be
    /// written there is dropped ([`Diagnostics`]).
    pub fn on_stderr(render: bool, style: Style) -> Self {
        Tally {
            lines: 0,
            invalid: 0,
            warned: 0,
            err: BufWriter::new(Diagnostics(io::stderr().lock())),
            render,
            style,
        }
    }
}

impl<W: Write> Tally<W> {
    /// Counts a line, and renders its error (or `--strict` warning) if it has one.
    pub fn count(
        &mut self,
        input: &str,
        error: Option<&ParseError>,
        strict: Option<&Warning>,
    ) -> io::Result<()> {
        self.lines += 1;
        if error.is_none() && strict.is_none() {
            return Ok(());
        }
        self.invalid += 1;
        if !self.render || self.invalid > RENDERED_ERRORS {
            return Ok(());
        }
        match (error, strict) {
            (Some(e), _) => {
                let rendered = e.render(input).to_string();
                let (message, picture) = rendered.split_once('\n').unwrap_or((&rendered, ""));
                writeln!(
                    self.err,
                    "line {}: {}\n{picture}",
                    self.lines,
                    self.style.bad(message)
                )
            }
            (None, Some(w)) => writeln!(
                self.err,
                "line {}: {} (--strict)\n  {}",
                self.lines,
                self.style.warn(w),
                Visible(input)
            ),
            (None, None) => Ok(()),
        }
    }

    /// Reports the warnings of the line just counted, for commands whose output has no place
    /// for them (`convert`, `parse`): the first lines' on standard error, then a count.
    pub fn warn(&mut self, warnings: &[Warning]) -> io::Result<()> {
        if warnings.is_empty() {
            return Ok(());
        }
        self.warned += 1;
        if !self.render || self.warned > RENDERED_ERRORS {
            return Ok(());
        }
        for w in warnings {
            writeln!(
                self.err,
                "line {}: warning: {}",
                self.lines,
                self.style.warn(w)
            )?;
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
        write!(
            self.err,
            "hdl {command}: {} lines, {} valid, {} invalid",
            self.lines,
            self.lines - self.invalid,
            self.invalid
        )?;
        if self.warned > 0 {
            write!(self.err, ", {} with warnings", self.warned)?;
        }
        writeln!(self.err)?;
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
pub fn run(
    files: &[PathBuf],
    json: bool,
    reader: &Reader,
    lints: &LintArgs,
    styles: (Style, Style),
) -> io::Result<Status> {
    let (out_style, err_style) = styles;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut tally = Tally::on_stderr(!json, err_style);
    for_each_line(files, |raw| {
        let input = crate::lines::text(raw);
        let (form, result) = read_line(reader, raw, &input);
        let warnings = match &result {
            Ok(uri) => lints.warnings(uri),
            Err(_) => Vec::new(),
        };
        let strict_error = warnings.first().copied().filter(|_| lints.strict);
        tally.count(&input, result.as_ref().err(), strict_error.as_ref())?;
        if json {
            let record = CheckRecord {
                input: &input,
                form,
                result: &result,
                warnings: &warnings,
                strict_error,
            };
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            match (&result, strict_error) {
                (Ok(uri), None) => {
                    // The line most inputs make, written piece by piece.
                    out_style.write_good(&mut out, "valid")?;
                    out.write_all(b"\t")?;
                    write_visible(&mut out, &input)?;
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
                (Ok(_), Some(w)) => writeln!(
                    out,
                    "{}\t{}\t{w} (--strict)",
                    out_style.bad("invalid"),
                    Visible(&input)
                ),
                (Err(e), _) => writeln!(
                    out,
                    "{}\t{}\t{e}",
                    out_style.bad("invalid"),
                    Visible(&input)
                ),
            }
        }
    })?;
    out.flush()?;
    tally.finish("check")
}
