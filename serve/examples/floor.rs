//! The floor of the load benchmark: a minimal server on the same stack as `hdl serve`
//! (tokio, hyper's HTTP/1 server, the same connection settings) that answers every request
//! with one fixed redirect, reading nothing.
//!
//!     cargo run --release -p handle-serve --example floor -- 127.0.0.1:8081

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, LOCATION};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};

fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8081".into());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            eprintln!("floor: listening on http://{}", listener.local_addr()?);
            loop {
                let (stream, _) = listener.accept().await?;
                let _ = stream.set_nodelay(true);
                let service = service_fn(|_request| async {
                    let mut r = Response::new(Full::new(Bytes::new()));
                    *r.status_mut() = StatusCode::FOUND;
                    r.headers_mut()
                        .insert(LOCATION, HeaderValue::from_static("https://example.org/"));
                    Ok::<_, Infallible>(r)
                });
                let connection = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(10))
                    .max_buf_size(64 * 1024)
                    .serve_connection(TokioIo::new(stream), service);
                tokio::spawn(connection);
            }
        })
}
