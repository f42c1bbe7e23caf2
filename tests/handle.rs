//! The public API of `HandleRef`, `Handle`, `validate`, `ParseError` and `Caseless`.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use handle_id::{validate, Caseless, Handle, HandleRef, ParseError, ParseErrorKind};

#[track_caller]
fn handle(text: &str) -> HandleRef<'_> {
    HandleRef::parse(text).unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

#[track_caller]
fn error(text: &str) -> ParseError {
    match HandleRef::parse(text) {
        Ok(h) => panic!("{text:?} should not parse, got {h:?}"),
        Err(e) => e,
    }
}

fn hash_of(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn parts_h1_h4() {
    let h = handle("10.1045/april2006-paskin");
    assert_eq!(
        (h.prefix(), h.local_name()),
        ("10.1045", "april2006-paskin")
    );
    // H1: the first '/' separates; later ones belong to the local name.
    let h = handle("a/b/c");
    assert_eq!((h.prefix(), h.local_name()), ("a", "b/c"));
    // H4, D2, H10: an empty local name, and a trailing '/' that is part of it.
    assert_eq!(handle("10.1000/").local_name(), "");
    assert_eq!(handle("20.1000/5555/").local_name(), "5555/");
    assert_ne!(handle("20.1000/5555"), handle("20.1000/5555/"));
    // H3, H5: any character but '.', '/', '@' in a segment, non-ASCII and controls included.
    let h = handle("é\u{1}:x.ü/y");
    assert_eq!(h.prefix_segments().collect::<Vec<_>>(), ["é\u{1}:x", "ü"]);
    // D5: no form is recognised by parse.
    assert_eq!(handle("hdl:1234/567").prefix(), "hdl:1234");
}

#[test]
fn errors_name_the_element_index_and_character() {
    // With the rule of grammar/handle.pest the walk was in.
    let cases = [
        ("", ParseErrorKind::Empty, 0, None, "handle"),
        (
            "10.1000",
            ParseErrorKind::MissingSlash,
            7,
            None,
            "na_segment",
        ),
        (
            "10@x/y",
            ParseErrorKind::InvalidCharacter,
            2,
            Some('@'),
            "na_segment",
        ),
        (
            "@/y",
            ParseErrorKind::InvalidCharacter,
            0,
            Some('@'),
            "handle",
        ),
        ("10..1/y", ParseErrorKind::EmptySegment, 3, Some('.'), "dot"),
        (
            ".10/y",
            ParseErrorKind::EmptySegment,
            0,
            Some('.'),
            "handle",
        ),
        ("10./y", ParseErrorKind::EmptySegment, 3, Some('/'), "dot"),
        ("/y", ParseErrorKind::EmptySegment, 0, Some('/'), "handle"),
        ("10.", ParseErrorKind::EmptySegment, 3, None, "dot"),
        (
            "é.ü@/y",
            ParseErrorKind::InvalidCharacter,
            5,
            Some('@'),
            "na_segment",
        ),
    ];
    for (input, kind, index, found, rule) in cases {
        let e = error(input);
        assert_eq!(
            (e.kind(), e.index(), e.found(), e.rule()),
            (kind, index, found, rule),
            "{input:?}"
        );
        assert_eq!(validate(input), Err(e));
    }
}

#[test]
fn error_messages() {
    assert_eq!(
        error("1@/x").to_string(),
        "'@' (U+0040) is not allowed in a naming authority segment at byte 1; \
         the ABNF excludes %x40 (SPEC H3, D1)"
    );
    assert_eq!(
        error("10.1000").to_string(),
        "no '/' after the naming authority (end of input at byte 7); \
         a handle is <naming authority>/<local name> (SPEC H1)"
    );
    assert_eq!(
        ParseErrorKind::InvalidCharacter.element(),
        "naming authority segment"
    );
    let e: Box<dyn std::error::Error> = Box::new(error("x"));
    assert!(e.to_string().starts_with("no '/'"));
}

#[test]
fn rendering_puts_the_caret_under_the_character() {
    let input = "a\tb.c@d/e";
    assert_eq!(
        error(input).render(input).to_string(),
        "'@' (U+0040) is not allowed in a naming authority segment at byte 5; \
         the ABNF excludes %x40 (SPEC H3, D1)\n  a\\tb.c@d/e\n        ^"
    );
    // At the end of the input the caret stands after the last character.
    let input = "é.1";
    assert!(error(input)
        .render(input)
        .to_string()
        .ends_with("\n  é.1\n     ^"));
}

#[test]
fn rendering_a_long_input_shows_the_part_around_the_error() {
    // A caret further than `u16::MAX` columns in (a width `format!` refuses): no panic.
    let input = "1".repeat(70_000);
    let shown = error(&input).render(&input).to_string();
    let lines: Vec<_> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    let context = handle_id::Rendered::CONTEXT;
    assert_eq!(lines[1], format!("  …{}", "1".repeat(context)));
    assert_eq!(lines[2], format!("  {}^", " ".repeat(context + 1)));
    // An error in the middle: the characters on each side, and `…` for the rest on both.
    let input = format!("{}@{}/x", "a".repeat(100), "b".repeat(100));
    let shown = error(&input).render(&input).to_string();
    let lines: Vec<_> = shown.lines().collect();
    assert_eq!(
        lines[1],
        format!("  …{}@{}…", "a".repeat(context), "b".repeat(context - 1))
    );
    assert_eq!(lines[2].find('^'), Some(2 + 1 + context));
    // Escaped control characters count in the window by character, in the caret by column.
    let input = format!("{}\t@/x", "a".repeat(100));
    let shown = error(&input).render(&input).to_string();
    let lines: Vec<_> = shown.lines().collect();
    assert_eq!(lines[1], format!("  …{}\\t@/x", "a".repeat(context - 1)));
    assert_eq!(lines[2].find('^'), Some(2 + 1 + context + 1));
}

#[test]
fn bytes_must_be_utf8_h5() {
    assert_eq!(
        HandleRef::parse_bytes(b"10.1/x").unwrap().as_str(),
        "10.1/x"
    );
    let e = HandleRef::parse_bytes(b"10.1/\xc3").unwrap_err();
    assert_eq!(
        (e.kind(), e.index(), e.found()),
        (ParseErrorKind::InvalidUtf8, 5, None)
    );
    assert_eq!(
        e.to_string(),
        "invalid UTF-8 at byte 5; a handle is UTF-8 text (SPEC H5)"
    );
}

#[test]
fn conversions_and_traits() {
    let text = "20.1000/5555";
    let r: HandleRef<'_> = text.try_into().unwrap();
    let owned: Handle = text.parse().unwrap();
    assert_eq!(Handle::try_from(text).unwrap(), owned);
    assert_eq!(Handle::try_from(String::from(text)).unwrap(), owned);
    assert_eq!(Handle::from(r), owned);
    assert_eq!(HandleRef::from(&owned), r);
    assert_eq!(owned.as_handle_ref(), r);
    assert_eq!(r.to_handle(), owned);
    assert_eq!(r, owned);
    assert_eq!(owned, r);
    assert_eq!(r, text);
    assert_eq!(owned, text);
    assert_eq!(String::from(owned.clone()), text);
    assert_eq!(owned.clone().into_string(), text);
    assert!(Handle::try_from(String::from("x")).is_err());
    // Display gives back the exact input; Debug shows it.
    for input in ["20.1000/5555", "a/ b\t", "ÄÖ.x/ü#?"] {
        assert_eq!(handle(input).to_string(), input);
        assert_eq!(Handle::parse(input).unwrap().to_string(), input);
    }
    assert_eq!(format!("{r:?}"), r#"HandleRef("20.1000/5555")"#);
    assert_eq!(format!("{owned:?}"), r#"Handle("20.1000/5555")"#);
    // Eq, Ord and Hash follow the exact text, for both types, so a Handle is found by &str.
    assert_eq!(hash_of(&r), hash_of(&owned));
    assert_eq!(hash_of(&owned), hash_of(&text));
    let map: HashMap<Handle, u32> = [(owned.clone(), 1)].into();
    assert_eq!(map.get(text), Some(&1));
    let sorted: BTreeSet<_> = ["b/1", "a/2", "A/3"].map(handle).into();
    assert_eq!(
        sorted.iter().map(HandleRef::as_str).collect::<Vec<_>>(),
        ["A/3", "a/2", "b/1"]
    );
}

#[test]
fn prefix_hierarchy_h7_h8() {
    let h = handle("10.978.8896471/x");
    assert_eq!(h.parent_prefix(), Some("10.978"));
    assert_eq!(h.prefix_ancestors().collect::<Vec<_>>(), ["10.978", "10"]);
    assert_eq!(handle("10/x").parent_prefix(), None);
    assert_eq!(handle("10/x").prefix_ancestors().count(), 0);
    assert_eq!(h.prefix_handle().as_str(), "0.NA/10.978.8896471");
    assert_eq!(h.prefix_handle().prefix(), "0.NA");
    assert!(h.prefix_handle().is_prefix_handle());
    assert!(h.is_derived_from("10") && h.is_derived_from("10.978"));
    assert!(!h.is_derived_from("10.978.8896471") && !h.is_derived_from("10.97"));
    assert!(!handle("123456/x").is_derived_from("12345"));
    // Prefixes compare ignoring ASCII case (H6: the global service declares it).
    assert!(handle("ab.CD/x").is_derived_from("AB"));
    assert!(handle("0.na/10").is_prefix_handle());
    assert!(!handle("0.NA.1/10").is_prefix_handle());
    for doi in ["10/x", "10.1000/182", "10.abc/x", "10.1.2/x"] {
        assert!(handle(doi).is_doi(), "{doi}");
    }
    for not in [
        "100/x",
        "20.1000/x",
        "1.10/x",
        "0.NA/10.1045",
        "doi:10.1/x",
        "1/x",
        "10a/x",
    ] {
        assert!(!handle(not).is_doi(), "{not}");
    }
    // H8 as `is_derived_from` says it, for every prefix of up to three characters.
    let chars = ["1", "0", ".", "a", "é"];
    for a in chars {
        for b in chars {
            for c in chars {
                let text = format!("{a}{b}{c}/x");
                let Ok(h) = HandleRef::parse(&text) else {
                    continue;
                };
                let derived = h.prefix() == "10" || h.is_derived_from("10");
                assert_eq!(h.is_doi(), derived, "{h}");
            }
        }
    }
    let owned = Handle::parse("10.978.8896471/x").unwrap();
    assert_eq!(owned.parent_prefix(), Some("10.978"));
    assert_eq!(owned.prefix_ancestors().last(), Some("10"));
    assert_eq!(owned.prefix_segments().count(), 3);
    assert!(owned.is_doi() && owned.is_derived_from("10") && !owned.is_prefix_handle());
    assert_eq!(owned.prefix_handle(), h.prefix_handle());
}

/// H7 says "derived from" is "an ancestor of": `is_derived_from` compares without walking
/// the ancestors, and must agree with them.
#[test]
fn derived_from_means_an_ancestor() {
    for text in [
        "10.978.8896471/x",
        "A.b.C/x",
        "0.NA/10",
        "10/x",
        "1.2.3.4.5/x",
        "a..b/x",
    ] {
        let Ok(h) = HandleRef::parse(text) else {
            continue;
        };
        let candidates = [
            "",
            "1",
            "10",
            "10.978",
            "10.97",
            "a",
            "A.B",
            "1.2.3",
            h.prefix(),
        ];
        for p in candidates {
            let ancestor = h.prefix_ancestors().any(|a| a.eq_ignore_ascii_case(p));
            assert_eq!(h.is_derived_from(p), ancestor, "{text} from {p:?}");
        }
    }
}

#[test]
fn case_h6_d6() {
    // Parsing never folds case.
    assert_eq!(handle("10.1000/ABC").local_name(), "ABC");
    assert_ne!(handle("10.1000/ABC"), handle("10.1000/abc"));
    assert!(handle("10.1000/ABC").eq_ignore_ascii_case(&handle("10.1000/abc")));
    assert!(!handle("10.1000/É").eq_ignore_ascii_case(&handle("10.1000/é")));
    let a = Handle::parse("10.1000/ABC").unwrap();
    assert!(a.eq_ignore_ascii_case(&Handle::parse("10.1000/abc").unwrap()));

    let keys: HashSet<_> = ["10.1/ABC", "10.1/abc", "10.1/aBc", "10.1/É", "10.1/é"]
        .map(|s| Caseless(handle(s)))
        .into();
    assert_eq!(keys.len(), 3);
    assert_eq!(
        hash_of(&Caseless("10.1/ABC")),
        hash_of(&Caseless("10.1/abc"))
    );
    assert_ne!(hash_of(&Caseless("a/b")), hash_of(&Caseless("a/bc")));
    assert!(Caseless("a/B") < Caseless("a/c") && Caseless("A/b") == Caseless("a/B"));
}

/// H9: no length limit. A megabyte in the local name, and a megabyte of segments.
#[test]
fn no_length_limit_h9() {
    let long = format!("10.1000/{}", "x".repeat(1 << 20));
    assert_eq!(handle(&long).local_name().len(), 1 << 20);
    let segments = format!("{}1/x", "1.".repeat(1 << 19));
    assert_eq!(handle(&segments).prefix_segments().count(), (1 << 19) + 1);
    let bad = format!("{}@/x", "1".repeat(1 << 20));
    assert_eq!(error(&bad).index(), 1 << 20);
}
