//! `hdl convert`: each line's handle written in another form, one line per input line.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::ValueEnum;
use handle_id::{Form, HandleRef, HdlUri, ParseError, ProxyBase};
use serde_json::json;

use crate::check::{read_line, Tally};
use crate::lines::for_each_line;
use crate::output::JsonError;
use crate::read::Reader;
use crate::style::Style;
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
/// its error), so that output lines stay beside their input lines.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(
    files: &[PathBuf],
    to: Target,
    json: bool,
    reader: &Reader,
    err_style: Style,
) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut tally = Tally::on_stderr(true, err_style);
    for_each_line(files, |raw| {
        let input = crate::lines::text(raw);
        let (form, read) = read_line(reader, raw, &input);
        // An error of reading the line, or of writing its handle in the form asked for.
        let warnings = read.as_ref().map(HdlUri::lint).unwrap_or_default();
        let result = read.and_then(|uri| to.write(uri.handle(), reader.first_base.as_ref()));
        tally.count(&input, result.as_ref().err(), None)?;
        if result.is_ok() {
            tally.warn(&warnings)?;
        }
        let converted = result.as_deref().unwrap_or("");
        if json {
            let record = json!({
                "input": &*input,
                "valid": result.is_ok(),
                "form": form.map(Form::name),
                "output": result.as_ref().ok(),
                "error": result.as_ref().err().map(|e| JsonError(*e)),
            });
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            // Output lines are one per input line: a handle with a line break in it is
            // written with the break escaped.
            writeln!(
                out,
                "{}",
                converted.replace('\n', "%0A").replace('\r', "%0D")
            )
        }
    })?;
    out.flush()?;
    tally.finish("convert")
}
