//! The command line: what `hdl` accepts (clap's derive), and its resolution, once, into
//! the [`Job`] a subcommand runs. Usage errors (a bad `--proxy-base`) are found here,
//! before anything is read.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use handle_id::{LintCode, Options};

use crate::convert::Target;
use crate::dedupe::CaseArg;
use crate::input::Sources;
use crate::reader::{OptionArgs, ReadArgs, Reader};
use crate::style::{ColorChoice, Style};

/// Check, parse, convert and deduplicate Handle System identifiers (handles and DOIs).
///
/// Every subcommand that reads identifiers reads one a line, from the files given (`-` for
/// standard input), from standard input when none is, or from `--id` arguments; it writes
/// one line per input line (or per identifier found), and with `--json` one JSON record
/// each, of the one shape the README documents. Exit status: 0 when every line was
/// valid, 1 when one was not, 2 on a usage error or a file that could not be read.
#[derive(Parser)]
#[command(name = "hdl", version)]
pub struct Cli {
    /// Colour the output: `auto` when it is a terminal and NO_COLOR is not set.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

/// Where identifiers come from, for every subcommand that reads one a line.
#[derive(Args, Clone, Debug)]
pub struct InputArgs {
    /// An identifier to read, as if it were a line of input (repeatable); read before any
    /// file, and standard input is then read only if named (`-`).
    #[arg(short = 'i', long = "id", value_name = "IDENTIFIER")]
    pub ids: Vec<String>,
    /// Files to read, one identifier a line; standard input when none is given, or for `-`.
    pub files: Vec<PathBuf>,
}

impl InputArgs {
    fn sources(self) -> Sources {
        Sources {
            ids: self.ids,
            files: self.files,
        }
    }
}

/// The lint options of `check`.
#[derive(Args, Clone, Debug)]
pub struct LintArgs {
    /// Treat every warning as an error: a line with one is invalid.
    #[arg(long)]
    pub strict: bool,
    /// Silence a warning, by code (repeatable).
    #[arg(
        long,
        value_name = "CODE",
        value_parser = PossibleValuesParser::new(LintCode::ALL.map(LintCode::code))
            .map(|code| code.parse::<LintCode>().expect("a code of LintCode::ALL"))
    )]
    pub allow: Vec<LintCode>,
}

#[derive(Subcommand)]
enum Command {
    /// Judge identifiers, one per line, from files or standard input.
    ///
    /// Every input line gives exactly one output line, in order: `valid`, the input, its
    /// form and the handle it holds, or `invalid`, the input and why. Errors are shown with
    /// a caret on standard error. Exit status: 0 when all are valid, 1 when some are not,
    /// 2 on a usage error or a file that could not be read.
    #[command(after_help = CHECK_EXAMPLES)]
    Check {
        /// Write one JSON record per line instead of readable text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        lints: LintArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Write each line's handle in another form, one output line per input line.
    ///
    /// An invalid line gives an empty output line, and its error on standard error. Exit
    /// status as for `check`.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert {
        /// The form to write.
        #[arg(long, value_enum)]
        to: Target,
        /// Write one JSON record per line (with `output`, the handle in that form).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Clean messy identifiers: labels, resolver URLs with or without a scheme, brackets,
    /// quotes, trailing punctuation; DOIs in lowercase (their canonical form).
    ///
    /// One output line per input line, in order: the handle, or an empty line and the error
    /// on standard error when a line holds none (never a guess). Exit status as for `check`.
    #[command(after_help = CLEAN_EXAMPLES)]
    Clean {
        /// Write one JSON record per line (with `output` and the `fixes` made).
        #[arg(long)]
        json: bool,
        /// Keep the handle's case as written (DOIs are lowercased otherwise, SPEC C1).
        #[arg(long)]
        keep_case: bool,
        /// The form to write the handle in.
        #[arg(long, value_enum, default_value_t = Target::Handle)]
        to: Target,
        #[command(flatten)]
        options: OptionArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Find the DOIs and handles in running text: reference lists, HTML, BibTeX, Markdown,
    /// sentences.
    ///
    /// Every identifier found, one per output line, in order: DOIs written bare, every
    /// labelled and URI form (doi:, hdl:, info:, urn:), URLs of known resolvers and of
    /// --proxy-base ones, and bare handles under each --prefix. Offsets are byte offsets
    /// into the line as read; bytes that are not UTF-8, control characters (but ASCII's
    /// white space: tab, vertical tab, form feed, carriage return) and U+FFFD end an
    /// identifier. Streams: memory does not grow with the input (with --unique, about
    /// 40 bytes a distinct handle). Exit status: 0 when something was found, 1 when
    /// nothing was, 2 on a usage error or a file that could not be read.
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract {
        /// Write one JSON record per identifier: line, start, end (byte offsets within the
        /// line as read), text, form, handle.
        #[arg(long)]
        json: bool,
        /// Write each handle once (DOIs ignoring ASCII case).
        #[arg(long)]
        unique: bool,
        /// Also find bare handles under this prefix (20.500.12345). Repeatable.
        #[arg(long = "prefix", value_name = "PREFIX")]
        prefixes: Vec<String>,
        #[command(flatten)]
        options: OptionArgs,
        /// Files to read; standard input when none is given, or for `-`.
        files: Vec<PathBuf>,
    },
    /// Find identifiers that hold the same handle, written differently or in another
    /// ASCII case (DOIs are case-insensitive): each line that repeats an earlier handle, with
    /// the line it repeats, or with --unique the deduplicated list.
    ///
    /// Streams in one pass: memory grows with the distinct handles only, about 40 bytes
    /// each (a 16-byte table entry and the table's room to grow), never the lines. With
    /// --unique it is a filter: the first line of each handle, byte for byte, and exit
    /// status 0; without, exit status 1 when a handle is written twice. Invalid lines are
    /// reported on standard error, left out, and give exit status 1 either way; 2 on a
    /// usage error or a file that could not be read.
    #[command(after_help = DEDUPE_EXAMPLES)]
    Dedupe {
        /// `ascii`: handles that differ only in ASCII case are the same; `exact`: only
        /// identical handles are.
        #[arg(long, value_enum, default_value_t = CaseArg::Ascii)]
        case: CaseArg,
        /// Write one JSON record per line written (with `first_line` for a repeat), and per
        /// invalid line.
        #[arg(long)]
        json: bool,
        /// Write the first line of each handle instead: the list without its repeats.
        #[arg(long)]
        unique: bool,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        input: InputArgs,
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
        args: crate::record::RecordArgs,
    },
    /// Serve handle records as the HDL.NET proxy does: redirects and the REST API.
    ///
    /// Records are REST API responses, one per line (the format `hdl record` reads), kept
    /// in an embedded store (redb) that later starts reuse at once. `GET /<handle>`
    /// redirects to the URL value or the 10320/loc location chosen for the client;
    /// `noredirect`, `index`, `type`, `urlappend`, `locatt`, `action=showurls` and
    /// `ignore_aliases` work as the proxy's; `GET /api/handles/<handle>` answers the REST
    /// JSON (`type`, `index`, `callback`, `pretty`); `PUT` and `DELETE` there write, as
    /// HANDLE.NET's REST API takes them, authorised by the handle's HS_ADMIN values against
    /// HTTP Basic and an HS_SECKEY, from loopback only (SPEC W1–W8). Stops on Ctrl-C or
    /// SIGTERM, letting requests in flight finish.
    #[command(after_help = SERVE_EXAMPLES, args_conflicts_with_subcommands = true)]
    Serve {
        #[command(subcommand)]
        action: Option<ServeAction>,
        #[command(flatten)]
        args: crate::serve::ServeArgs,
    },
    /// Resolve handles over the Handle protocol: from the global root, as the Handle
    /// System's own resolver does, or from one server.
    ///
    /// Reads handles one a line, as every subcommand does (`--id` gives one on the command
    /// line), keeps --jobs requests in flight, and prints each handle's values as `hdl
    /// record` shows them, in input order; with --json one REST API response a line, which
    /// `hdl record` reads. Exit status: 0 when every handle had values, 1 when one was not
    /// found or had none selected, 2 when a server could not be reached, or on a usage
    /// error.
    #[command(after_help = RESOLVE_EXAMPLES)]
    Resolve {
        /// Write one REST API response per handle (JSON, one a line).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        resolve: crate::resolve::ResolveArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Create a handle, or replace it, through a HANDLE.NET REST API (`hdl serve`'s or the
    /// reference's), authenticated with a secret key (HTTP Basic) or a private key (`--key`: the Handle
    /// scheme's challenge, SPEC W3).
    ///
    /// Prints the server's JSON answer. Exit status: 0 when it took the write, 1 when it
    /// refused (its answer, and the reason on standard error), 2 when it could not be asked
    /// or on a usage error.
    #[command(after_help = CREATE_EXAMPLES)]
    Create {
        /// The handle (with --mint, what the new handle begins with: `20.5000/`).
        handle: String,
        /// Make a new handle: the server puts a random suffix after HANDLE.
        #[arg(long)]
        mint: bool,
        /// Refuse to replace a handle that exists (the server answers 409).
        #[arg(long)]
        no_overwrite: bool,
        #[command(flatten)]
        values: crate::write::Values,
        #[command(flatten)]
        connection: crate::write::Connection,
    },
    /// Add values to a handle, or replace those at their indices, through a HANDLE.NET REST
    /// API, authenticated as `create` is.
    ///
    /// Prints the server's JSON answer; exit status as for `create`.
    #[command(after_help = MODIFY_EXAMPLES)]
    Modify {
        /// The handle.
        handle: String,
        /// Refuse to replace a value at an index in use (the server answers 409).
        #[arg(long)]
        no_overwrite: bool,
        #[command(flatten)]
        values: crate::write::Values,
        #[command(flatten)]
        connection: crate::write::Connection,
    },
    /// Delete a handle, or some of its values, through a HANDLE.NET REST API,
    /// authenticated as `create` is.
    ///
    /// Prints the server's JSON answer; exit status as for `create`.
    #[command(after_help = DELETE_EXAMPLES)]
    Delete {
        /// The handle.
        handle: String,
        /// Delete only the value at this index. Repeatable.
        #[arg(long = "index", value_name = "INDEX")]
        indices: Vec<u32>,
        #[command(flatten)]
        connection: crate::write::Connection,
    },
    /// Show the parts of each identifier: prefix, its segments and parents, local name.
    ///
    /// Reads identifiers one a line, as every subcommand does (`--id` gives one on the
    /// command line). Exit status as for `check`.
    #[command(after_help = PARSE_EXAMPLES)]
    Parse {
        /// Write one JSON record per line (with the handle's parts) instead of readable text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        input: InputArgs,
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
    /// Write the site record of `hdl serve --handle-bind ADDR` on this store (its address,
    /// interfaces and key), in HANDLE.NET's JSON form (its siteinfo.json) on standard
    /// output, and with --binary in its binary form (siteinfo.bin): what a prefix's HS_SITE
    /// value holds so that resolvers find the server. Makes the server's key beside the
    /// store (FILE.key) when it has none yet.
    #[command(after_help = SITEINFO_EXAMPLES)]
    Siteinfo {
        /// The address the server answers the protocol at.
        #[arg(long, value_name = "ADDR")]
        handle_bind: std::net::SocketAddr,
        /// The store file, beside which the key is kept.
        #[arg(long, value_name = "FILE", default_value = "hdl-store.redb")]
        store: PathBuf,
        /// Also write the binary form to this file.
        #[arg(long, value_name = "FILE")]
        binary: Option<PathBuf>,
    },
}

// Examples, one to a line, after the options in `--help`. Each runs as written from the
// repository's root (a test runs them all): the files are in `data/`.
pub const CHECK_EXAMPLES: &str = "Examples:
  hdl check data/ids.txt
  hdl check --json < data/ids.txt
  hdl check --form handle data/ids.txt
  hdl check --id hdl:10.1045/april2006-paskin --id 10@x/y
  hdl check --proxy-base https://resolver.example/hdl --repository-urls data/urls.txt
  hdl check --strict --allow trailing-slash data/ids.txt
  printf 'hdl:10.1045/april2006-paskin\\n10@x/y\\n' | hdl check";

pub const CONVERT_EXAMPLES: &str = "Examples:
  hdl convert --to proxy < data/ids.txt
  hdl convert --to hdl data/urls.txt
  hdl convert --to api --proxy-base https://resolver.example data/ids.txt";

pub const CLEAN_EXAMPLES: &str = "Examples:
  hdl clean data/messy-dois.txt
  hdl clean --json < data/messy-dois.txt
  hdl clean --to proxy --keep-case --id ' DOI: 10.1045/APRIL2006-PASKIN.'";

pub const EXTRACT_EXAMPLES: &str = "Examples:
  hdl extract data/references.txt
  hdl extract --json --unique data/references.txt
  hdl extract --prefix 20.500.12345 --proxy-base https://repo.example/handle data/references.txt";

pub const DEDUPE_EXAMPLES: &str = "Examples:
  hdl dedupe data/ids.txt
  hdl dedupe --unique data/ids.txt
  hdl dedupe --case exact --json data/ids.txt";

pub const COMPLETIONS_EXAMPLES: &str = "Examples:
  hdl completions bash > hdl.bash
  hdl completions zsh > _hdl
  hdl completions fish > hdl.fish";

pub const RECORD_EXAMPLES: &str = "Examples:
  hdl record data/response.json
  hdl record --json --pretty --type URL --type EMAIL data/response.json
  hdl record --url --seed 7 data/response.json
  hdl record --url --client-ip 192.0.2.7 --country gb < data/response.json
  hdl record --url --candidates --accept application/json data/response.json";

pub const SERVE_EXAMPLES: &str = "Examples:
  hdl serve --records data/records.jsonl --store handles.redb
  hdl serve --store handles.redb --bind 127.0.0.1:8000 --handle-bind 127.0.0.1:2641
  hdl serve import --records data/records.jsonl --store handles.redb
  curl -i http://127.0.0.1:8000/20.1000/5555
  curl http://127.0.0.1:8000/api/handles/20.1000/5555?pretty";

pub const RESOLVE_EXAMPLES: &str = "Examples:
  hdl resolve --id 10.1000/182
  hdl resolve --json --type URL --id 20.1000/5555
  hdl serve --records data/records.jsonl --store handles.redb --handle-bind 127.0.0.1:2641
  hdl resolve --server 127.0.0.1:2641 --tcp --id 20.1000/5555
  hdl resolve --server 127.0.0.1:2641 --jobs 256 --json data/ids.txt > answers.jsonl";

pub const SITEINFO_EXAMPLES: &str = "Examples:
  hdl serve siteinfo --handle-bind 127.0.0.1:2641 --store handles.redb > siteinfo.json
  hdl serve siteinfo --handle-bind 192.0.2.7:2641 --store handles.redb --binary siteinfo.bin";

pub const CREATE_EXAMPLES: &str = "Examples:
  HDL_PASSWORD=secret hdl create 20.5000/report-7 --value 1:URL=https://example.org/7 --admin 100:300:0.NA/20.5000 --server http://127.0.0.1:8000 --user 300:0.NA/20.5000
  hdl create 20.5000/ --mint --values-file values.json --server https://handle.example:8000 --ca-cert server.pem --user 300:0.NA/20.5000 --password-file key.txt";

pub const MODIFY_EXAMPLES: &str = "Examples:
  HDL_PASSWORD=secret hdl modify 20.5000/report-7 --value 1:URL=https://example.org/moved --server http://127.0.0.1:8000 --user 300:0.NA/20.5000
  hdl modify 20.5000/report-7 --no-overwrite --value 2:EMAIL=a@example.org --server http://127.0.0.1:8000 --user 300:0.NA/20.5000 --password-file key.txt";

pub const DELETE_EXAMPLES: &str = "Examples:
  HDL_PASSWORD=secret hdl delete 20.5000/report-7 --index 2 --server http://127.0.0.1:8000 --user 300:0.NA/20.5000
  hdl delete 20.5000/report-7 --server http://127.0.0.1:8000 --user 300:0.NA/20.5000 --password-file key.txt";

pub const PARSE_EXAMPLES: &str = "Examples:
  hdl parse --id 10.978.8896471/foo
  hdl parse --json --id 20.1000/5555 --id 0.NA/10.1045
  hdl parse --id https://doi.org/10.1000/182 --id 'hdl:20.1000/5555?noredirect'
  hdl parse --json < data/ids.txt";

/// What every line-reading subcommand was asked besides its own options.
pub struct Lines {
    pub sources: Sources,
    pub json: bool,
    /// The style of standard output, and of standard error.
    pub styles: (Style, Style),
}

/// A subcommand with its arguments resolved.
pub enum Job {
    Check(Lines, Reader, LintArgs),
    Convert(Lines, Reader, Target),
    Clean {
        lines: Lines,
        reader: Reader,
        keep_case: bool,
        to: Target,
    },
    Extract {
        lines: Lines,
        options: Options,
        unique: bool,
    },
    Dedupe {
        lines: Lines,
        reader: Reader,
        case: CaseArg,
        unique: bool,
    },
    Parse(Lines, Reader),
    Resolve(Lines, crate::resolve::ResolveArgs),
    Record(crate::record::RecordArgs),
    Serve(crate::serve::ServeArgs),
    Import {
        records: PathBuf,
        store: PathBuf,
    },
    Siteinfo {
        handle_bind: std::net::SocketAddr,
        store: PathBuf,
        binary: Option<PathBuf>,
    },
    Completions(clap_complete::Shell),
    /// `create`, `modify`, `delete`: one write through a REST API.
    Write(crate::write::Write),
}

impl Cli {
    /// The job the command line asks for.
    ///
    /// # Errors
    ///
    /// A usage error (an option whose value is not what it needs), as a message.
    pub fn resolve(self) -> Result<Job, String> {
        let styles = (Style::stdout(self.color), Style::stderr(self.color));
        let lines = |json: bool, input: InputArgs| Lines {
            sources: input.sources(),
            json,
            styles,
        };
        Ok(match self.command {
            Command::Check {
                json,
                read,
                lints,
                input,
            } => Job::Check(lines(json, input), Reader::new(&read)?, lints),
            Command::Convert {
                to,
                json,
                read,
                input,
            } => Job::Convert(lines(json, input), Reader::new(&read)?, to),
            Command::Clean {
                json,
                keep_case,
                to,
                options,
                input,
            } => {
                let (options, base) = options.options()?;
                Job::Clean {
                    lines: lines(json, input),
                    reader: Reader::auto(options, base),
                    keep_case,
                    to,
                }
            }
            Command::Extract {
                json,
                unique,
                prefixes,
                options,
                files,
            } => {
                let (mut options, _) = options.options()?;
                for prefix in &prefixes {
                    options = options
                        .try_handle_prefix(prefix)
                        .map_err(|e| format!("--prefix {prefix:?}: {e}"))?;
                }
                let input = InputArgs {
                    ids: Vec::new(),
                    files,
                };
                Job::Extract {
                    lines: lines(json, input),
                    options,
                    unique,
                }
            }
            Command::Dedupe {
                case,
                json,
                unique,
                read,
                input,
            } => Job::Dedupe {
                lines: lines(json, input),
                reader: Reader::new(&read)?,
                case,
                unique,
            },
            Command::Parse { json, read, input } => {
                Job::Parse(lines(json, input), Reader::new(&read)?)
            }
            Command::Resolve {
                json,
                resolve,
                input,
            } => Job::Resolve(lines(json, input), resolve),
            Command::Record { args } => Job::Record(args),
            Command::Serve {
                action: Some(ServeAction::Import { records, store }),
                ..
            } => Job::Import { records, store },
            Command::Serve {
                action:
                    Some(ServeAction::Siteinfo {
                        handle_bind,
                        store,
                        binary,
                    }),
                ..
            } => Job::Siteinfo {
                handle_bind,
                store,
                binary,
            },
            Command::Serve { action: None, args } => Job::Serve(args),
            Command::Completions { shell } => Job::Completions(shell),
            Command::Create {
                handle,
                mint,
                no_overwrite,
                values,
                connection,
            } => Job::Write(crate::write::Write::create(
                &connection,
                &handle,
                &values,
                mint,
                !no_overwrite,
            )?),
            Command::Modify {
                handle,
                no_overwrite,
                values,
                connection,
            } => Job::Write(crate::write::Write::modify(
                &connection,
                &handle,
                &values,
                !no_overwrite,
            )?),
            Command::Delete {
                handle,
                indices,
                connection,
            } => Job::Write(crate::write::Write::delete(&connection, &handle, &indices)?),
        })
    }
}
