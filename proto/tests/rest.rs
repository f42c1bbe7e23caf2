//! One model, two encodings: the reference's values, read from the wire, written as the
//! REST API writes them, and back to the same bytes.

mod support;

use handle_proto::{rest, root, Body, Message, WireValue};
use support::vector;

#[test]
fn a_resolution_reads_as_the_rest_api_writes_it() {
    let message = Message::decode(&vector("resolution_response.10.1000_182.message")).unwrap();
    let Body::Resolution { handle, values, .. } = &message.body else {
        panic!()
    };
    let response = rest::response(handle, values).unwrap();
    assert_eq!(
        response.to_json(),
        r#"{"responseCode":1,"handle":"10.1000/182","values":[{"index":1,"type":"URL","data":{"format":"string","value":"http://www.doi.org/hb.html"},"ttl":86400,"timestamp":"2023-11-14T22:13:20Z"},{"index":2,"type":"EMAIL","data":{"format":"string","value":"hdladmin@example.org"},"ttl":86400,"timestamp":"2023-11-14T22:13:20Z"},{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/10.1000","index":200,"permissions":"111111111111"}},"ttl":86400,"timestamp":"2023-11-14T22:13:20Z"}]}"#
    );
    for v in values {
        assert_eq!(&rest::from_rest(&rest::to_rest(v).unwrap()).unwrap(), v);
    }
}

/// Every value of the global root (site records with DSA keys, admin values, a public key,
/// signatures as text, a disabled key as bytes) goes to the REST form and back unchanged,
/// also through the JSON text.
#[test]
fn the_root_values_go_to_rest_and_back() {
    let values = root::read(include_bytes!("../data/root_info")).unwrap();
    let formats: Vec<String> = values
        .iter()
        .map(|v| rest::to_rest(v).unwrap().data().format().to_owned())
        .collect();
    for format in ["site", "admin", "key", "string", "base64"] {
        assert!(formats.iter().any(|f| f == format), "{format}: {formats:?}");
    }
    let response = rest::response(b"0.NA/0.NA", &values).unwrap();
    let again = handle_id::record::Response::parse(&response.to_json()).unwrap();
    let back: Vec<WireValue> = again
        .values()
        .iter()
        .map(|v| rest::from_rest(v).unwrap())
        .collect();
    assert_eq!(back, values);
}
