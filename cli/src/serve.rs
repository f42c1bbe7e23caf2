//! `hdl serve`: the proxy server on an embedded store; `hdl serve import`: records into it.

use std::io::{self, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use handle_serve::{Config, Store};

use crate::output::report;
use crate::Status;

/// Imports the records of `records` (one REST API response per line; `-` for standard
/// input) into the store at `store`: through the server that holds it open when one runs
/// (its import socket), else into the file directly.
///
/// # Errors
///
/// The store cannot be opened, the records cannot be read, or a line is not a record.
pub fn import(records: &Path, store: &Path) -> io::Result<Status> {
    if let Some(done) = import_through_server(records, store)? {
        report(format_args!(
            "hdl serve import: {} records into {} through its server ({} in all)",
            done.imported.records,
            store.display(),
            done.held
        ));
        return Ok(Status::AllValid);
    }
    let db = open(store)?;
    let done = import_into(&db, records)?;
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

fn import_into(db: &Store, records: &Path) -> io::Result<handle_serve::Imported> {
    if records.as_os_str() == "-" {
        db.import(io::stdin().lock(), "standard input")
            .map_err(other)
    } else {
        let file = open_records(records)?;
        db.import(BufReader::new(file), &records.display().to_string())
            .map_err(other)
    }
}

fn open(store: &Path) -> io::Result<Store> {
    Store::open(store).map_err(other)
}

fn other(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// What `hdl serve` was asked.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Records to load into an empty store at start (one REST API response per line).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// The store file (made when missing, if --records fills it).
    #[arg(long, value_name = "FILE", default_value = "hdl-store.redb")]
    pub store: PathBuf,
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
    pub bind: std::net::SocketAddr,
    /// Connections served at once; more are answered 503.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,
    /// The store's page cache in memory, in MiB: the bound on what the server holds,
    /// whatever the number of records.
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    pub cache_mib: usize,
    /// No access log.
    #[arg(long)]
    pub quiet: bool,
}

/// Serves the store (importing `records` first when the store is empty) until Ctrl-C or
/// SIGTERM; requests in flight finish.
///
/// # Errors
///
/// The store cannot be opened or filled, or the address cannot be bound.
pub fn run(args: &ServeArgs) -> io::Result<Status> {
    // Without records to fill it, a store that is not there is a mistaken path (a
    // relative one run from another directory): not made, empty, and left behind.
    if args.records.is_none() && !args.store.exists() {
        return Err(io::Error::other(format!(
            "{}: no store there: give --records FILE to make one, or run hdl serve import",
            args.store.display()
        )));
    }
    let db = Store::open_with_cache(&args.store, args.cache_mib << 20).map_err(other)?;
    let held = db.len().map_err(other)?;
    match (&args.records, held) {
        (Some(records), 0) => {
            let done = import_into(&db, records)?;
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
        (None, 0) => {
            return Err(io::Error::other(format!(
                "{} holds no records: give --records FILE, or run hdl serve import",
                args.store.display()
            )))
        }
        (None, n) => report(format_args!("hdl serve: {n} records in {}", args.store.display())),
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", args.bind)))?;

        let config = Config {
            max_connections: args.max_connections,
            access_log: !args.quiet,
            ..Config::default()
        };
        let db = Arc::new(db);
        let _imports = listen_for_imports(&db, &args.store);
        report(format_args!(
            "hdl serve: listening on http://{}",
            listener.local_addr()?
        ));
        handle_serve::serve(db, listener, config, shutdown_signal()).await?;
        report(format_args!("hdl serve: stopped"));
        Ok::<_, io::Error>(())
    })?;
    Ok(Status::AllValid)
}

/// The import socket beside the store, so that `hdl serve import` updates the store while
/// the server runs; without it (a path too long for a socket), imports wait for a stop.
#[cfg(unix)]
fn listen_for_imports(db: &Arc<Store>, store: &Path) -> Option<handle_serve::imports::Listening> {
    let socket = handle_serve::imports::socket_path(store);
    match handle_serve::imports::listen(db.clone(), &socket) {
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

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
