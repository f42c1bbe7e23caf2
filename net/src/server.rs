//! The server: resolution and site info over UDP and TCP on one address, answered by
//! [`answer`](crate::answer::answer) from a source of [`Records`]. Bounded: a request's
//! size, TCP connections at once and the time each may take, multi-datagram requests
//! being put together.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use handle_proto::udp::{self, Reassembly};
use handle_proto::{Envelope, SiteInfo, MAX_MESSAGE_LENGTH};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
// (`UdpSocket` is taken as tokio's, bound by the caller, and served from threads.)
use tokio::sync::Semaphore;

use crate::answer::{answer, refusal, Records};
use crate::limit::{Admission, Counters, Limiter, RateLimits};

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
    /// Answers kept, by what was asked, until the records change: at most this many bytes
    /// of answers and the requests they answer (0: none kept).
    pub cache_bytes: usize,
    /// The UDP interface's budget per source network, and the largest UDP answer (N14).
    pub udp: RateLimits,
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
            cache_bytes: 32 << 20,
            udp: RateLimits::default(),
        }
    }
}

/// What a server serves: its records, who it says it is, what it allows, and where it
/// counts what it limited.
pub struct Service {
    /// Where it finds handles' values.
    pub records: Arc<dyn Records>,
    /// Its site record (for site info requests, and its answers' site serial).
    pub site: SiteInfo,
    /// The key it signs certified answers with; without one they go unsigned.
    pub key: Option<Arc<crate::key::ServerKey>>,
    /// What it allows.
    pub limits: Limits,
    /// What its UDP limits held back, counted as it goes.
    pub counters: Arc<Counters>,
}

impl Service {
    /// `records` served as a server of `site`, without a key, with the default limits.
    pub fn new(records: Arc<dyn Records>, site: SiteInfo) -> Self {
        Self {
            records,
            site,
            key: None,
            limits: Limits::default(),
            counters: Arc::default(),
        }
    }
}

/// A server's state: what it answers from and with what it says who it is.
struct Server {
    records: Arc<dyn Records>,
    site: SiteInfo,
    key: Option<Arc<crate::key::ServerKey>>,
    limits: Limits,
    limiter: Limiter,
    /// Requests split over datagrams, by source address and request id, being put together.
    pending: Mutex<HashMap<(IpAddr, u32), (Instant, Reassembly)>>,
    cache: Cache,
}

/// Answers already made (N12): by the request's message with its expiration zeroed and
/// the version it suggests, each with the records' generation it was made at. An answer
/// depends on nothing else a request holds (no digest or session is cached), so a
/// request asked again is answered with the same bytes and a new expiration. Sharded, each
/// shard emptied when full: bounded in bytes whatever is asked.
struct Cache {
    shards: Vec<Mutex<Shard>>,
    shard_bytes: usize,
    /// One hash a request picks both its shard and its slot with. Seeded for each process:
    /// the keys are what clients send, and must not be made to collide at will.
    hasher: foldhash::fast::RandomState,
}

#[derive(Default)]
struct Shard {
    answers: hashbrown::HashTable<Cached>,
    bytes: usize,
}

/// An answer kept: its key and message in one allocation (the key's bytes, then the
/// message's), so that the key compared and the answer copied are one stretch of memory.
struct Cached {
    hash: u64,
    generation: u64,
    key_length: usize,
    version: (u8, u8),
    bytes: Box<[u8]>,
}

impl Cached {
    fn key(&self) -> &[u8] {
        &self.bytes[..self.key_length]
    }

    fn message(&self) -> &[u8] {
        &self.bytes[self.key_length..]
    }
}

/// What an entry costs besides its key and answer: the table's slot and its fields.
const ENTRY_OVERHEAD: usize = 64;

impl Cache {
    fn new(bytes: usize) -> Self {
        let n = 16;
        Self {
            shards: (0..n).map(|_| Mutex::new(Shard::default())).collect(),
            shard_bytes: bytes / n,
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    fn hash(&self, key: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(key)
    }

    fn shard(&self, hash: u64) -> &Mutex<Shard> {
        // (Bits the table's own slots and tags do not use.)
        &self.shards[((hash >> 32) as usize) % self.shards.len()]
    }

    /// The answer kept for `key` (whose hash is `hash`), when made at `generation`: its
    /// version, its message copied into `out`.
    fn get(&self, key: &[u8], hash: u64, generation: u64, out: &mut Vec<u8>) -> Option<(u8, u8)> {
        let shard = self.shard(hash).lock().expect("not poisoned");
        let c = shard.answers.find(hash, |c| c.key() == key)?;
        if c.generation != generation {
            return None;
        }
        out.clear();
        out.extend_from_slice(c.message());
        Some(c.version)
    }

    fn put(&self, key: &[u8], hash: u64, generation: u64, version: (u8, u8), message: &[u8]) {
        let cost = key.len() + message.len() + ENTRY_OVERHEAD;
        if cost > self.shard_bytes {
            return;
        }
        let mut shard = self.shard(hash).lock().expect("not poisoned");
        if shard.bytes + cost > self.shard_bytes {
            shard.answers.clear();
            shard.bytes = 0;
        }
        let mut bytes = Vec::with_capacity(key.len() + message.len());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(message);
        let cached = Cached {
            hash,
            generation,
            key_length: key.len(),
            version,
            bytes: bytes.into(),
        };
        let entry = shard.answers.entry(hash, |c| c.key() == key, |c| c.hash);
        let old = match entry {
            hashbrown::hash_table::Entry::Occupied(mut o) => {
                Some(std::mem::replace(o.get_mut(), cached))
            }
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(cached);
                None
            }
        };
        if let Some(old) = old {
            shard.bytes -= old.bytes.len() + ENTRY_OVERHEAD;
        }
        shard.bytes += cost;
    }
}

/// Serves `service` on `udp` and `tcp` until `shutdown` completes.
///
/// # Errors
///
/// An error of the sockets themselves (not of a client: those are answered or dropped).
pub async fn serve(
    service: Service,
    udp: UdpSocket,
    tcp: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let Service {
        records,
        site,
        key,
        limits,
        counters,
    } = service;
    let server = Arc::new(Server {
        records,
        site,
        key,
        limits,
        limiter: Limiter::new(limits.udp, counters),
        pending: Mutex::new(HashMap::new()),
        cache: Cache::new(limits.cache_bytes),
    });
    // UDP on threads of their own, each blocked in `recv_from` on the same socket: a
    // request costs its two system calls and nothing of a scheduler's (N12). They look at
    // `stop` between requests, and at least every `POLL`.
    let udp = udp.into_std()?;
    udp.set_nonblocking(false)?;
    udp.set_read_timeout(Some(POLL))?;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut threads = Vec::new();
    for _ in 0..limits.udp_workers.max(1) {
        let (server, socket, stop) = (server.clone(), udp.try_clone()?, stop.clone());
        threads.push(std::thread::spawn(move || {
            serve_udp(&server, &socket, &stop)
        }));
    }
    let mut tcp = tokio::spawn(serve_tcp(server, tcp));
    let result = tokio::select! {
        () = shutdown => {
            // (A task dropped is not stopped: without this, TCP went on being answered.)
            tcp.abort();
            Ok(())
        }
        done = &mut tcp => done.map_err(io::Error::other)?,
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for t in threads {
        let _ = tokio::task::spawn_blocking(move || t.join()).await;
    }
    result
}

/// What an answer over a network's UDP budget says, when it is sent (N14).
const OVER_BUDGET: &str = "UDP limit: ask over TCP";

/// What an answer too large for UDP says (N14).
const TOO_LARGE: &str = "too large for UDP: ask over TCP";

/// The datagrams `reply` takes.
fn fragments(reply: &[u8]) -> usize {
    Reassembly::fragments(u32::try_from(reply.len()).expect("an answer under 4 GiB"))
}

/// How long a TCP answer waits for its client to close first.
const CLIENT_CLOSE: Duration = Duration::from_millis(250);

/// How often a UDP thread looks whether to stop when no request comes.
const POLL: Duration = Duration::from_millis(200);

fn now() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX))
}

fn serve_udp(
    server: &Server,
    socket: &std::net::UdpSocket,
    stop: &std::sync::atomic::AtomicBool,
) -> io::Result<()> {
    let mut batch = crate::batch::Batch::default();
    let mut key = Vec::with_capacity(1024);
    let mut reply = Vec::new();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let n = match batch.receive(socket) {
            Ok(received) => received,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            // An ICMP error of an earlier send: not the socket's end.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
                ) =>
            {
                continue
            }
            Err(e) => return Err(e),
        };
        // The clock read once for the datagrams taken together.
        let clock = (Instant::now(), now());
        for k in 0..n {
            let (bytes, peer) = batch.datagram(k);
            let Some(envelope) =
                server.answer_datagram(bytes, peer.ip(), clock, &mut key, &mut reply)
            else {
                continue;
            };
            for f in 0..fragments(&reply) {
                batch.queue(socket, peer, |out| {
                    udp::write_datagram(envelope, &reply, f, out);
                });
            }
        }
        batch.send(socket);
    }
    Ok(())
}

impl Server {
    /// The answer to a datagram from `from`, into `reply`, when it completes a request and
    /// its network's budget allows an answer (N14): the answer's envelope. `clock`: the
    /// time it came, as an instant and in seconds since 1970.
    fn answer_datagram(
        &self,
        bytes: &[u8],
        from: IpAddr,
        clock: (Instant, u32),
        key: &mut Vec<u8>,
        reply: &mut Vec<u8>,
    ) -> Option<Envelope> {
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
        let budget = match self.limiter.admit_at(from, clock.0) {
            Admission::Answer(budget) => budget,
            Admission::Slip => return self.refuse(&envelope, message, OVER_BUDGET, clock.1, reply),
            Admission::Drop => return None,
        };
        let mut reply_envelope = self.reply(&envelope, message, key, clock.1, reply);
        if self.limiter.too_large(fragments(reply)) {
            self.limiter
                .counters()
                .too_large
                .fetch_add(1, Ordering::Relaxed);
            reply_envelope = self.refuse(&envelope, message, TOO_LARGE, clock.1, reply)?;
        }
        self.limiter
            .charge(budget, fragments(reply) * Envelope::SIZE + reply.len());
        Some(reply_envelope)
    }

    /// A short `RC_ERROR` that sends the client to TCP, into `reply`: its envelope.
    fn refuse(
        &self,
        envelope: &Envelope,
        message: &[u8],
        why: &str,
        now: u32,
        reply: &mut Vec<u8>,
    ) -> Option<Envelope> {
        let (reply_envelope, refused) = refusal(&self.site, envelope, message, now, why)?;
        reply.clear();
        refused.encode(reply);
        Some(reply_envelope)
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

    /// The answer's envelope, its message into `out`: from the cache when the same was
    /// asked since the records last changed, else made and kept when it may be. `now` in
    /// seconds since 1970.
    fn reply(
        &self,
        envelope: &Envelope,
        message: &[u8],
        key: &mut Vec<u8>,
        now: u32,
        out: &mut Vec<u8>,
    ) -> Envelope {
        let reply_envelope = |version| Envelope {
            version,
            session_id: envelope.session_id,
            ..Envelope::new(handle_proto::VERSION, envelope.request_id, 0)
        };
        let cacheable = self.limits.cache_bytes > 0 && cacheable(envelope, message);
        let generation = self.records.generation();
        let mut hash = 0;
        if cacheable {
            key.clear();
            let suggested = envelope.suggested_version();
            key.extend_from_slice(&[suggested.0, suggested.1]);
            key.extend_from_slice(message);
            key[2 + 16..2 + 20].fill(0);
            hash = self.cache.hash(key);
            if let Some(version) = self.cache.get(key, hash, generation, out) {
                let expiration = now.saturating_add(crate::answer::ANSWER_LIFETIME);
                out[16..20].copy_from_slice(&expiration.to_be_bytes());
                return reply_envelope(version);
            }
        }
        let (made_envelope, reply) = answer(
            &*self.records,
            &self.site,
            envelope,
            message,
            now,
            self.key.as_deref(),
        );
        out.clear();
        reply.encode(out);
        let failed = matches!(
            reply.header.response_code,
            handle_proto::ResponseCode::ERROR | handle_proto::ResponseCode::PROTOCOL_ERROR
        );
        if cacheable && !failed {
            self.cache
                .put(key, hash, generation, made_envelope.version, out);
        }
        made_envelope
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
            // A connection reset before it was accepted: the next one, at once.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
                ) =>
            {
                continue
            }
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
        let mut reply = Vec::new();
        let reply_envelope = self.reply(&envelope, &message, &mut Vec::new(), now(), &mut reply);
        stream
            .write_all(&handle_proto::tcp::frame_bytes(reply_envelope, &reply))
            .await?;
        // One request a connection (as the reference answers): the answer, then the end.
        // A client that has its answer closes at once, and then the connection's TIME_WAIT
        // is the client's: waiting a moment for that rather than closing first keeps the
        // server from holding one per answer (measured: 23,500 against 9,000 answers a
        // second). A client that waits for the server to close gets it after the moment.
        let mut rest = [0_u8; 64];
        let closed = async {
            while stream.read(&mut rest).await? > 0 {}
            Ok::<_, io::Error>(())
        };
        if tokio::time::timeout(CLIENT_CLOSE, closed).await.is_err() {
            stream.shutdown().await?;
        }
        Ok(())
    }
}

/// Whether the answer to this request depends only on what the cache keys it by: a
/// resolution or site info request (response code 0), outside any session, asking for no
/// digest of itself (which would cover its expiration) and no signature, unsigned.
fn cacheable(envelope: &Envelope, message: &[u8]) -> bool {
    use handle_proto::OpFlags;
    if envelope.session_id != 0 || envelope.encrypted || message.len() < 24 {
        return false;
    }
    let word = |at: usize| u32::from_be_bytes(message[at..at + 4].try_into().expect("4 bytes"));
    let body_end = 24 + word(20) as usize;
    let unsigned = match message.len().checked_sub(body_end) {
        Some(0) => true,
        Some(4) => word(body_end) == 0,
        _ => false,
    };
    // (A certified answer's signature covers the request's id: made for each.)
    matches!(word(0), 1 | 2)
        && word(4) == 0
        && word(8) & (OpFlags::RETURN_REQUEST_DIGEST | OpFlags::CERT) == 0
        && unsigned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(cache: &Cache, key: &[u8], generation: u64) -> Option<((u8, u8), Vec<u8>)> {
        let mut out = b"left over".to_vec();
        let version = cache.get(key, cache.hash(key), generation, &mut out)?;
        Some((version, out))
    }

    fn put(cache: &Cache, key: &[u8], generation: u64, message: &[u8]) {
        cache.put(key, cache.hash(key), generation, (2, 10), message);
    }

    fn bytes(cache: &Cache) -> usize {
        cache.shards.iter().map(|s| s.lock().unwrap().bytes).sum()
    }

    #[test]
    fn an_answer_is_kept_for_its_key_and_its_generation() {
        let cache = Cache::new(1 << 20);
        put(&cache, b"key one", 7, b"answer one");
        put(&cache, b"key two", 7, b"answer two");
        assert_eq!(
            get(&cache, b"key one", 7),
            Some(((2, 10), b"answer one".to_vec()))
        );
        assert_eq!(get(&cache, b"key two", 7).unwrap().1, b"answer two");
        // Another generation of the records, or a key that is a prefix of one kept: none.
        assert_eq!(get(&cache, b"key one", 8), None);
        assert_eq!(get(&cache, b"key", 7), None);
        assert_eq!(get(&cache, b"key one and more", 7), None);
        // Made again: the new answer, and its bytes counted once.
        put(&cache, b"key one", 8, b"answer one, again");
        assert_eq!(get(&cache, b"key one", 8).unwrap().1, b"answer one, again");
        let want = b"key one".len()
            + b"answer one, again".len()
            + b"key two".len()
            + b"answer two".len()
            + 2 * ENTRY_OVERHEAD;
        assert_eq!(bytes(&cache), want);
    }

    #[test]
    fn the_cache_holds_no_more_than_its_bytes() {
        let cache = Cache::new(16 * 1024);
        for n in 0..10_000_u32 {
            put(&cache, &n.to_be_bytes(), 1, &[0; 100]);
            assert!(bytes(&cache) <= 16 * 1024);
        }
        // Larger than a shard: not kept.
        put(&cache, b"large", 1, &[0; 2048]);
        assert_eq!(get(&cache, b"large", 1), None);
        assert_eq!(
            get(&cache, &9_999_u32.to_be_bytes(), 1).unwrap().1,
            [0; 100]
        );
    }
}
