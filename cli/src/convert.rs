//! `hdl convert`: each line's handle written in another form, one line per input line.

use std::io::{self, BufWriter, Write};

use clap::ValueEnum;
use handle_id::{Form, HandleRef, HdlUri, ParseError, ProxyBase};

use crate::args::Lines;
use crate::output::{write_data, Extra, LineRecord, Problem};
use crate::reader::Reader;
use crate::tally::Tally;
use crate::Status;

/// `--to`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Target {
    /// The bare handle (a line break inside one is written %0A or %0D, so that output
    /// lines stay one per input line).
    Handle,
    /// `hdl:<handle>`, escaped as SPEC U6 says.
    Hdl,
    /// `hdl://<handle>`.
    HdlHost,
    /// `info:doi/<doi>` for DOIs, `info:hdl/<handle>` otherwise (SPEC U8).
    Info,
    /// A proxy URL: the first --proxy-base, or https://doi.org for DOIs and
    /// https://hdl.handle.net otherwise (SPEC P1, P2).
    Proxy,
    /// A REST API URL, <base>/api/handles/<handle> (SPEC P5).
    Api,
}

impl Target {
    /// `h` in this form, with `base` for the URL forms.
    ///
    /// # Errors
    ///
    /// When `h` has no text in the form (`ParseErrorKind::Unwritable`).
    pub fn write(self, h: HandleRef<'_>, base: Option<&ProxyBase>) -> Result<String, ParseError> {
        Ok(match self {
            Target::Handle => h.as_str().to_owned(),
            Target::Hdl => h.to_hdl_uri(),
            Target::HdlHost => h.to_hdl_host_uri(),
            Target::Info => h.to_info_uri(),
            Target::Proxy => h.to_form(Form::Proxy, base)?,
            Target::Api => h.to_form(Form::Api, base)?,
        })
    }
}

/// Runs `hdl convert`. An invalid line gives an empty output line (or a JSON record with
/// its error), so that output lines stay beside their input lines; the warnings of a valid
/// one go to standard error (or into its record).
///
/// # Errors
///
/// An I/O error on writing.
pub fn run(lines: &Lines, reader: &Reader, to: Target) -> io::Result<Status> {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    let read = lines.sources.for_each_line(|line| {
        let reading = reader.read(line.raw);
        let input = &*reading.input;
        let uri = reading.result.as_ref().ok();
        let warnings = uri.map(HdlUri::lint).unwrap_or_default();
        // An error of reading the line, or of writing its handle in the form asked for.
        let output = reading
            .result
            .as_ref()
            .map_err(|e| *e)
            .and_then(|uri| to.write(uri.handle(), reader.first_base.as_ref()));
        let problem = output.as_ref().err().map(|e| Problem::Error(*e));
        tally.count(line.position, input, problem)?;
        if lines.json {
            let record = LineRecord {
                position: line.position,
                input,
                form: reading.form,
                handle: uri.map(HdlUri::handle),
                warnings: &warnings,
                problem,
                extra: Extra::Output(output.as_deref().ok()),
            };
            serde_json::to_writer(&mut out, &record)?;
        } else {
            if output.is_ok() {
                tally.warn(line.position, &warnings)?;
            }
            write_data(&mut out, output.as_deref().unwrap_or(""))?;
        }
        out.write_all(b"\n")
    })?;
    out.flush()?;
    tally.finish("convert", read, "")
}
