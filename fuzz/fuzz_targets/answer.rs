//! Fuzz target: see handle_net::invariants for the invariants it checks (any bytes as a
//! datagram to the protocol server: answered without panic, the answer re-reads as itself,
//! a refusal no larger than the request by more than a fixed amount; any addresses
//! through the UDP limiter's table; a certified answer verifies by the server's key and
//! by no other, and any bytes as an answer are checked without panic).
#![no_main]
libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    handle_net::invariants::answers_datagram(bytes);
    let _ = handle_net::invariants::certified_answers_verify(bytes);
    handle_net::invariants::limiter_admits_any_address(bytes);
});
