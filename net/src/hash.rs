//! Which server of a site holds a handle (N10): the MD5 digest of the part of the handle
//! the site hashes by, ASCII upper-cased; its last four bytes as a signed big-endian
//! number; its absolute value modulo the number of servers, as the reference computes it.

use handle_proto::{HashOption, SiteInfo};
use md5::{Digest, Md5};

/// The index into `site.servers` of the server that holds `handle`; `None` for a site
/// without servers or with a hash option the reference does not know.
#[must_use]
pub fn server_index(site: &SiteInfo, handle: &[u8]) -> Option<usize> {
    let n = site.servers.len();
    if n == 0 {
        return None;
    }
    if n == 1 {
        return Some(0);
    }
    let slash = handle.iter().position(|&b| b == b'/');
    let part: &[u8] = match (site.hash()?, slash) {
        (HashOption::ByPrefix, Some(s)) => &handle[..s],
        (HashOption::ByPrefix, None) => b"0.NA",
        (HashOption::BySuffix, Some(s)) => &handle[s + 1..],
        (HashOption::BySuffix | HashOption::ByHandle, _) => handle,
    };
    let upper: Vec<u8> = part.iter().map(u8::to_ascii_uppercase).collect();
    let digest = Md5::digest(&upper);
    let last = i32::from_be_bytes(digest[12..16].try_into().expect("4 bytes"));
    // The reference's `Math.abs`, which leaves i32::MIN negative (and then fails):
    // `unsigned_abs` takes it to 2^31, a valid index.
    Some(last.unsigned_abs() as usize % n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handle_proto::{Interface, Protocol, ServerInfo};

    fn site(hash: u8, servers: usize) -> SiteInfo {
        SiteInfo {
            format_version: 1,
            protocol: (2, 11),
            serial: 1,
            primary_mask: 0x80,
            hash_option: hash,
            hash_filter: Vec::new(),
            attributes: Vec::new(),
            servers: (0..servers)
                .map(|i| ServerInfo {
                    id: i as u32 + 1,
                    address: [0; 16],
                    public_key: Vec::new(),
                    interfaces: vec![Interface::query(Protocol::Udp, 2641)],
                })
                .collect(),
        }
    }

    /// The reference's choices, computed from its rule on these handles.
    #[test]
    fn the_reference_servers_are_chosen() {
        let cases: [(&[u8], u8, [usize; 4]); 7] = [
            (b"10.1000/182", 0, [1, 1, 1, 0]),
            (b"10.1000/182", 1, [1, 1, 1, 4]),
            (b"10.1000/182", 2, [1, 0, 3, 4]),
            (b"TEST/1", 2, [1, 1, 1, 0]),
            (b"0.NA/10.1000", 0, [1, 2, 3, 4]),
            (b"0.NA/10.1000", 2, [1, 1, 1, 1]),
            (b"4263537/4000", 2, [1, 1, 3, 3]),
        ];
        for (handle, hash, expected) in cases {
            for (k, n) in (2..=5).enumerate() {
                assert_eq!(
                    server_index(&site(hash, n), handle),
                    Some(expected[k]),
                    "{} by {hash} over {n}",
                    String::from_utf8_lossy(handle)
                );
            }
        }
        // Lowercase hashes as uppercase.
        assert_eq!(
            server_index(&site(2, 5), b"test/1"),
            server_index(&site(2, 5), b"TEST/1")
        );
        assert_eq!(server_index(&site(7, 3), b"1/2"), None);
    }
}
