//! Fuzz target: see handle_net::invariants::root_info_reads for the invariants it checks
//! (any bytes as a root info file: no panic, read exactly when the format reads, the root's
//! sites its site values that read).
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    handle_net::invariants::root_info_reads(bytes);
});
