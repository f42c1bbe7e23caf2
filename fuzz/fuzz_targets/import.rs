//! Fuzz target: see handle_serve::invariants::import_stream for the invariants it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        handle_serve::invariants::import_stream(text);
    }
});
