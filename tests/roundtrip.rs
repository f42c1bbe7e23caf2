//! Writing and reading back: for arbitrary handles (Unicode, control characters, `#`, `?`,
//! `%`, space, `\`, dot segments) every form reads back to the same handle, and the proxy
//! URL we write, parsed by a WHATWG URL parser (the `url` crate, what browsers do) and
//! percent-decoded, gives back exactly the handle (P2's test of truth).

mod support;

use handle_id::{recognize, Form, HandleRef, Options, ProxyBase};
use proptest::prelude::*;

/// Pieces that matter to some form, and any character.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "/", ".", "..", "/./", "/../", "/.", "/..", "a", "Z", "0", "%", "%25", "#", "?", " ",
            "\\", "\t", "\n", ":", "@", "&", "+", "=", "é", "𝕏", "\u{0}", "\u{7f}", "\u{200B}",
            "hdl:", "doi:",
        ]).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// A handle built from the grammar (H1–H4): segments without '.', '/' or '@', any local name.
fn handle() -> impl Strategy<Value = String> {
    let segment = prop::collection::vec(piece(), 1..4)
        .prop_map(|p| p.concat())
        .prop_filter_map("a segment", |s| {
            let s: String = s
                .chars()
                .filter(|c| !matches!(c, '.' | '/' | '@'))
                .collect();
            (!s.is_empty()).then_some(s)
        });
    (
        prop::collection::vec(segment, 1..4),
        prop::collection::vec(piece(), 0..8),
    )
        .prop_map(|(segments, local)| format!("{}/{}", segments.join("."), local.concat()))
}

#[track_caller]
fn round_trip(text: &str) {
    let h = HandleRef::parse(text).expect("a handle");
    let repository = ProxyBase::parse("https://repo.example/xmlui").unwrap();
    for form in Form::ALL {
        let (options, base) = match form {
            Form::HdlResolution => (Options::new().resolution_form(true), None),
            Form::Repository => (Options::new().repository_urls(true), Some(&repository)),
            _ => (Options::new(), None),
        };
        if form == Form::Handle {
            // A bare handle is read bare (D5): recognising forms would read `hdl:1/2` as one.
            assert_eq!(
                HandleRef::parse(&h.to_form(form, None).unwrap()).unwrap(),
                h
            );
            continue;
        }
        // urn:<ns>:<na>:<local> is ambiguous when the naming authority holds a ':': the
        // writer refuses, at the ':'.
        if matches!(form, Form::UrnHdl | Form::UrnDoi) && h.prefix().contains(':') {
            let err = h.to_form(form, base).unwrap_err();
            assert_eq!(err.kind(), handle_id::ParseErrorKind::Unwritable);
            assert_eq!(Some(err.index()), h.prefix().find(':'));
            continue;
        }
        // A repository URL needs the repository's base: at a resolver's host (the default
        // base too) its path, `handle/` and all, would read as the handle (P1).
        if form == Form::Repository {
            for at_resolver in [None, Some(&ProxyBase::parse("https://DOI.org").unwrap())] {
                let err = h.to_form(form, at_resolver).unwrap_err();
                assert_eq!(err.kind(), handle_id::ParseErrorKind::Unwritable);
            }
        }
        let written = h.to_form(form, base).unwrap();
        let read = recognize(&written, &options)
            .unwrap_or_else(|e| panic!("{form} {written:?} of {text:?}: {}", e.render(&written)));
        assert_eq!(read.handle(), h, "{form}: {written:?}");
        assert_eq!(read.form(), form, "{written:?}");
        // Display writes the canonical text, which reads back the same.
        let again = read.to_string();
        assert_eq!(
            recognize(&again, &options).unwrap().handle(),
            h,
            "{again:?}"
        );
    }
}

/// P2's test of truth: the browser's parse of our URL decodes to the handle.
#[track_caller]
fn whatwg_reads_back(text: &str) {
    let h = HandleRef::parse(text).unwrap();
    for base in [
        ProxyBase::handle_net(),
        ProxyBase::parse("http://resolver.example:8080/hdl").unwrap(),
    ] {
        let written = base.url(h);
        let parsed = url::Url::parse(&written).unwrap_or_else(|e| panic!("{written:?}: {e}"));
        let prefix = match base.fixed_segment() {
            Some(seg) => format!("/{seg}/"),
            None => "/".to_owned(),
        };
        let path = parsed
            .path()
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{written:?} -> {parsed}"));
        // A handle that starts with a prefix the proxy removes (P3) is written after a
        // `hdl:` of its own, which the proxy removes instead (`recognize` reads it back:
        // `round_trip`).
        let decoded = support::percent_decoded(path).unwrap();
        let handle = if decoded == text {
            Some(decoded.as_str())
        } else {
            decoded.strip_prefix("hdl:")
        };
        assert_eq!(handle, Some(text), "{written:?} -> {parsed}");
        assert_eq!(
            (parsed.query(), parsed.fragment()),
            (None, None),
            "{written:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_form_round_trips(h in handle()) {
        round_trip(&h);
    }

    #[test]
    fn whatwg_parsers_read_our_proxy_urls_back(h in handle()) {
        whatwg_reads_back(&h);
    }

    /// C1: `is_canonical` says whether `canonical` gives the text back, and the canonical
    /// form is canonical.
    #[test]
    fn is_canonical_says_whether_the_canonical_form_is_the_text(h in handle(), doi: bool) {
        let text = if doi { format!("10.{h}") } else { h };
        let h = HandleRef::parse(&text).unwrap();
        prop_assert_eq!(h.is_canonical(), h.canonical().as_str() == text);
        prop_assert!(h.canonical().as_handle_ref().is_canonical());
    }
}

#[test]
fn named_cases() {
    for h in [
        "20.1000/5555#resolve",
        "10.1000/a?b",
        "10.1000/100%",
        "10.1000/a b",
        "10.1000/a\\b",
        "10.1000/a\tb",
        "10.1000/./x",
        "10.1000/../x",
        "10.1000/a/./b/../c",
        "10.1000/.",
        "10.1000/..",
        "10.1000/a/.",
        "10.1000/a/..",
        "10.1000/./../.",
        "10.1000/",
        "10.1000//",
        "10.1000/.%2E",
        "10.1000/%2e%2E",
        "é.ü/ß/😀",
        "1:2/x",
        "hdl:1234/5",
        "DOI:10.1/x",
        "info:hdl/1/2",
        "urn:hdl:1/2",
        "api/handles/10.1/x",
        "api/handles/./x",
        "10.1000/\u{0}\u{7f}\u{85}",
        " 10.1/x ",
    ] {
        round_trip(h);
        whatwg_reads_back(h);
    }
}

#[test]
fn corpus_round_trips() {
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in support::corpus(file) {
            let id = support::identifier(&row);
            if HandleRef::parse(id).is_ok() {
                round_trip(id);
                whatwg_reads_back(id);
            }
        }
    }
}
