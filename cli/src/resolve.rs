//! `hdl resolve`: handles resolved over the Handle protocol, from one server or from the
//! global root, many in flight, printed in the order they were read.

use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use handle_id::record::{Response, ResponseCode as RestCode};
use handle_net::client::{ask, Timeouts, Transport, UdpClient};
use handle_net::resolver::{expiration, Resolver};
use handle_proto::{rest, Message, OpFlags, ResponseCode};

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

/// Where requests go: one server (over UDP through one shared socket), or the servers
/// the root leads to.
enum Target {
    /// The server, its transports, a shared UDP client, and with `--cert` its key.
    Server(
        SocketAddr,
        Vec<Transport>,
        Option<UdpClient>,
        Option<Vec<u8>>,
    ),
    Root(Resolver),
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
    let target = match &args.server {
        Some(server) => {
            let addr = std::net::ToSocketAddrs::to_socket_addrs(server.as_str())
                .ok()
                .and_then(|mut a| a.next())
                .ok_or_else(|| usage(format!("--server {server:?}: not HOST:PORT")))?;
            Target::Server(addr, transports, None, None)
        }
        None => Target::Root(
            root_resolver(args.root_info.as_deref(), timeouts.clone())
                .map_err(usage)?
                .with_transports(transports),
        ),
    };
    // One thread: the requests in flight are tasks it runs whenever the oldest is waited
    // for, so that an answer wakes no other thread (measured: the multi-threaded runtime
    // spent a fifth of its time switching between them).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let target = match target {
        Target::Server(addr, transports, _, _) => {
            let key = match args.cert {
                true => Some(
                    runtime
                        .block_on(handle_net::client::own_key(addr, &timeouts))
                        .map_err(|e| io::Error::other(format!("--cert: {e}")))?,
                ),
                false => None,
            };
            let client = match transports.contains(&Transport::Udp) {
                true => Some(runtime.block_on(UdpClient::connect(addr))?),
                false => None,
            };
            Target::Server(addr, transports, client, key)
        }
        other => other,
    };
    let target = Arc::new(target);
    let args = Arc::new(args.clone());
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
        let (target, args, timeouts) = (target.clone(), args.clone(), timeouts.clone());
        let task =
            runtime.spawn(async move { resolve_one(&target, &args, &timeouts, &handle).await });
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

async fn resolve_one(
    target: &Target,
    args: &ResolveArgs,
    timeouts: &Timeouts,
    handle: &str,
) -> Outcome {
    let types: Vec<&[u8]> = args.types.iter().map(|t| t.as_bytes()).collect();
    let mut request = Message::resolution(handle.as_bytes(), &types, &args.indexes, expiration());
    request.header.flags = request
        .header
        .flags
        .with(OpFlags::AUTH, args.authoritative)
        .with(OpFlags::CERT, args.cert);
    let answer = match target {
        Target::Server(addr, transports, udp, key) => {
            let mut last = String::new();
            let mut answer = None;
            for &transport in transports {
                let asked = match (transport, udp) {
                    (Transport::Udp, Some(client)) => client.ask(&request, timeouts).await,
                    _ => ask(*addr, transport, &request, request_id(handle), timeouts).await,
                };
                match asked {
                    // `RC_ERROR`, the server's failure or its UDP limits (N14): the next
                    // transport, as HDLNET's client goes on.
                    // (Kept, for when no transport answers better.)
                    Ok((envelope, m)) => {
                        if let Some(key) = key {
                            if let Err(e) = handle_net::key::verify_answer(&envelope, &m, key) {
                                return Outcome::Failed(format!(
                                    "{addr}: the certified answer does not verify: {e}"
                                ));
                            }
                        }
                        let failed = m.header.response_code == ResponseCode::ERROR;
                        answer = Some(m);
                        if !failed {
                            break;
                        }
                    }
                    Err(e) => last = format!("{addr} over {transport:?}: {e}"),
                }
            }
            match answer {
                Some(m) => m,
                None => return Outcome::Failed(last),
            }
        }
        Target::Root(resolver) => match resolver.resolve(&request).await {
            Ok(m) => m,
            Err(e) => return Outcome::Failed(e.to_string()),
        },
    };
    Outcome::Answer(rest::answer(handle, &answer))
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

/// A request id for `handle`: different from one request to the next.
fn request_id(handle: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    handle.hash(&mut h);
    std::time::SystemTime::now().hash(&mut h);
    (h.finish() as u32) & 0x7FFF_FFFF
}

/// A resolver from the root whose sites `root_info` holds (a root info file, as the
/// reference ships it), or from the global root built in.
///
/// # Errors
///
/// The file cannot be read, or does not read as root info: the message.
pub fn root_resolver(root_info: Option<&Path>, timeouts: Timeouts) -> Result<Resolver, String> {
    let bytes = match root_info {
        Some(path) => std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => handle_proto::root::BUILT_IN.to_vec(),
    };
    let values = handle_proto::root::read(&bytes)
        .map_err(|e| format!("the root info does not read: {e}"))?;
    Ok(Resolver::new(&values, timeouts))
}
