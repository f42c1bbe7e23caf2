//! Every byte vector of the reference's encoder (`data/vectors.jsonl`) decodes into the
//! fields its description gives and re-encodes to the same bytes.

mod support;

use support::vectors;

use handle_proto::{
    tcp, AdminRef, Body, Credential, Message, OpCode, OpFlags, ResponseCode, SiteInfo, Ttl,
    WireValue,
};

/// Decodes with the decoder the vector's name calls for, and re-encodes.
fn round_trip(name: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if name.ends_with(".tcp") {
        let (envelope, message) = tcp::unframe(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        return tcp::frame(envelope, &message);
    } else if name.ends_with(".message") {
        Message::decode(bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .encode(&mut out);
    } else if name.starts_with("handle_value.") {
        WireValue::decode(bytes).unwrap().encode(&mut out);
    } else if name.starts_with("hs_admin.") {
        AdminRef::decode(bytes).unwrap().encode(&mut out);
    } else if name.starts_with("hs_site.") {
        SiteInfo::decode(bytes).unwrap().encode(&mut out);
    } else {
        panic!("a vector of no known kind: {name}");
    }
    out
}

#[test]
fn every_vector_decodes_and_re_encodes_to_the_same_bytes() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 15);
    for (name, bytes) in &vectors {
        assert_eq!(&round_trip(name, bytes), bytes, "{name}");
    }
}

#[test]
fn the_vectors_hold_what_their_descriptions_say() {
    let vectors = vectors();
    let get = |name: &str| &vectors.iter().find(|(n, _)| n == name).unwrap().1;

    let (envelope, request) =
        tcp::unframe(get("resolution_request.10.1000_182.type_URL.tcp")).unwrap();
    assert_eq!((envelope.version, envelope.suggested), ((2, 3), (2, 11)));
    assert_eq!(envelope.request_id, 0x0102_0304);
    assert_eq!(request.header.opcode, OpCode::RESOLUTION);
    assert_eq!(request.header.flags, OpFlags::DEFAULT_REQUEST);
    assert_eq!(request.header.expiration, 1_700_000_000);
    assert_eq!(
        request.body,
        Body::ResolutionRequest {
            handle: b"10.1000/182".to_vec(),
            indexes: vec![],
            types: vec![b"URL".to_vec()],
        }
    );
    assert_eq!(request.credential, Credential::Empty);
    // The same request, built.
    let built = Message::resolution(b"10.1000/182", &[b"URL"], &[], 1_700_000_000);
    assert_eq!(built, request);

    let response = Message::decode(get("resolution_response.10.1000_182.message")).unwrap();
    assert_eq!(response.header.response_code, ResponseCode::SUCCESS);
    let Body::Resolution {
        handle,
        values,
        digest,
    } = &response.body
    else {
        panic!("{:?}", response.body)
    };
    assert_eq!((handle.as_slice(), digest), (&b"10.1000/182"[..], &None));
    let summary: Vec<(u32, &str, Ttl)> = values
        .iter()
        .map(|v| (v.index, v.type_str().unwrap(), v.ttl))
        .collect();
    assert_eq!(
        summary,
        [
            (1, "URL", Ttl::Relative(86_400)),
            (2, "EMAIL", Ttl::Relative(86_400)),
            (100, "HS_ADMIN", Ttl::Relative(86_400))
        ]
    );
    assert_eq!(values[0].data, b"http://www.doi.org/hb.html");
    assert!(values
        .iter()
        .all(|v| v.permissions.public_read() && v.timestamp == 1_700_000_000));
    let admin = AdminRef::decode(&values[2].data).unwrap();
    assert_eq!(
        (admin.permissions, &admin.handle[..], admin.index),
        (0x0fff, &b"0.NA/10.1000"[..], 200)
    );

    let error =
        Message::decode(get("error_response.handle_not_found.with_message.message")).unwrap();
    assert_eq!(error.header.response_code, ResponseCode::HANDLE_NOT_FOUND);
    assert_eq!(
        error.body,
        Body::Error {
            digest: None,
            message: b"Handle not found".to_vec()
        }
    );

    let site = SiteInfo::decode(get("hs_site.data.127.0.0.1")).unwrap();
    assert_eq!(
        (site.format_version, site.protocol, site.serial),
        (1, (2, 11), 1)
    );
    assert!(site.is_primary() && !site.is_multi_primary());
    assert_eq!(site.hash(), Some(handle_proto::HashOption::ByHandle));
    assert_eq!(site.attribute("desc"), Some(&b"Test site"[..]));
    let server = &site.servers[0];
    assert_eq!(server.ip().to_string(), "127.0.0.1");
    assert_eq!(server.port(handle_proto::Protocol::Udp), Some(2641));
    assert_eq!(server.port(handle_proto::Protocol::Tcp), Some(2641));
}

/// The global root's values, as shipped: 28 values of `0.NA/0.NA`, each read and written
/// back the same, its sites and service handles typed.
#[test]
fn the_root_info_reads_and_writes_back() {
    let bytes = include_bytes!("../data/root_info");
    let values = handle_proto::root::read(bytes).unwrap();
    assert_eq!(values.len(), 28);
    assert_eq!(handle_proto::root::write(&values), bytes);
    let sites: Vec<SiteInfo> = values
        .iter()
        .filter(|v| v.value_type == b"HS_SITE")
        .map(|v| SiteInfo::decode(&v.data).unwrap())
        .collect();
    assert_eq!(sites.len(), 8);
    let cnri = sites
        .iter()
        .find(|s| s.attribute("desc") == Some(b"CNRI"))
        .unwrap();
    assert!(cnri.is_primary() && cnri.is_multi_primary());
    assert_eq!(cnri.servers[0].ip().to_string(), "38.100.138.131");
    for v in &values {
        let mut out = Vec::new();
        v.encode(&mut out);
        assert_eq!(&WireValue::decode(&out).unwrap(), v);
    }
}
