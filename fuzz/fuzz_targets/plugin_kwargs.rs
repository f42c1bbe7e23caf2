//! Fuzz target: see handle_id_fuzz::plugin_kwargs for the invariants it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| handle_id_fuzz::plugin_kwargs(data));
