//! The HTTP server: connections accepted up to a limit, read with timeouts, answered by
//! [`crate::app`], logged as one JSON line each on standard error, and drained on shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::app;
use crate::store::Store;

/// How the server treats its clients.
#[derive(Clone, Debug)]
pub struct Config {
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers (slow or silent clients).
    pub header_timeout: Duration,
    /// How long in-flight requests may take to finish after shutdown is asked.
    pub shutdown_grace: Duration,
    /// Write the access log (one JSON line per request on standard error).
    pub access_log: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(30),
            access_log: true,
        }
    }
}

/// Serves `store` on `listener` until `shutdown` completes, then stops accepting and lets
/// the requests in flight finish (within `config.shutdown_grace`).
///
/// # Errors
///
/// Accepting connections failed for good.
pub async fn serve(
    store: Arc<Store>,
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let seeds = Arc::new(AtomicU64::new(seed_from_clock()));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, and go on.
                    log_line(&format!("{{\"event\":\"accept-error\",\"error\":{}}}", json_string(&e.to_string())));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            // Over the limit: a short answer, and the connection closed.
            tokio::spawn(async move {
                let mut stream = stream;
                let busy = b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\nretry-after: 1\r\n\r\n";
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(busy)).await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        let store = store.clone();
        let seeds = seeds.clone();
        let log = config.access_log;
        let service = service_fn(move |request: Request<Incoming>| {
            let store = store.clone();
            let seed = seeds.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
            async move { Ok::<_, Infallible>(respond(&store, &request, peer, seed, log)) }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_timeout)
            .max_buf_size(64 * 1024)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _permit = permit;
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(config.shutdown_grace, graceful.shutdown()).await;
    Ok(())
}

fn respond(
    store: &Store,
    request: &Request<Incoming>,
    peer: SocketAddr,
    seed: u64,
    log: bool,
) -> Response<Full<Bytes>> {
    let start = Instant::now();
    let target = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let accept = request
        .headers()
        .get(hyper::header::ACCEPT)
        .and_then(|a| a.to_str().ok());
    let response = app::answer(
        store,
        &app::Request {
            method: request.method(),
            target,
            accept,
            client: peer.ip(),
            seed,
        },
    );
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

fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// One line on standard error; a log that cannot be written is dropped, never fatal.
fn log_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

fn seed_from_clock() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
