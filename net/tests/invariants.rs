//! The server's invariants (`handle_net::invariants`, which the fuzz target `answer` checks
//! too) on requests as clients send them and a few hundred thousand of their mutations:
//! bytes flipped, cut, lengths and counts changed. A seeded generator: the same cases each
//! run.

use handle_proto::{udp, Envelope, Message, OpFlags, VERSION};

/// xorshift64*: enough to spread mutations, the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Requests as datagrams: resolutions (with filters, a digest asked for, a certified
/// answer asked for) and site info.
fn datagrams() -> Vec<Vec<u8>> {
    let mut messages = vec![
        Message::resolution(b"TEST/1", &[], &[], 2_000),
        Message::resolution(b"TEST/large", &[b"DESC"], &[3], 2_000),
        Message::resolution(b"TEST", &[], &[], 2_000),
        Message::resolution(b"TEST/none", &[], &[], 2_000),
        Message::site_info_request(2_000),
    ];
    let mut digest = Message::resolution(b"TEST/1", &[b"URL"], &[], 2_000);
    digest.header.flags = digest
        .header
        .flags
        .with(OpFlags::RETURN_REQUEST_DIGEST, true);
    let mut certified = Message::resolution(b"TEST/1", &[], &[], 2_000);
    certified.header.flags = certified.header.flags.with(OpFlags::CERT, true);
    messages.extend([digest, certified]);
    messages
        .iter()
        .map(|m| {
            let bytes = m.to_bytes();
            let envelope = Envelope::new(VERSION, 77, bytes.len() as u32);
            let mut out = Vec::new();
            udp::write_datagram(envelope, &bytes, 0, &mut out);
            out
        })
        .collect()
}

#[test]
fn answers_keep_their_invariants_on_mutations_of_requests() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    for bytes in &datagrams() {
        handle_net::invariants::answers_datagram(bytes);
        for _ in 0..20_000 {
            let mut m = bytes.clone();
            match random.below(5) {
                0 => {
                    let i = random.below(m.len());
                    m[i] ^= 1 << random.below(8);
                }
                1 => m.truncate(random.below(m.len())),
                2 => {
                    // A 4-byte length, count, opcode or flags set to something near or far.
                    let i = random.below(m.len().saturating_sub(4).max(1));
                    let n = [0, 1, 2, 3, 255, 0x7fff_ffff, 0xffff_ffff][random.below(7)];
                    for (k, b) in u32::to_be_bytes(n).into_iter().enumerate() {
                        if let Some(slot) = m.get_mut(i + k) {
                            *slot = b;
                        }
                    }
                }
                3 => {
                    let i = random.below(m.len() + 1);
                    m.insert(i, random.next() as u8);
                }
                _ => {
                    let i = random.below(m.len());
                    m.remove(i);
                }
            }
            handle_net::invariants::answers_datagram(&m);
        }
    }
}

#[test]
fn the_limiter_takes_any_address() {
    let mut random = Random(7);
    for n in [0, 1, 4, 15, 16, 17, 64, 4096] {
        let bytes: Vec<u8> = (0..n).map(|_| random.next() as u8).collect();
        handle_net::invariants::limiter_admits_any_address(&bytes);
    }
    handle_net::invariants::limiter_admits_any_address(&[0; 4096]);
    handle_net::invariants::limiter_admits_any_address(&[255; 4096]);
}
