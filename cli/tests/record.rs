//! `hdl record` as a user runs it: what it accepts and refuses of a response.

mod support;

use support::{hdl, text, TempDir};

const RECORD: &str = r#"{"responseCode":1,"handle":"4263537/4000","values":[{"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"}}]}"#;

/// A UTF-8 byte order mark before the JSON (Notepad writes one) is read past, in a file and
/// on standard input.
#[test]
fn a_byte_order_mark_is_read_past() {
    let with_bom = format!("\u{feff}{RECORD}\n");
    let out = hdl(&["record", "--json"], with_bom.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{RECORD}\n"));
    let dir = TempDir::new("record-bom");
    let file = dir.path().join("bom.json");
    std::fs::write(&file, &with_bom).unwrap();
    let out = hdl(&["record", "--url", file.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "https://www.handle.net/index.html\n");
}

/// A key twice, or two values with one index: refused, status 2, with where and which key.
#[test]
fn repeated_keys_and_indexes_are_refused() {
    let cases = [
        (
            r#"{"responseCode":1,"handle":"1/2","handle":"1/3","values":[]}"#.to_owned(),
            "hdl: standard input: line 1, column 41: duplicate key \"handle\" in one object (SPEC R1, R2)\n",
        ),
        (
            r#"{"responseCode":1,"handle":"1/2","values":[{"index":1,"index":2,"type":"URL","data":{"format":"string","value":"x"}}]}"#.to_owned(),
            "hdl: standard input: line 1, column 61: duplicate key \"index\" in one object (SPEC R1, R2)\n",
        ),
        (
            RECORD.replace("}}]}", "}},{\"index\":1,\"type\":\"EMAIL\",\"data\":{\"format\":\"string\",\"value\":\"a@b\"}}]}"),
            "hdl: standard input: values[1].index: 1 is the index of values[0] too (SPEC R2: an index names one value of a record)\n",
        ),
    ];
    for (input, said) in cases {
        let out = hdl(&["record", "--json"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input}");
        assert_eq!(text(&out.stderr), said, "{input}");
        assert!(out.stdout.is_empty());
    }
}

/// `--url` with a `10320/loc` value that does not read: passed over, as the proxy passes it
/// over, and said on standard error; the URL value is where the proxy redirects.
#[test]
fn an_unreadable_location_value_is_passed_over() {
    let input = RECORD.replace(
        r#""values":["#,
        r#""values":[{"index":2,"type":"10320/loc","data":{"format":"string","value":"<locations><location href="}},"#,
    );
    let out = hdl(&["record", "--url"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "https://www.handle.net/index.html\n");
    let said = text(&out.stderr);
    assert!(
        said.starts_with("hdl record: standard input: values[0] (10320/loc, index 2) is passed over: line 1, column 1: not well-formed XML"),
        "{said}"
    );
}
