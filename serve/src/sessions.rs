//! The sessions of the `Handle` authorisation scheme (SPEC W3): each a server nonce that a
//! client signs with its key, and, once it has, the identity it proved, as HANDLE.NET's
//! REST API keeps them (`HandleAuthenticationStatus` in its HTTP sessions). A session is
//! named by a random id, sent back in `Authorization: Handle sessionId="…"`; it ends when
//! it has not been used for [`IDLE`], when the client deletes it, or when the table is full
//! and it is the least recently used of its kind.
//!
//! Memory is bounded by design: a session is its id's digest (32 bytes, the map's key),
//! its nonce (16), its last use (16) and at most an identity ([`auth::MAX_IDENTITY`]
//! bytes of handle and its index), with the map's own word or two: about 120 bytes
//! without an identity, and at most about 1,150 with one. At most [`MAX_PENDING`]
//! sessions without an identity (anyone may open one: a flood of them evicts only its
//! own kind) and [`MAX_AUTHENTICATED`] with one are kept: about 0.5 MiB and 4.5 MiB.
//!
//! Ids are kept as their SHA-256 digest, so that looking one up compares digests, not the
//! secret itself: how long a comparison takes says nothing of the ids held.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::auth::{self, Identity};

/// How long a session lives unused (the reference's `session_timeout_seconds`, as its
/// configurations set it).
pub const IDLE: Duration = Duration::from_secs(30 * 60);

/// The most sessions kept that have proved no identity.
pub const MAX_PENDING: usize = 4096;

/// The most sessions kept that have.
pub const MAX_AUTHENTICATED: usize = 4096;

/// The length of a server nonce, as the reference's (`CHALLENGE_NONCE_SIZE`).
pub const NONCE_LEN: usize = 16;

struct Session {
    nonce: [u8; NONCE_LEN],
    last: Instant,
    identity: Option<Identity>,
}

/// What a session holds, as a request sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionState {
    /// The id, as the client sends it.
    pub id: String,
    pub nonce: [u8; NONCE_LEN],
    /// The identity proved in it, if any.
    pub identity: Option<Identity>,
}

/// The sessions of one server.
pub struct Sessions {
    inner: Mutex<HashMap<[u8; 32], Session>>,
    idle: Duration,
    max_pending: usize,
    max_authenticated: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new()
    }
}

fn digest(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

impl Sessions {
    /// An empty table with the bounds above.
    #[must_use]
    pub fn new() -> Self {
        Self::with_bounds(IDLE, MAX_PENDING, MAX_AUTHENTICATED)
    }

    /// An empty table with other bounds (for tests).
    #[must_use]
    pub fn with_bounds(idle: Duration, max_pending: usize, max_authenticated: usize) -> Self {
        Self {
            inner: Mutex::new(HashMap::new()),
            idle,
            max_pending: max_pending.max(1),
            max_authenticated: max_authenticated.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Session>> {
        // A panic while held leaves a map that is still whole: go on with it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new session, with a fresh nonce.
    #[must_use]
    pub fn open(&self, now: Instant) -> SessionState {
        let mut bytes = [0_u8; 16];
        let mut nonce = [0_u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut map = self.lock();
        self.make_room(&mut map, false, now);
        map.insert(
            digest(&id),
            Session {
                nonce,
                last: now,
                identity: None,
            },
        );
        SessionState {
            id,
            nonce,
            identity: None,
        }
    }

    /// The session named `id`, if it is alive: its use now noted.
    #[must_use]
    pub fn get(&self, id: &str, now: Instant) -> Option<SessionState> {
        let mut map = self.lock();
        let key = digest(id);
        let session = map.get_mut(&key)?;
        if now.saturating_duration_since(session.last) > self.idle {
            map.remove(&key);
            return None;
        }
        session.last = now;
        Some(SessionState {
            id: id.to_owned(),
            nonce: session.nonce,
            identity: session.identity.clone(),
        })
    }

    /// Notes that the session `id` proved `identity` (another, proved later, replaces it).
    /// False when the session is no longer there.
    pub fn authenticate(&self, id: &str, identity: Identity, now: Instant) -> bool {
        if identity.handle.as_str().len() > auth::MAX_IDENTITY {
            return false;
        }
        let mut map = self.lock();
        let key = digest(id);
        let was_pending = match map.get(&key) {
            Some(s) => s.identity.is_none(),
            None => return false,
        };
        if was_pending {
            // Its kind changes: room among the authenticated, this one kept.
            let taken = map.remove(&key);
            self.make_room(&mut map, true, now);
            if let Some(s) = taken {
                map.insert(key, s);
            }
        }
        if let Some(s) = map.get_mut(&key) {
            s.identity = Some(identity);
            s.last = now;
            return true;
        }
        false
    }

    /// Ends the session `id`; false when there was none.
    pub fn close(&self, id: &str) -> bool {
        self.lock().remove(&digest(id)).is_some()
    }

    /// How many sessions are kept: (without an identity, with one).
    #[must_use]
    pub fn len(&self) -> (usize, usize) {
        let map = self.lock();
        let with = map.values().filter(|s| s.identity.is_some()).count();
        (map.len() - with, with)
    }

    /// Whether no session is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Room for one more session of its kind: when the kind is at its bound, the expired
    /// sessions go, and then, if none did, the least recently used of the kind. A scan of
    /// the table, only when a kind is full.
    fn make_room(&self, map: &mut HashMap<[u8; 32], Session>, authenticated: bool, now: Instant) {
        let bound = if authenticated {
            self.max_authenticated
        } else {
            self.max_pending
        };
        let count = map
            .values()
            .filter(|s| s.identity.is_some() == authenticated)
            .count();
        if count < bound {
            return;
        }
        let idle = self.idle;
        map.retain(|_, s| now.saturating_duration_since(s.last) <= idle);
        let mut of_kind: Vec<([u8; 32], Instant)> = map
            .iter()
            .filter(|(_, s)| s.identity.is_some() == authenticated)
            .map(|(k, s)| (*k, s.last))
            .collect();
        if of_kind.len() < bound {
            return;
        }
        of_kind.sort_by_key(|(_, last)| *last);
        for (key, _) in of_kind.iter().take(of_kind.len() + 1 - bound) {
            map.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handle_id::Handle;

    fn who(h: &str) -> Identity {
        Identity {
            handle: Handle::parse(h).unwrap(),
            index: 300,
        }
    }

    #[test]
    fn a_session_is_found_by_its_id_until_it_idles_out() {
        let s = Sessions::with_bounds(Duration::from_secs(10), 8, 8);
        let t = Instant::now();
        let a = s.open(t);
        assert_eq!(a.id.len(), 32);
        let b = s.open(t);
        assert_ne!(a.id, b.id);
        assert_ne!(a.nonce, b.nonce);
        assert_eq!(s.get(&a.id, t + Duration::from_secs(5)), Some(a.clone()));
        // Used at 5 s: alive at 14 s, gone at 26 s.
        assert!(s.get(&a.id, t + Duration::from_secs(14)).is_some());
        assert!(s.get(&a.id, t + Duration::from_secs(26)).is_none());
        assert!(s.get("no such id", t).is_none());
        assert!(s.get(&a.id.to_uppercase(), t).is_none());
        assert!(s.authenticate(&b.id, who("0.NA/1"), t));
        assert_eq!(s.get(&b.id, t).unwrap().identity, Some(who("0.NA/1")));
        assert!(s.close(&b.id));
        assert!(!s.close(&b.id));
        assert!(s.get(&b.id, t).is_none());
        assert!(!s.authenticate(&b.id, who("0.NA/1"), t));
    }

    #[test]
    fn a_flood_of_new_sessions_evicts_only_its_own_kind() {
        let s = Sessions::with_bounds(Duration::from_secs(1000), 4, 2);
        let t = Instant::now();
        let kept = s.open(t);
        assert!(s.authenticate(&kept.id, who("0.NA/1"), t));
        for i in 0..100 {
            let _ = s.open(t + Duration::from_millis(i));
        }
        assert_eq!(s.len(), (4, 1));
        assert!(s.get(&kept.id, t).is_some());
        // Authenticated sessions past their bound: the least recently used goes.
        let a = s.open(t + Duration::from_secs(1));
        let b = s.open(t + Duration::from_secs(2));
        assert!(s.get(&kept.id, t + Duration::from_secs(3)).is_some());
        assert!(s.authenticate(&a.id, who("0.NA/2"), t + Duration::from_secs(4)));
        assert!(s.authenticate(&b.id, who("0.NA/3"), t + Duration::from_secs(5)));
        assert_eq!(s.len().1, 2);
        assert!(s.get(&kept.id, t + Duration::from_secs(6)).is_none());
        assert!(s.get(&a.id, t + Duration::from_secs(6)).is_some());
        assert!(s.get(&b.id, t + Duration::from_secs(6)).is_some());
    }
}
