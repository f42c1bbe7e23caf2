//! The server: resolution and site info over UDP and TCP on one address, answered by
//! [`answer`](crate::answer::answer) from a source of [`Records`]. Bounded: a request's
//! size, TCP connections at once and the time each may take, multi-datagram requests
//! being put together.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use handle_proto::udp::{self, Reassembly};
use handle_proto::{Envelope, SiteInfo, MAX_MESSAGE_LENGTH};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::Semaphore;

use crate::answer::{answer, Records};

/// What the server allows.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// TCP connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// How long a TCP connection may take, from its first byte to its last.
    pub connection_timeout: Duration,
    /// Multi-datagram requests being put together at once; more are dropped.
    pub max_pending: usize,
    /// How long the datagrams of one request may take to arrive (the reference's 5 s).
    pub pending_timeout: Duration,
    /// The largest request accepted, in bytes (answers are bounded by the records).
    pub max_request: u32,
    /// Tasks reading the UDP socket.
    pub udp_workers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            connection_timeout: Duration::from_secs(30),
            max_pending: 1024,
            pending_timeout: Duration::from_secs(5),
            // A resolution request is a handle and a few types: 64 KiB is far beyond any.
            max_request: 64 * 1024,
            udp_workers: std::thread::available_parallelism().map_or(2, usize::from),
        }
    }
}

/// A server's state: what it answers from and with what it says who it is.
struct Server {
    records: Arc<dyn Records>,
    site: SiteInfo,
    limits: Limits,
    /// Requests split over datagrams, by source address and request id, being put together.
    pending: Mutex<HashMap<(IpAddr, u32), (Instant, Reassembly)>>,
}

/// Serves `records` as a server of `site` on `udp` and `tcp` until `shutdown` completes.
///
/// # Errors
///
/// An error of the sockets themselves (not of a client: those are answered or dropped).
pub async fn serve(
    records: Arc<dyn Records>,
    site: SiteInfo,
    udp: UdpSocket,
    tcp: TcpListener,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let server = Arc::new(Server {
        records,
        site,
        limits,
        pending: Mutex::new(HashMap::new()),
    });
    let udp = Arc::new(udp);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..limits.udp_workers.max(1) {
        tasks.spawn(serve_udp(server.clone(), udp.clone()));
    }
    tasks.spawn(serve_tcp(server, tcp));
    tokio::select! {
        () = shutdown => Ok(()),
        Some(done) = tasks.join_next() => done.map_err(io::Error::other)?,
    }
}

fn now() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX))
}

async fn serve_udp(server: Arc<Server>, socket: Arc<UdpSocket>) -> io::Result<()> {
    // A datagram is at most 512 bytes; a larger one is cut by the buffer and refused.
    let mut buffer = [0_u8; 1024];
    loop {
        let (n, peer) = match socket.recv_from(&mut buffer).await {
            Ok(received) => received,
            // An ICMP error of an earlier send, on some systems: not the socket's end.
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => continue,
            Err(e) => return Err(e),
        };
        let Some(message) = server.datagram(&buffer[..n], peer.ip()) else {
            continue;
        };
        let (envelope, reply) = message;
        for datagram in udp::datagrams(envelope, &reply) {
            // A client that is gone, or a full buffer: the answer is lost, as UDP loses.
            let _ = socket.send_to(&datagram, peer).await;
        }
    }
}

impl Server {
    /// The answer to a datagram, if it completes a request: the answer's envelope and
    /// message bytes.
    fn datagram(&self, bytes: &[u8], from: IpAddr) -> Option<(Envelope, Vec<u8>)> {
        let envelope = Envelope::decode(bytes).ok()?;
        if envelope.message_length > self.limits.max_request {
            return None;
        }
        let payload = &bytes[Envelope::SIZE..];
        let whole;
        let message = if payload.len() == envelope.message_length as usize && envelope.sequence == 0
        {
            payload
        } else {
            whole = self.gather(&envelope, bytes, from)?;
            &whole
        };
        Some(self.reply(&envelope, message))
    }

    /// Adds a fragment of a request split over datagrams; the request once complete.
    fn gather(&self, envelope: &Envelope, bytes: &[u8], from: IpAddr) -> Option<Vec<u8>> {
        let mut pending = self.pending.lock().expect("not poisoned");
        let now = Instant::now();
        pending.retain(|_, (since, _)| now.duration_since(*since) < self.limits.pending_timeout);
        let key = (from, envelope.request_id);
        if !pending.contains_key(&key) {
            if pending.len() >= self.limits.max_pending {
                return None;
            }
            pending.insert(key, (now, Reassembly::new(envelope)));
        }
        let (_, reassembly) = pending.get_mut(&key).expect("inserted");
        match reassembly.add(bytes) {
            Ok(Some(message)) => {
                pending.remove(&key);
                Some(message)
            }
            Ok(None) => None,
            Err(_) => {
                pending.remove(&key);
                None
            }
        }
    }

    fn reply(&self, envelope: &Envelope, message: &[u8]) -> (Envelope, Vec<u8>) {
        let (reply_envelope, reply) = answer(&*self.records, &self.site, envelope, message, now());
        (reply_envelope, reply.to_bytes())
    }
}

async fn serve_tcp(server: Arc<Server>, listener: TcpListener) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(server.limits.max_connections.max(1)));
    loop {
        let permit = slots
            .clone()
            .acquire_owned()
            .await
            .map_err(io::Error::other)?;
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait a little rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let server = server.clone();
        tokio::spawn(async move {
            let timeout = server.limits.connection_timeout;
            let _ = tokio::time::timeout(timeout, server.connection(stream)).await;
            drop(permit);
        });
    }
}

impl Server {
    /// One TCP exchange: an envelope and its message in, the answer out, then close.
    async fn connection(&self, mut stream: TcpStream) -> io::Result<()> {
        let mut head = [0_u8; Envelope::SIZE];
        stream.read_exact(&mut head).await?;
        let Ok(envelope) = Envelope::decode(&head) else {
            return Ok(());
        };
        if envelope.message_length > self.limits.max_request.min(MAX_MESSAGE_LENGTH) {
            return Ok(());
        }
        let mut message = vec![0; envelope.message_length as usize];
        stream.read_exact(&mut message).await?;
        let (reply_envelope, reply) = answer(&*self.records, &self.site, &envelope, &message, now());
        stream.write_all(&handle_proto::tcp::frame(reply_envelope, &reply)).await?;
        stream.shutdown().await
    }
}
