//! `hdl clean`: from messy lines (labels, resolver URLs, brackets, punctuation, case) to
//! canonical handles, one output line per input line (SPEC C1, C2).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use handle_id::{clean, Options, ProxyBase};
use serde_json::json;

use crate::check::Tally;
use crate::convert::Target;
use crate::lines::for_each_line;
use crate::output::JsonError;
use crate::style::Style;
use crate::Status;

/// What `hdl clean` writes of each line.
pub struct CleanArgs {
    pub json: bool,
    pub keep_case: bool,
    pub to: Target,
}

/// Runs `hdl clean`: each line's handle, cleaned, in its canonical form (or as written with
/// `--keep-case`), in the form `--to` asks for; an empty line and an error on standard
/// error for a line that holds none. Exit status as for `check`.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(
    files: &[PathBuf],
    args: &CleanArgs,
    options: &Options,
    base: Option<&ProxyBase>,
    err_style: Style,
) -> io::Result<Status> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut tally = Tally::on_stderr(!args.json, err_style);
    for_each_line(files, |raw| {
        let input = crate::lines::text(raw);
        let cleaned = match std::str::from_utf8(raw) {
            Ok(text) => clean(text, options),
            // Not UTF-8: the error at its byte, as `check` says it.
            Err(_) => Err(handle_id::HandleRef::parse_bytes(raw).expect_err("not UTF-8")),
        };
        let written = cleaned.as_ref().map_err(|e| *e).and_then(|c| {
            let h = if args.keep_case {
                c.as_written()
            } else {
                c.handle()
            };
            args.to.write(h.as_handle_ref(), base)
        });
        tally.count(&input, written.as_ref().err(), None)?;
        if args.json {
            let c = cleaned.as_ref().ok();
            let warnings: Vec<String> = c
                .map(|c| {
                    c.as_written()
                        .lint()
                        .into_iter()
                        .filter(|w| !w.code().bare_only())
                        .map(|w| w.code().code().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let record = json!({
                "input": &*input,
                "valid": written.is_ok(),
                "handle": written.as_ref().ok(),
                "form": c.map(|c| c.form().name()),
                "fixes": c.map(|c| c.fixes().iter().map(|f| f.code().code()).collect::<Vec<_>>()),
                "warnings": warnings,
                "error": written.as_ref().err().map(|e| JsonError(*e)),
            });
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")
        } else {
            let line = written.as_deref().unwrap_or("");
            // One output line per input line: a line break inside is written escaped (and
            // a line without one is not copied again).
            if line.contains(['\n', '\r']) {
                writeln!(out, "{}", line.replace('\n', "%0A").replace('\r', "%0D"))
            } else {
                writeln!(out, "{line}")
            }
        }
    })?;
    out.flush()?;
    tally.finish("clean")
}
