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
        said.starts_with("hdl record: standard input: values[0] (10320/loc, index 2) is passed over: end of the value: the value ends inside a tag or a tag's text (which runs to a `<`), where the reference's reader fails (SPEC D8)"),
        "{said}"
    );
}

/// The source document's response for `4263537/4000` (PROXY §4), with a 10320/loc value
/// added as L4's example writes it.
const PROXY_RECORD: &str = r#"{"responseCode":1,"handle":"4263537/4000","values":[
{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/4263537","index":200,"permissions":"011111111111"}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"},
{"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"},
{"index":2,"type":"EMAIL","data":{"format":"string","value":"hdladmin@cnri.reston.va.us"},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}]}"#;

const LOC: &str = r#"{"responseCode":1,"handle":"1/2","values":[
{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations><location id=\"0\" href=\"http://uk/\" country=\"gb\" weight=\"0\"/><location id=\"1\" href=\"http://one/\"/><location id=\"2\" href=\"http://two/\"/></locations>"}}]}"#;

#[test]
fn record() {
    let out = hdl(&["record"], PROXY_RECORD.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("record_table", text(&out.stdout));
    let out = hdl(
        &["record", "--json", "--type", "URL", "--type", "EMAIL", "-"],
        PROXY_RECORD.as_bytes(),
    );
    insta::assert_snapshot!("record_json_filtered", text(&out.stdout));
    // The URL the proxy redirects to; none when the filter leaves no URL: status 1.
    let out = hdl(&["record", "--url"], PROXY_RECORD.as_bytes());
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("https://www.handle.net/index.html\n", Some(0))
    );
    let out = hdl(
        &["record", "--url", "--type", "EMAIL"],
        PROXY_RECORD.as_bytes(),
    );
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("", Some(1))
    );
    // 10320/loc: L4's example.
    let url = |args: &[&str]| {
        let out = hdl(&[&["record", "--url"], args].concat(), LOC.as_bytes());
        text(&out.stdout)
    };
    assert_eq!(url(&["--locatt", "id:1"]), "http://one/\n");
    assert_eq!(url(&["--locatt", "id:0"]), "http://uk/\n");
    assert_eq!(url(&["--country", "gb"]), "http://uk/\n");
    for seed in 0..20 {
        let seed = seed.to_string();
        let chosen = url(&["--country", "us", "--seed", &seed]);
        assert!(
            chosen == "http://one/\n" || chosen == "http://two/\n",
            "{chosen}"
        );
        assert_eq!(
            url(&["--country", "us", "--seed", &seed]),
            chosen,
            "a seed repeats"
        );
    }
    // A malformed response: one line on standard error, status 2.
    let out = hdl(
        &["record"],
        br#"{"responseCode":1,"values":[{"index":"1"}]}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "hdl: standard input: values[0].index: expected an integer (SPEC R1, R2)\n"
    );
    let out = hdl(&["record", "no-such-file.json"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hdl: no-such-file.json: "),
        "{}",
        text(&out.stderr)
    );
}

/// Locations with every kind of weight, an `href_template`, a content type, two address
/// ranges that hold one client, and a URL value that `urlWeight` weighs 1.
const CANDIDATES: &str = r#"{"responseCode":1,"handle":"1/2","values":[
{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations urlWeight=\"1\"><location id=\"0\" href=\"http://zero/\" weight=\"-1\"/><location id=\"1\" href_template=\"http://t/{hdl}?p={hdl:path}\" weight=\"2\"/><location id=\"2\" href=\"http://json/\" ctype=\"application/json\"/><location id=\"3\" href=\"http://net/\" addresses=\"192.0.2.0/24, 192.0.2.0/25\"/></locations>"}},
{"index":2,"type":"URL","data":{"format":"string","value":"http://legacy/"}}]}"#;

/// `--url --candidates`: every location the redirect picks from, with its chance (L7);
/// the same for every run, and the redirect lands only where the chance is above 0.
#[test]
fn candidates() {
    let run = |args: &[&str]| {
        let out = hdl(
            &[&["record", "--url", "--candidates"], args].concat(),
            CANDIDATES.as_bytes(),
        );
        (text(&out.stdout), out.status.code())
    };
    let all = "0.000000\thttp://zero/\n0.400000\thttp://t/1%2F2?p=1/2\n0.200000\thttp://json/\n\
               0.200000\thttp://net/\n0.200000\thttp://legacy/\n";
    assert_eq!(run(&[]), (all.to_owned(), Some(0)));
    assert_eq!(run(&[]), run(&[]), "nothing random");
    // Accept: application/json is locatt ctype:application/json (P11).
    assert_eq!(
        run(&["--accept", "application/json", "--urlappend", "#x"]),
        ("1.000000\thttp://json/#x\n".to_owned(), Some(0))
    );
    // A browser asks for HTML: no location says so, all are left.
    assert_eq!(
        run(&[
            "--accept",
            "*/*",
            "--user-agent",
            "Mozilla/5.0",
            "--accept-language",
            "en"
        ])
        .0,
        all
    );
    // Both ranges hold the client: the one location, once.
    assert_eq!(
        run(&["--client-ip", "192.0.2.7"]),
        ("1.000000\thttp://net/\n".to_owned(), Some(0))
    );
    // Nowhere to go: nothing, status 1.
    let out = hdl(
        &["record", "--url", "--candidates", "--type", "EMAIL"],
        PROXY_RECORD.as_bytes(),
    );
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("", Some(1))
    );
    let out = hdl(
        &["record", "--url", "--candidates", "--seed", "1"],
        CANDIDATES.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(2), "--candidates takes no seed");
    for seed in 0..30 {
        let seed = seed.to_string();
        let out = hdl(&["record", "--url", "--seed", &seed], CANDIDATES.as_bytes());
        let url = text(&out.stdout);
        assert!(
            all.lines()
                .any(|l| !l.starts_with("0.000000") && l.ends_with(url.trim_end())),
            "{url}"
        );
    }
}
