//! `hdl serve`: the proxy server on an embedded store; `hdl serve import`: records into it.

use std::io::{self, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use handle_net::client::Timeouts;
use handle_net::limit::{Counters, RateLimits, REPORT_EVERY};
use handle_net::server::Service;
use handle_serve::upstream::{Limits as UpstreamLimits, Upstream, Via};
use handle_serve::{Config, Imported, Store};

use crate::output::report;
use crate::Status;

/// Imports the records of `records` (one REST API response per line; `-` for standard
/// input) into the store at `store`: through the server that holds it open when one runs
/// (its import socket), else into the file directly (made when missing). All or nothing.
///
/// # Errors
///
/// The store cannot be opened, the records cannot be read, or a line is not a record:
/// nothing is imported then.
pub fn import(records: &Path, store: &Path) -> io::Result<Status> {
    if let Some(done) = import_through_server(records, store).map_err(nothing_imported)? {
        warn(&done.imported);
        report(format_args!(
            "hdl serve import: {} records into {} through its server ({} in all)",
            done.imported.records,
            store.display(),
            done.held
        ));
        return Ok(Status::AllValid);
    }
    let (db, done) = if store.exists() {
        let db = Store::open(store).map_err(other)?;
        let done = with_records(records, |input, name| db.import(input, name))?;
        (db, done)
    } else {
        with_records(records, |input, name| {
            Store::create(store, handle_serve::DEFAULT_CACHE, input, name)
        })?
    };
    warn(&done);
    report(format_args!(
        "hdl serve import: {} records into {} ({} in all)",
        done.records,
        store.display(),
        db.len().map_err(other)?
    ));
    Ok(Status::AllValid)
}

#[cfg(unix)]
fn import_through_server(
    records: &Path,
    store: &Path,
) -> io::Result<Option<handle_serve::imports::ImportedThrough>> {
    let socket = handle_serve::imports::socket_path(store);
    if !socket.exists() {
        return Ok(None);
    }
    let through = if records.as_os_str() == "-" {
        handle_serve::imports::import_through(&socket, io::stdin().lock(), "standard input")
    } else {
        let file = open_records(records)?;
        handle_serve::imports::import_through(&socket, file, &records.display().to_string())
    };
    through.map_err(other)
}

#[cfg(not(unix))]
fn import_through_server(
    _: &Path,
    _: &Path,
) -> io::Result<Option<handle_serve::imports::ImportedThrough>> {
    Ok(None)
}

fn open_records(records: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(records)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", records.display())))
}

/// `load` of the records of `records` (standard input for `-`) and their name.
fn with_records<T>(
    records: &Path,
    load: impl FnOnce(&mut dyn io::BufRead, &str) -> Result<T, handle_serve::StoreError>,
) -> io::Result<T> {
    if records.as_os_str() == "-" {
        load(&mut io::stdin().lock(), "standard input")
    } else {
        let file = open_records(records)?;
        load(&mut BufReader::new(file), &records.display().to_string())
    }
    .map_err(|e| nothing_imported(other(e)))
}

/// An import's failure, saying what it left: nothing (an import is all or nothing).
fn nothing_imported(e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("{e}; nothing was imported (an import is all or nothing)"),
    )
}

/// The warnings of an import, each on a line: what redirects pass over.
fn warn(done: &Imported) {
    for w in &done.warnings {
        report(format_args!("hdl serve: warning: {w}"));
    }
    let more = done.warning_count - done.warnings.len() as u64;
    if more > 0 {
        report(format_args!("hdl serve: warning: and {more} more"));
    }
}

fn other(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// `--max-connections` and `--max-connections-per-client`: 0 would answer every request 503.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (with 0 every request is answered 503)".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// What `hdl serve` was asked.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Records to load into an empty store at start (one REST API response per line): all
    /// of them, or, when a line is not a record, none (and no store is made).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// The store file (made when missing, if --records fills it; readable by its owner
    /// only).
    #[arg(long, value_name = "FILE", default_value = "hdl-store.redb")]
    pub store: PathBuf,
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
    pub bind: std::net::SocketAddr,
    /// Connections served at once; more are answered 503.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = at_least_one)]
    pub max_connections: usize,
    /// Connections one client address holds at once, so that one client cannot take them
    /// all; more are answered 503. Behind a reverse proxy, every client is the proxy's
    /// address: give it --max-connections there.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = at_least_one)]
    pub max_connections_per_client: usize,
    /// Seconds a client may take to take an answer once it stops taking it (its
    /// connection's buffers full): then the connection is closed, so that a client that
    /// asks and never reads holds its connection no longer.
    #[arg(long, value_name = "SECS", default_value_t = handle_serve::limits::WRITE_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    pub write_timeout: u64,
    /// The store's page cache in memory, in MiB: the bound on what the server holds,
    /// whatever the number of records.
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    pub cache_mib: usize,
    /// Also answer the Handle protocol here, over TCP and UDP (2641 is its port):
    /// resolution and site info from the same store.
    #[arg(long, value_name = "ADDR")]
    pub handle_bind: Option<std::net::SocketAddr>,
    /// The Handle protocol's limits on UDP.
    #[command(flatten)]
    pub udp: UdpLimitArgs,
    /// Find a handle only in the ASCII case it was stored in (a case-sensitive service;
    /// a DOI is found in any case all the same). By default handles are found in any
    /// ASCII case, as the reference proxy finds them.
    #[arg(long)]
    pub case_sensitive: bool,
    /// No access log.
    #[arg(long)]
    pub quiet: bool,
    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first):
    /// then writes' credentials are taken from any client, not from loopback only.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS #8, PKCS #1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Handles the store does not hold, resolved through the Handle protocol.
    #[command(flatten)]
    pub upstream: UpstreamArgs,
}

/// `hdl serve --upstream` (SPEC P13): a handle the store does not hold is resolved through
/// the Handle protocol, and its answer kept as its values' TTLs say.
#[derive(clap::Args)]
#[command(next_help_heading = "Upstream: handles the store does not hold")]
pub struct UpstreamArgs {
    /// Resolve handles the store does not hold through the Handle protocol: from the global
    /// root, as `hdl resolve` does (or --root-info's root, or one --server); with no store
    /// there, an empty one is made.
    #[arg(long)]
    pub upstream: bool,
    /// The one handle server asked, over TCP (`hdl resolve --server` asks the same way).
    #[arg(
        long,
        value_name = "HOST:PORT",
        requires = "upstream",
        conflicts_with = "root_info"
    )]
    pub server: Option<std::net::SocketAddr>,
    /// The root resolution starts from, as a root info file holds it (HANDLE.NET's
    /// `root_info`); the global root's, built in, otherwise.
    #[arg(long, value_name = "FILE", requires = "upstream")]
    pub root_info: Option<PathBuf>,
    /// Handles the upstream cache holds at once.
    #[arg(long, value_name = "N", default_value_t = UpstreamLimits::default().entries, value_parser = at_least_one)]
    pub upstream_cache_entries: usize,
    /// Bytes of records the upstream cache holds at once, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = UpstreamLimits::default().bytes >> 20)]
    pub upstream_cache_mib: usize,
    /// The longest an answer is kept, whatever its TTLs, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = UpstreamLimits::default().max_ttl.as_secs())]
    pub upstream_max_ttl: u64,
}

/// `hdl serve`'s limits on the Handle protocol over UDP (N14): a UDP request proves nothing
/// of where it came from, so each source network has a budget, and an answer over it is
/// dropped or sent as a short error on which clients ask again over TCP.
#[derive(clap::Args)]
#[command(next_help_heading = "Handle protocol over UDP (with --handle-bind)")]
pub struct UdpLimitArgs {
    /// Answers a second to one source network (0: no limit).
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().answers_per_second)]
    pub udp_answers_per_second: u32,
    /// Bytes of answers a second to one source network (0: no limit).
    #[arg(long, value_name = "BYTES", default_value_t = RateLimits::default().bytes_per_second)]
    pub udp_bytes_per_second: u32,
    /// Seconds of those rates a network may spend at once.
    #[arg(long, value_name = "SECS", default_value_t = RateLimits::default().burst_seconds,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub udp_burst: u32,
    /// Of the answers over a network's budget, every Nth is sent as a short error that
    /// sends the client to TCP, and the rest dropped (1: every one; 0: none).
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().slip)]
    pub udp_slip: u32,
    /// The most datagrams (of 512 bytes) an answer may take over UDP; a larger one is
    /// sent as a short error that sends the client to TCP (0: no cap).
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().max_datagrams)]
    pub udp_max_datagrams: u32,
    /// The bits of an IPv4 address that name its network, for the budget.
    #[arg(long, value_name = "BITS", default_value_t = RateLimits::default().ipv4_prefix,
          value_parser = clap::value_parser!(u8).range(0..=32))]
    pub udp_ipv4_prefix: u8,
    /// The bits of an IPv6 address that name its network, for the budget.
    #[arg(long, value_name = "BITS", default_value_t = RateLimits::default().ipv6_prefix,
          value_parser = clap::value_parser!(u8).range(0..=128))]
    pub udp_ipv6_prefix: u8,
    /// Limit loopback sources too (127.0.0.0/8, ::1): by default they are not, as no
    /// packet from the network carries one, and a client on the same machine (a proxy, a
    /// benchmark) is not held back.
    #[arg(long)]
    pub udp_limit_loopback: bool,
}

impl UdpLimitArgs {
    fn limits(&self) -> RateLimits {
        RateLimits {
            answers_per_second: self.udp_answers_per_second,
            bytes_per_second: self.udp_bytes_per_second,
            burst_seconds: self.udp_burst,
            slip: self.udp_slip,
            max_datagrams: self.udp_max_datagrams,
            ipv4_prefix: self.udp_ipv4_prefix,
            ipv6_prefix: self.udp_ipv6_prefix,
            loopback: self.udp_limit_loopback,
            ..RateLimits::default()
        }
    }
}

/// Says what the UDP limits held back, every [`REPORT_EVERY`] when they held back anything.
async fn report_limited(counters: Arc<Counters>) {
    let mut every = tokio::time::interval(REPORT_EVERY);
    every.tick().await;
    loop {
        every.tick().await;
        say_limited(&counters, "the last minute");
    }
}

/// What the UDP limits held back, since they were last counted, `over` that time.
fn say_limited(counters: &Counters, over: &str) {
    let limited = counters.take();
    if limited.any() {
        report(format_args!(
            "hdl serve: handle protocol over UDP, {over}: {} answers over a network's budget sent to TCP, {} dropped; {} too large for UDP sent to TCP",
            limited.slipped, limited.dropped, limited.too_large
        ));
    }
}

/// Serves the store (importing `records` first when the store is empty or missing) until
/// Ctrl-C or SIGTERM; requests in flight finish. The address is bound before anything is
/// imported, and a start that fails leaves no new file.
///
/// # Errors
///
/// The address cannot be bound, or the store cannot be opened or filled.
pub fn run(args: &ServeArgs) -> io::Result<Status> {
    // Without records to fill it, a store that is not there is a mistaken path (a
    // relative one run from another directory): not made, empty, and left behind.
    if args.records.is_none() && !args.store.exists() && !args.upstream.upstream {
        return Err(io::Error::other(format!(
            "{}: no store there: give --records FILE to make one, or run hdl serve import",
            args.store.display()
        )));
    }
    // The certificate and key read first: a mistake in them is said before anything is done.
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            Some(handle_serve::tls::config(cert, key).map_err(io::Error::other)?)
        }
        _ => None,
    };
    // Bound first: an address in use is said before minutes of import, and leaves no store.
    let listener = std::net::TcpListener::bind(args.bind)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", args.bind)))?;
    let native = args.handle_bind.map(bind_native).transpose()?;
    let via = match (&args.upstream, args.upstream.server) {
        (u, _) if !u.upstream => None,
        (_, Some(server)) => Some(Via::Server(server)),
        (u, None) => Some(Via::Root(Box::new(
            crate::resolve::root_resolver(u.root_info.as_deref(), Timeouts::default())
                .map_err(io::Error::other)?,
        ))),
    };
    let cache = args.cache_mib << 20;
    let db = match &args.records {
        Some(records) if !args.store.exists() => {
            let (db, done) = with_records(records, |input, name| {
                Store::create(&args.store, cache, input, name)
            })?;
            warn(&done);
            report(format_args!(
                "hdl serve: {} records imported into {}",
                done.records,
                args.store.display()
            ));
            db
        }
        _ => {
            let db = Store::open_with_cache(&args.store, cache).map_err(other)?;
            match (&args.records, db.len().map_err(other)?) {
                (Some(records), 0) => {
                    let done = with_records(records, |input, name| db.import(input, name))?;
                    warn(&done);
                    report(format_args!(
                        "hdl serve: {} records imported into {}",
                        done.records,
                        args.store.display()
                    ));
                }
                (Some(_), n) => report(format_args!(
                    "hdl serve: {} holds {n} records; --records is read only into an empty store (hdl serve import updates it)",
                    args.store.display()
                )),
                (None, 0) if args.upstream.upstream => {
                    report(format_args!(
                        "hdl serve: no records in {}: every handle through the upstream",
                        args.store.display()
                    ));
                }
                (None, 0) => {
                    return Err(io::Error::other(format!(
                        "{} holds no records: give --records FILE, or run hdl serve import",
                        args.store.display()
                    )))
                }
                (None, n) => {
                    report(format_args!("hdl serve: {n} records in {}", args.store.display()));
                }
            }
            db
        }
    };
    let db = db.case_sensitive(args.case_sensitive);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let config = Config {
            max_connections: args.max_connections,
            max_connections_per_client: args.max_connections_per_client,
            write_timeout: Duration::from_secs(args.write_timeout),
            access_log: !args.quiet,
            upstream: via.map(|via| {
                Arc::new(Upstream::new(
                    via,
                    Timeouts::default(),
                    UpstreamLimits {
                        entries: args.upstream.upstream_cache_entries,
                        bytes: args.upstream.upstream_cache_mib << 20,
                        max_ttl: Duration::from_secs(args.upstream.upstream_max_ttl),
                        ..UpstreamLimits::default()
                    },
                ))
            }),
            tls,
            ..Config::default()
        };
        let scheme = if config.tls.is_some() {
            "https"
        } else {
            "http"
        };
        let upstream = config.upstream.clone();
        let db = Arc::new(db);
        let imports = listen_for_imports(&db, &args.store);
        let stop = Arc::new(tokio::sync::Notify::new());
        let counters = Arc::new(Counters::default());
        if let Some((udp, tcp)) = native {
            let (udp, tcp) = (
                tokio::net::UdpSocket::from_std(udp)?,
                tokio::net::TcpListener::from_std(tcp)?,
            );
            let address = tcp.local_addr()?;
            let key = Arc::new(server_key(&args.store)?);
            let site = handle_serve::native::site(address, key.public_key());
            let records = Arc::new(handle_serve::native::StoreRecords(db.clone()));
            let mut service = Service::new(records, site);
            service.key = Some(key);
            service.limits.udp = args.udp.limits();
            service.counters = counters.clone();
            tokio::spawn(report_limited(counters.clone()));
            let stop = stop.clone();
            tokio::spawn(async move {
                let stopped = async move { stop.notified().await };
                let served = handle_net::server::serve(service, udp, tcp, stopped);
                if let Err(e) = served.await {
                    report(format_args!("hdl serve: the handle protocol stopped: {e}"));
                }
            });
            report(format_args!(
                "hdl serve: handle protocol on {address} (TCP and UDP)"
            ));
        }
        let shutdown = shutdown_signal();
        report(format_args!(
            "hdl serve: listening on {scheme}://{}",
            listener.local_addr()?
        ));
        handle_serve::serve(db, listener, config, shutdown).await?;
        stop.notify_one();
        say_limited(&counters, "since the last report");
        if let Some(up) = upstream {
            let (handles, bytes) = up.held();
            report(format_args!(
                "hdl serve: {} upstream queries; {handles} handles kept ({bytes} bytes)",
                up.queries()
            ));
        }
        // The imports under way end (importing nothing) and are waited for, a bounded time.
        drop(imports);
        report(format_args!("hdl serve: stopped"));
        Ok::<_, io::Error>(())
    })?;
    // Nothing left to wait for but a commit under way: not for long.
    runtime.shutdown_timeout(Duration::from_secs(10));
    Ok(Status::AllValid)
}

/// The import socket beside the store, so that `hdl serve import` updates the store while
/// the server runs; without it (a path too long for a socket), imports wait for a stop.
#[cfg(unix)]
fn listen_for_imports(db: &Arc<Store>, store: &Path) -> Option<handle_serve::imports::Listening> {
    let socket = handle_serve::imports::socket_path(store);
    match handle_serve::imports::listen(
        db.clone(),
        &socket,
        handle_serve::limits::IMPORT_READ_TIMEOUT,
    ) {
        Ok(listening) => {
            report(format_args!(
                "hdl serve: imports while running through {}",
                socket.display()
            ));
            Some(listening)
        }
        Err(e) => {
            report(format_args!(
                "hdl serve: no imports while running ({}: {e})",
                socket.display()
            ));
            None
        }
    }
}

#[cfg(not(unix))]
fn listen_for_imports(_: &Arc<Store>, _: &Path) -> Option<()> {
    None
}

/// Ctrl-C, or SIGTERM on Unix. The handlers are in place when this returns, before the
/// server says it listens: a signal sent at once stops it as one sent later does (a
/// handler first taken when the accept loop polled the future let an early SIGTERM kill
/// the process).
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, term) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(term) => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The Handle protocol's sockets at `address`, UDP and TCP on the same port (a port of 0:
/// one free for both), bound before anything is imported.
fn bind_native(
    address: std::net::SocketAddr,
) -> io::Result<(std::net::UdpSocket, std::net::TcpListener)> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("--handle-bind {address}: {e}"));
    for _ in 0..32 {
        let tcp = std::net::TcpListener::bind(address).map_err(named)?;
        let bound = tcp.local_addr()?;
        match std::net::UdpSocket::bind(bound) {
            Ok(udp) => {
                udp.set_nonblocking(true)?;
                tcp.set_nonblocking(true)?;
                return Ok((udp, tcp));
            }
            // A free TCP port whose UDP twin is taken: try another, when any would do.
            Err(_) if address.port() == 0 => continue,
            Err(e) => return Err(named(e)),
        }
    }
    Err(named(io::Error::other("no port free for both TCP and UDP")))
}

/// The server's key, kept beside the store (`STORE.key`, PKCS #8, readable by its owner
/// only): read, or made and kept on first use, so that the site record written once stays
/// the server's.
fn server_key(store: &Path) -> io::Result<handle_net::key::ServerKey> {
    let mut path = store.as_os_str().to_owned();
    path.push(".key");
    let path = PathBuf::from(path);
    let named = |e: String| io::Error::other(format!("{}: {e}", path.display()));
    match std::fs::read(&path) {
        Ok(der) => handle_net::key::ServerKey::from_pkcs8(&der).map_err(named),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let key = handle_net::key::ServerKey::generate().map_err(named)?;
            let der = key.to_pkcs8().map_err(named)?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            std::io::Write::write_all(&mut options.open(&path)?, &der)?;
            report(format_args!(
                "hdl serve: a new key for the handle protocol in {}",
                path.display()
            ));
            Ok(key)
        }
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
}

/// `hdl serve siteinfo`: the site record of the server at `address` on `store`, as JSON
/// on standard output and in its binary form to `binary`.
///
/// # Errors
///
/// The key cannot be read or made, or a file not written.
pub fn siteinfo(
    address: std::net::SocketAddr,
    store: &Path,
    binary: Option<&Path>,
) -> io::Result<Status> {
    let key = server_key(store)?;
    let site = handle_serve::native::site(address, key.public_key());
    let json = serde_json::to_string_pretty(&handle_proto::rest::site_json(&site))?;
    println!("{json}");
    if let Some(path) = binary {
        std::fs::write(path, site.to_bytes())
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    Ok(Status::AllValid)
}
