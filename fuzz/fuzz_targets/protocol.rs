//! Fuzz target: see handle_proto::invariants::decoders_round_trip for the invariants it
//! checks (every decoder of the Handle protocol on any bytes: no panic, and what decodes
//! re-encodes to the same bytes).
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    handle_proto::invariants::decoders_round_trip(bytes);
});
