//! `hdl`: check, parse and convert Handle System identifiers, one per line, at full speed.

#![forbid(unsafe_code)]

mod check;
mod clean;
mod convert;
mod dedupe;
mod extract;
mod lines;
mod output;
mod parse;
mod read;
mod record;
mod serve;
mod style;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Check, parse, convert and deduplicate Handle System identifiers (handles and DOIs).
#[derive(Parser)]
#[command(name = "hdl", version)]
struct Cli {
    /// Colour the output: `auto` when it is a terminal and NO_COLOR is not set.
    #[arg(long, value_enum, global = true, default_value_t = style::ColorChoice::Auto)]
    color: style::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge identifiers, one per line, from files or standard input.
    ///
    /// Every input line gives exactly one output line, in order: `valid`, the input, its
    /// form and the handle it holds, or `invalid`, the input and why. Errors are shown with
    /// a caret on standard error. Exit status: 0 when all are valid, 1 when some are not,
    /// 2 on a usage or I/O error.
    #[command(after_help = CHECK_EXAMPLES)]
    Check {
        /// Write one JSON object per line instead of readable text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: read::ReadArgs,
        #[command(flatten)]
        lints: check::LintArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Write each line's handle in another form, one output line per input line.
    ///
    /// An invalid line gives an empty output line, and its error on standard error. Exit
    /// status as for `check`.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert {
        /// The form to write.
        #[arg(long, value_enum)]
        to: convert::Target,
        /// Write one JSON object per line: input, valid, form, output, error.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: read::ReadArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Clean messy identifiers: labels, resolver URLs with or without a scheme, brackets,
    /// quotes, trailing punctuation; DOIs in lowercase (their canonical form).
    ///
    /// One output line per input line, in order: the handle, or an empty line and the error
    /// on standard error when a line holds none (never a guess). Exit status as for `check`.
    #[command(after_help = CLEAN_EXAMPLES)]
    Clean {
        /// Write one JSON object per line: input, valid, handle, form, fixes, warnings,
        /// error.
        #[arg(long)]
        json: bool,
        /// Keep the handle's case as written (DOIs are lowercased otherwise, SPEC C1).
        #[arg(long)]
        keep_case: bool,
        /// The form to write the handle in.
        #[arg(long, value_enum, default_value_t = convert::Target::Handle)]
        to: convert::Target,
        #[command(flatten)]
        options: read::OptionArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Find the DOIs and handles in running text: reference lists, HTML, BibTeX, Markdown,
    /// CSV, sentences.
    ///
    /// Every identifier found, one per output line, in order: DOIs written bare, every
    /// labelled and URI form (doi:, hdl:, info:, urn:), URLs of known resolvers and of
    /// --proxy-base ones, and bare handles under each --prefix. Streams: memory does not
    /// grow with the input (with --unique, 16 bytes per distinct handle). Exit status: 0
    /// when something was found, 1 when nothing was, 2 on a usage or I/O error.
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract {
        /// Write one JSON object per identifier: line, start, end (byte offsets within the
        /// line as written), text, form, handle.
        #[arg(long)]
        json: bool,
        /// Write each handle once (DOIs ignoring ASCII case).
        #[arg(long)]
        unique: bool,
        /// Also find bare handles under this prefix (20.500.12345). Repeatable.
        #[arg(long = "prefix", value_name = "PREFIX")]
        prefixes: Vec<String>,
        #[command(flatten)]
        options: read::OptionArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Find identifiers that hold the same handle, written differently or in another
    /// ASCII case (DOIs are case-insensitive): each line that repeats an earlier handle, with
    /// the line it repeats, or with --unique the deduplicated list.
    ///
    /// Streams in one pass: memory grows with the distinct handles only, 16 bytes each in a
    /// table (never the lines). Exit status: 0 when nothing is written twice, 1 when
    /// something is, 2 on a usage or I/O error. Invalid lines are reported on standard error
    /// and skipped.
    #[command(after_help = DEDUPE_EXAMPLES)]
    Dedupe {
        /// `ascii`: handles that differ only in ASCII case are the same; `exact`: only
        /// identical handles are.
        #[arg(long, value_enum, default_value_t = dedupe::CaseArg::Ascii)]
        case: dedupe::CaseArg,
        /// Write one JSON object per line written: line, input, handle, and for a repeat
        /// first_line.
        #[arg(long)]
        json: bool,
        /// Write the first line of each handle instead: the list without its repeats.
        #[arg(long)]
        unique: bool,
        #[command(flatten)]
        read: read::ReadArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Print a completion script for a shell.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Read one REST API response (the proxy's JSON or JSONP) and show its values.
    ///
    /// Validates the response (SPEC R1–R5) and prints the values as a table; `--json`
    /// prints it normalised, `--type` and `--index` filter like the proxy, `--url` prints
    /// only where the proxy would redirect (URL values or 10320/loc, L1–L4), exit status 1
    /// when it would not. A malformed response is one line on standard error and exit
    /// status 2.
    #[command(after_help = RECORD_EXAMPLES)]
    Record {
        #[command(flatten)]
        args: record::RecordArgs,
    },
    /// Serve handle records as the HDL.NET proxy does: redirects and the REST API.
    ///
    /// Records are REST API responses, one per line (the format `hdl record` reads), kept
    /// in an embedded store (redb) that later starts reuse at once. `GET /<handle>`
    /// redirects to the URL value or the 10320/loc location chosen for the client;
    /// `noredirect`, `index`, `type`, `urlappend`, `locatt`, `action=showurls` and
    /// `ignore_aliases` work as the proxy's; `GET /api/handles/<handle>` answers the REST
    /// JSON (`type`, `index`, `callback`, `pretty`). Stops on Ctrl-C or SIGTERM, letting
    /// requests in flight finish.
    #[command(after_help = SERVE_EXAMPLES, args_conflicts_with_subcommands = true)]
    Serve {
        #[command(subcommand)]
        action: Option<ServeAction>,
        #[command(flatten)]
        args: serve::ServeArgs,
    },
    /// Show the parts of each identifier: prefix, its segments and parents, local name.
    ///
    /// Reads the identifiers given, or, when none is given, one per line from standard
    /// input. Exit status as for `check`.
    #[command(after_help = PARSE_EXAMPLES)]
    Parse {
        /// Write one JSON object per identifier instead of readable text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: read::ReadArgs,
        /// The identifiers; standard input, one per line, when none is given.
        ids: Vec<String>,
    },
}

/// What `hdl serve` does besides serving.
#[derive(Subcommand)]
enum ServeAction {
    /// Import records into the store: each replaces the record of its handle atomically.
    /// While `hdl serve` runs on the store, the records go through it (its import socket).
    Import {
        /// The records: one REST API response per line; `-` for standard input.
        #[arg(long, value_name = "FILE")]
        records: PathBuf,
        /// The store file (created when missing).
        #[arg(long, value_name = "FILE", default_value = "hdl-store.redb")]
        store: PathBuf,
    },
}

// Examples, one to a line, after the options in `--help`.
const CHECK_EXAMPLES: &str = "Examples:
  hdl check ids.txt
  hdl check --json < ids.txt
  hdl check --form handle ids.txt
  hdl check --proxy-base https://resolver.example/hdl --repository-urls urls.txt
  hdl check --strict --allow trailing-slash ids.txt
  printf 'hdl:10.1045/april2006-paskin\\n10@x/y\\n' | hdl check";

const CONVERT_EXAMPLES: &str = "Examples:
  hdl convert --to proxy < dois.txt
  hdl convert --to hdl urls.txt
  hdl convert --to api --proxy-base https://resolver.example ids.txt";

const CLEAN_EXAMPLES: &str = "Examples:
  hdl clean messy-dois.txt > dois.txt
  hdl clean --json < references.txt
  hdl clean --to proxy --keep-case ids.csv";

const EXTRACT_EXAMPLES: &str = "Examples:
  hdl extract references.txt
  hdl extract --json --unique paper.html
  hdl extract --prefix 20.500.12345 --proxy-base https://repo.example/handle thesis.md";

const DEDUPE_EXAMPLES: &str = "Examples:
  hdl dedupe dois.txt
  hdl dedupe --unique dois.txt > deduplicated.txt
  hdl dedupe --case exact --json ids.txt";

const COMPLETIONS_EXAMPLES: &str = "Examples:
  hdl completions bash > ~/.local/share/bash-completion/completions/hdl
  hdl completions zsh > \"${fpath[1]}/_hdl\"
  hdl completions fish > ~/.config/fish/completions/hdl.fish";

const RECORD_EXAMPLES: &str = "Examples:
  curl -s https://hdl.handle.net/api/handles/4263537/4000 | hdl record
  hdl record --json --pretty --type URL --type EMAIL response.json
  hdl record --url --locatt id:1 --seed 7 response.json
  hdl record --url --client-ip 192.0.2.7 --country gb response.json";

const SERVE_EXAMPLES: &str = "Examples:
  hdl serve --records records.jsonl --store handles.redb
  hdl serve --store handles.redb --bind 0.0.0.0:8000
  hdl serve import --records updates.jsonl --store handles.redb
  curl -i http://127.0.0.1:8000/20.1000/5555
  curl http://127.0.0.1:8000/api/handles/20.1000/5555?pretty";

const PARSE_EXAMPLES: &str = "Examples:
  hdl parse 10.978.8896471/foo
  hdl parse --json 20.1000/5555 0.NA/10.1045
  hdl parse https://doi.org/10.1000/182 hdl:20.1000/5555?noredirect
  hdl parse --json < ids.txt";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let reader = |args: &read::ReadArgs| {
        read::Reader::new(args).unwrap_or_else(|e| {
            output::report(format_args!("hdl: {e}"));
            std::process::exit(2)
        })
    };
    let (out_style, err_style) = (
        style::Style::stdout(cli.color),
        style::Style::stderr(cli.color),
    );
    let result = match cli.command {
        Command::Check {
            json,
            read,
            lints,
            files,
        } => check::run(&files, json, &reader(&read), &lints, (out_style, err_style)),
        Command::Convert {
            to,
            json,
            read,
            files,
        } => convert::run(&files, to, json, &reader(&read), err_style),
        Command::Clean {
            json,
            keep_case,
            to,
            options,
            files,
        } => {
            let (options, base) = options.options().unwrap_or_else(|e| {
                output::report(format_args!("hdl: {e}"));
                std::process::exit(2)
            });
            let args = clean::CleanArgs {
                json,
                keep_case,
                to,
            };
            clean::run(&files, &args, &options, base.as_ref(), err_style)
        }
        Command::Extract {
            json,
            unique,
            prefixes,
            options,
            files,
        } => {
            let (mut options, _) = options.options().unwrap_or_else(|e| {
                output::report(format_args!("hdl: {e}"));
                std::process::exit(2)
            });
            for prefix in &prefixes {
                options = options.handle_prefix(prefix);
            }
            extract::run(&files, json, unique, &options)
        }
        Command::Dedupe {
            case,
            json,
            unique,
            read,
            files,
        } => dedupe::run(&files, case, json, unique, &reader(&read), err_style),
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "hdl", &mut std::io::stdout());
            Ok(Status::AllValid)
        }
        Command::Parse { json, read, ids } => parse::run(&ids, json, &reader(&read)),
        Command::Serve {
            action: Some(ServeAction::Import { records, store }),
            ..
        } => serve::import(&records, &store),
        Command::Serve { action: None, args } => serve::run(&args),
        Command::Record { args } => record::run(&args),
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
