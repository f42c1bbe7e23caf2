//! `hdl dedupe`: identifiers that name the same handle, written differently or in another
//! ASCII case (DOIs are case-insensitive, H6; real catalogues hold many such duplicates).

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::json;

use crate::check::{read_line, Tally};
use crate::lines::for_each_line;
use crate::output::Visible;
use crate::read::Reader;
use crate::style::Style;
use crate::Status;

/// `--case`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum CaseArg {
    /// Handles that differ only in ASCII case are the same (H6; every DOI).
    Ascii,
    /// Only the same handle, exactly, is the same.
    Exact,
}

/// One line of a group.
struct Member {
    line: u64,
    input: String,
}

/// Runs `hdl dedupe`: reads every line (streaming; memory grows with the distinct handles,
/// not with the input), then writes each group of two or more lines that hold the same
/// handle, in the order of their first line. Exit status: 0 when there are no duplicates,
/// 1 when there are, 2 on a usage or I/O error. Invalid lines are counted and skipped.
///
/// # Errors
///
/// An I/O error on reading or writing.
pub fn run(
    files: &[PathBuf],
    case: CaseArg,
    json: bool,
    reader: &Reader,
    err_style: Style,
) -> io::Result<Status> {
    let mut groups: HashMap<String, usize> = HashMap::new();
    let mut members: Vec<(String, Vec<Member>)> = Vec::new();
    let mut tally = Tally::on_stderr(true, err_style);
    for_each_line(files, |raw| {
        let input = crate::lines::text(raw);
        let (_, result) = read_line(reader, raw, &input);
        tally.count(&input, result.as_ref().err(), None)?;
        if let Ok(uri) = result {
            let handle = uri.handle().as_str();
            let key = match case {
                CaseArg::Ascii => handle.to_ascii_lowercase(),
                CaseArg::Exact => handle.to_owned(),
            };
            let next = members.len();
            let index = *groups.entry(key).or_insert(next);
            if index == next {
                members.push((handle.to_owned(), Vec::new()));
            }
            members[index].1.push(Member {
                line: tally.lines,
                input: input.into_owned(),
            });
        }
        Ok(())
    })?;

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut duplicated = 0;
    for (handle, lines) in members.iter().filter(|(_, m)| m.len() > 1) {
        duplicated += 1;
        if json {
            let record = json!({
                "handle": handle,
                "count": lines.len(),
                "lines": lines.iter().map(|m| json!({"line": m.line, "input": m.input})).collect::<Vec<_>>(),
            });
            serde_json::to_writer(&mut out, &record)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{} ({} lines)", Visible(handle), lines.len())?;
            for m in lines {
                writeln!(out, "  line {}: {}", m.line, Visible(&m.input))?;
            }
        }
    }
    out.flush()?;
    writeln!(
        tally.err,
        "hdl dedupe: {duplicated} handles written more than once"
    )?;
    tally.finish("dedupe")?;
    Ok(if duplicated == 0 {
        Status::AllValid
    } else {
        Status::SomeInvalid
    })
}
