//! The server's invariants (`handle_net::invariants`, which the fuzz target `answer` checks
//! too) on requests as clients send them and a few hundred thousand of their mutations:
//! bytes flipped, cut, lengths and counts changed. A seeded generator: the same cases each
//! run.

use handle_proto::invariants::{RandomSource, SplitMix64};
use handle_proto::{udp, Envelope, Message, OpFlags, VERSION};

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

/// N13: what a signing server answers a certified request verifies by its key and no
/// other, on the requests and some of their mutations (each signature costs a few ms).
#[test]
fn certified_answers_verify_by_the_server_s_key_only() {
    let mut random = SplitMix64::new(0x5EED_CE57);
    let (mut asked, mut mutated) = (0, 0);
    for bytes in &datagrams() {
        asked += usize::from(handle_net::invariants::certified_answers_verify(bytes));
        for _ in 0..40 {
            let m = handle_proto::invariants::mutate(bytes, &mut random);
            mutated += usize::from(handle_net::invariants::certified_answers_verify(&m));
        }
    }
    // The one request that asks for a certified answer gets one, and some mutations too.
    assert_eq!(asked, 1);
    assert!(mutated > 0);
}

#[test]
fn answers_keep_their_invariants_on_mutations_of_requests() {
    let mut random = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    for bytes in &datagrams() {
        handle_net::invariants::answers_datagram(bytes);
        for _ in 0..20_000 {
            let m = handle_proto::invariants::mutate(bytes, &mut random);
            handle_net::invariants::answers_datagram(&m);
        }
    }
}

#[test]
fn the_limiter_takes_any_address() {
    let mut random = SplitMix64::new(7);
    for n in [0, 1, 4, 15, 16, 17, 64, 4096] {
        let bytes: Vec<u8> = (0..n).map(|_| random.next_u64() as u8).collect();
        handle_net::invariants::limiter_admits_any_address(&bytes);
    }
    handle_net::invariants::limiter_admits_any_address(&[0; 4096]);
    handle_net::invariants::limiter_admits_any_address(&[255; 4096]);
}

/// Found by the fuzz target: a datagram holding a response (code 4) whose flags ask for a
/// digest of the request got a `PROTOCOL_ERROR` with that flag and no digest, which no
/// client could read (it reads the digest the flag promises).
#[test]
fn a_response_sent_as_a_request_that_asks_for_a_digest_is_answered_with_one() {
    let hex = "80000000008000800000800000000000000000000000000000000001ca9a3bfffb000000000000000000000000000000";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    handle_net::invariants::answers_datagram(&bytes);
}

/// A root info file (`Resolver::from_root_info`): the built-in root, one written of a few
/// values, and some thousands of their mutations.
#[test]
fn root_info_reads_as_its_format_does() {
    use handle_proto::{root, WireValue};
    let written = root::write(&[
        WireValue::new(1, "HS_SITE", b"not a site"),
        WireValue::new(2, "#HS_SITE", b""),
        WireValue::new(3, "URL", b"https://example.org/"),
    ]);
    let mut random = SplitMix64::new(0x0007_2007);
    for bytes in [root::BUILT_IN, &written[..]] {
        handle_net::invariants::root_info_reads(bytes);
        for _ in 0..3000 {
            handle_net::invariants::root_info_reads(&handle_proto::invariants::mutate(
                bytes,
                &mut random,
            ));
        }
    }
    // (The built-in root has sites.)
    let built_in =
        handle_net::resolver::Resolver::from_root_info(None, Default::default()).unwrap();
    assert!(!built_in.root().is_empty());
}
