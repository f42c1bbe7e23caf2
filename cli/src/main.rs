//! `hdl`: check, parse and convert Handle System identifiers, one per line, at full speed.
//!
//! The arguments are resolved once into a [`args::Job`]; the line-reading subcommands share
//! their plumbing: `input` (sources and lines), `reader` (a line read as an identifier),
//! `output` (the one JSON record shape, readable text), `tally` (diagnostics, summary and
//! exit status).

#![forbid(unsafe_code)]

mod args;
mod check;
mod clean;
mod convert;
mod dedupe;
mod extract;
mod input;
mod output;
mod parse;
mod reader;
mod record;
mod resolve;
mod serve;
mod style;
mod tally;
mod write;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use args::{Cli, Job};

fn main() -> ExitCode {
    let job = Cli::parse().resolve().unwrap_or_else(|e| {
        output::report(format_args!("hdl: {e}"));
        std::process::exit(2)
    });
    let result = match job {
        Job::Check(lines, reader, lints) => check::run(&lines, &reader, &lints),
        Job::Convert(lines, reader, to) => convert::run(&lines, &reader, to),
        Job::Clean {
            lines,
            reader,
            keep_case,
            to,
        } => clean::run(&lines, &reader, keep_case, to),
        Job::Extract {
            lines,
            options,
            unique,
        } => extract::run(&lines, &options, unique),
        Job::Dedupe {
            lines,
            reader,
            case,
            unique,
        } => dedupe::run(&lines, &reader, case, unique),
        Job::Parse(lines, reader) => parse::run(&lines, &reader),
        Job::Resolve(lines, args) => resolve::run(&lines, &args),
        Job::Record(args) => record::run(&args),
        Job::Serve(args) => serve::run(&args),
        Job::Import { records, store } => serve::import(&records, &store),
        Job::Siteinfo {
            handle_bind,
            store,
            binary,
        } => serve::siteinfo(handle_bind, &store, binary.as_deref()),
        Job::Write(write) => write::run(&write),
        Job::Completions(shell) => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "hdl", &mut std::io::stdout());
            Ok(Status::AllValid)
        }
    };
    match result {
        Ok(status) => status.into(),
        // A closed pipe (`hdl check | head`) ends the run quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            output::report(format_args!("hdl: {e}"));
            ExitCode::from(2)
        }
    }
}

/// How a run ended, short of an I/O error that ended it early.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Every identifier was valid (or what was asked was done).
    AllValid,
    /// At least one was not.
    SomeInvalid,
    /// A source could not be read (reported); the others were.
    Failed,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        match status {
            Status::AllValid => ExitCode::SUCCESS,
            Status::SomeInvalid => ExitCode::from(1),
            Status::Failed => ExitCode::from(2),
        }
    }
}
