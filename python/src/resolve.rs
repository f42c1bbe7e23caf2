//! Resolution over the Handle protocol, by the library's client (`handle_net::lookup`, what
//! `hdl resolve` asks through): one handle, or many with many in flight, in a tokio runtime
//! of one thread made for the call, the GIL released while it waits.

use std::collections::{HashMap, VecDeque};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use handle_id::record::{Response, ResponseCode};
use handle_net::client::{Timeouts, Transport};
use handle_net::lookup::{Query, Target};
use handle_net::resolver::Resolver;
use handle_proto::rest;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::{parse_error, ResolveError};
use crate::record::PyRecord;

/// How one call asks: where, over what, for what, how long.
struct Asking {
    via: Via,
    transports: Vec<Transport>,
    query: Query,
    timeouts: Timeouts,
}

/// One server, or the servers a root leads to.
enum Via {
    Server(SocketAddr),
    Root(Resolver),
}

impl Asking {
    #[allow(clippy::too_many_arguments)]
    fn new(
        server: Option<&str>,
        root_info: Option<PathBuf>,
        types: Option<Vec<String>>,
        indexes: Option<Vec<u32>>,
        transport: Option<&str>,
        authoritative: bool,
        certified: bool,
        timeout: f64,
    ) -> PyResult<Self> {
        if server.is_some() && root_info.is_some() {
            return Err(PyValueError::new_err(
                "server and root_info: ask one server, or from a root, not both",
            ));
        }
        let server = server
            .map(|s| {
                s.to_socket_addrs()
                    .ok()
                    .and_then(|mut a| a.next())
                    .ok_or_else(|| PyValueError::new_err(format!("server {s:?}: not HOST:PORT")))
            })
            .transpose()?;
        let transports = match transport {
            None => vec![Transport::Udp, Transport::Tcp],
            Some("udp") => vec![Transport::Udp],
            Some("tcp") => vec![Transport::Tcp],
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "transport {other:?}: 'udp', 'tcp' or None (UDP, then TCP)"
                )))
            }
        };
        let tcp = Duration::try_from_secs_f64(timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| PyValueError::new_err(format!("timeout {timeout}: seconds, above 0")))?;
        let timeouts = Timeouts {
            tcp,
            ..Timeouts::default()
        };
        let via = match server {
            Some(addr) => Via::Server(addr),
            None => Via::Root(root(root_info.as_ref(), &timeouts)?),
        };
        Ok(Self {
            via,
            transports,
            query: Query {
                types: types.unwrap_or_default(),
                indexes: indexes.unwrap_or_default(),
                authoritative,
                certified,
            },
            timeouts,
        })
    }

    /// Where to ask, inside the runtime that will ask (a server's UDP socket is bound
    /// there).
    async fn target(&self) -> Result<Target, String> {
        match &self.via {
            Via::Server(addr) => Target::server(
                *addr,
                self.transports.clone(),
                self.query.certified,
                &self.timeouts,
            )
            .await
            .map_err(|e| format!("{addr}: {e}")),
            Via::Root(resolver) => Ok(Target::Root(
                resolver.clone().with_transports(self.transports.clone()),
            )),
        }
    }
}

impl Asking {
    /// [`Asking::target`], kept for the one-handle calls that ask the same way next (in
    /// the shared runtime, whose worker reads a server's UDP socket): one socket for every
    /// call to a server, rather than one bound for each.
    async fn kept_target(&self) -> Result<Arc<Target>, String> {
        type Key = (SocketAddr, Vec<Transport>, bool, Duration);
        type Kept = Mutex<HashMap<Key, Arc<Target>>>;
        static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
        let Via::Server(server) = self.via else {
            // (A root's resolver is kept already, by `root`.)
            return self.target().await.map(Arc::new);
        };
        let key = (
            server,
            self.transports.clone(),
            self.query.certified,
            self.timeouts.tcp,
        );
        let kept = KEPT.get_or_init(Kept::default);
        if let Some(t) = kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(t.clone());
        }
        let target = Arc::new(self.target().await?);
        kept.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, target.clone());
        Ok(target)
    }
}

/// The resolvers from a root, by its root info file (`None`: the built-in root) and TCP
/// timeout: kept between calls, so that each prefix's sites, once found, are asked at once
/// by the next call too, as long as their values' TTLs say.
fn root(root_info: Option<&PathBuf>, timeouts: &Timeouts) -> PyResult<Resolver> {
    type Kept = Mutex<HashMap<(Option<PathBuf>, Duration), Resolver>>;
    static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
    let key = (root_info.cloned(), timeouts.tcp);
    let kept = KEPT.get_or_init(Kept::default);
    if let Some(r) = kept
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return Ok(r.clone());
    }
    // (A file that cannot be read raises the OSError it is, FileNotFoundError …)
    let bytes = root_info.map(std::fs::read).transpose()?;
    let resolver = Resolver::from_root_info(bytes.as_deref(), timeouts.clone())
        .map_err(|why| PyValueError::new_err(format!("root_info: {why}")))?;
    kept.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, resolver.clone());
    Ok(resolver)
}

fn runtime() -> PyResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ResolveError::new_err(e.to_string()))
}

/// The runtime one-handle calls share, made on the first: one worker thread drives their
/// sockets (a runtime made for each call costs more than a round trip on loopback).
fn shared_runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    static SHARED: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    if let Some(r) = SHARED.get() {
        return Ok(r);
    }
    let made = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("handle-id-resolve")
        .enable_all()
        .build()
        .map_err(|e| ResolveError::new_err(e.to_string()))?;
    Ok(SHARED.get_or_init(|| made))
}

/// A handle's values over the Handle protocol, as a `Record` (SPEC R1): from the global
/// root (the prefix handle's sites, the server its site's hash picks, referrals followed),
/// or from one `server` ("HOST:PORT"). `types` and `indexes` select values (a type ending
/// in '.' selects its subtypes too); `transport` is "udp", "tcp" or None (UDP, then TCP);
/// `certified` takes an answer only when its signature verifies by the server's key.
/// A handle the server does not hold is a `Record` whose `code` says so (100). Calls share
/// one runtime, and a server's UDP socket and key (with `certified`) once made. Raises
/// `HandleError` for a handle that does not parse, and `ResolveError` (a `ConnectionError`)
/// when no server answered.
#[pyfunction]
#[pyo3(signature = (handle, *, server = None, root_info = None, types = None, indexes = None, transport = None, authoritative = false, certified = false, timeout = 10.0))]
#[allow(clippy::too_many_arguments)]
fn resolve(
    py: Python<'_>,
    handle: &str,
    server: Option<&str>,
    root_info: Option<PathBuf>,
    types: Option<Vec<String>>,
    indexes: Option<Vec<u32>>,
    transport: Option<&str>,
    authoritative: bool,
    certified: bool,
    timeout: f64,
) -> PyResult<PyRecord> {
    handle_id::HandleRef::parse(handle).map_err(|e| parse_error(py, &e, handle))?;
    let asking = Asking::new(
        server,
        root_info,
        types,
        indexes,
        transport,
        authoritative,
        certified,
        timeout,
    )?;
    let runtime = shared_runtime()?;
    let answer = py.detach(|| {
        runtime.block_on(async {
            let target = asking.kept_target().await?;
            target.ask(handle, &asking.query, &asking.timeouts).await
        })
    });
    match answer {
        Ok(m) => Ok(PyRecord::from(rest::answer(handle, &m))),
        Err(why) => Err(ResolveError::new_err(why)),
    }
}

/// `resolve` of many handles, `jobs` in flight at once, one `Record` each in their order.
/// Nothing is raised for one handle: one that does not parse gets code 102 (invalid handle)
/// and the parse error as its `message`, one that no server answered code 2 (error) and
/// why, as `hdl resolve --json` writes them.
#[pyfunction]
#[pyo3(signature = (handles, *, server = None, root_info = None, types = None, indexes = None, transport = None, authoritative = false, certified = false, timeout = 10.0, jobs = 64))]
#[allow(clippy::too_many_arguments)]
fn resolve_many(
    py: Python<'_>,
    handles: Vec<String>,
    server: Option<&str>,
    root_info: Option<PathBuf>,
    types: Option<Vec<String>>,
    indexes: Option<Vec<u32>>,
    transport: Option<&str>,
    authoritative: bool,
    certified: bool,
    timeout: f64,
    jobs: usize,
) -> PyResult<Vec<PyRecord>> {
    if jobs == 0 {
        return Err(PyValueError::new_err("jobs: at least 1"));
    }
    let asking = Arc::new(Asking::new(
        server,
        root_info,
        types,
        indexes,
        transport,
        authoritative,
        certified,
        timeout,
    )?);
    let runtime = runtime()?;
    let responses = py.detach(|| {
        runtime.block_on(async {
            let failed = |handle: &str, code, why: &str| {
                Response::error(code, handle.parse().ok(), Some(why))
            };
            let target = match asking.target().await {
                Ok(t) => Arc::new(t),
                Err(why) => {
                    let all = handles.iter().map(|h| failed(h, ResponseCode::Error, &why));
                    return all.collect();
                }
            };
            let mut out = Vec::with_capacity(handles.len());
            // Oldest first, at most `jobs`: the answers come out in the handles' order.
            let mut flight = VecDeque::with_capacity(jobs);
            for handle in handles {
                if flight.len() == jobs {
                    out.push(finished(flight.pop_front()).await);
                }
                let task = match handle_id::HandleRef::parse(&handle) {
                    Err(e) => Err(failed(&handle, ResponseCode::InvalidHandle, &e.to_string())),
                    Ok(_) => {
                        let (target, asking) = (target.clone(), asking.clone());
                        Ok(tokio::spawn(async move {
                            match target.ask(&handle, &asking.query, &asking.timeouts).await {
                                Ok(m) => rest::answer(&handle, &m),
                                Err(why) => failed(&handle, ResponseCode::Error, &why),
                            }
                        }))
                    }
                };
                flight.push_back(task);
            }
            while !flight.is_empty() {
                out.push(finished(flight.pop_front()).await);
            }
            out
        })
    });
    Ok(responses.into_iter().map(PyRecord::from).collect())
}

/// The response of a handle in flight (a task), or the one it had at once.
async fn finished(task: Option<Result<tokio::task::JoinHandle<Response>, Response>>) -> Response {
    match task.expect("one in flight") {
        Ok(task) => task
            .await
            .unwrap_or_else(|e| Response::error(ResponseCode::Error, None, Some(&e.to_string()))),
        Err(at_once) => at_once,
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_many, m)?)?;
    Ok(())
}
