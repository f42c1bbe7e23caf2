//! `hdl`: check, parse and convert Handle System identifiers, one per line, at full speed.

#![forbid(unsafe_code)]

mod check;
mod lines;
mod output;
mod parse;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Check, parse and convert Handle System identifiers (handles and DOIs).
#[derive(Parser)]
#[command(name = "hdl", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge identifiers, one per line, from files or standard input.
    ///
    /// Every input line gives exactly one output line, in order. Exit status: 0 when all
    /// are valid, 1 when some are not, 2 on a usage or I/O error.
    ///
    /// Examples:
    ///   hdl check ids.txt
    ///   hdl check --json < ids.txt
    ///   printf '10.1045/april2006-paskin\n10@x/y\n' | hdl check
    Check {
        /// Write one JSON object per line instead of readable text.
        #[arg(long)]
        json: bool,
        /// How each line is read: `handle` takes it as a bare handle (SPEC D5).
        #[arg(long, value_enum, default_value_t = Form::Handle)]
        form: Form,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Show the parts of each identifier: prefix, its segments and parents, local name.
    ///
    /// Examples:
    ///   hdl parse 10.978.8896471/foo
    ///   hdl parse --json 20.1000/5555 0.NA/10.1045
    Parse {
        /// Write one JSON object per identifier instead of readable text.
        #[arg(long)]
        json: bool,
        /// The identifiers.
        #[arg(required = true)]
        ids: Vec<String>,
    },
}

/// The forms `--form` can name.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// A bare handle, `<naming authority>/<local name>`, taken exactly as written.
    Handle,
}

impl Form {
    /// The name JSON output gives the form.
    pub fn name(self) -> &'static str {
        match self {
            Form::Handle => "handle",
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { json, form, files } => check::run(&files, json, form),
        Command::Parse { json, ids } => parse::run(&ids, json),
    };
    match result {
        Ok(status) => status.into(),
        Err(e) => {
            eprintln!("hdl: {e}");
            ExitCode::from(2)
        }
    }
}

/// How a run ended, short of an I/O error.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Every identifier was valid.
    AllValid,
    /// At least one was not.
    SomeInvalid,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        match status {
            Status::AllValid => ExitCode::SUCCESS,
            Status::SomeInvalid => ExitCode::from(1),
        }
    }
}
