//! `hdl resolve`: handles resolved over the Handle protocol, from one server or from the
//! global root, many in flight, printed in the order they were read.

use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use handle_id::record::{Response, ResponseCode as RestCode};
use handle_net::client::{Timeouts, Transport};
use handle_net::lookup::{Query, Target};
use handle_net::resolver::Resolver;
use handle_proto::rest;

use crate::args::Lines;
use crate::output::Visible;
use crate::tally::Tally;
use crate::Status;

/// Where and how to ask.
#[derive(clap::Args, Clone, Debug)]
pub struct ResolveArgs {
    /// Only values of this type (a type ending in '.' selects its subtypes too). Repeatable.
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,
    /// Only the value at this index. Repeatable.
    #[arg(long = "index", value_name = "INDEX")]
    pub indexes: Vec<u32>,
    /// Ask this server directly (a private deployment, a test) instead of resolving from the
    /// global root.
    #[arg(long, value_name = "HOST:PORT")]
    pub server: Option<String>,
    /// Only over TCP.
    #[arg(long, conflicts_with = "udp")]
    pub tcp: bool,
    /// Only over UDP.
    #[arg(long)]
    pub udp: bool,
    /// The root's values to start from (a root info file, as HANDLE.NET writes it);
    /// HANDLE.NET 9.2's when not given.
    #[arg(long, value_name = "FILE", conflicts_with = "server")]
    pub root_info: Option<PathBuf>,
    /// Ask for an authoritative answer: primary sites only, no cache.
    #[arg(long)]
    pub authoritative: bool,
    /// Ask for a certified answer, and take it only when its signature verifies by the
    /// answering server's key: the one its site publishes (from the root), or with
    /// --server the one the server's own site info gives.
    #[arg(long)]
    pub cert: bool,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
    /// Seconds to wait for a server over TCP (UDP waits 0.5, 1 and 1.5 s).
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub timeout: u64,
}

/// A handle asked for, and where it was read.
struct Asked {
    handle: String,
    source: Option<String>,
    line: u64,
}

impl Asked {
    fn position(&self) -> crate::input::Position<'_> {
        crate::input::Position {
            source: self.source.as_deref(),
            line: self.line,
        }
    }
}

/// What became of one handle.
enum Outcome {
    /// The server's answer, as the REST API writes it.
    Answer(Response),
    /// No answer: why.
    Failed(String),
}

/// Runs `hdl resolve`: each handle's values as `hdl record` shows them (or, with `--json`,
/// one REST API response a line), in input order. Exit status: 0 when every handle had
/// values, 1 when one was not found or had none selected, 2 when a server could not be
/// reached or an input not read.
///
/// # Errors
///
/// An I/O error on writing; a usage error (a bad `--server`, a root info that does not
/// read).
pub fn run(lines: &Lines, args: &ResolveArgs) -> io::Result<Status> {
    let transports = match (args.tcp, args.udp) {
        (true, _) => vec![Transport::Tcp],
        (_, true) => vec![Transport::Udp],
        _ => vec![Transport::Udp, Transport::Tcp],
    };
    let timeouts = Timeouts {
        tcp: Duration::from_secs(args.timeout),
        ..Timeouts::default()
    };
    // One thread: the requests in flight are tasks it runs whenever the oldest is waited
    // for, so that an answer wakes no other thread (measured: the multi-threaded runtime
    // spent a fifth of its time switching between them).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let target = match &args.server {
        Some(server) => {
            let addr = handle_net::lookup::server_address(server)
                .map_err(|why| usage(format!("--server {server:?}: {why}")))?;
            runtime
                .block_on(Target::server(addr, transports, args.cert, &timeouts))
                .map_err(|e| match args.cert {
                    true => io::Error::other(format!("--cert: {e}")),
                    false => io::Error::other(e),
                })?
        }
        None => Target::Root(
            root_resolver(args.root_info.as_deref(), timeouts.clone())
                .map_err(usage)?
                .with_transports(transports),
        ),
    };
    let query = Arc::new(Query {
        types: args.types.clone(),
        indexes: args.indexes.clone(),
        authoritative: args.authoritative,
        certified: args.cert,
    });
    let target = Arc::new(target);
    let timeouts = Arc::new(timeouts);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut tally = Tally::new(!lines.json, lines.styles.1);
    let mut failed = 0_u64;
    // Requests in flight, oldest first: the oldest is printed first, so the output keeps
    // the input's order, and at most `jobs` are held.
    let mut flight: VecDeque<(Asked, tokio::task::JoinHandle<Outcome>)> = VecDeque::new();
    let mut print = |asked: &Asked, outcome: Outcome, tally: &mut Tally, out: &mut BufWriter<_>| {
        let (handle, position) = (&asked.handle, asked.position());
        let problem = match &outcome {
            Outcome::Answer(r) if r.code() == RestCode::Success => None,
            Outcome::Answer(r) => Some(r.code().meaning().to_owned()),
            Outcome::Failed(why) => {
                failed += 1;
                Some(why.clone())
            }
        };
        tally.lines += 1;
        if let Some(why) = &problem {
            tally.invalid += 1;
            if tally.talk {
                let _ = writeln!(tally.err, "{position}: {}: {why}", Visible(handle));
            }
        }
        write_outcome(out, handle, &outcome, lines.json)
    };
    let read = lines.sources.for_each_line(|line| {
        let handle = String::from_utf8_lossy(line.raw).into_owned();
        let asked = Asked {
            handle: handle.clone(),
            source: line.position.source.map(str::to_owned),
            line: line.position.line,
        };
        if flight.len() >= usize::from(args.jobs) {
            let (h, task) = flight.pop_front().expect("full");
            let outcome = runtime
                .block_on(task)
                .unwrap_or_else(|e| Outcome::Failed(e.to_string()));
            print(&h, outcome, &mut tally, &mut out)?;
        }
        let (target, query, timeouts) = (target.clone(), query.clone(), timeouts.clone());
        let task = runtime.spawn(async move {
            match target.ask(&handle, &query, &timeouts).await {
                Ok(answer) => Outcome::Answer(rest::answer(&handle, &answer)),
                Err(why) => Outcome::Failed(why),
            }
        });
        flight.push_back((asked, task));
        Ok(())
    })?;
    while let Some((h, task)) = flight.pop_front() {
        let outcome = runtime
            .block_on(task)
            .unwrap_or_else(|e| Outcome::Failed(e.to_string()));
        print(&h, outcome, &mut tally, &mut out)?;
    }
    out.flush()?;
    let status = tally.finish("resolve", read, "")?;
    Ok(if failed > 0 { Status::Failed } else { status })
}

fn usage(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn write_outcome(
    out: &mut impl Write,
    handle: &str,
    outcome: &Outcome,
    json: bool,
) -> io::Result<()> {
    match (outcome, json) {
        (Outcome::Answer(r), true) => writeln!(out, "{}", r.to_json()),
        (Outcome::Answer(r), false) => {
            crate::record::write_table(out, r)?;
            writeln!(out)
        }
        (Outcome::Failed(why), true) => {
            let r = Response::error(RestCode::Error, handle.parse().ok(), Some(why));
            writeln!(out, "{}", r.to_json())
        }
        (Outcome::Failed(_), false) => Ok(()),
    }
}

/// A resolver from the root whose sites `root_info` holds (a root info file, as the
/// reference ships it), or from the global root built in.
///
/// # Errors
///
/// The file cannot be read, or does not read as root info: the message.
pub fn root_resolver(root_info: Option<&Path>, timeouts: Timeouts) -> Result<Resolver, String> {
    let bytes = match root_info {
        Some(path) => Some(std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?),
        None => None,
    };
    Resolver::from_root_info(bytes.as_deref(), timeouts)
}
