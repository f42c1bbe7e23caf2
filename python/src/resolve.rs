//! Resolution over the Handle protocol, by the library's client (`handle_net::lookup`, what
//! `hdl resolve` asks through): one handle, or many with many in flight, in a tokio runtime
//! of one thread, the calling thread's (`run`: kept between its calls; no socket, thread or
//! key outlives a call), the GIL released while it waits and taken back every tenth of a
//! second to let Ctrl-C through.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use handle_id::record::{Response, ResponseCode};
use handle_net::client::{Timeouts, Transport};
use handle_net::lookup::{server_address, Query, Target};
use handle_net::resolver::Resolver;
use handle_proto::rest;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{parse_error, ResolveError};
use crate::record::PyRecord;

/// How one call asks: where, over what, for what, how long.
struct Asking {
    via: Via,
    transports: Vec<Transport>,
    query: Query,
    timeouts: Timeouts,
}

/// The value indexes a caller selects (`indexes=`), each a 32-bit unsigned number, as
/// the protocol's, or a `ValueError` that says which is not.
pub fn value_indexes(indexes: Option<Vec<i64>>) -> PyResult<Vec<u32>> {
    indexes
        .unwrap_or_default()
        .into_iter()
        .map(|i| {
            u32::try_from(i).map_err(|_| {
                PyValueError::new_err(format!("indexes: {i} is no index (0 to {})", u32::MAX))
            })
        })
        .collect()
}

/// One server, or the servers a root leads to.
enum Via {
    Server(SocketAddr),
    Root(Resolver),
}

impl Asking {
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        server: Option<&str>,
        root_info: Option<PathBuf>,
        types: Option<crate::texts::Texts>,
        indexes: Option<Vec<i64>>,
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
        // (A host name is looked up without the GIL: it may take the resolver's time.)
        let server = py.detach(|| {
            server
                .map(|s| {
                    server_address(s)
                        .map_err(|why| PyValueError::new_err(format!("server {s:?}: {why}")))
                })
                .transpose()
        })?;
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
        let indexes = value_indexes(indexes)?;
        let tcp = Duration::try_from_secs_f64(timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "timeout {timeout}: seconds, a finite number above 0"
                ))
            })?;
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
                types: types.unwrap_or_default().0,
                indexes,
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

/// The resolver of a root (its root info file read at each call; `None`: the built-in
/// root). The resolvers of the last few roots are kept, by the root info's bytes and the
/// TCP timeout, so that each prefix's sites, once found, are asked at once by the next
/// call too, as long as their values' TTLs say.
fn root(root_info: Option<&PathBuf>, timeouts: &Timeouts) -> PyResult<Resolver> {
    type Kept = Mutex<HashMap<(Option<Vec<u8>>, Duration), Resolver>>;
    static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
    let bytes = root_info
        .map(|p| {
            std::fs::read(p).map_err(|e| {
                // (OSError(errno, strerror, filename) is the subclass its errno says:
                // FileNotFoundError …)
                PyOSError::new_err((
                    e.raw_os_error().unwrap_or(0),
                    e.to_string(),
                    p.display().to_string(),
                ))
            })
        })
        .transpose()?;
    let key = (bytes, timeouts.tcp);
    let kept = KEPT.get_or_init(Kept::default);
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(r) = kept.get(&key) {
        return Ok(r.clone());
    }
    let resolver = Resolver::from_root_info(key.0.as_deref(), timeouts.clone())
        .map_err(|why| PyValueError::new_err(format!("root_info: {why}")))?;
    if kept.len() >= 16 {
        kept.clear();
    }
    kept.insert(key, resolver.clone());
    Ok(resolver)
}

/// `work` run to its end in a runtime of one thread, the GIL released; a signal's exception
/// (Ctrl-C's `KeyboardInterrupt`) raised within a tenth of a second of it, `work` dropped.
///
/// The runtime is the calling thread's, kept between its calls (making one costs about as
/// much as a round trip on loopback) when a call leaves no task in it, until the thread
/// ends (a few file descriptors each); its sockets are not kept (each call binds its own).
/// A process forked from one that kept a runtime shares that runtime's epoll instance with
/// its parent: the child makes its own, and leaves the inherited one alone (dropping it
/// would take the parent's sockets out of their shared instance), at the cost of its file
/// descriptors. A call made from a signal handler while another waits on the same thread
/// (Python runs handlers inside the wait, `interrupted`) is refused: a runtime cannot run
/// inside another.
fn run<T: Send>(py: Python<'_>, work: impl Future<Output = T> + Send) -> PyResult<T> {
    use std::cell::RefCell;
    use tokio::runtime::{Builder, Runtime};

    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "resolve and resolve_many cannot be called from a signal handler while a call \
             waits on the same thread",
        ));
    }

    thread_local! {
        /// The runtime this thread last ran a call in, and the process it was made in.
        static KEPT: RefCell<Option<(u32, Runtime)>> = const { RefCell::new(None) };
    }
    let pid = std::process::id();
    let kept = KEPT.with_borrow_mut(Option::take);
    let runtime = match kept {
        Some((made_in, runtime)) if made_in == pid => runtime,
        other => {
            if let Some(inherited) = other {
                std::mem::forget(inherited);
            }
            Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| ResolveError::new_err(e.to_string()))?
        }
    };
    let out = py.detach(|| {
        let out = runtime.block_on(async {
            tokio::select! {
                out = work => Ok(out),
                e = interrupted() => Err(e),
            }
        });
        // (A turn for the tasks the call ended, so that they are dropped now.)
        runtime.block_on(tokio::task::yield_now());
        out
    });
    // Kept only with no task left in it (a call cut short by Ctrl-C leaves its own, which
    // dropping the runtime ends, as before).
    if runtime.metrics().num_alive_tasks() == 0 {
        KEPT.with_borrow_mut(|kept| *kept = Some((pid, runtime)));
    }
    out
}

/// The exception of a signal Python has received, looked for every tenth of a second (in
/// the main thread only, where Python runs its handlers).
async fn interrupted() -> PyErr {
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Err(e) = Python::attach(|py| py.check_signals()) {
            return e;
        }
    }
}

/// A handle's values over the Handle protocol, as a `Record` (SPEC R1). The handle is a
/// `str` or a `Handle`.
///
/// From the global root (the prefix handle's sites, the server its site's hash picks,
/// referrals followed; `root_info`: a root info file to start from instead of the built-in
/// root), or from one `server` ("HOST:PORT"). `types` and `indexes` select values (a type
/// ending in '.' selects its subtypes too); `transport` is "udp", "tcp" or None (UDP, then
/// TCP); `authoritative` asks primary sites only, past caches; `certified` takes an answer
/// only when its signature verifies by the server's key (from the root's site values, or
/// with `server` from the server's own site info). `timeout` is TCP's, in seconds, to
/// connect and then to read; UDP waits 0.5, 1 and 1.5 s, sending again before each, as the
/// reference client does.
///
/// A handle the server does not hold is a `Record` whose `code` says so (100). Raises
/// `HandleError` for a handle that does not parse, and `ResolveError` (a `ConnectionError`)
/// when no server answered.
#[pyfunction]
#[pyo3(signature = (handle, *, server = None, root_info = None, types = None, indexes = None, transport = None, authoritative = false, certified = false, timeout = 10.0))]
#[allow(clippy::too_many_arguments)]
fn resolve(
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
    server: Option<&str>,
    root_info: Option<PathBuf>,
    types: Option<crate::texts::Texts>,
    indexes: Option<Vec<i64>>,
    transport: Option<&str>,
    authoritative: bool,
    certified: bool,
    timeout: f64,
) -> PyResult<PyRecord> {
    let handle = &handle_text(handle)?;
    handle_id::HandleRef::parse(handle).map_err(|e| parse_error(py, &e, handle))?;
    let asking = Asking::new(
        py,
        server,
        root_info,
        types,
        indexes,
        transport,
        authoritative,
        certified,
        timeout,
    )?;
    let answer = run(py, async {
        let target = asking.target().await?;
        target.ask(handle, &asking.query, &asking.timeouts).await
    })?;
    match answer {
        Ok(m) => Ok(PyRecord::from(rest::answer(handle, &m))),
        Err(why) => Err(ResolveError::new_err(why)),
    }
}

/// `resolve` of many handles (any iterable of `str` or `Handle`), `jobs` in flight at once,
/// one `Record` each in their order.
///
/// Nothing is raised for one handle: one that does not parse gets code 102 (invalid handle)
/// and the parse error as its `message` (it is not sent: `hdl resolve` sends any line as
/// it is, and says what the server answers); one that no server answered, code 2 (error)
/// and why, with its handle, as `hdl resolve --json` writes a failure.
#[pyfunction]
#[pyo3(signature = (handles, *, server = None, root_info = None, types = None, indexes = None, transport = None, authoritative = false, certified = false, timeout = 10.0, jobs = 64))]
#[allow(clippy::too_many_arguments)]
fn resolve_many(
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
    server: Option<&str>,
    root_info: Option<PathBuf>,
    types: Option<crate::texts::Texts>,
    indexes: Option<Vec<i64>>,
    transport: Option<&str>,
    authoritative: bool,
    certified: bool,
    timeout: f64,
    jobs: i64,
) -> PyResult<Vec<PyRecord>> {
    let jobs = usize::try_from(jobs)
        .ok()
        .filter(|&j| j > 0)
        .ok_or_else(|| PyValueError::new_err(format!("jobs: at least 1, not {jobs}")))?;
    if handles.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "handles: an iterable of handles, not one str (resolve takes one)",
        ));
    }
    let handles = handles
        .try_iter()?
        .map(|h| handle_text(&h?))
        .collect::<PyResult<Vec<String>>>()?;
    let asking = Arc::new(Asking::new(
        py,
        server,
        root_info,
        types,
        indexes,
        transport,
        authoritative,
        certified,
        timeout,
    )?);
    let failed = |handle: &str, why: &str| {
        Response::error(ResponseCode::Error, handle.parse().ok(), Some(why))
    };
    // (Told apart before anything is sent: what does not parse is never asked.)
    let unparsed = |handle: &str| {
        handle_id::HandleRef::parse(handle)
            .err()
            .map(|e| Response::error(ResponseCode::InvalidHandle, None, Some(&e.to_string())))
    };
    let responses = run(py, async {
        let target = match asking.target().await {
            Ok(t) => Arc::new(t),
            Err(why) => {
                let all = handles
                    .iter()
                    .map(|h| unparsed(h).unwrap_or_else(|| failed(h, &why)));
                return all.collect();
            }
        };
        let mut out = Vec::with_capacity(handles.len());
        // Oldest first, at most `jobs`: the answers come out in the handles' order.
        let mut flight = VecDeque::with_capacity(jobs.min(handles.len()));
        for handle in handles {
            if flight.len() == jobs {
                out.push(finished(flight.pop_front()).await);
            }
            let task = match unparsed(&handle) {
                Some(response) => Err(response),
                None => {
                    let (target, asking) = (target.clone(), asking.clone());
                    Ok(tokio::spawn(async move {
                        match target.ask(&handle, &asking.query, &asking.timeouts).await {
                            Ok(m) => rest::answer(&handle, &m),
                            Err(why) => failed(&handle, &why),
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
    })?;
    Ok(responses.into_iter().map(PyRecord::from).collect())
}

/// The text of a handle given as a `str` or a `Handle`, or a `TypeError` naming the type.
fn handle_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    crate::types::handle_text(obj).ok_or_else(|| {
        let kind = obj
            .get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string());
        PyTypeError::new_err(format!("a handle is a str or a Handle, not {kind}"))
    })
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
