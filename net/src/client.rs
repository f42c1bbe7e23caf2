//! Asking one server: a request out over UDP or TCP, its answer back, with the
//! reference client's timeouts and retries (UDP: sends after 0, 0.5, 1.5 s, giving up at
//! 3 s; TCP: one try with a connection and read timeout).

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use handle_proto::udp::{self, Reassembly};
use handle_proto::{tcp, DecodeError, Envelope, Message, COMPATIBILITY_VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

/// How to reach a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Datagrams, fragments put back together.
    Udp,
    /// One connection per request.
    Tcp,
}

/// How long to wait.
#[derive(Clone, Debug)]
pub struct Timeouts {
    /// UDP: each wait for the whole answer, the request sent again before each.
    pub udp: Vec<Duration>,
    /// TCP: to connect, and then to read the answer.
    pub tcp: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            udp: vec![
                Duration::from_millis(500),
                Duration::from_millis(1000),
                Duration::from_millis(1500),
            ],
            tcp: Duration::from_secs(10),
        }
    }
}

/// Why no answer came.
#[derive(Debug)]
pub enum ClientError {
    /// The socket failed (connection refused, unreachable …).
    Io(io::Error),
    /// No answer in time.
    Timeout,
    /// An answer that does not read.
    Decode(DecodeError),
    /// An answer to another request.
    WrongRequest,
    /// A message that is no answer: a request (its response code 0), as an echo sends back.
    NotAnAnswer,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::Timeout => f.write_str("no answer in time"),
            Self::Decode(e) => write!(f, "an answer that does not read: {e}"),
            Self::WrongRequest => f.write_str("an answer to another request"),
            Self::NotAnAnswer => f.write_str("a request came back, not an answer (an echo?)"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// Sends `request` to `server` and returns its answer.
///
/// # Errors
///
/// [`ClientError`]: the socket failed, no answer in time, an answer that does not read or
/// that is another request's.
pub async fn ask(
    server: SocketAddr,
    transport: Transport,
    request: &Message,
    request_id: u32,
    timeouts: &Timeouts,
) -> Result<(Envelope, Message), ClientError> {
    let envelope = Envelope::new(COMPATIBILITY_VERSION, request_id, 0);
    match transport {
        Transport::Udp => ask_udp(server, envelope, request, timeouts).await,
        Transport::Tcp => ask_tcp(server, envelope, request, timeouts.tcp).await,
    }
}

/// A request id: positive, different from one request to the next.
pub(crate) fn request_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.subsec_nanos());
    (seed ^ NEXT.fetch_add(0x9E37_79B9, Ordering::Relaxed)) & 0x7FFF_FFFF
}

/// The message of an answer: it decodes, and it is an answer (a request carries response
/// code 0, which no server answers with).
fn answer(bytes: &[u8]) -> Result<Message, ClientError> {
    let m = Message::decode(bytes).map_err(ClientError::Decode)?;
    if m.header.is_request() {
        return Err(ClientError::NotAnAnswer);
    }
    Ok(m)
}

async fn ask_udp(
    server: SocketAddr,
    envelope: Envelope,
    request: &Message,
    timeouts: &Timeouts,
) -> Result<(Envelope, Message), ClientError> {
    let local: SocketAddr = if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0_u16; 8], 0).into()
    };
    let socket = UdpSocket::bind(local).await?;
    socket.connect(server).await?;
    let message = request.to_bytes();
    let datagrams: Vec<Vec<u8>> = udp::datagrams(envelope, &message).collect();
    let mut buffer = [0_u8; 1024];
    let mut last = ClientError::Timeout;
    for &wait in &timeouts.udp {
        for d in &datagrams {
            socket.send(d).await?;
        }
        let mut reassembly: Option<Reassembly> = None;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let n = match tokio::time::timeout_at(deadline, socket.recv(&mut buffer)).await {
                Err(_) => break,
                Ok(Err(e)) => {
                    // Refused (nothing listens there): no use waiting.
                    return Err(e.into());
                }
                Ok(Ok(n)) => n,
            };
            let bytes = &buffer[..n];
            let Ok(head) = Envelope::decode(bytes) else {
                continue;
            };
            if head.request_id != envelope.request_id {
                continue;
            }
            let r = reassembly.get_or_insert_with(|| Reassembly::new(&head));
            match r.add(bytes) {
                Ok(Some(whole)) => return answer(&whole).map(|m| (head, m)),
                Ok(None) => {}
                Err(e) => last = ClientError::Decode(e),
            }
        }
    }
    Err(last)
}

async fn ask_tcp(
    server: SocketAddr,
    envelope: Envelope,
    request: &Message,
    timeout: Duration,
) -> Result<(Envelope, Message), ClientError> {
    let exchange = async {
        let mut stream = TcpStream::connect(server).await?;
        stream.write_all(&tcp::frame(envelope, request)).await?;
        let mut head = [0_u8; Envelope::SIZE];
        stream.read_exact(&mut head).await?;
        let reply = Envelope::decode(&head).map_err(ClientError::Decode)?;
        if reply.request_id != envelope.request_id {
            return Err(ClientError::WrongRequest);
        }
        let mut message = vec![0; reply.message_length as usize];
        stream.read_exact(&mut message).await?;
        Ok((reply, answer(&message)?))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| ClientError::Timeout)?
}

/// The public key (`HS_PUBKEY` data) `server` gives itself in its own site info: the
/// server there at that address and port (or the site's one server), to check its
/// certified answers by (N13) when it was named by address, not found through a root.
/// What that proves is the answers' integrity, not the server's standing: its site info is
/// its own word.
///
/// # Errors
///
/// No answer, an answer that is not a site info, or a site that names no such server or
/// publishes no key for it.
pub async fn own_key(server: SocketAddr, timeouts: &Timeouts) -> Result<Vec<u8>, ClientError> {
    use handle_proto::{Body, Protocol};
    let request = Message::site_info_request(crate::resolver::expiration());
    let (_, answer) = ask(server, Transport::Tcp, &request, 0x5173, timeouts).await?;
    let no = |why: &str| ClientError::Io(io::Error::other(format!("{server}: {why}")));
    let Body::SiteInfo { site, .. } = answer.body else {
        return Err(no("its answer to a site info request is no site info"));
    };
    let at = |s: &handle_proto::ServerInfo| {
        s.ip() == server.ip()
            && (s.port(Protocol::Tcp) == Some(server.port())
                || s.port(Protocol::Udp) == Some(server.port()))
    };
    let own = match site.servers.iter().find(|s| at(s)) {
        Some(s) => s,
        None if site.servers.len() == 1 => &site.servers[0],
        None => return Err(no("its site names no server at its address")),
    };
    if own.public_key.is_empty() {
        return Err(no("its site publishes no key"));
    }
    Ok(own.public_key.clone())
}

/// A UDP client for many requests to one server at once: one socket, answers told apart
/// by request id (a task reads them and puts fragments together), so that a request costs
/// its datagrams and no socket of its own. At most [`UdpClient::MAX_IN_FLIGHT`] requests
/// wait at once; the state kept is one entry a request waiting.
pub struct UdpClient {
    socket: std::sync::Arc<UdpSocket>,
    waiting: std::sync::Arc<std::sync::Mutex<Waiting>>,
    reader: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct Waiting {
    /// By request id: where its answer goes, and its fragments so far.
    answers:
        std::collections::HashMap<u32, (tokio::sync::mpsc::Sender<Vec<u8>>, Option<Reassembly>)>,
    next_id: u32,
}

impl UdpClient {
    /// Requests waiting at once, at most.
    pub const MAX_IN_FLIGHT: usize = 1 << 16;

    /// A client of `server`, its socket bound and its reader running.
    ///
    /// # Errors
    ///
    /// The socket cannot be bound or connected.
    pub async fn connect(server: SocketAddr) -> io::Result<Self> {
        let local: SocketAddr = if server.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            ([0_u16; 8], 0).into()
        };
        let socket = std::sync::Arc::new(UdpSocket::bind(local).await?);
        socket.connect(server).await?;
        let waiting = std::sync::Arc::new(std::sync::Mutex::new(Waiting {
            next_id: std::process::id().wrapping_mul(0x9E37_79B9) & 0x7FFF_FFFF,
            ..Waiting::default()
        }));
        let reader = tokio::spawn(read_answers(socket.clone(), waiting.clone()));
        Ok(Self {
            socket,
            waiting,
            reader,
        })
    }

    /// Sends `request` and returns its answer, with the same retries as [`ask`].
    ///
    /// # Errors
    ///
    /// As [`ask`]; and, with [`UdpClient::MAX_IN_FLIGHT`] requests waiting, an error at once.
    pub async fn ask(
        &self,
        request: &Message,
        timeouts: &Timeouts,
    ) -> Result<(Envelope, Message), ClientError> {
        let (tx, mut rx) = tokio::sync::mpsc::channel(1);
        let request_id = {
            let mut w = self.waiting.lock().expect("not poisoned");
            if w.answers.len() >= Self::MAX_IN_FLIGHT {
                return Err(ClientError::Io(io::Error::other(
                    "too many requests waiting",
                )));
            }
            let mut id = w.next_id;
            while w.answers.contains_key(&id) {
                id = (id + 1) & 0x7FFF_FFFF;
            }
            w.next_id = (id + 1) & 0x7FFF_FFFF;
            w.answers.insert(id, (tx, None));
            id
        };
        let envelope = Envelope::new(COMPATIBILITY_VERSION, request_id, 0);
        let message = request.to_bytes();
        let datagrams: Vec<Vec<u8>> = udp::datagrams(envelope, &message).collect();
        let mut result = Err(ClientError::Timeout);
        for &wait in &timeouts.udp {
            let sent = async {
                for d in &datagrams {
                    self.socket.send(d).await?;
                }
                Ok::<_, io::Error>(())
            };
            if let Err(e) = sent.await {
                result = Err(e.into());
                break;
            }
            match tokio::time::timeout(wait, rx.recv()).await {
                Ok(Some(whole)) => {
                    result = Envelope::decode(&whole[..Envelope::SIZE])
                        .map_err(ClientError::Decode)
                        .and_then(|head| answer(&whole[Envelope::SIZE..]).map(|m| (head, m)));
                    break;
                }
                Ok(None) => break,
                Err(_) => {}
            }
        }
        self.waiting
            .lock()
            .expect("not poisoned")
            .answers
            .remove(&request_id);
        result
    }
}

impl Drop for UdpClient {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Reads the socket's answers and hands each whole one (its first envelope, then the
/// message) to the request waiting for it; answers no request waits for are dropped.
async fn read_answers(
    socket: std::sync::Arc<UdpSocket>,
    waiting: std::sync::Arc<std::sync::Mutex<Waiting>>,
) {
    let mut buffer = [0_u8; 1024];
    loop {
        let Ok(n) = socket.recv(&mut buffer).await else {
            // Refused (ICMP) or the like: the requests time out and say so.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let bytes = &buffer[..n];
        let Ok(head) = Envelope::decode(bytes) else {
            continue;
        };
        let done = {
            let mut w = waiting.lock().expect("not poisoned");
            let Some((tx, partial)) = w.answers.get_mut(&head.request_id) else {
                continue;
            };
            let whole = if partial.is_none()
                && head.sequence == 0
                && n - Envelope::SIZE == head.message_length as usize
            {
                Some(bytes[Envelope::SIZE..].to_vec())
            } else {
                // A fragment that does not fit is dropped; the request retries.
                partial
                    .get_or_insert_with(|| Reassembly::new(&head))
                    .add(bytes)
                    .unwrap_or_default()
            };
            whole.map(|message| {
                let mut answer = Vec::with_capacity(Envelope::SIZE + message.len());
                head.encode(&mut answer);
                answer.extend_from_slice(&message);
                (tx.clone(), answer)
            })
        };
        if let Some((tx, answer)) = done {
            let _ = tx.try_send(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{answer, ClientError};
    use handle_proto::Message;

    /// A request sent back (an echo) is no answer; an answer is.
    #[test]
    fn a_request_is_no_answer() {
        let request = Message::resolution(b"TEST/1", &[], &[], 0);
        let echoed = answer(&request.to_bytes());
        assert!(
            matches!(echoed, Err(ClientError::NotAnAnswer)),
            "{echoed:?}"
        );
        let reply = Message::answer(
            &request.header,
            handle_proto::ResponseCode::HANDLE_NOT_FOUND,
            handle_proto::Body::Error {
                digest: None,
                message: b"not here".to_vec(),
            },
            0,
        );
        assert!(answer(&reply.to_bytes()).is_ok());
    }
}
