//! The server's invariants (`handle_serve::invariants`, which the fuzz targets `serve` and
//! `import` check too) on stable: the corpus as request paths, paths made of the pieces the
//! grammars care about, and import streams that hold every case an import must handle. A
//! seeded generator: the same cases on every run.

use handle_id::record::{RandomSource, SplitMix64};

/// The identifiers of the corpus (tests/corpus): `input` or `id` of each row.
fn corpus_identifiers() -> Vec<String> {
    ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"]
        .iter()
        .flat_map(|file| {
            let path = format!("{}/../tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(path).unwrap();
            text.lines()
                .map(|line| {
                    let row: serde_json::Value = serde_json::from_str(line).unwrap();
                    row.get("input")
                        .or_else(|| row.get("id"))
                        .and_then(serde_json::Value::as_str)
                        .unwrap()
                        .to_owned()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Up to 12 of the pieces request paths are made of, chosen by `random`.
fn pieces(random: &mut SplitMix64) -> String {
    const PIECES: [&str; 24] = [
        "hdl:",
        "doi:",
        "info:doi/",
        "api/handles/",
        "10.",
        "20.1000",
        "5555",
        "loc",
        "1",
        "a",
        "b",
        "/",
        ".",
        "?",
        "&",
        "=",
        "#",
        "%",
        "%2F",
        "%FF",
        "é",
        " ",
        "type=URL",
        "noredirect",
    ];
    let n = random.below(13);
    (0..n).map(|_| PIECES[random.below(PIECES.len())]).collect()
}

#[test]
fn the_server_keeps_its_invariants() {
    // The server's answer to requests: the corpus as paths, and paths made of the pieces.
    for id in corpus_identifiers().iter().take(300) {
        handle_serve::invariants::serve_request(&format!("/{id}"));
        handle_serve::invariants::serve_request(&format!("/api/handles/{id}?pretty"));
    }
    for target in [
        "/",
        "/20.1000/5555?noredirect",
        "/20.1000/loc?locatt=id:1&country=us",
        "/20.1000/loc?action=showurls",
        "/1/a",
        "/api/handles/20.1000/5555?type=URL&callback=f",
        "/api/handles/20.1000/5555?callback=%3Cscript%3E",
        "/20.1000/%FF",
        "/api/handles/x",
    ] {
        handle_serve::invariants::serve_request(target);
    }
    let mut random = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2000 {
        let text = pieces(&mut random);
        handle_serve::invariants::serve_request(&format!("/{text}"));
        handle_serve::invariants::serve_request(&format!("/api/handles/{text}"));
    }
}

#[test]
fn imports_keep_their_invariants() {
    let full = include_str!("../../tests/records/4263537-4000.json");
    let jsonp = include_str!("../../tests/records/4263537-4000-url-email.jsonp");
    // Import streams: records, an empty line, a record replaced, a line that is none.
    let one = full.replace('\n', "");
    let moved = one.replace("www.handle.net", "moved.example");
    handle_serve::invariants::import_stream(&format!("{one}\n\n{moved}\n"));
    handle_serve::invariants::import_stream(&format!("{one}\r\n{jsonp}"));
    handle_serve::invariants::import_stream(&format!("{one}\n{{}}\n{moved}"));
    handle_serve::invariants::import_stream(&format!("{moved}\n{}", &one[..one.len() / 2]));
    // A success without values (stored as 200), a byte order mark, a key twice, a record
    // of more values than a record may hold, a line longer than one may be: the last
    // three refused, and nothing of their streams stored.
    let empty = r#"{"responseCode":1,"handle":"20.1000/empty","values":[]}"#;
    handle_serve::invariants::import_stream(&format!("\u{feff}{empty}\n{one}"));
    handle_serve::invariants::import_stream(&format!(
        "{}\n{one}",
        empty.replace("\"values\"", "\"handle\":\"1/2\",\"values\"")
    ));
    let value = r#"{"index":1,"type":"URL","data":{"format":"string","value":"x"}}"#;
    let many: Vec<String> = (0..=handle_serve::limits::MAX_RECORD_VALUES)
        .map(|i| value.replace("\"index\":1", &format!("\"index\":{i}")))
        .collect();
    let many = empty.replace("[]", &format!("[{}]", many.join(",")));
    handle_serve::invariants::import_stream(&format!("{moved}\n{many}"));
    let long = empty.replace(
        "[]",
        &format!(
            "[{}]",
            value.replace(
                "\"x\"",
                &format!("\"{}\"", "x".repeat(handle_serve::limits::MAX_RECORD_BYTES))
            )
        ),
    );
    handle_serve::invariants::import_stream(&format!("{one}\n{long}"));
}

/// The write API's readers of bodies and `Authorization` headers (SPEC W2, W3): the cases
/// each must handle, then bodies and headers made of the pieces they care about.
#[test]
fn writes_read_bodies_and_credentials_as_they_must() {
    for body in [
        "",
        "[]",
        "null",
        "{}",
        r#"{"values":null}"#,
        r#"{"handle":"20.1000/W","values":[{"index":1,"type":"URL","data":"x"}]}"#,
        r#"{"index":2,"type":"URL","data":{"format":"string","value":"x"}}"#,
        r#"[{"index":1,"type":"URL","data":1},{"index":1,"type":"URL","data":2}]"#,
        r#"[{"index":0,"type":"URL","data":"x"}]"#,
        r#"[{"index":-1,"type":"URL","data":"x"}]"#,
        r#"[{"index":4294967297,"type":"URL","data":"x"}]"#,
        r#"[{"index":1,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/1","index":300,"permissions":"011111111111"}}}]"#,
        r#"[{"index":1,"type":"HS_VLIST","data":{"format":"vlist","value":[{"handle":"1/a","index":1}]}}]"#,
    ] {
        handle_serve::invariants::write_body(body.as_bytes());
    }
    for header in [
        "Basic MzAwJTNBMC5OQSUyRjE6aw==",
        "Basic MzAwJTNBMC5OQSUyRjE6aw",
        "basic\tMzAwJTNBMC5OQSUyRjE6aw==",
        "Basic",
        "Basic =",
        "Basic ====",
        "Basic A",
        "Handle sessionId=\"x\"",
        "Handle version=\"0\", sessionId=\"ab\", cnonce=\"Y24=\", id=\"300%3A0.NA%2F1\", type=\"HS_PUBKEY\", alg=\"SHA256\", signature=\"c2ln\"",
        "Handle id=\"a\\\"b\", type=HS_SECKEY, alg=MD5, signature=\"\", cnonce=x, version=1",
        "handle  sessionId = \"%zz\" ,, foo=bar,",
        "Handle id=\"%ff\"",
        "Handle a=b c=d",
        "",
        "Basic MzAwOjAuTkEvMTpr",
    ] {
        handle_serve::invariants::authorization(header.as_bytes());
    }
    const BODY: [&str; 16] = [
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "\"index\"",
        "\"type\"",
        "\"data\"",
        "\"values\"",
        "\"handle\"",
        "1",
        "0",
        "\"URL\"",
        "\"x\"",
        "null",
    ];
    const AUTH: [&str; 22] = [
        "Basic ",
        "MzAw",
        "JTNB",
        "MC5O",
        "QSUy",
        "RjE6",
        "aw",
        "=",
        " ",
        "+/",
        "Handle ",
        "sessionId",
        "id",
        "cnonce",
        "type",
        "alg",
        "signature",
        "\"",
        ",",
        "\\",
        "%3A",
        "HS_PUBKEY",
    ];
    let mut random = SplitMix64::new(0x2545_F491_4F6C_DD1D);
    for _ in 0..3000 {
        let n = random.below(24);
        let body: String = (0..n).map(|_| BODY[random.below(BODY.len())]).collect();
        handle_serve::invariants::write_body(body.as_bytes());
        let n = random.below(14);
        let header: String = (0..n).map(|_| AUTH[random.below(AUTH.len())]).collect();
        handle_serve::invariants::authorization(header.as_bytes());
    }
}
