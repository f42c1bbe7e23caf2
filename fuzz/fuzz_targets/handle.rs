//! Fuzz target: see handle_id_fuzz::handle_bytes for the invariants it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| handle_id_fuzz::handle_bytes(data));
