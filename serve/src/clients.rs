//! The connections each client address holds at once, so that one client cannot take every
//! connection the server serves (`Config::max_connections_per_client`).
//!
//! Memory: one map entry an address (an IPv6 /64) with a connection open (an address and a count, about
//! 40 bytes with the map's own), so at most `max_connections` entries; an address whose
//! last connection closes is taken out.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// The open connections by client address.
#[derive(Debug)]
pub struct Clients {
    most: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// A connection counted for its client address until dropped.
#[derive(Debug)]
pub struct Slot {
    clients: Arc<Clients>,
    ip: IpAddr,
}

impl Clients {
    /// At most `most` connections an address (at least 1).
    #[must_use]
    pub fn new(most: usize) -> Arc<Self> {
        Arc::new(Self {
            most: most.max(1),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for a connection from `ip`, or `None` when that address holds the most
    /// already. (An IPv4 address mapped into IPv6 is the IPv4 address, and the IPv6
    /// addresses of one /64 network are one address, as one host is given a /64 to pick
    /// from: one client.)
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let ip = client(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(ip).or_insert(0);
        if *n >= self.most {
            return None;
        }
        *n += 1;
        Some(Slot {
            clients: self.clone(),
            ip,
        })
    }

    /// How many addresses hold a connection.
    #[must_use]
    pub fn addresses(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The client an address is counted as: an IPv4 address as itself, also mapped into IPv6 or
/// behind the well-known NAT64 prefix (`64:ff9b::/96`, where a /64 holds every IPv4
/// client); a Teredo address (`2001::/32`, whose client is in its low bits) as itself; any
/// other IPv6 address as its /64.
fn client(ip: IpAddr) -> IpAddr {
    let v6 = match ip.to_canonical() {
        IpAddr::V6(v6) => v6,
        v4 => return v4,
    };
    let bits = u128::from(v6);
    if bits >> 32 == 0x0064_ff9b_u128 << 64 {
        return IpAddr::V4((bits as u32).into());
    }
    if bits >> 96 == 0x2001_0000 {
        return IpAddr::V6(v6);
    }
    IpAddr::V6((bits & !u128::from(u64::MAX)).into())
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self
            .clients
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_share_and_is_forgotten_when_it_holds_none() {
        let clients = Clients::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        let first = clients.admit(a).unwrap();
        let second = clients.admit(mapped).unwrap();
        assert!(
            clients.admit(a).is_none(),
            "the mapped address is the same client"
        );
        let other = clients.admit(b).unwrap();
        let same_network = clients.admit("2001:db8::2:1".parse().unwrap()).unwrap();
        assert!(clients.admit("2001:db8::ffff:1".parse().unwrap()).is_none());
        let next_network = clients.admit("2001:db8:0:1::1".parse().unwrap()).unwrap();
        assert_eq!(clients.addresses(), 3);
        // Behind NAT64, each IPv4 client is itself; over Teredo, each address is.
        let nat64: IpAddr = "64:ff9b::192.0.2.1".parse().unwrap();
        assert!(clients.admit(nat64).is_none(), "the IPv4 client a's third");
        assert!(clients
            .admit("64:ff9b::192.0.2.2".parse().unwrap())
            .is_some());
        let teredo = clients.admit("2001:0:4136:e378:8000:63bf:3fff:fdd2".parse().unwrap());
        assert!(teredo.is_some());
        assert!(clients
            .admit("2001:0:4136:e378:8000:63bf:3fff:fdd3".parse().unwrap())
            .is_some());
        drop(first);
        let third = clients.admit(a).unwrap();
        drop((second, third, other, same_network, next_network, teredo));
        assert_eq!(clients.addresses(), 0);
    }
}
