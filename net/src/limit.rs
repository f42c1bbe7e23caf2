//! Response-rate limits on UDP (SPEC N14): a budget of answers and of bytes a second for
//! each source network, in a table of fixed size, so that a server asked with a forged
//! source address sends that address little, and one network's flood costs others nothing.
//!
//! A UDP request proves nothing of where it came from, and its answer may be many
//! datagrams: without a budget a server multiplies whatever is sent it towards whoever the
//! sender names (DNS servers answer the same way: BIND's, Knot's and NSD's response-rate
//! limiting). Over budget, an answer is dropped or, every [`RateLimits::slip`]th time,
//! replaced by a short `RC_ERROR`, on which a client asks again over TCP (which needs the
//! real address): an honest client is served, a forged one gets no more than it sent.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The UDP interface's budget: per source network, answers and bytes a second, with a
/// burst; the largest answer given over UDP at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// Answers a second to one source network (0: no limit on answers).
    pub answers_per_second: u32,
    /// Bytes of answers a second to one source network, envelopes included (0: no limit
    /// on bytes).
    pub bytes_per_second: u32,
    /// The budget a network may spend at once, in seconds of its rates.
    pub burst_seconds: u32,
    /// Of the answers over budget, every `slip`th is replaced by a short `RC_ERROR` that
    /// sends the client to TCP, and the others are dropped (1: all replaced; 0: all
    /// dropped).
    pub slip: u32,
    /// The most datagrams one answer may take (each 512 bytes at most); a larger answer is
    /// replaced by a short `RC_ERROR` that sends the client to TCP (0: no cap).
    pub max_datagrams: u32,
    /// The bits of an IPv4 source address that name its network.
    pub ipv4_prefix: u8,
    /// The bits of an IPv6 source address that name its network.
    pub ipv6_prefix: u8,
    /// The budgets kept: networks share one when their hashes meet, so that the table
    /// is the same size whatever the number of sources.
    pub table: usize,
    /// Whether loopback sources (127.0.0.0/8, ::1) are limited too. By default they are
    /// not: no packet from the network carries such a source (a host drops it), so none is
    /// forged, and a proxy or a benchmark on the server's own machine is not held back.
    pub loopback: bool,
}

impl RateLimits {
    /// No limits: every answer given over UDP whatever its size (a private server, tests).
    pub const NONE: Self = Self {
        answers_per_second: 0,
        bytes_per_second: 0,
        burst_seconds: 0,
        slip: 0,
        max_datagrams: 0,
        ipv4_prefix: 24,
        ipv6_prefix: 56,
        table: 0,
        loopback: false,
    };

    /// Whether a budget is kept at all.
    #[must_use]
    pub fn budgeted(&self) -> bool {
        (self.answers_per_second > 0 || self.bytes_per_second > 0) && self.table > 0
    }
}

impl Default for RateLimits {
    /// What suits a public server: a network (IPv4 /24, IPv6 /56) gets 100 answers and
    /// 128 KiB a second, two seconds of it at once, every second answer over budget sent
    /// to TCP; answers of more than 4 datagrams (1,968 bytes) over TCP only; 65,536
    /// budgets (1.5 MiB); loopback sources not limited.
    fn default() -> Self {
        Self {
            answers_per_second: 100,
            bytes_per_second: 128 << 10,
            burst_seconds: 2,
            slip: 2,
            max_datagrams: 4,
            ipv4_prefix: 24,
            ipv6_prefix: 56,
            table: 1 << 16,
            loopback: false,
        }
    }
}

/// What to do with a request, by its network's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Answer, then [`charge`](Limiter::charge) what was sent to this budget.
    Answer(Budget),
    /// Over budget: answer with a short `RC_ERROR` that sends the client to TCP.
    Slip,
    /// Over budget: no answer.
    Drop,
}

/// The budget a request was admitted on (an index in the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget(usize);

/// One network's budget: what it has left, and when it was last filled.
#[derive(Clone, Copy, Default)]
struct Bucket {
    /// Nanoseconds since the limiter's start (0: never used, so full).
    filled_at: u64,
    answers: f32,
    bytes: f32,
    /// Requests over budget, to slip every `slip`th.
    over: u32,
}

/// Budgets in stripes, each behind its own lock: UDP threads seldom wait for each other.
const STRIPES: usize = 64;

/// The table of budgets. Its memory is fixed when it is made ([`Limiter::memory`]):
/// `table` budgets of 24 bytes.
pub struct Limiter {
    limits: RateLimits,
    /// Keyed at random when made: which networks share a budget cannot be chosen.
    hasher: RandomState,
    start: Instant,
    stripes: Box<[Mutex<Box<[Bucket]>>]>,
    per_stripe: usize,
    counters: Arc<Counters>,
}

impl Limiter {
    /// A table for `limits`, every budget full, counting what it limits in `counters`.
    #[must_use]
    pub fn new(limits: RateLimits, counters: Arc<Counters>) -> Self {
        let table = if limits.budgeted() { limits.table } else { 0 };
        let per_stripe = table.div_ceil(STRIPES);
        let stripes = if table == 0 {
            Box::default()
        } else {
            (0..STRIPES)
                .map(|_| Mutex::new(vec![Bucket::default(); per_stripe].into_boxed_slice()))
                .collect()
        };
        Self {
            limits,
            hasher: RandomState::new(),
            start: Instant::now(),
            stripes,
            per_stripe,
            counters,
        }
    }

    /// What it limited.
    #[must_use]
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The limits it keeps.
    #[must_use]
    pub fn limits(&self) -> &RateLimits {
        &self.limits
    }

    /// The bytes its budgets take: all it holds, made at the start.
    #[must_use]
    pub fn memory(&self) -> usize {
        self.stripes.len()
            * (std::mem::size_of::<Mutex<Box<[Bucket]>>>()
                + self.per_stripe * std::mem::size_of::<Bucket>())
    }

    /// Whether to answer a request from `from` now, and the budget to charge.
    pub fn admit(&self, from: IpAddr) -> Admission {
        self.admit_at(from, Instant::now())
    }

    /// [`admit`](Self::admit) at `now`.
    pub fn admit_at(&self, from: IpAddr, now: Instant) -> Admission {
        if self.stripes.is_empty() || (!self.limits.loopback && is_loopback(from)) {
            return Admission::Answer(Budget(usize::MAX));
        }
        let index = self.index(from);
        let now = self.nanos(now);
        let l = &self.limits;
        let mut stripe = self.stripes[index % STRIPES].lock().expect("not poisoned");
        let bucket = &mut stripe[index / STRIPES];
        self.fill(bucket, now);
        let answers_left = l.answers_per_second == 0 || bucket.answers >= 1.0;
        let bytes_left = l.bytes_per_second == 0 || bucket.bytes > 0.0;
        if answers_left && bytes_left {
            bucket.answers -= 1.0;
            return Admission::Answer(Budget(index));
        }
        bucket.over = bucket.over.wrapping_add(1);
        if l.slip > 0 && bucket.over % l.slip == 0 {
            self.counters.slipped.fetch_add(1, Ordering::Relaxed);
            Admission::Slip
        } else {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
            Admission::Drop
        }
    }

    /// Takes `bytes` sent from `budget`: it may go below nothing (an answer is sent whole),
    /// and the network waits for it to fill again.
    pub fn charge(&self, budget: Budget, bytes: usize) {
        let Budget(index) = budget;
        if index == usize::MAX || self.limits.bytes_per_second == 0 {
            return;
        }
        let mut stripe = self.stripes[index % STRIPES].lock().expect("not poisoned");
        #[allow(clippy::cast_precision_loss)] // an answer's size, far below 2^24
        let bytes = bytes as f32;
        stripe[index / STRIPES].bytes -= bytes;
    }

    /// Whether an answer of `datagrams` is too large for UDP.
    #[must_use]
    pub fn too_large(&self, datagrams: usize) -> bool {
        let cap = self.limits.max_datagrams as usize;
        cap > 0 && datagrams > cap
    }

    /// Fills `bucket` for the time since it was last filled, up to the burst.
    fn fill(&self, bucket: &mut Bucket, now: u64) {
        let l = &self.limits;
        #[allow(clippy::cast_precision_loss)] // seconds, to a nanosecond's precision or so
        let seconds = if bucket.filled_at == 0 {
            f32::INFINITY
        } else {
            now.saturating_sub(bucket.filled_at) as f32 / 1e9
        };
        #[allow(clippy::cast_precision_loss)]
        let fill = |left: f32, rate: u32| {
            let most = rate as f32 * l.burst_seconds.max(1) as f32;
            (left + seconds * rate as f32).min(most)
        };
        bucket.answers = fill(bucket.answers, l.answers_per_second);
        bucket.bytes = fill(bucket.bytes, l.bytes_per_second);
        bucket.filled_at = now;
    }

    /// Nanoseconds since the start, never 0 (which marks a budget never used).
    fn nanos(&self, now: Instant) -> u64 {
        let d = now.saturating_duration_since(self.start);
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1)
    }

    /// The budget of `from`'s network: its address cut to the prefix, hashed.
    fn index(&self, from: IpAddr) -> usize {
        let network: (u8, u128) = match from {
            IpAddr::V4(a) => (
                4,
                mask(u128::from(u32::from(a)), 32, self.limits.ipv4_prefix),
            ),
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => (
                    4,
                    mask(u128::from(u32::from(v4)), 32, self.limits.ipv4_prefix),
                ),
                None => (6, mask(u128::from(a), 128, self.limits.ipv6_prefix)),
            },
        };
        let h = self.hasher.hash_one(network);
        // (Below the table's size: an index.)
        #[allow(clippy::cast_possible_truncation)]
        let index = (h % (STRIPES * self.per_stripe) as u64) as usize;
        index
    }
}

/// Whether `from` is a loopback address, IPv4 written as IPv6 included.
fn is_loopback(from: IpAddr) -> bool {
    match from {
        IpAddr::V4(a) => a.is_loopback(),
        IpAddr::V6(a) => a
            .to_ipv4_mapped()
            .map_or(a.is_loopback(), |v4| v4.is_loopback()),
    }
}

/// `address` (of `bits` bits) cut to its first `prefix` bits.
fn mask(address: u128, bits: u32, prefix: u8) -> u128 {
    let keep = u32::from(prefix).min(bits);
    if keep == 0 {
        return 0;
    }
    let drop = bits - keep;
    (address >> drop) << drop
}

/// What the limits did, since last taken.
#[derive(Debug, Default)]
pub struct Counters {
    /// Answers over budget replaced by an `RC_ERROR` that sends the client to TCP.
    pub slipped: AtomicU64,
    /// Answers over budget not sent.
    pub dropped: AtomicU64,
    /// Answers too large for UDP, replaced by an `RC_ERROR` that sends the client to TCP.
    pub too_large: AtomicU64,
}

/// [`Counters`] read at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limited {
    /// See [`Counters::slipped`].
    pub slipped: u64,
    /// See [`Counters::dropped`].
    pub dropped: u64,
    /// See [`Counters::too_large`].
    pub too_large: u64,
}

impl Limited {
    /// Whether anything was limited.
    #[must_use]
    pub fn any(&self) -> bool {
        *self != Self::default()
    }
}

impl Counters {
    /// The counts, set back to 0.
    pub fn take(&self) -> Limited {
        Limited {
            slipped: self.slipped.swap(0, Ordering::Relaxed),
            dropped: self.dropped.swap(0, Ordering::Relaxed),
            too_large: self.too_large.swap(0, Ordering::Relaxed),
        }
    }
}

/// How often a server says what it limited, when it limited anything.
pub const REPORT_EVERY: Duration = Duration::from_secs(60);

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(answers: u32, bytes: u32) -> RateLimits {
        RateLimits {
            answers_per_second: answers,
            bytes_per_second: bytes,
            burst_seconds: 1,
            slip: 2,
            table: 1024,
            ..RateLimits::default()
        }
    }

    fn answered(l: &Limiter, from: &str, at: Instant, n: usize) -> usize {
        (0..n)
            .filter(|_| matches!(l.admit_at(from.parse().unwrap(), at), Admission::Answer(_)))
            .count()
    }

    #[test]
    fn a_network_gets_its_burst_then_its_rate() {
        let l = Limiter::new(limits(10, 0), Arc::default());
        let t = Instant::now();
        assert_eq!(answered(&l, "192.0.2.1", t, 50), 10);
        // Half a second later, half a second's answers.
        assert_eq!(
            answered(&l, "192.0.2.77", t + Duration::from_millis(500), 50),
            5
        );
        // Never more than the burst, however long it waited.
        assert_eq!(
            answered(&l, "192.0.2.1", t + Duration::from_secs(60), 50),
            10
        );
    }

    #[test]
    fn networks_have_budgets_of_their_own() {
        let l = Limiter::new(limits(10, 0), Arc::default());
        let t = Instant::now();
        assert_eq!(answered(&l, "192.0.2.1", t, 50), 10);
        // Another /24, and the same address as IPv4 in IPv6 (the same network).
        let other = (1..=20)
            .map(|n| format!("198.51.{n}.1"))
            .find(|a| l.index(a.parse().unwrap()) != l.index("192.0.2.1".parse().unwrap()))
            .unwrap();
        assert_eq!(answered(&l, &other, t, 50), 10);
        assert_eq!(answered(&l, "::ffff:192.0.2.9", t, 50), 0);
        // IPv6: by /56.
        assert_eq!(answered(&l, "2001:db8:0:1::1", t, 50), 10);
        assert_eq!(answered(&l, "2001:db8:0:ff::2", t, 50), 0);
    }

    #[test]
    fn bytes_sent_are_owed_until_the_budget_fills_again() {
        let l = Limiter::new(limits(0, 1000), Arc::default());
        let t = Instant::now();
        let from: IpAddr = "192.0.2.1".parse().unwrap();
        let Admission::Answer(b) = l.admit_at(from, t) else {
            panic!("a full budget answers")
        };
        // An answer larger than the budget is sent whole, and then nothing more...
        l.charge(b, 3000);
        assert_ne!(
            l.admit_at(from, t + Duration::from_secs(1)),
            Admission::Answer(b)
        );
        // ...until what it owed is filled (at 1,000 bytes a second, up to a second's).
        assert_eq!(
            l.admit_at(from, t + Duration::from_millis(2100)),
            Admission::Answer(b)
        );
    }

    #[test]
    fn every_slipth_answer_over_budget_slips() {
        let l = Limiter::new(
            RateLimits {
                slip: 3,
                ..limits(1, 0)
            },
            Arc::default(),
        );
        let t = Instant::now();
        let from: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(matches!(l.admit_at(from, t), Admission::Answer(_)));
        let over: Vec<Admission> = (0..6).map(|_| l.admit_at(from, t)).collect();
        use Admission::{Drop, Slip};
        assert_eq!(over, [Drop, Drop, Slip, Drop, Drop, Slip]);
        let counted = l.counters.take();
        assert_eq!((counted.slipped, counted.dropped), (2, 4));
        assert!(!l.counters.take().any());
    }

    #[test]
    fn loopback_is_not_limited_unless_asked() {
        let t = Instant::now();
        let l = Limiter::new(limits(1, 0), Arc::default());
        assert_eq!(answered(&l, "127.0.0.1", t, 50), 50);
        assert_eq!(answered(&l, "::1", t, 50), 50);
        assert_eq!(answered(&l, "::ffff:127.1.0.2", t, 50), 50);
        let l = Limiter::new(
            RateLimits {
                loopback: true,
                ..limits(1, 0)
            },
            Arc::default(),
        );
        assert_eq!(answered(&l, "127.0.0.1", t, 50), 1);
    }

    #[test]
    fn no_limits_keeps_no_table() {
        let l = Limiter::new(RateLimits::NONE, Arc::default());
        assert_eq!(l.memory(), 0);
        assert_eq!(answered(&l, "192.0.2.1", Instant::now(), 1000), 1000);
        assert!(!l.too_large(1000));
        let capped = Limiter::new(RateLimits::default(), Arc::default());
        assert!(!capped.too_large(4));
        assert!(capped.too_large(5));
    }

    #[test]
    fn the_default_table_takes_a_mebibyte_and_a_half() {
        let l = Limiter::new(RateLimits::default(), Arc::default());
        assert_eq!(std::mem::size_of::<Bucket>(), 24);
        assert!(l.memory() >= (1 << 16) * 24);
        assert!(l.memory() < (1 << 16) * 24 + 64 * 1024);
    }
}
