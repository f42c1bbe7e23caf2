//! The decoders' invariants (`handle_proto::invariants`, which the fuzz target checks
//! too) on the reference's vectors and a few hundred thousand of their mutations: bytes
//! flipped, cut, lengths and counts changed. A seeded generator: the same cases each run.

mod support;

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

#[test]
fn decoders_round_trip_on_mutations_of_the_vectors() {
    let mut inputs: Vec<Vec<u8>> = support::vectors().into_iter().map(|(_, b)| b).collect();
    inputs.push(include_bytes!("../data/root_info").to_vec());
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    for bytes in &inputs {
        handle_proto::invariants::decoders_round_trip(bytes);
        for _ in 0..20_000 {
            let mut m = bytes.clone();
            match random.below(5) {
                0 => {
                    let i = random.below(m.len());
                    m[i] ^= 1 << random.below(8);
                }
                1 => m.truncate(random.below(m.len())),
                2 => {
                    // A 4-byte length or count set to something near or far.
                    let i = random.below(m.len().saturating_sub(4).max(1));
                    let n = [0, 1, 2, 255, 0x7fff_ffff, 0xffff_ffff][random.below(6)];
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
            handle_proto::invariants::decoders_round_trip(&m);
        }
    }
}
