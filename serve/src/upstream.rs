//! Handles the store does not hold, resolved through the Handle protocol (`hdl serve
//! --upstream`, SPEC P13): asked of one handle server over TCP, or from the global root
//! (or a root info file's) as `hdl resolve` resolves them, each answer kept as its values'
//! TTLs say, in a cache bounded in entries and bytes.
//!
//! The answers to HTTP requests come from [`crate::app`], which is synchronous: it reads
//! the cache with [`Upstream::cached`] and says which handles it missed; the server fetches
//! those ([`Upstream::fetch`]) and asks the app again.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use handle_id::record::{Response, ResponseCode, Ttl};
use handle_net::client::{ask, Timeouts, Transport};
use handle_net::resolver::{ResolveError, Resolver};
use handle_proto::{rest, Message, OpFlags};
use tokio::sync::Notify;

/// What the cache may hold, and for how long.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Handles held at once (the reference proxy's cache holds 16,384).
    pub entries: usize,
    /// Bytes of records held at once (each record's JSON, its key and [`ENTRY_OVERHEAD`]).
    pub bytes: usize,
    /// The longest a record is kept, whatever its TTLs (the reference's: an hour).
    pub max_ttl: Duration,
    /// How long "not found" is kept.
    pub not_found_ttl: Duration,
    /// How long a failure (no answer, an error) is kept, so that the requests that come
    /// meanwhile share it rather than each asking again.
    pub failure_ttl: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            entries: 16_384,
            bytes: 64 << 20,
            max_ttl: Duration::from_secs(3600),
            not_found_ttl: Duration::from_secs(60),
            failure_ttl: Duration::from_secs(1),
        }
    }
}

/// The bytes an entry is counted for beside its key and record: the map's and the queue's
/// slots, the entry itself and the allocations' headers, rounded up.
pub const ENTRY_OVERHEAD: usize = 160;

/// What the cache says of a handle.
#[derive(Clone, Debug)]
pub enum Cached {
    /// Its record: the REST API's JSON (`Response::to_json`), as the store holds records.
    Found(Arc<[u8]>),
    /// The server holds no such handle.
    NotFound,
    /// The server could not be asked, or answered an error: the message.
    Failed(Arc<str>),
}

/// What one request fetched, kept for its answer whatever the cache keeps (a record larger
/// than the whole cache is served, and not kept).
#[derive(Debug, Default)]
pub struct Fetched(Vec<(Box<str>, Cached)>);

impl Fetched {
    /// What was fetched for `handle`, if it was.
    #[must_use]
    pub fn get(&self, handle: &str) -> Option<&Cached> {
        let k = key(handle);
        self.0.iter().find(|(h, _)| *h == k).map(|(_, c)| c)
    }

    /// Keeps `cached` as what was fetched for `handle`.
    pub fn put(&mut self, handle: &str, cached: Cached) {
        let k = key(handle);
        self.0.retain(|(h, _)| *h != k);
        self.0.push((k, cached));
    }
}

struct Entry {
    cached: Cached,
    expires: Instant,
    bytes: usize,
    generation: u64,
}

#[derive(Default)]
struct Cache {
    map: HashMap<Box<str>, Entry>,
    /// Keys in the order they were put in, with the generation they were put in with: the
    /// oldest is evicted first (an entry put in again has a newer generation; its older
    /// place in the queue is skipped).
    order: VecDeque<(Box<str>, u64)>,
    bytes: usize,
    generation: u64,
}

/// How a request asks for a handle upstream (SPEC P13): from the cache, or, for `auth` or
/// `cert`, from the Handle System whatever the cache holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// An authoritative answer: a primary site's.
    pub authoritative: bool,
    /// A certified answer, taken only when it verifies by the answering server's key.
    pub certified: bool,
}

impl Ask {
    /// Whether the cache is passed over.
    #[must_use]
    pub fn fresh(self) -> bool {
        self.authoritative || self.certified
    }
}

/// Where the handles the store does not hold are asked.
#[derive(Clone, Debug)]
pub enum Via {
    /// One handle server, over TCP (a private deployment, a test).
    Server(SocketAddr),
    /// The Handle System from its root: the prefix handle's sites, the server the site's
    /// hash picks, a primary site when asked authoritatively, referrals followed.
    Root(Box<Resolver>),
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Server(addr) => write!(f, "the handle server {addr}"),
            Self::Root(_) => f.write_str("the Handle System"),
        }
    }
}

/// Handle servers asked for what the store does not hold, and the cache of their answers.
pub struct Upstream {
    via: Via,
    timeouts: Timeouts,
    limits: Limits,
    cache: Mutex<Cache>,
    /// The handles being asked for now: the requests for one of them wait for its one
    /// query.
    inflight: Mutex<HashMap<Box<str>, Arc<Notify>>>,
    queries: AtomicU64,
    /// With [`Via::Server`], the key of its own site info, once asked (for `cert`).
    server_key: Mutex<Option<Arc<[u8]>>>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("via", &self.via)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The cache's key of a handle: without ASCII case, as handle servers look handles up
/// (SPEC H6).
fn key(handle: &str) -> Box<str> {
    handle.to_ascii_lowercase().into_boxed_str()
}

impl Upstream {
    /// Asks `via`, keeping answers within `limits`.
    #[must_use]
    pub fn new(via: Via, timeouts: Timeouts, limits: Limits) -> Self {
        Self {
            via,
            timeouts,
            limits,
            cache: Mutex::new(Cache::default()),
            inflight: Mutex::new(HashMap::new()),
            queries: AtomicU64::new(0),
            server_key: Mutex::new(None),
        }
    }

    /// How many queries were sent to the server so far.
    #[must_use]
    pub fn queries(&self) -> u64 {
        self.queries.load(Ordering::Relaxed)
    }

    /// The handles and bytes the cache holds now.
    #[must_use]
    pub fn held(&self) -> (usize, usize) {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        (cache.map.len(), cache.bytes)
    }

    /// What the cache holds for `handle`, unless it has expired.
    #[must_use]
    pub fn cached(&self, handle: &str) -> Option<Cached> {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .map
            .get(&*key(handle))
            .filter(|e| e.expires > Instant::now())
            .map(|e| e.cached.clone())
    }

    /// The answer for `handle`: the cache's, or the server's (with `ask` fresh, the
    /// server's, asked so, whatever the cache holds), then kept in the cache as its TTLs
    /// say (a certified query that fails is not kept: the cache's answer stands for
    /// others). Requests for a handle being asked for the same way wait for that one query.
    /// The query runs on its own task: a request that goes away does not leave the others
    /// waiting.
    pub async fn fetch(self: &Arc<Self>, handle: &str, ask: Ask) -> Cached {
        let fresh = ask.fresh();
        let k = key(handle);
        // Queries asked otherwise are not shared: a certified request never takes an
        // answer that was not certified.
        let flight: Box<str> = match fresh {
            false => k.clone(),
            true => format!(
                "{k}\0{}{}",
                u8::from(ask.authoritative),
                u8::from(ask.certified)
            )
            .into(),
        };
        loop {
            if !fresh {
                if let Some(cached) = self.cached(handle) {
                    return cached;
                }
            }
            let (wait, lead) = {
                let mut inflight = self.inflight.lock().unwrap_or_else(PoisonError::into_inner);
                match inflight.get(&flight) {
                    Some(n) => (n.clone(), false),
                    None => {
                        let n = Arc::new(Notify::new());
                        inflight.insert(flight.clone(), n.clone());
                        (n, true)
                    }
                }
            };
            if lead {
                let (tx, rx) = tokio::sync::oneshot::channel();
                let this = self.clone();
                let (handle, k, flight) = (handle.to_owned(), k.clone(), flight.clone());
                tokio::spawn(async move {
                    let (cached, ttl) = this.query(&handle, ask).await;
                    if !(ask.certified && matches!(cached, Cached::Failed(_))) {
                        this.put(k, cached.clone(), ttl);
                    }
                    let n = this
                        .inflight
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .remove(&flight);
                    if let Some(n) = n {
                        n.notify_waiters();
                    }
                    let _ = tx.send(cached);
                });
                if let Ok(cached) = rx.await {
                    return cached;
                }
                continue;
            }
            // (Made before the query can end: a wake-up between here and the wait is kept.)
            let woken = wait.notified();
            // The query may have ended between the look and here: then no wake-up comes.
            let ended = !self
                .inflight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&flight)
                .is_some_and(|n| Arc::ptr_eq(n, &wait));
            if !ended {
                woken.await;
            }
            if let Some(cached) = self.cached(handle) {
                return cached;
            }
            // Not kept (larger than the whole cache): asked again, by this request.
        }
    }

    /// One query for `handle`, and how long its answer is kept.
    async fn query(&self, handle: &str, how: Ask) -> (Cached, Duration) {
        self.queries.fetch_add(1, Ordering::Relaxed);
        let mut request = Message::resolution(
            handle.as_bytes(),
            &[],
            &[],
            handle_net::resolver::expiration(),
        );
        request.header.flags = request
            .header
            .flags
            .with(OpFlags::AUTH, how.authoritative)
            .with(OpFlags::CERT, how.certified);
        let id = (self.queries() as u32).wrapping_mul(0x9E37_79B9) & 0x7FFF_FFFF;
        let failed = |message: String| (Cached::Failed(message.into()), self.limits.failure_ttl);
        let answer = match &self.via {
            Via::Server(server) => {
                let key = match how.certified {
                    true => match self.server_key(*server).await {
                        Ok(key) => Some(key),
                        Err(e) => return failed(format!("{}: {e}", self.via)),
                    },
                    false => None,
                };
                match ask(*server, Transport::Tcp, &request, id, &self.timeouts).await {
                    Ok((envelope, answer)) => match key {
                        Some(key) => handle_net::key::verify_answer(&envelope, &answer, &key)
                            .map(|()| answer)
                            .map_err(|e| format!("the certified answer does not verify: {e}")),
                        None => Ok(answer),
                    },
                    Err(e) => Err(e.to_string()),
                }
            }
            // A prefix with no site is a handle not found, as the reference's resolver
            // says it (its SERVICE_NOT_FOUND answered as RC_HANDLE_NOT_FOUND).
            Via::Root(resolver) => match resolver.resolve(&request).await {
                Err(ResolveError::NoService(_)) => {
                    return (Cached::NotFound, self.limits.not_found_ttl)
                }
                answer => answer.map_err(|e| e.to_string()),
            },
        };
        match answer {
            Ok(answer) => {
                let response = rest::answer(handle, &answer);
                match response.code() {
                    ResponseCode::Success => {
                        let ttl = ttl(&response).min(self.limits.max_ttl);
                        let json: Arc<[u8]> = response.to_json().into_bytes().into();
                        (Cached::Found(json), ttl)
                    }
                    ResponseCode::HandleNotFound => (Cached::NotFound, self.limits.not_found_ttl),
                    code => failed(format!(
                        "{} answered {}{}",
                        self.via,
                        code.as_u32(),
                        response
                            .message()
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    )),
                }
            }
            Err(e) => failed(format!("{}: {e}", self.via)),
        }
    }

    /// The key `server` gives itself in its site info, asked once.
    async fn server_key(&self, server: SocketAddr) -> Result<Arc<[u8]>, String> {
        if let Some(key) = self
            .server_key
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Ok(key);
        }
        let key: Arc<[u8]> = handle_net::client::own_key(server, &self.timeouts)
            .await
            .map_err(|e| e.to_string())?
            .into();
        *self
            .server_key
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(key.clone());
        Ok(key)
    }

    fn put(&self, k: Box<str>, cached: Cached, ttl: Duration) {
        let bytes = k.len()
            + ENTRY_OVERHEAD
            + match &cached {
                Cached::Found(json) => json.len(),
                Cached::Failed(m) => m.len(),
                Cached::NotFound => 0,
            };
        // (A TTL of 0 still serves the requests that asked: kept a second.)
        let ttl = ttl.max(Duration::from_secs(1));
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if bytes > self.limits.bytes {
            // Never held: dropped, and any older answer with it.
            if let Some(old) = cache.map.remove(&k) {
                cache.bytes -= old.bytes;
            }
            return;
        }
        cache.generation += 1;
        let generation = cache.generation;
        let entry = Entry {
            cached,
            expires: Instant::now() + ttl,
            bytes,
            generation,
        };
        if let Some(old) = cache.map.insert(k.clone(), entry) {
            cache.bytes -= old.bytes;
        }
        cache.bytes += bytes;
        cache.order.push_back((k, generation));
        while cache.map.len() > self.limits.entries || cache.bytes > self.limits.bytes {
            let Some((oldest, generation)) = cache.order.pop_front() else {
                break;
            };
            if cache
                .map
                .get(&oldest)
                .is_some_and(|e| e.generation == generation)
            {
                let e = cache.map.remove(&oldest).expect("present");
                cache.bytes -= e.bytes;
            }
        }
        // Places left by entries put in again: never more than the entries themselves.
        if cache.order.len() > 2 * cache.map.len() + 16 {
            let Cache { map, order, .. } = &mut *cache;
            order.retain(|(k, g)| map.get(k).is_some_and(|e| e.generation == *g));
        }
    }
}

/// How long a record may be kept: its values' shortest TTL (relative, or until an absolute
/// time; a value without one has the REST API's default, a day); a record without values,
/// no time at all.
fn ttl(response: &Response) -> Duration {
    const DEFAULT: Ttl = Ttl::Seconds(86_400);
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ttls = response
        .values()
        .iter()
        .map(|v| v.ttl().unwrap_or(&DEFAULT));
    crate::app::earliest_expiry(ttls, now).map_or(Duration::ZERO, |at| {
        Duration::from_secs(at.saturating_sub(now))
    })
}
