//! The HTTP server: connections accepted up to a limit, read with timeouts, answered by
//! [`crate::app`], logged as one JSON line each on standard error, and drained on shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::HOST;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode, Version};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::app;
use crate::clients::Clients;
use crate::limits;
use crate::sessions::Sessions;
use crate::store::Store;
use crate::upstream::{Ask, Fetched, Upstream};
use crate::writes;

/// How the server treats its clients.
#[derive(Clone, Debug)]
pub struct Config {
    /// Connections served at once (at least 1); more are answered 503 and closed.
    pub max_connections: usize,
    /// Connections one client address holds at once (at least 1), so that one client
    /// cannot take every slot; more are answered 503 and closed. Behind a reverse proxy
    /// every client is the proxy's address: give it `max_connections` there.
    pub max_connections_per_client: usize,
    /// How long a client may take to send a request's headers (slow or silent clients,
    /// and idle connections between requests).
    pub header_timeout: Duration,
    /// How long a client may take to take an answer once it stops taking it (the
    /// connection's buffers are full): then the connection is closed.
    pub write_timeout: Duration,
    /// How long in-flight requests may take to finish after shutdown is asked.
    pub shutdown_grace: Duration,
    /// Write the access log (one JSON line per request on standard error).
    pub access_log: bool,
    /// Where handles the store does not hold are resolved (SPEC P13), if anywhere.
    pub upstream: Option<Arc<Upstream>>,
    /// TLS on every connection ([`crate::tls::config`]): then writes' credentials are taken
    /// from any peer, else from loopback only (SPEC W4).
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            max_connections_per_client: 256,
            header_timeout: Duration::from_secs(10),
            write_timeout: limits::WRITE_TIMEOUT,
            shutdown_grace: Duration::from_secs(30),
            access_log: true,
            upstream: None,
            tls: None,
        }
    }
}

/// Serves `store` on `listener` until `shutdown` completes, then stops accepting and lets
/// the requests in flight finish (within `config.shutdown_grace`).
///
/// # Errors
///
/// `config.max_connections` is 0 (every request would be answered 503), or accepting
/// connections failed for good.
pub async fn serve(
    store: Arc<Store>,
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    if config.max_connections == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "at most 0 connections at once: every request would be answered 503",
        ));
    }
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let clients = Clients::new(config.max_connections_per_client);
    let large = Arc::new(Semaphore::new(limits::large_at_once()));
    let writes = Arc::new(Semaphore::new(limits::WRITES_AT_ONCE));
    let sessions = Arc::new(Sessions::new());
    let seeds = Arc::new(AtomicU64::new(
        handle_id::record::SplitMix64::seed_from_clock(),
    ));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // A connection reset before it was accepted: the next one, at once (a
                // pause here held every waiting client 50 ms).
                Err(e) if matches!(e.kind(), std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) => continue,
                Err(e) => {
                    // Out of file descriptors and the like: wait, and go on.
                    log_line(&format!("{{\"event\":\"accept-error\",\"error\":{}}}", json_string(&e.to_string())));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let admitted = slots
            .clone()
            .try_acquire_owned()
            .ok()
            .and_then(|permit| Some((permit, clients.admit(peer.ip())?)));
        let Some(permit) = admitted else {
            // Over a limit: a short answer, and the connection closed.
            tokio::spawn(async move {
                let mut stream = stream;
                let busy = b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\nretry-after: 1\r\n\r\n";
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(busy)).await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        let store = store.clone();
        let large = large.clone();
        let writes = writes.clone();
        let sessions = sessions.clone();
        let seeds = seeds.clone();
        let log = config.access_log;
        let upstream = config.upstream.clone();
        let tls = config.tls.is_some();
        let service = service_fn(move |request: Request<Incoming>| {
            let (store, large, upstream) = (store.clone(), large.clone(), upstream.clone());
            let (writes, sessions) = (writes.clone(), sessions.clone());
            let seed = seeds.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
            async move {
                let sources = Sources {
                    store,
                    large,
                    writes,
                    sessions,
                    upstream,
                };
                Ok::<_, Infallible>(respond(sources, request, peer, tls, seed, log).await)
            }
        });
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(config.header_timeout)
            .max_buf_size(64 * 1024);
        let watcher = graceful.watcher();
        let (write_timeout, handshake_timeout) = (config.write_timeout, config.header_timeout);
        let acceptor = config.tls.clone().map(tokio_rustls::TlsAcceptor::from);
        tokio::spawn(async move {
            let _permit = permit;
            match acceptor {
                None => {
                    let io = WriteDeadline::new(TokioIo::new(stream), write_timeout);
                    let _ = watcher.watch(http.serve_connection(io, service)).await;
                }
                Some(acceptor) => {
                    // The handshake within the time a request's headers get: a client that
                    // starts one and stops holds its connection no longer.
                    let Ok(Ok(stream)) =
                        tokio::time::timeout(handshake_timeout, acceptor.accept(stream)).await
                    else {
                        return;
                    };
                    let io = WriteDeadline::new(TokioIo::new(stream), write_timeout);
                    let _ = watcher.watch(http.serve_connection(io, service)).await;
                }
            }
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(config.shutdown_grace, graceful.shutdown()).await;
    Ok(())
}

/// What a request is answered from: the store, the turns for large records and for
/// writes, and the upstream, if any.
struct Sources {
    store: Arc<Store>,
    large: Arc<Semaphore>,
    writes: Arc<Semaphore>,
    /// The `Handle` scheme's sessions (SPEC W3).
    sessions: Arc<Sessions>,
    upstream: Option<Arc<Upstream>>,
}

/// A read with credentials (SPEC W10): the values that deny public read too, to an
/// identity with read-value, on the blocking threads (a signature, the store); `None` when
/// it is answered as any read.
async fn restricted_read(
    sources: &Sources,
    request: &Request<()>,
    target: &str,
    secure: bool,
) -> Option<Response<Full<Bytes>>> {
    let read = credentialed_get(sources, request, target, secure, writes::restricted_read)
        .await
        .ok()??;
    log_line(&read.log);
    Some(read.response)
}

/// `f` of a GET with the request's credentials (a read for an identity, a listing), on
/// the blocking threads: a signature is checked and the store read there.
async fn credentialed_get<T: Send + 'static>(
    sources: &Sources,
    request: &Request<()>,
    target: &str,
    secure: bool,
    f: fn(&Store, &writes::WriteRequest<'_>) -> T,
) -> Result<T, tokio::task::JoinError> {
    let authorization = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    let (store, sessions) = (sources.store.clone(), sources.sessions.clone());
    let (t, m) = (target.to_owned(), request.method().clone());
    let now = unix_now();
    tokio::task::spawn_blocking(move || {
        f(
            &store,
            &writes::WriteRequest {
                method: &m,
                target: &t,
                content_type: None,
                authorization: authorization.as_deref(),
                secure,
                sessions: &sessions,
                body: b"",
                now,
            },
        )
    })
    .await
}

/// Whether the request lists a prefix's handles (`/api/handles?prefix=…`, SPEC W9).
fn is_listing(target: &str) -> bool {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    (path == "/api/handles" || path == "/api/handles/")
        && query
            .split('&')
            .any(|p| p.split('=').next() == Some("prefix"))
}

/// Seconds since 1970.
fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A request's target: its path and query, as sent.
fn target_of<T>(request: &Request<T>) -> &str {
    request.uri().path_and_query().map_or("/", |p| p.as_str())
}

async fn respond(
    sources: Sources,
    request: Request<Incoming>,
    peer: SocketAddr,
    tls: bool,
    seed: u64,
    log: bool,
) -> Response<Full<Bytes>> {
    let start = Instant::now();
    let method = request.method().clone();
    let target = target_of(&request).to_owned();
    let api = target == "/api" || target.starts_with("/api/") || target.starts_with("/api?");
    let (parts, body) = request.into_parts();
    let request = Request::from_parts(parts, ());
    let secure = tls || peer.ip().is_loopback();
    let sessions_api = target == "/api/sessions"
        || target.starts_with("/api/sessions/")
        || target.starts_with("/api/sessions?");
    let response = match host_problem(&request) {
        Some(problem) => app::bad_request(false, problem),
        None if sessions_api => {
            // No body is read: the session's fields come in its Authorization header.
            let authorization = request
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .map(|v| v.as_bytes().to_vec());
            let (store, sessions) = (sources.store.clone(), sources.sessions.clone());
            let t = target.clone();
            let m = method.clone();
            // A signature verified and the store read: off the async workers.
            tokio::task::spawn_blocking(move || {
                writes::session_request(&store, &sessions, &m, &t, authorization.as_deref(), secure)
            })
            .await
            .unwrap_or_else(|_| {
                writes::body_refused(StatusCode::INTERNAL_SERVER_ERROR, "the session failed")
            })
        }
        None if matches!(method, Method::GET | Method::HEAD) && is_listing(&target) => {
            let listed =
                credentialed_get(&sources, &request, &target, secure, writes::list_handles).await;
            match listed {
                Ok(listed) => {
                    log_line(&listed.log);
                    listed.response
                }
                Err(_) => {
                    writes::body_refused(StatusCode::INTERNAL_SERVER_ERROR, "the listing failed")
                }
            }
        }
        None if matches!(method, Method::GET | Method::HEAD)
            && target.starts_with("/api/handles/")
            && request.headers().contains_key(hyper::header::AUTHORIZATION) =>
        {
            match restricted_read(&sources, &request, &target, secure).await {
                Some(response) => response,
                None => answer(sources, &request, peer, seed).await,
            }
        }
        None if api && (method == Method::PUT || method == Method::DELETE) => {
            write(
                &sources.store,
                &sources.sessions,
                &sources.writes,
                &request,
                body,
                secure,
            )
            .await
        }
        None if api && !matches!(method, Method::GET | Method::HEAD | Method::POST) => {
            writes::other_method(&method, &target)
        }
        None => answer(sources, &request, peer, seed).await,
    };
    if log {
        use hyper::body::Body;
        let bytes = response.body().size_hint().exact().unwrap_or(0);
        let shown: String = target.chars().take(512).collect();
        log_line(&format!(
            "{{\"ts\":{:.3},\"client\":\"{}\",\"method\":{},\"target\":{},\"status\":{},\"bytes\":{bytes},\"us\":{}}}",
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            peer.ip(),
            json_string(request.method().as_str()),
            json_string(&shown),
            response.status().as_u16(),
            start.elapsed().as_micros()
        ));
    }
    response
}

/// The answer of [`app`]: here, on the async worker, for a record of usual length; for a
/// large one ([`limits::LARGE_RECORD`]), on the blocking threads, a few at a time, so that
/// the workers go on answering everyone else meanwhile. Handles the store does not hold are
/// fetched from the upstream, if there is one, and the app asked again (an alias's target
/// is known only once the alias is read, an included handle once the one including it is:
/// at most [`app::MAX_ROUNDS`] rounds, and [`handle_id::record::MAX_LINKED`] handles more
/// than the aliases).
async fn answer(
    sources: Sources,
    request: &Request<()>,
    peer: SocketAddr,
    seed: u64,
) -> Response<Full<Bytes>> {
    let target = target_of(request);
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|a: &hyper::header::HeaderValue| a.to_str().ok())
    };
    let accept = header(hyper::header::ACCEPT);
    let accept_language = header(hyper::header::ACCEPT_LANGUAGE);
    let user_agent = header(hyper::header::USER_AGENT);
    let host = header(HOST);
    let origin = header(hyper::header::ORIGIN);
    let asked = app::Request {
        method: request.method(),
        target,
        accept,
        accept_language,
        user_agent,
        host,
        origin,
        client: peer.ip(),
        seed,
    };
    let Sources {
        store,
        large,
        upstream,
        ..
    } = sources;
    let mut refreshed = false;
    let mut fetched = Fetched::default();
    for _ in 0..app::MAX_ROUNDS {
        let Ok((response, lookups)) = app::answer_with(
            &store,
            upstream.as_deref().map(|u| (u, &fetched)),
            &asked,
            limits::LARGE_RECORD,
        ) else {
            break;
        };
        let Some(up) = &upstream else {
            return response;
        };
        // `auth`: what the cache answered from, asked again, once (SPEC P13).
        let fresh = (lookups.auth || lookups.cert) && !refreshed;
        let mut wanted = lookups.missed;
        if fresh {
            wanted.extend(lookups.upstream);
            refreshed = true;
        }
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return response;
        }
        for handle in &wanted {
            // (Every handle this request fetches is asked as it asks: `auth`, `cert`.)
            let ask = Ask {
                authoritative: lookups.auth,
                certified: lookups.cert,
            };
            let cached = up.fetch(handle, ask).await;
            fetched.put(handle, cached);
        }
    }
    let (method, target) = (request.method().clone(), target.to_owned());
    let owned = |h: Option<&str>| h.map(str::to_owned);
    let (accept, accept_language, user_agent, host, origin) = (
        owned(accept),
        owned(accept_language),
        owned(user_agent),
        owned(host),
        owned(origin),
    );
    let Ok(turn) = large.acquire_owned().await else {
        return app::bad_request(false, "the server is stopping");
    };
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        app::answer_from(
            &store,
            upstream.as_deref().map(|u| (u, &fetched)),
            &app::Request {
                method: &method,
                target: &target,
                accept: accept.as_deref(),
                accept_language: accept_language.as_deref(),
                user_agent: user_agent.as_deref(),
                host: host.as_deref(),
                origin: origin.as_deref(),
                client: peer.ip(),
                seed,
            },
        )
    })
    .await
    .unwrap_or_else(|_| app::bad_request(false, "the answer failed"))
}

/// A `PUT` or `DELETE` under `/api/` (SPEC W1–W8), `secure` when credentials may travel
/// on its connection (TLS, or a loopback peer: W4): the body read up to
/// [`writes::MAX_BODY`] within [`limits::BODY_TIMEOUT`], at most
/// [`limits::WRITES_AT_ONCE`] at a time (so that the bodies held are bounded, whatever the
/// connections), then the write carried out on the blocking threads (it syncs the store to
/// disk), and logged.
async fn write(
    store: &Arc<Store>,
    sessions: &Arc<Sessions>,
    turns: &Arc<Semaphore>,
    request: &Request<()>,
    body: Incoming,
    secure: bool,
) -> Response<Full<Bytes>> {
    use http_body_util::BodyExt;
    let declared = request
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        writes::body_refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the body is longer than {} bytes", writes::MAX_BODY),
        )
    };
    if declared.is_some_and(|n| n > writes::MAX_BODY as u64) {
        return too_large();
    }
    let Ok(_turn) = turns.clone().acquire_owned().await else {
        return writes::body_refused(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
    };
    let limited = http_body_util::Limited::new(body, writes::MAX_BODY);
    let bytes = match tokio::time::timeout(limits::BODY_TIMEOUT, limited.collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return too_large(),
        Ok(Err(e)) => {
            return writes::body_refused(StatusCode::BAD_REQUEST, &format!("the body: {e}"))
        }
        Err(_) => {
            return writes::body_refused(
                StatusCode::REQUEST_TIMEOUT,
                "the body was not sent in time",
            )
        }
    };
    let header = |name| {
        request
            .headers()
            .get(name)
            .map(|v: &hyper::header::HeaderValue| v.as_bytes().to_vec())
    };
    let content_type = header(hyper::header::CONTENT_TYPE).and_then(|v| String::from_utf8(v).ok());
    let authorization = header(hyper::header::AUTHORIZATION);
    let method = request.method().clone();
    let target = target_of(request).to_owned();
    let store = store.clone();
    let sessions = sessions.clone();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let written = tokio::task::spawn_blocking(move || {
        writes::write(
            &store,
            &writes::WriteRequest {
                method: &method,
                target: &target,
                content_type: content_type.as_deref(),
                authorization: authorization.as_deref(),
                secure,
                sessions: &sessions,
                body: &bytes,
                now,
            },
        )
    })
    .await;
    match written {
        Ok(written) => {
            log_line(&written.log);
            written.response
        }
        Err(_) => writes::body_refused(StatusCode::INTERNAL_SERVER_ERROR, "the write failed"),
    }
}

/// Why a request's `Host` header makes it a bad request (RFC 9112 §3.2: an HTTP/1.1
/// request without one, any request with two, or one that is no host), if it does.
fn host_problem<B>(request: &Request<B>) -> Option<&'static str> {
    let mut hosts = request.headers().get_all(HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => Some("More than one Host header (RFC 9112 §3.2)."),
        (None, _) if request.version() == Version::HTTP_11 => {
            Some("An HTTP/1.1 request without a Host header (RFC 9112 §3.2).")
        }
        (Some(host), None) if !is_host(host.as_bytes()) => {
            Some("A Host header that is not a host and port (RFC 9112 §3.2).")
        }
        _ => None,
    }
}

/// Whether `value` can be `uri-host [ ":" port ]` (RFC 3986 §3.2.2): the characters of a
/// registered name, an IP literal or an address, and a port (empty is allowed).
fn is_host(value: &[u8]) -> bool {
    value.iter().all(|&b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'%'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'['
                    | b']'
            )
    })
}

/// A connection whose answers must be taken in time: once a write cannot go on (the
/// client takes nothing and the buffers are full), what hyper holds must be written
/// within `limit` of that moment, or the connection fails and closes. The clock runs only
/// while a write waits, from the first wait until hyper's buffer is flushed: nothing is
/// timed on a connection whose writes go through at once.
struct WriteDeadline<T> {
    io: T,
    limit: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    waiting: bool,
}

impl<T> WriteDeadline<T> {
    fn new(io: T, limit: Duration) -> Self {
        Self {
            io,
            limit,
            timer: None,
            waiting: false,
        }
    }

    /// A write that cannot go on: the deadline starts if it has not, and when it has
    /// passed the write fails.
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Error> {
        let deadline = tokio::time::Instant::now() + self.limit;
        let timer = match &mut self.timer {
            Some(timer) => {
                if !self.waiting {
                    timer.as_mut().reset(deadline);
                }
                timer
            }
            None => self
                .timer
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        self.waiting = true;
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no more of the answer within the write timeout",
            )),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: hyper::rt::Read + Unpin> hyper::rt::Read for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: hyper::rt::Write + Unpin> hyper::rt::Write for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Pending => this.wait(cx).map(Err),
            ready => ready,
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Pending => this.wait(cx).map(Err),
            ready => ready,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_flush(cx) {
            // hyper flushes once its buffer is written: the answer is taken.
            Poll::Ready(Ok(())) => {
                this.waiting = false;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => this.wait(cx).map(Err),
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// One line on standard error; a log that cannot be written is dropped, never fatal.
fn log_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}
