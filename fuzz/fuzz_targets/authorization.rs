//! Fuzz target: see handle_serve::invariants::authorization for the invariants it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    handle_serve::invariants::authorization(data);
});
