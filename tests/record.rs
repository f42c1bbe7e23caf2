//! Handle records (SPEC R1–R5) and `10320/loc` values (L1–L4): the source document's two
//! responses, the proxy's selection, L4's example, round trips, and hostile input.
#![cfg(feature = "json")]

use handle_id::record::{
    AdminPermissions, ClientContext, Data, Filter, HandleValue, Location, Locations,
    RecordErrorKind, Response, ResponseCode, SplitMix64, Ttl,
};
use handle_id::Handle;
use proptest::prelude::*;

const FULL: &str = include_str!("records/4263537-4000.json");
const FILTERED: &str = include_str!("records/4263537-4000-url-email.jsonp");

/// A response as a reader sees it: code, handle, and each value with its data by format.
fn describe(r: &Response) -> String {
    let mut out = format!(
        "code {} ({}, HTTP {})\nhandle {:?}\n",
        r.code().as_u32(),
        r.code().meaning(),
        r.code().http_status(),
        r.handle().map(Handle::as_str)
    );
    for v in r.values() {
        let data = match v.data() {
            Data::String(s) => format!("string {s:?}"),
            Data::Admin(a) => format!(
                "admin {}:{} permissions {} = {}",
                a.admin.index,
                a.admin.handle,
                a.permissions,
                a.permissions.names().collect::<Vec<_>>().join(" ")
            ),
            other => format!("{other:?}"),
        };
        out.push_str(&format!(
            "  {} {} {data} ttl {:?} timestamp {:?}\n",
            v.index(),
            v.value_type(),
            v.ttl(),
            v.timestamp()
        ));
    }
    out
}

#[test]
fn the_source_documents_responses() {
    let full = Response::parse(FULL).unwrap();
    insta::assert_snapshot!(
        "full",
        format!("{}\n{}", describe(&full), full.to_json_pretty())
    );
    let filtered = Response::parse(FILTERED).unwrap();
    insta::assert_snapshot!(
        "url_and_email_jsonp",
        format!(
            "{}\n{}",
            describe(&filtered),
            filtered.to_jsonp("processResponse").unwrap()
        )
    );
    // The second is the first filtered by `type=URL&type=EMAIL` (R4), written as JSONP (R5).
    let asked = full.filtered(&Filter::new().value_type("URL").value_type("EMAIL"));
    assert_eq!(asked, filtered);
    assert_eq!(
        Response::parse(&asked.to_jsonp("processResponse").unwrap()).unwrap(),
        filtered
    );
}

#[test]
fn response_codes_r1() {
    for (code, status, meaning) in [
        (1, 200, "success"),
        (2, 500, "error"),
        (100, 404, "handle not found"),
        (101, 409, "handle already exists"),
        (102, 400, "invalid handle"),
        (200, 200, "values not found"),
        (301, 400, "server not responsible for handle"),
        (999, 500, "unknown response code"),
    ] {
        let c = ResponseCode::from_u32(code);
        assert_eq!(
            (c.as_u32(), c.http_status(), c.meaning()),
            (code, status, meaning)
        );
        let r = Response::parse(&format!(
            r#"{{"responseCode":{code},"handle":"1/2","message":"m"}}"#
        ))
        .unwrap();
        assert_eq!((r.code(), r.message()), (c, Some("m")));
    }
    // Filters that leave nothing: values not found, still HTTP 200.
    let none = Response::parse(FULL)
        .unwrap()
        .filtered(&Filter::new().index(7));
    assert_eq!(
        (none.code(), none.values().len()),
        (ResponseCode::ValuesNotFound, 0)
    );
}

#[test]
fn type_filters_select_subtypes_r4() {
    let value = |t: &str| HandleValue::new(1, t, Data::String(String::new()));
    assert!(value("HS_SITE.PREFIX").has_type("HS_SITE."));
    assert!(value("HS_SITE").has_type("HS_SITE."));
    assert!(!value("HS_SITEX").has_type("HS_SITE."));
    assert!(!value("HS_SITE.PREFIX").has_type("HS_SITE"));
    let f = Filter::new().index(2).value_type("URL");
    assert!(f.selects(&HandleValue::new(2, "EMAIL", Data::String(String::new()))));
    assert!(f.selects(&value("URL")));
    assert!(!f.selects(&value("EMAIL")));
}

#[test]
fn data_by_format_r3() {
    let json = r#"{"responseCode":1,"handle":"1/2","values":[
      {"index":1,"type":"A","data":{"format":"base64","value":"aGVsbG8="}},
      {"index":2,"type":"B","data":{"format":"hex","value":"68656C6c6f"}},
      {"index":3,"type":"HS_VLIST","data":{"format":"vlist","value":[{"handle":"1/3","index":1}]}},
      {"index":4,"type":"HS_SITE","data":{"format":"site","value":{"version":1,"servers":[]}}},
      {"index":5,"type":"C","data":{"format":"key","value":{"anything":true}}},
      {"index":6,"type":"D","data":{"format":"string","value":"x"},"ttl":"2030-01-01T00:00:00Z",
       "permissions":"1110","references":[{"handle":"1/4","index":9}]}]}"#;
    let r = Response::parse(json).unwrap();
    let v = r.values();
    assert!(
        matches!(v[0].data(), Data::Base64 { bytes, text } if bytes == b"hello" && text == "aGVsbG8=")
    );
    assert!(matches!(v[1].data(), Data::Hex { bytes, .. } if bytes == b"hello"));
    assert!(
        matches!(v[2].data(), Data::Vlist(l) if l[0].handle.as_str() == "1/3" && l[0].index == 1)
    );
    assert!(matches!(v[3].data(), Data::Site(s) if s["version"] == 1));
    assert!(matches!(v[4].data(), Data::Other { format, .. } if format == "key"));
    assert_eq!(v[5].ttl(), Some(&Ttl::Until("2030-01-01T00:00:00Z".into())));
    assert_eq!(
        (v[5].permissions(), v[5].references().unwrap()[0].index),
        (Some("1110"), 9)
    );
    // Written back, every field and its text as it was.
    assert_eq!(Response::parse(&r.to_json()).unwrap(), r);
    let admin =
        AdminPermissions::from_bits(AdminPermissions::READ_VALUE | AdminPermissions::ADD_HANDLE);
    assert_eq!(admin.to_string(), "010000000001");
    assert_eq!(
        admin.names().collect::<Vec<_>>(),
        ["add-handle", "read-value"]
    );
}

#[track_caller]
fn refused(text: &str, kind: RecordErrorKind, at: &str) {
    let e = Response::parse(text).unwrap_err();
    let shown: String = text.chars().take(80).collect();
    assert_eq!((e.kind(), e.at()), (kind, at), "{shown}: {e}");
    assert!(!e.to_string().is_empty());
}

/// Huge values: read, kept whole, and written back, at a cost proportional to their size.
#[test]
fn huge_values() {
    let text = "x".repeat(8 << 20);
    let bytes = vec![0xA5_u8; 1 << 20];
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let json = format!(
        r#"{{"responseCode":1,"handle":"1/2","values":[{{"index":1,"type":"URL","data":{{"format":"string","value":"{text}"}}}},{{"index":2,"type":"B","data":{{"format":"hex","value":"{hex}"}}}}]}}"#
    );
    let r = Response::parse(&json).unwrap();
    assert_eq!(r.values()[0].as_text().map(str::len), Some(8 << 20));
    assert!(matches!(r.values()[1].data(), Data::Hex { bytes: b, .. } if *b == bytes));
    assert_eq!(r.to_json(), json);
    // The largest integer of 64 bits, kept exactly in a value of an unknown format; a number
    // beyond what a 64-bit float holds is refused where it is (serde_json reads numbers so,
    // without its `arbitrary_precision`, which would change every user's serde_json).
    let json = r#"{"responseCode":1,"values":[{"index":1,"type":"A","data":{"format":"x","value":18446744073709551615}}]}"#;
    assert_eq!(Response::parse(json).unwrap().to_json(), json);
    let big = "9".repeat(400);
    refused(
        &format!(
            r#"{{"responseCode":1,"values":[{{"index":1,"type":"A","data":{{"format":"x","value":{big}}}}}]}}"#
        ),
        RecordErrorKind::Json,
        "line 1, column 479",
    );
    // An index beyond 32 bits is an error, not a wrap.
    refused(
        r#"{"responseCode":1,"values":[{"index":99999999999999999999,"type":"A","data":{"format":"string","value":""}}]}"#,
        RecordErrorKind::Number,
        "values[0].index",
    );
}

#[test]
fn bad_responses_are_clear_errors() {
    refused("", RecordErrorKind::Json, "line 1, column 0");
    refused(
        "{\"responseCode\":1,",
        RecordErrorKind::Json,
        "line 1, column 18",
    );
    refused("[]", RecordErrorKind::Shape, "response");
    refused("{}", RecordErrorKind::Shape, "responseCode");
    refused(
        r#"{"responseCode":"1"}"#,
        RecordErrorKind::Shape,
        "responseCode",
    );
    refused(
        r#"{"responseCode":4294967296}"#,
        RecordErrorKind::Number,
        "responseCode",
    );
    refused(
        r#"{"responseCode":1,"handle":"no slash"}"#,
        RecordErrorKind::Handle,
        "handle",
    );
    refused(
        r#"{"responseCode":1,"values":{}}"#,
        RecordErrorKind::Shape,
        "values",
    );
    let value = |v: &str| format!(r#"{{"responseCode":1,"handle":"1/2","values":[{v}]}}"#);
    refused(
        &value(r#"{"type":"URL","data":{"format":"string","value":"x"}}"#),
        RecordErrorKind::Shape,
        "values[0].index",
    );
    refused(
        &value(r#"{"index":-1,"type":"URL","data":{"format":"string","value":"x"}}"#),
        RecordErrorKind::Number,
        "values[0].index",
    );
    refused(
        &value(r#"{"index":1,"type":"URL","data":{"format":"string","value":7}}"#),
        RecordErrorKind::Shape,
        "values[0].data.value",
    );
    refused(
        &value(r#"{"index":1,"type":"A","data":{"format":"base64","value":"a$=="}}"#),
        RecordErrorKind::Base64,
        "values[0].data.value",
    );
    refused(
        &value(r#"{"index":1,"type":"A","data":{"format":"base64","value":"abcde"}}"#),
        RecordErrorKind::Base64,
        "values[0].data.value",
    );
    refused(
        &value(r#"{"index":1,"type":"A","data":{"format":"hex","value":"abc"}}"#),
        RecordErrorKind::Hex,
        "values[0].data.value",
    );
    refused(
        &value(r#"{"index":1,"type":"A","data":{"format":"hex","value":"zz"}}"#),
        RecordErrorKind::Hex,
        "values[0].data.value",
    );
    refused(
        &value(
            r#"{"index":1,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/1","index":200,"permissions":"01x"}}}"#,
        ),
        RecordErrorKind::Permissions,
        "values[0].data.value.permissions",
    );
    refused(
        &value(
            r#"{"index":1,"type":"HS_VLIST","data":{"format":"vlist","value":[{"handle":"bad","index":1}]}}"#,
        ),
        RecordErrorKind::Handle,
        "values[0].data.value[0].handle",
    );
    refused(
        &value(r#"{"index":1,"type":"A","data":{"format":"string","value":"x"},"ttl":1.5}"#),
        RecordErrorKind::Number,
        "values[0].ttl",
    );
    // A whole number too large is said to be so, not to be no whole number.
    for (ttl, says) in [
        ("1.5", "is not a whole number"),
        (
            "100000000000000000000000",
            "past the seconds a signed 64-bit number holds",
        ),
    ] {
        let text = value(&format!(
            r#"{{"index":1,"type":"A","data":{{"format":"string","value":"x"}},"ttl":{ttl}}}"#
        ));
        let e = Response::parse(&text).unwrap_err();
        assert!(e.to_string().contains(says), "{ttl}: {e}");
    }
    // Deep nesting: serde_json's limit, an error rather than a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    refused(&deep, RecordErrorKind::Json, "line 1, column 128");
    // A callback that is not a name is not JSONP, and is not written.
    refused(
        "alert(1)//({\"responseCode\":1});",
        RecordErrorKind::Json,
        "line 1, column 2",
    );
    let ok = Response::parse(FULL).unwrap();
    assert!(ok.to_jsonp("a.b_c$").is_ok());
    for bad in ["", "1f", "f(", "a b", "a..b", "</script>"] {
        assert!(ok.to_jsonp(bad).is_err(), "{bad:?}");
    }
}

/// A name twice in one object, or two values with one index, cannot be read two ways:
/// refused where it is (serde_json's `Value` would keep the last without a word), with the
/// key; in `parse_selected` too, whatever the filter keeps.
#[test]
fn repeated_keys_and_indexes_are_refused() {
    refused(
        r#"{"responseCode":1,"handle":"1/2","handle":"1/3","values":[]}"#,
        RecordErrorKind::Duplicate,
        "line 1, column 41",
    );
    let e = Response::parse(r#"{"responseCode":1,"handle":"1/2","handle":"1/3"}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 1, column 41: duplicate key \"handle\" in one object (SPEC R1, R2)"
    );
    let url = |i: u32| {
        format!(
            r#"{{"index":{i},"type":"URL","data":{{"format":"string","value":"http://{i}/"}}}}"#
        )
    };
    let record = |values: &[String]| {
        format!(
            r#"{{"responseCode":1,"handle":"1/2","values":[{}]}}"#,
            values.join(",")
        )
    };
    refused(
        &record(&[
            r#"{"index":1,"index":2,"type":"URL","data":{"format":"string","value":"x"}}"#.into(),
        ]),
        RecordErrorKind::Duplicate,
        "line 1, column 61",
    );
    refused(
        &record(&[
            r#"{"index":1,"type":"URL","data":{"format":"string","value":"x","value":"y"}}"#.into(),
        ]),
        RecordErrorKind::Duplicate,
        "line 1, column 112",
    );
    let twice = record(&[url(1), url(2), url(1)]);
    refused(&twice, RecordErrorKind::Duplicate, "values[2].index");
    let e = Response::parse(&twice).unwrap_err();
    assert_eq!(
        e.to_string(),
        "values[2].index: 1 is the index of values[0] too (SPEC R2: an index names one value of a record)"
    );
    for filter in [Filter::new().index(2), Filter::new().value_type("EMAIL")] {
        let e = Response::parse_selected(&twice, &filter).unwrap_err();
        assert_eq!(e.at(), "values[2].index", "{filter:?}");
    }
    // Many values: the smallest index repeated is named, at its second value.
    let mut many: Vec<String> = (0..100).map(url).collect();
    many.push(url(70));
    many.push(url(30));
    let e = Response::parse(&record(&many)).unwrap_err();
    assert_eq!(e.to_string(), "values[101].index: 30 is the index of values[30] too (SPEC R2: an index names one value of a record)");
    // The same index in two records, the same name in two objects: no repetition.
    assert!(Response::parse(&record(&(0..100).map(url).collect::<Vec<_>>())).is_ok());
    assert!(Response::parse(FULL).is_ok());
}

/// A byte order mark before the JSON is ignored (RFC 8259 §8.1 lets a reader ignore it),
/// before JSONP too; anywhere else it is not JSON.
#[test]
fn a_byte_order_mark_is_ignored() {
    assert_eq!(
        Response::parse(&format!("\u{feff}{FULL}")),
        Response::parse(FULL)
    );
    assert_eq!(
        Response::parse(&format!("\u{feff}{FILTERED}")),
        Response::parse(FILTERED)
    );
    refused(
        "\u{feff}\u{feff}{}",
        RecordErrorKind::Json,
        "line 1, column 1",
    );
}

/// L4's example, through many random seeds.
#[test]
fn l4_example() {
    let loc = Locations::parse(
        r#"<locations>
             <location id="0" href="http://uk.example.org/" country="gb" weight="0" />
             <location id="1" href="http://a.example.org/" />
             <location id="2" href="http://b.example.org/" />
           </locations>"#,
    )
    .unwrap();
    let chosen = |client: &ClientContext, seed: u64| {
        loc.choose(client, &mut SplitMix64::new(seed))
            .unwrap()
            .id()
            .unwrap()
            .to_owned()
    };
    let outside = ClientContext {
        country: Some("us".into()),
        ..ClientContext::new()
    };
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..1000 {
        assert_eq!(
            chosen(&ClientContext::new().with_locatt("id:1").unwrap(), seed),
            "1"
        );
        assert_eq!(
            chosen(&ClientContext::new().with_locatt("id:0").unwrap(), seed),
            "0"
        );
        let id = chosen(&outside, seed);
        assert_ne!(id, "0", "a client outside GB never gets id 0");
        seen.insert(id);
        // Inside GB: the location of its country.
        let inside = ClientContext {
            country: Some("GB".into()),
            ..ClientContext::new()
        };
        assert_eq!(chosen(&inside, seed), "0");
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["1", "2"],
        "both, at random"
    );
}

#[test]
fn locations_l1_to_l3() {
    let loc = Locations::parse(
        r#"<locations chooseby="address,score,weighted">
             <location href="http://near/" addresses="192.0.2.0/24, 2001:db8::/32" score="1" />
             <location href="http://best/" score="5" />
             <location href="http://good/" score="3" extra="kept" />
           </locations>"#,
    )
    .unwrap();
    assert_eq!(loc.choose_by().len(), 3);
    assert_eq!(loc.locations()[2].attribute("extra"), Some("kept"));
    let mut r = SplitMix64::new(3);
    let at = |ip: &str| ClientContext {
        ip: Some(ip.parse().unwrap()),
        ..ClientContext::new()
    };
    assert_eq!(
        loc.choose(&at("192.0.2.77"), &mut r).unwrap().href(),
        "http://near/"
    );
    assert_eq!(
        loc.choose(&at("2001:db8::1"), &mut r).unwrap().href(),
        "http://near/"
    );
    // Nobody's address: the method is undone, the score decides.
    assert_eq!(
        loc.choose(&at("198.51.100.1"), &mut r).unwrap().href(),
        "http://best/"
    );
    // showurls lists them with their attributes.
    let xml = loc.to_xml();
    assert!(
        xml.contains(r#"<location href="http://good/" score="3" extra="kept" />"#),
        "{xml}"
    );
    assert_eq!(Locations::parse(&xml).unwrap(), loc);
    // The handles a value includes (L9) are written too: the XML reads back as the value.
    let including = Locations::parse(
        "<locations><location href=\"http://a/\"/><include>10.9/x</include>\
         <includeNamespace>0.NA/10.9</includeNamespace><include>10.9/&lt;y</include></locations>",
    )
    .unwrap();
    let xml = including.to_xml();
    assert!(xml.contains("  <include>10.9/&lt;y</include>\n"), "{xml}");
    assert_eq!(Locations::parse(&xml).unwrap(), including);
    // Names as written (L1), as the reference reads them (its LocOracle on this value: the
    // second location has no URL, and `<x:location>` is no location): `x:href` is another
    // attribute than `href`. The XML declares the prefixes it writes, and reads again.
    let named = Locations::parse_as_proxy(
        "<locations xmlns:x=\"urn:x\"><location x:href=\"http://ns.example/\" \
         href=\"http://plain.example/\"/><location x:href=\"http://only-ns.example/\"/>\
         <x:location href=\"http://x.example/\"/></locations>",
    )
    .unwrap();
    let hrefs: Vec<&str> = named.locations().iter().map(|l| l.href()).collect();
    assert_eq!(hrefs, ["http://plain.example/", ""]);
    let xml = named.to_xml();
    assert!(xml.starts_with("<locations xmlns:x=\"urn:x\">\n"), "{xml}");
    assert_eq!(Locations::parse_as_proxy(&xml).unwrap(), named);
    // The proxy's reader takes any root, and `<Location>` and `<loc_template>` (L5): the
    // XML keeps their names, the root's prefix declared, and reads again as the proxy
    // reads it; L1's reader refuses the root.
    let any_root = "<x:locs xmlns:x=\"urn:x\"><Location href=\"http://a/\"/>\
                    <loc_template href_template=\"http://t/{hdl}\"/></x:locs>";
    let read = Locations::parse_as_proxy(any_root).unwrap();
    assert_eq!(read.locations().len(), 2);
    let xml = read.to_xml();
    assert!(
        xml.starts_with("<x:locs xmlns:x=\"urn:x\">\n  <Location "),
        "{xml}"
    );
    assert_eq!(Locations::parse_as_proxy(&xml).unwrap(), read);
    let e = Locations::parse(any_root).unwrap_err();
    assert!(e.to_string().contains("the root is <x:locs>"), "{e}");
    // Nor does the proxy's reader ask a prefix to be declared (L5), up to eight of them, past
    // what comes before the root; L1's reader refuses the XML.
    let undeclared = "<?xml version=\"1.0\"?><!-- <x:a> --><?pi x?>\n<locations a:b=\"1\">\
                      <location x:href=\"http://x/\" href=\"http://b/\" y:w=\"2\"/><z:location href=\"z\"/></locations>";
    let read = Locations::parse_as_proxy(undeclared).unwrap();
    let hrefs: Vec<&str> = read.locations().iter().map(|l| l.href()).collect();
    assert_eq!(hrefs, ["http://b/"]);
    assert_eq!(read.locations()[0].attribute("x:href"), Some("http://x/"));
    assert_eq!(read.attribute("a:b"), Some("1"));
    assert_eq!(Locations::parse_as_proxy(&read.to_xml()).unwrap(), read);
    assert_eq!(
        Locations::parse(undeclared).unwrap_err().kind(),
        RecordErrorKind::Xml
    );
    let many: String = (0..9).map(|i| format!(" p{i}:a=\"1\"")).collect();
    let many = format!("<locations><location href=\"h\"{many}/></locations>");
    assert_eq!(
        Locations::parse_as_proxy(&many).unwrap_err().kind(),
        RecordErrorKind::Xml
    );
    assert!(Locations::parse_as_proxy(&many.replace(" p8:a=\"1\"", "")).is_ok());
    // A name past 65,535 bytes is named whole, not by its local name.
    let long = format!(
        "<locations><location {}:href=\"http://evil/\" href=\"http://good/\"/></locations>",
        "P".repeat(70_000)
    );
    let read = Locations::parse_as_proxy(&long).unwrap();
    assert_eq!(read.locations()[0].href(), "http://good/");
    assert_eq!(read.locations()[0].attributes()[0].0.len(), 70_005);
    // All weights zero: uniform.
    let zero = Locations::parse(
        r#"<locations><location href="a" weight="0"/><location href="b" weight="0"/></locations>"#,
    )
    .unwrap();
    let picked: std::collections::BTreeSet<_> = (0..200)
        .map(|s| {
            zero.choose(&ClientContext::new(), &mut SplitMix64::new(s))
                .unwrap()
                .href()
                .to_owned()
        })
        .collect();
    assert_eq!(picked.len(), 2);
}

#[test]
fn bad_locations_are_clear_errors() {
    for (xml, kind, at) in [
        ("<locations>", RecordErrorKind::Xml, "line 1, column 1"),
        ("<loc/>", RecordErrorKind::Locations, "line 1, column 1"),
        ("<locations>\n <location id='1'/></locations>", RecordErrorKind::Locations, "line 2, column 2"),
        ("<locations><location href='a' weight='2'/></locations>", RecordErrorKind::Locations, "line 1, column 12"),
        ("<locations><location href='a' weight='x'/></locations>", RecordErrorKind::Locations, "line 1, column 12"),
        ("<locations><location href='a' score='NaN'/></locations>", RecordErrorKind::Locations, "line 1, column 12"),
        ("<locations><location href='a' addresses='10.0.0.0/33'/></locations>", RecordErrorKind::Locations, "line 1, column 12"),
        // Entities: a DTD is refused, so the billion laughs cost nothing.
        (
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]><locations><location href=\"&lol2;\"/></locations>",
            RecordErrorKind::Xml,
            "line 1, column 1",
        ),
    ] {
        let e = Locations::parse(xml).unwrap_err();
        assert_eq!((e.kind(), e.at()), (kind, at), "{xml}: {e}");
    }
    // Deep nesting: refused before the XML reader (which recurses) sees it.
    let deep = format!(
        "<locations>{}{}</locations>",
        "<a>".repeat(50_000),
        "</a>".repeat(50_000)
    );
    let e = Locations::parse(&deep).unwrap_err();
    assert_eq!(
        (e.kind(), e.at()),
        (RecordErrorKind::TooLarge, "byte 200"),
        "{e}"
    );
    // As deep as allowed, with '>' in values, comments and CDATA: read.
    let ok = format!(
        "<locations><!-- a <b> --><location href='x>y' note=\"c>\"/>{}<![CDATA[<d>]]>{}</locations>",
        "<a>".repeat(62),
        "</a>".repeat(62)
    );
    assert_eq!(Locations::parse(&ok).unwrap().locations()[0].href(), "x>y");
    let many = format!(
        "<locations>{}</locations>",
        "<location href='x'/>".repeat(10_001)
    );
    assert_eq!(
        Locations::parse(&many).unwrap_err().kind(),
        RecordErrorKind::TooLarge
    );
    // An element of more attributes than are read (the XML reader looks for each among
    // those before it): refused by both readings; as many as are read: read.
    let attributes = |n: usize| {
        let a: String = (0..n).map(|i| format!(" a{i}='1'")).collect();
        format!("<locations><location href='x'{a}/></locations>")
    };
    for xml in [attributes(256), attributes(300_000)] {
        for read in [Locations::parse, Locations::parse_as_proxy] {
            let e = read(&xml).unwrap_err();
            assert_eq!(e.kind(), RecordErrorKind::TooLarge, "{e}");
            assert!(e.to_string().contains("more than 256 attributes"), "{e}");
        }
    }
    for read in [Locations::parse, Locations::parse_as_proxy] {
        assert_eq!(read(&attributes(255)).unwrap().locations().len(), 1);
    }
    // On the proxy's path, tags that are never closed, and end tags that close none, by
    // the ten thousand: read (each end tag finds what it closes at once).
    let soup = format!(
        "<locations>{}{}<location href='y'/></locations>",
        "<a>".repeat(20_000),
        "</b>".repeat(200_000)
    );
    let read = Locations::parse_as_proxy(&soup).unwrap();
    assert_eq!(read.locations().len(), 1);
    // Deep on the proxy's path (alternating names nest there; the same name does not):
    // refused as the tree is made, which a tree too deep to drop never is; and more tags
    // than are read, before they are kept.
    let deep = format!(
        "<locations>{}{}<location href='y'/></locations>",
        "<a><b>".repeat(40_000),
        "</b></a>".repeat(40_000)
    );
    let e = Locations::parse_as_proxy(&deep).unwrap_err();
    assert_eq!(e.kind(), RecordErrorKind::TooLarge, "{e}");
    assert!(e.to_string().contains("deeper than 64 levels"), "{e}");
    let e = Locations::parse_as_proxy(&"<a/>".repeat(200_000)).unwrap_err();
    assert_eq!(e.kind(), RecordErrorKind::TooLarge, "{e}");
}

/// A location made of its attributes is the one its element reads as: every location of
/// the `10320/loc` cases, made again of its attributes, is equal to it.
#[test]
fn a_location_is_made_of_its_attributes() {
    let mut made = 0;
    for line in include_str!("loc/cases.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        for value in case["input"]["values"].as_array().unwrap() {
            let Some(read) = value["data"]
                .as_str()
                .and_then(|x| Locations::parse(x).ok())
            else {
                continue;
            };
            for l in read.locations() {
                assert_eq!(
                    &Location::from_attributes(l.attributes().to_vec()).unwrap(),
                    l
                );
                made += 1;
            }
        }
    }
    assert!(made > 150, "{made}");
    let a = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect::<Vec<_>>()
    };
    let l = Location::from_attributes(a(&[
        ("x:href", "http://a/"),
        ("href", "http://b/"),
        ("xml:lang", "en"),
    ]))
    .unwrap();
    assert_eq!(
        (l.href(), l.attribute("x:href")),
        ("http://b/", Some("http://a/"))
    );
    // A name the reader takes in a value is taken alone: `:a` too (an empty prefix is none).
    let read =
        Locations::parse(r#"<locations><location href="x" :a="1" xml:lang="en"/></locations>"#)
            .unwrap();
    let l = &read.locations()[0];
    assert_eq!(l.attribute(":a"), Some("1"));
    assert_eq!(
        &Location::from_attributes(l.attributes().to_vec()).unwrap(),
        l
    );
    for (pairs, at) in [
        (&[("href", "a"), ("href", "b")][..], "attribute \"href\""),
        (&[("href", "a"), ("a b", "c")][..], "attribute \"a b\""),
        (&[("href", "a"), ("", "c")][..], "attribute \"\""),
        (&[("href", "a"), (" c", "c")][..], "attribute \" c\""),
        (
            &[("href", "a"), ("a=\"x\" xmlns", "c")][..],
            "attribute \"a=\\\"x\\\" xmlns\"",
        ),
        (&[("href", "a"), ("c\n", "c")][..], "attribute \"c\\n\""),
        (&[("href", "a"), ("1x", "c")][..], "attribute \"1x\""),
        (&[("href", "a"), ("x:", "c")][..], "attribute \"x:\""),
        (
            &[("href", "a"), ("xmlns", "urn:a")][..],
            "attribute \"xmlns\"",
        ),
        (
            &[("href", "a"), ("xmlns:x", "urn:a")][..],
            "attribute \"xmlns:x\"",
        ),
        (&[("id", "1")][..], "location"),
        (&[("href", "a"), ("weight", "2")][..], "location"),
    ] {
        let e = Location::from_attributes(a(pairs)).unwrap_err();
        assert_eq!(
            (e.kind(), e.at()),
            (RecordErrorKind::Locations, at),
            "{pairs:?}: {e}"
        );
    }
}

#[test]
fn redirects_aliases_and_showurls() {
    let r = Response::parse(FULL).unwrap();
    let redirect = r
        .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
        .unwrap();
    assert_eq!(redirect.url(), "https://www.handle.net/index.html");
    assert!(r
        .show_urls()
        .contains(r#"href="https://www.handle.net/index.html""#));
    // A 10320/loc value wins over URL values.
    let loc = HandleValue::new(
        3,
        "10320/loc",
        Data::String(r#"<locations><location href="http://loc/" /></locations>"#.into()),
    );
    let alias = HandleValue::new(4, "HS_ALIAS", Data::String("20.1000/5555".into()));
    let mut values = r.values().to_vec();
    values.extend([loc, alias]);
    let r = Response::new(Handle::parse("4263537/4000").unwrap(), values);
    let redirect = r
        .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
        .unwrap();
    assert_eq!(
        (redirect.url(), redirect.value().index()),
        ("http://loc/", 3)
    );
    assert_eq!(r.alias().unwrap().as_str(), "20.1000/5555");
    // No URL, no location: no redirect.
    let none = r.filtered(&Filter::new().value_type("EMAIL"));
    assert!(none
        .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
        .is_none());
    // A 10320/loc value that does not read is passed over, as the reference proxy passes
    // it over: the URL value redirects, and showurls lists it; `locations` says what is
    // wrong, at its path.
    let url = HandleValue::new(2, "URL", Data::String("https://www.handle.net/".into()));
    let bad = Response::new(
        Handle::parse("1/2").unwrap(),
        vec![
            HandleValue::new(1, "10320/loc", Data::String("<x".into())),
            url.clone(),
        ],
    );
    let redirect = bad
        .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
        .unwrap();
    assert_eq!(
        (redirect.url(), redirect.value().index()),
        ("https://www.handle.net/", 2)
    );
    assert_eq!(
        bad.show_urls(),
        Response::new(Handle::parse("1/2").unwrap(), vec![url]).show_urls()
    );
    let e = bad.locations().unwrap_err();
    assert!(e.at().starts_with("values[0].data.value: line 1"), "{e}");
    // One that reads after one that does not: its location is chosen.
    let both = Response::new(
        Handle::parse("1/2").unwrap(),
        vec![
            HandleValue::new(1, "10320/loc", Data::String("<x".into())),
            HandleValue::new(
                3,
                "10320/loc",
                Data::String(r#"<locations><location href="http://loc/" /></locations>"#.into()),
            ),
        ],
    );
    assert_eq!(
        both.redirect(&ClientContext::new(), &mut SplitMix64::new(1))
            .map(|r| r.url().to_owned()),
        Some("http://loc/".to_owned())
    );
    assert!(both.show_urls().contains(r#"href="http://loc/""#));
    // Types without ASCII case, as a filter (R4) and the proxy (L5) match them; a subtype
    // is not the type itself.
    let cased = Response::new(
        Handle::parse("1/2").unwrap(),
        vec![
            HandleValue::new(1, "url", Data::String("https://a/".into())),
            HandleValue::new(
                2,
                "10320/LOC",
                Data::String(r#"<locations><location href="http://loc/" /></locations>"#.into()),
            ),
            HandleValue::new(
                3,
                "10320/loc.x",
                Data::String(r#"<locations><location href="http://sub/" /></locations>"#.into()),
            ),
        ],
    );
    let read = cased.locations().unwrap();
    assert_eq!(read.iter().map(|(v, _)| v.index()).collect::<Vec<_>>(), [2]);
    assert_eq!(
        cased
            .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
            .map(|r| r.url().to_owned()),
        Some("http://loc/".to_owned())
    );
    let urls_only = cased.filtered(&Filter::new().value_type("URL"));
    assert_eq!(
        urls_only
            .redirect(&ClientContext::new(), &mut SplitMix64::new(1))
            .map(|r| r.url().to_owned()),
        Some("https://a/".to_owned())
    );
    assert!(urls_only.show_urls().contains(r#"href="https://a/""#));
}

fn arb_data() -> impl Strategy<Value = Data> {
    prop_oneof![
        ".{0,20}".prop_map(Data::String),
        proptest::collection::vec(any::<u8>(), 0..20).prop_map(|bytes| {
            let text = bytes.iter().map(|b| format!("{b:02x}")).collect();
            Data::Hex { bytes, text }
        }),
        (0_u16..0x1000, any::<u32>()).prop_map(|(bits, index)| Data::Admin(
            handle_id::record::Admin {
                admin: handle_id::record::ValueReference {
                    handle: Handle::parse("0.NA/20.1000").unwrap(),
                    index
                },
                permissions: AdminPermissions::from_bits(bits),
            }
        )),
    ]
}

fn arb_value() -> impl Strategy<Value = HandleValue> {
    (
        any::<u32>(),
        "[A-Z_]{1,8}(\\.[A-Z]{1,4})?",
        arb_data(),
        proptest::option::of(any::<i32>()),
    )
        .prop_map(|(i, t, d, ttl)| {
            let v = HandleValue::new(i, &t, d).with_timestamp("2000-04-10T22:41:46Z");
            match ttl {
                Some(s) => v.with_ttl(Ttl::Seconds(i64::from(s))),
                None => v,
            }
        })
}

proptest! {
    /// What the writer writes, the reader reads back as the same response (compact,
    /// pretty, JSONP).
    #[test]
    fn responses_round_trip(values in proptest::collection::vec(arb_value(), 0..6)) {
        let r = Response::new(Handle::parse("20.1000/5555").unwrap(), values);
        prop_assert_eq!(&Response::parse(&r.to_json()).unwrap(), &r);
        prop_assert_eq!(&Response::parse(&r.to_json_pretty()).unwrap(), &r);
        prop_assert_eq!(&Response::parse(&r.to_jsonp("cb").unwrap()).unwrap(), &r);
    }

    /// Reading with a filter gives what reading and then filtering gives, for any filter
    /// of indexes and types (with subtypes).
    #[test]
    fn parse_selected_is_parse_then_filtered(
        values in proptest::collection::vec(arb_value(), 0..6),
        picks in proptest::collection::vec((any::<proptest::sample::Index>(), 0..3_u8), 0..3),
    ) {
        // Filters on the values' own indexes, types and supertypes (`A.` for `A.B`).
        let mut f = Filter::new();
        for (pick, how) in picks {
            if values.is_empty() {
                break;
            }
            let v = &values[pick.index(values.len())];
            f = match how {
                0 => f.index(v.index()),
                1 => f.value_type(v.value_type()),
                _ => f.value_type(&format!("{}.", v.value_type().split('.').next().unwrap())),
            };
        }
        let r = Response::new(Handle::parse("20.1000/5555").unwrap(), values);
        let text = r.to_json();
        prop_assert_eq!(Response::parse_selected(&text, &f).unwrap(), r.filtered(&f));
    }

    /// Base64 decodes what any encoder writes, with or without padding.
    #[test]
    fn base64_reads_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let text = base64_encode(&bytes);
        let json = format!(r#"{{"responseCode":1,"values":[{{"index":1,"type":"A","data":{{"format":"base64","value":"{text}"}}}}]}}"#);
        let r = Response::parse(&json).unwrap();
        let decoded = |r: &Response| match r.values()[0].data() {
            Data::Base64 { bytes, .. } => bytes.clone(),
            other => panic!("{other:?}"),
        };
        prop_assert_eq!(decoded(&r), bytes.clone());
        let unpadded = text.trim_end_matches('=');
        let json = json.replace(&text, unpadded);
        prop_assert_eq!(decoded(&Response::parse(&json).unwrap()), bytes);
    }
}

/// RFC 4648 base64, written here independently of the reader.
fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0_u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
