//! The decoders' invariants (`handle_proto::invariants`, which the fuzz target checks
//! too) on the reference's vectors and a few hundred thousand of their mutations: bytes
//! flipped, cut, lengths and counts changed. A seeded generator: the same cases each run.

mod support;

use handle_proto::invariants::SplitMix64;

#[test]
fn decoders_round_trip_on_mutations_of_the_vectors() {
    let mut inputs: Vec<Vec<u8>> = support::vectors().into_iter().map(|(_, b)| b).collect();
    inputs.push(include_bytes!("../data/root_info").to_vec());
    let mut random = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    for bytes in &inputs {
        handle_proto::invariants::decoders_round_trip(bytes);
        for _ in 0..20_000 {
            let m = handle_proto::invariants::mutate(bytes, &mut random);
            handle_proto::invariants::decoders_round_trip(&m);
        }
    }
}
