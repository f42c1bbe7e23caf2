//! Every lint code, on the cases it is for and on corpus examples, and the whole corpus's
//! warnings in a snapshot.

mod support;

use handle_id::{HandleRef, LintCode, Warning};

#[track_caller]
fn warnings(text: &str) -> Vec<(LintCode, usize)> {
    let h = HandleRef::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    h.lint().iter().map(|w| (w.code(), w.index())).collect()
}

#[test]
fn each_code() {
    use LintCode::*;
    let cases: &[(&str, &[(LintCode, usize)])] = &[
        ("10.1000/182", &[]),
        ("10.1000/", &[(EmptyLocalName, 8)]),
        ("20.1000/5555/", &[(TrailingSlash, 12)]),
        ("10.1000/a\u{0}b", &[(ControlCharacter, 9)]),
        (
            "10.1000/a\u{85}",
            &[(ControlCharacter, 9), (SurroundingWhitespace, 9)],
        ),
        ("10.1000/\u{FFFD}", &[(UnprintableCharacter, 8)]),
        ("10.1000/\u{E000}", &[(UnprintableCharacter, 8)]),
        ("10.1000/\u{FDD0}", &[(UnprintableCharacter, 8)]),
        ("10.1000/a\u{200B}b", &[(ZeroWidthCharacter, 9)]),
        ("10.1000/\u{FEFF}x", &[(ZeroWidthCharacter, 8)]),
        // A soft hyphen, which text taken from PDFs leaves where a line broke a word.
        ("10.1000/ab\u{AD}cd", &[(ZeroWidthCharacter, 10)]),
        ("10.1000/a\u{202E}b", &[(BidiControl, 9)]),
        ("10.1000/😀", &[(OutsideBmp, 8)]),
        (" 10.1000/x", &[(SurroundingWhitespace, 0)]),
        (
            "10.1000/x\t",
            &[(ControlCharacter, 9), (SurroundingWhitespace, 9)],
        ),
        ("10.1000/e\u{301}", &[(NotNfc, 0)]),
        ("10.1000/a%20b", &[(PercentEncoded, 9)]),
        ("10.1000/100%", &[]),
        ("10.1000/a?b", &[(QueryOrFragment, 9)]),
        ("10.1000/456#789", &[(QueryOrFragment, 11)]),
        ("hdl:1234/567", &[(UriPrefix, 0)]),
        ("doi:10.1000/1", &[(UriPrefix, 0)]),
        ("https://doi.org/10.1/x", &[(UriPrefix, 0)]),
        ("10.1000/abc.", &[(TrailingPunctuation, 11)]),
        ("10.1000/abc,", &[(TrailingPunctuation, 11)]),
        ("10.1000/abc;", &[(TrailingPunctuation, 11)]),
        ("10.1016/S0005-7967(99", &[]),
        ("10.1016/j.x)", &[(TrailingPunctuation, 11)]),
        ("(10.1000/x", &[(LeadingPunctuation, 0)]),
        ("[10.1000/x (y)", &[(LeadingPunctuation, 0)]),
        ("\u{201C}10.1000/x", &[(LeadingPunctuation, 0)]),
        // A bracket or quote with its partner is no leading punctuation; first in the naming
        // authority, it is a symbol, as a footnote's mark or a bullet is (D14).
        ("(10.1000)/x", &[(SymbolFirst, 0)]),
        ("'10.1000/x'", &[(SymbolFirst, 0)]),
        ("*10.1000/x", &[(SymbolFirst, 0)]),
        ("\u{2022}10.1000/x", &[(SymbolFirst, 0)]),
        ("\u{301}10.1000/x", &[(SymbolFirst, 0)]),
        // Not what another warning says, nor a letter or digit of any script.
        ("\u{200B}10.1000/x", &[(ZeroWidthCharacter, 0)]),
        ("\u{0663}0.1000/x", &[]),
        ("10.1002/(SICI)1097(199812)", &[]),
    ];
    for (text, expected) in cases {
        assert_eq!(warnings(text), *expected, "{text:?}");
    }
    let long = format!("10.1/{}", "x".repeat(2043));
    assert_eq!(warnings(&long), []);
    let longer = format!("{long}x");
    assert_eq!(warnings(&longer), [(Over2048Bytes, 2048)]);
}

#[test]
fn codes_are_stable_and_documented() {
    for (i, code) in LintCode::ALL.into_iter().enumerate() {
        assert_eq!(code as usize, i, "ALL is in declaration order");
        assert_eq!(code.code().parse::<LintCode>().unwrap(), code);
        assert!(!code.explanation().is_empty() && !code.rule().is_empty());
        assert_eq!(code.to_string(), code.code());
    }
    assert!("no-such-code".parse::<LintCode>().is_err());
    let w: Warning = HandleRef::parse("10.1000/").unwrap().lint()[0];
    assert_eq!(
        w.to_string(),
        "empty-local-name at byte 8: the local name is empty: valid, but rarely meant (SPEC D2)"
    );
    let owned = handle_id::Handle::parse("10.1000/").unwrap();
    assert_eq!(owned.lint(), [w]);
}

/// The corpus's handles that draw warnings, and which.
#[test]
fn corpus_warnings() {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in support::corpus(file) {
            let id = support::identifier(&row);
            let Ok(h) = HandleRef::parse(id) else {
                continue;
            };
            let warnings = h.lint();
            if warnings.is_empty() || !seen.insert(id.to_owned()) {
                continue;
            }
            out.push_str(&format!("{id:?}\n"));
            for w in warnings {
                out.push_str(&format!("  {} at byte {}\n", w.code(), w.index()));
            }
        }
    }
    insta::assert_snapshot!(out);
}

/// `lint` looks for a written form's prefix only where the naming authority holds a ':'.
/// Every text the forms grammar reads as a form other than a bare handle has one there.
#[test]
fn every_written_form_has_a_colon_in_what_reads_as_the_naming_authority() {
    let options = handle_id::Options::new();
    let prefixes = [
        "hdl:",
        "HDL://",
        "info:hdl/",
        "info:doi/",
        "doi:",
        "urn:hdl:",
        "urn:doi:",
        "https://doi.org/",
        "x-y.z://",
        "urn:isbn:",
        "info:ark/",
    ];
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in support::corpus(file) {
            let id = support::identifier(&row);
            for text in
                std::iter::once(id.to_owned()).chain(prefixes.iter().map(|p| format!("{p}{id}")))
            {
                if handle_id::detect(&text, &options) != Some(handle_id::Form::Handle) {
                    let before_slash = text.split('/').next().unwrap();
                    assert!(before_slash.contains(':'), "{text:?}");
                }
            }
        }
    }
}

/// `over-2048-bytes` points at the first character that does not fit in 2048 bytes, at its
/// first byte: never inside a character.
#[test]
fn over_2048_bytes_points_at_a_character_boundary() {
    for (text, at) in [
        (format!("1/{}é", "a".repeat(2045)), 2047),
        (format!("1/{}é", "a".repeat(2046)), 2048),
        (format!("1/{}😀", "a".repeat(2043)), 2045),
        (format!("1/{}", "a".repeat(2047)), 2048),
    ] {
        let w = warnings(&text);
        let index = w
            .iter()
            .find(|(code, _)| *code == LintCode::Over2048Bytes)
            .map(|(_, at)| *at);
        assert_eq!(index, Some(at), "{} bytes", text.len());
        assert!(text.is_char_boundary(at));
    }
}
