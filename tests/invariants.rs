//! The fuzz targets' invariants (fuzz/src/lib.rs) as seeded property tests on stable: the
//! corpus in every form, strings made of the grammars' delimiters, and arbitrary text, each
//! through every entry point that reads text. Bounded to a few seconds; the fuzzers run the
//! same checks for as long as one likes (fuzz/README.md).
//!
//! One test: the invariants measure memory with the process's allocation counters, which
//! other tests running at the same time would disturb.

mod support;

// The invariants hold memory to a constant factor of the input, counted by this allocator.
#[global_allocator]
static ALLOCATOR: handle_id_fuzz::memory::Counting = handle_id_fuzz::memory::Counting;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Every entry point on `text`.
fn all(text: &str) {
    handle_id_fuzz::handle(text);
    handle_id_fuzz::handle_bytes(text.as_bytes());
    handle_id_fuzz::recognize_forms(text);
    handle_id_fuzz::hdl_uri(text);
    handle_id_fuzz::proxy(text);
    handle_id_fuzz::query(text);
    handle_id_fuzz::clean_text(text);
    handle_id_fuzz::extract_text(text);
    handle_id_fuzz::grammars(text);
}

/// Text made of the pieces the grammars care about.
fn pieces() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("hdl:"),
        Just("hdl://"),
        Just("info:hdl/"),
        Just("info:doi/"),
        Just("doi:"),
        Just("urn:hdl:"),
        Just("https://doi.org/"),
        Just("http://resolver.example:8080/hdl/"),
        Just("api/handles/"),
        Just("/handle/"),
        Just("10."),
        Just("0.NA"),
        Just("."),
        Just("/"),
        Just("@"),
        Just(":"),
        Just("?"),
        Just("#"),
        Just("&"),
        Just("="),
        Just("+"),
        Just("%"),
        Just("%2F"),
        Just("%2E"),
        Just("%C3%A9"),
        Just("%FF"),
        Just("index=1"),
        Just("é"),
        Just("😀"),
        // CJK text's label colon, stops and brackets (C2, C3), and a no-break space.
        Just("DOI\u{FF1A}"),
        Just("\u{3002}"),
        Just("\u{FF0C}"),
        Just("\u{FF08}"),
        Just("\u{FF09}"),
        Just("\u{3010}"),
        Just("\u{3011}"),
        Just("\u{A0}"),
        Just(" "),
        Just("\t"),
        Just("a"),
        Just("1"),
        Just("x"),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

/// Inputs on which the fuzz targets or these property tests found an invariant broken,
/// each a test from then on.
const FOUND_BY_FUZZING: &[&str] = &[
    // ProxyBase::parse: a fragment right after the host was reported one byte too far.
    "http://resolAID-PSSB135>3.0.CO;2-#",
    // Display under the CORDRA profile wrote a proxy URL whose `info:doi/` the proxy removes.
    "https://doi.org/hdl:info:doi/a",
    // The CORDRA profile read a REST API URL whose handle's '/' was escaped.
    "https://doi.org/api/handles/h%2F",
    // Cleaning took off a lone quote and said the input was empty.
    "\"",
    // Extraction's span ended inside a pair of brackets cleaning had taken off.
    "See a DOI: (0.1130/2013.2502.)</a>.",
    // Extraction read a resolver's URL split by white space without decoding its path,
    // where cleaning decodes it: `10.1/x%41` found, `10.1/xA` cleaned.
    "https://doi.org/ 10.1/x%41",
    "see https://doi.org/10. 1/x%2Fy and",
    // Extraction joined a DOI split after a resolver's host on a piece that went on past
    // where the text it found ended, which cleaning of that text does not join.
    "<aps://doi.org/10.1002/ev. href=\"https://20077\">",
    // Extraction took a naming authority to run past a '/' its form decodes (`%2F` in an
    // `info:` URI inside a resolver's URL), so that white space after it was in it.
    "doi.org/info:doi/1000%2F%20doi.org/DOIdoi",
    // A look for white space that took a vertical tab for none (`u8::is_ascii_whitespace`
    // does) let the fast reader take a URL whose query held one, which cleaning refuses.
    "doi.org/20.2631/420/3?%C3/som%25ethinething\0\u{b}rg/doi/10/1rg0.197%02F\u{e}\0\0\0/t\0\0\0\u{0}42(50-p415",
    // While cleaning read the handle a form held decoded as an IRI (`info:hdl/09.é…`), it
    // read what extraction, which reads URIs strictly, kept as the form held it.
    "See\0\0\0\0\0\0\0\0ps!://doi.org/10.1016%2Fj.progpolysci.2019.01.002/\0\0\0\0\0\0\0\0urn:hdl:info:hdl/09.1016%2Fj.progpol#or <a href}f=\"https://doi'.org/https\0\0\0\0ht0\u{10}\u{10}//\0\0\0\0\0\0\0\0urn$:hdl:info:hdl/09.%C3%A91016%2Fj.progpoly.",
    // A repository page's path before its `/handle/`, which no reading decodes, was
    // checked decoded, and the failure remembered: the page was not found.
    "doi:http://h/%Fd/handle/4/4",
    // ... and inside a known resolver's URL, whose path decoded failed there first.
    "hdl.handle.net/1-http://h/%Fd/handle/4/4",
    // A bracket that opens a pair and closes another (`«`, `‘`) left last by a cut before
    // its partner, which cleaning took off as a closing one.
    "10.1000/a«[»",
    "doi:10.1000/a‘(’x",
    // A resolver's URL whose split pieces joined are no identifier was not found.
    "see https://doi.org/10.1000/x: ab]2 here",
    // `clean_into` read a text with plain ends whole, where `clean`'s loop joined the DOI
    // split after its URI's prefix.
    "hdl:// 10/gf4gb",
    // An `hdl://` server's escape, not decoded, was taken for a failure of the handle an
    // earlier start decoded there (under the resolution form).
    "hdl://=/d/hdl://%9d/2/d",
    // An `hdl:` URI whose label the URI's grammar refuses (`hdl:doi:`) read, cleaned
    // alone, though extraction remembered the refusal for the later starts of its form.
    "Seps://doi.org//hdl:doi/hdl:doi:49.10\0\0\x0039/100.",
    // A resolver's URL after a label, tried with the label and then alone: its ends were
    // asked for again after the inner URL's (a start before the last one).
    "\0:d.i\0o:2\t\nee doi:https://doi.org/https://doi.org/10.10\x0b6/10.15.1%C3%A9999%)0./a>.",
    "doi:https://doi.org/https://doi.org/10. 6/1",
];

#[test]
fn every_entry_point_keeps_its_invariants() {
    for text in FOUND_BY_FUZZING {
        all(text);
    }
    for id in support::corpus_identifiers() {
        for form in handle_id_fuzz::FORM_PREFIXES {
            all(&format!("{form}{id}"));
        }
    }
    let mut runner = TestRunner::new_with_rng(
        Config::with_cases(500),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    runner
        .run(&pieces(), |text| {
            all(&text);
            Ok(())
        })
        .unwrap();
    runner
        .run(&any::<String>(), |text| {
            all(&text);
            Ok(())
        })
        .unwrap();
    runner
        .run(&prop::collection::vec(any::<u8>(), 0..40), |bytes| {
            handle_id_fuzz::handle_bytes(&bytes);
            handle_id_fuzz::plugin_kwargs(&bytes);
            Ok(())
        })
        .unwrap();
    // The keyword arguments as Python pickles them, and each cut short.
    let pickled = b"\x80\x05\x95\x2c\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x04flag\x94\x88\x8c\x03sep\x94\x8c\x01,\x94\x8c\x05names\x94\x5d\x94\x28\x8c\x01a\x94\x8c\x02bc\x94\x65\x75\x2e";
    for n in 0..=pickled.len() {
        handle_id_fuzz::plugin_kwargs(&pickled[..n]);
    }
    records(&mut runner);
}

/// Responses on which the record fuzz target found an invariant broken.
const RECORDS_FOUND_BY_FUZZING: &[&str] = &[
    // A number kept in a value of an unknown format came back another number: serde_json
    // read it as a float, not correctly rounded (numbers are now kept as written).
    r#"{"responseCode":1,"values":[{"index":1,"type":"A","data":{"format":"x","value":{"n":2906000000000000000000000040000000004}}}]}"#,
    r#"{"responseCode":1,"values":[{"index":1,"type":"A","data":{"format":"x","value":[1.0,1e400,-0,0.1e-400]}}]}"#,
];

/// Handle records and 10320/loc values: the source document's responses and every prefix
/// of them, and text made of the pieces JSON and the XML are made of.
fn records(runner: &mut TestRunner) {
    let full = include_str!("records/4263537-4000.json");
    let jsonp = include_str!("records/4263537-4000-url-email.jsonp");
    let loc = r#"<locations chooseby="locatt,country,weighted"><location id="0" href="http://uk/" country="gb" weight="0" addresses="192.0.2.0/24"/><location id="1" href="http://a/" score="2"/></locations>"#;
    for text in RECORDS_FOUND_BY_FUZZING {
        handle_id_fuzz::record_text(text);
    }
    for text in [full, jsonp] {
        for (i, _) in text.char_indices() {
            handle_id_fuzz::record_text(&text[..i]);
        }
        handle_id_fuzz::record_text(text);
    }
    for (i, _) in loc.char_indices() {
        handle_id_fuzz::locations_text(&loc[..i]);
    }
    handle_id_fuzz::locations_text(loc);
    // Found by the locations fuzz target: a tab written as `&#9;` in an attribute was
    // written back raw, and a reader normalises a raw tab to a space.
    handle_id_fuzz::locations_text(
        "<locations chooseby=\"a&#9;b,c&#10;d&#13;\"><location href=\"x&#9;y\"/></locations>",
    );
    let json = prop::collection::vec(
        prop_oneof![
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just(","),
            Just("\"responseCode\":"),
            Just("1"),
            Just("100"),
            Just("-1"),
            Just("1.5"),
            Just("\"handle\":\"1/2\""),
            Just("\"values\":"),
            Just("\"index\":"),
            Just("\"type\":\"URL\""),
            Just("\"type\":\"HS_ALIAS\""),
            Just("\"data\":"),
            Just("{\"format\":\"string\",\"value\":\"http://x/\"}"),
            Just("{\"format\":\"base64\",\"value\":\"aGk=\"}"),
            Just("{\"format\":\"admin\",\"value\":{\"handle\":\"0.NA/1\",\"index\":200,\"permissions\":\"0101\"}}"),
            Just("\"ttl\":"),
            Just("\"2000-01-01T00:00:00Z\""),
            Just("null"),
            Just("cb("),
            Just(");"),
        ],
        0..16,
    )
    .prop_map(|p| p.concat());
    runner
        .run(&json, |text| {
            handle_id_fuzz::record_text(&text);
            Ok(())
        })
        .unwrap();
    let xml = prop::collection::vec(
        prop_oneof![
            Just("<locations>"),
            Just("</locations>"),
            Just("<location href='h'"),
            Just(" id='1'"),
            Just(" weight='0.5'"),
            Just(" score='3'"),
            Just(" country='gb'"),
            Just(" addresses='10.0.0.0/8'"),
            Just("/>"),
            Just(">"),
            Just("</location>"),
            Just("<!-- c -->"),
            Just("<![CDATA[<x>]]>"),
            Just("&amp;"),
            Just("\""),
            Just("'"),
        ],
        0..16,
    )
    .prop_map(|p| p.concat());
    runner
        .run(&xml, |text| {
            handle_id_fuzz::locations_text(&text);
            Ok(())
        })
        .unwrap();
}
