//! Extraction (SPEC C3): DOIs and handles in running text, in the contexts real text puts
//! them in (reference lists, HTML, Markdown, BibTeX, JSON, CSV, sentences), with the hard
//! cases of the issue: SICI DOIs with `<>` in prose, DOIs that end in a balanced `)`.

mod support;

use handle_id::{extract, Form, Options, ProxyBase};
use proptest::prelude::*;
use support::contexts::{self, doi, in_context, CJK_CONTEXTS, CONTEXTS, DOCUMENTS};

/// What `extract` finds in `text`: the handles and the texts as written.
fn found(text: &str, options: &Options) -> Vec<(String, String)> {
    extract(text, options)
        .map(|f| {
            assert_eq!(&text[f.span()], f.text(), "the span is the text as written");
            (f.handle().as_str().to_owned(), f.text().to_owned())
        })
        .collect()
}

/// Each text holds one identifier, found as `written` with `handle`, and cleaning `written`
/// gives that handle (cleaning what extraction finds agrees with it, C3).
#[track_caller]
fn finds_one_cleaned_alike(o: &Options, cases: &[(&str, &str, &str)]) {
    for &(text, handle, written) in cases {
        assert_eq!(
            found(text, o),
            [(handle.to_owned(), written.to_owned())],
            "{text:?}"
        );
        assert_eq!(
            handle_id::clean(written, o).unwrap().handle().as_str(),
            handle,
            "{text:?}: cleaned"
        );
    }
}

#[test]
fn the_hard_cases() {
    let o = Options::new();
    let sici = "10.1002/(SICI)1097-4636(199709)36:4<538::AID-JBM12>3.0.CO;2-B";
    for (text, expected) in [
        (format!("The paper {sici} reports it."), vec![sici]),
        (format!("(see {sici})."), vec![sici]),
        // A label is no URI: the `<` stays (only URIs and URLs write it encoded).
        (format!("DOI: {sici}. And doi:{sici}"), vec![sici, sici]),
        (
            "https://doi.org/10.1000/182<br>".to_owned(),
            vec!["10.1000/182"],
        ),
        // The ellipsis ends a sentence like a full stop.
        (
            "Cited as 10.1130/2013.2502\u{2026}".to_owned(),
            vec!["10.1130/2013.2502"],
        ),
        (
            "Published as 10.3319/TAO.2009.05.25.02(IWNOP).".to_owned(),
            vec!["10.3319/TAO.2009.05.25.02(IWNOP)"],
        ),
        (
            "(doi:10.3319/TAO.2009.05.25.02(IWNOP))".to_owned(),
            vec!["10.3319/TAO.2009.05.25.02(IWNOP)"],
        ),
        (
            "<a href=\"https://doi.org/10.1000/182\">10.1000/182</a>".to_owned(),
            vec!["10.1000/182", "10.1000/182"],
        ),
        ("doi = {10.1000/182},".to_owned(), vec!["10.1000/182"]),
        (
            "[link](https://doi.org/10.1000/182)".to_owned(),
            vec!["10.1000/182"],
        ),
        ("{\"DOI\": \"10.1000/182\"}".to_owned(), vec!["10.1000/182"]),
        (
            "two: doi:10.1000/1, DOI 10.1000/2; and https://dx.doi.org/10.1000/3?x=1#y.".to_owned(),
            vec!["10.1000/1", "10.1000/2", "10.1000/3"],
        ),
        (
            "hdl:20.1000/5555 and https://hdl.handle.net/20.1000/5556%23x.".to_owned(),
            vec!["20.1000/5555", "20.1000/5556#x"],
        ),
        (
            "info:doi/10.1000/182 or urn:doi:10.1000:183".to_owned(),
            vec!["10.1000/182", "10.1000/183"],
        ),
        (
            "at https://example.com/article/10.1000/182 too".to_owned(),
            vec!["10.1000/182"],
        ),
        // Not DOIs: inside a longer number, a bare handle nobody named.
        ("110.1000/x, 1.10.1000/y, ratio 1234/567".to_owned(), vec![]),
        // A `.` before digits continues a number (`.10.1000/x` is no DOI's start), after
        // white space too, and in a word after a bracket.
        ("version .10.1000/x and (.10.1000/y)".to_owned(), vec![]),
    ] {
        let got: Vec<String> = found(&text, &o).into_iter().map(|(h, _)| h).collect();
        assert_eq!(got, expected, "{text:?}");
    }
    // Sentence punctuation is not part of the identifier; the span says where it is.
    assert_eq!(
        found("See doi:10.1000/182.", &o),
        [("10.1000/182".to_owned(), "doi:10.1000/182".to_owned())]
    );
}

#[test]
fn bare_handles_only_under_named_prefixes() {
    let text = "Handles 20.500.12345/abc and 1234/567 and 20.500.99/x.";
    assert!(found(text, &Options::new()).is_empty());
    let o = Options::new().handle_prefix("20.500.12345");
    assert_eq!(
        found(text, &o),
        [("20.500.12345/abc".to_owned(), "20.500.12345/abc".to_owned())]
    );
    // Resolvers the caller names are read too.
    let base = ProxyBase::parse("https://resolver.example/hdl").unwrap();
    let o = Options::new().proxy_base(base);
    let got = found("at https://resolver.example/hdl/1234/567.", &o);
    assert_eq!(
        got,
        [(
            "1234/567".to_owned(),
            "https://resolver.example/hdl/1234/567".to_owned()
        )]
    );
}

#[track_caller]
fn finds_exactly(d: &str) {
    for context in CONTEXTS.iter().chain(CJK_CONTEXTS) {
        let text = in_context(context, d);
        let got: Vec<String> = found(&text, &Options::new())
            .into_iter()
            .map(|(h, _)| h)
            .collect();
        assert_eq!(got, [d], "{text:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_doi_in_every_context(d in doi()) {
        finds_exactly(&d);
    }
}

#[test]
fn the_corpus_dois_in_every_context() {
    let dois = contexts::plain_corpus_dois();
    assert!(dois.len() > 500, "{} corpus DOIs", dois.len());
    for d in &dois {
        finds_exactly(d);
    }
}

#[test]
fn forms_as_written() {
    let text = "doi:10.1/a DOI 10.1/b https://doi.org/10.1/c 10.1234/d hdl:1/e";
    let forms: Vec<Form> = extract(text, &Options::new()).map(|f| f.form()).collect();
    assert_eq!(
        forms,
        [Form::Doi, Form::Doi, Form::Proxy, Form::Handle, Form::Hdl]
    );
    // A label and the white space after it are part of what was written.
    let text = "DOI: 10.1/f, HDL: 20.1/g and doi.org/10.1/h.";
    let found: Vec<_> = extract(text, &Options::new())
        .map(|f| (f.text(), f.form(), f.handle().as_str().to_owned()))
        .collect();
    assert_eq!(
        found,
        [
            ("DOI: 10.1/f", Form::Doi, "10.1/f".to_owned()),
            ("HDL: 20.1/g", Form::Hdl, "20.1/g".to_owned()),
            ("doi.org/10.1/h", Form::Proxy, "10.1/h".to_owned()),
        ]
    );
}

/// The corpus's identifiers that say something about extraction (every one that is not a
/// plain DOI: handles, URIs, URLs, DOIs with brackets, `<>`, `;`, `#`, `%`, trailing dots),
/// written as the corpus writes them into the documents real text holds, one document style
/// after another; what `extract` finds in each. Read with the corpus snapshots: a change here
/// is a change in what users get from their reference lists.
#[test]
fn corpus_in_documents() {
    let options = Options::new();
    // (The plain DOIs of any registrant code, so that the documents stay as they were.)
    let plain = contexts::plain_dois(1);
    let mut ids: Vec<String> = support::corpus_identifiers()
        .into_iter()
        .filter(|id| !plain.contains(id))
        .collect();
    ids.dedup();
    let mut out = String::new();
    for (k, id) in ids.iter().enumerate() {
        let (name, template) = DOCUMENTS[k % DOCUMENTS.len()];
        let text = template.replacen("{}", id, 1);
        out.push_str(&format!("{name}: {text:?}\n"));
        let found: Vec<_> = extract(&text, &options).collect();
        if found.is_empty() {
            out.push_str("  nothing\n");
        }
        for f in found {
            out.push_str(&format!(
                "  {}..{} {} {:?}",
                f.span().start,
                f.span().end,
                f.form(),
                f.handle().as_str()
            ));
            if f.text() != f.handle().as_str() {
                out.push_str(&format!(" written {:?}", f.text()));
            }
            out.push('\n');
        }
    }
    insta::assert_snapshot!(out);
}

/// What extraction reads a byte of a text, over all its passes, at a shorter and a longer
/// text `make` writes: at most `bound`, and no more at the longer than at the shorter (a
/// quadratic cost shows as the bytes read a byte growing with the text).
#[track_caller]
fn reads_linearly(
    what: &str,
    options: &Options,
    bound: f64,
    make: impl Fn(usize) -> String,
    ns: [usize; 2],
) {
    let per_byte = ns.map(|n| {
        let text = make(n);
        let mut found = extract(&text, options);
        found.by_ref().for_each(drop);
        found.work() as f64 / text.len() as f64
    });
    assert!(
        per_byte[1] <= bound && per_byte[1] <= per_byte[0] * 1.05 + 0.1,
        "{what}: {per_byte:?} bytes read per byte"
    );
}

/// What extraction reads, over every pass, stays within a constant factor of the text on
/// the shapes that cost the most per byte (each once quadratic, or 8 KiB read per anchor):
/// counted, not timed, at 8 and 32 KiB, under every option set (the benchmark times them at
/// 1 MiB). A quadratic cost would show as four times the bytes read per byte.
#[test]
fn work_is_linear_on_every_shape() {
    let base = ProxyBase::parse("http://resolver.example:8080/hdl").unwrap();
    let option_sets = [
        Options::new(),
        Options::new().cordra(true),
        Options::new().repository_urls(true),
        Options::new().resolution_form(true),
        Options::new().proxy_base(base).handle_prefix("20.500.1"),
    ];
    for (name, unit) in support::shapes::SHAPES {
        for options in &option_sets {
            let make = |len| support::shapes::repeated(unit, len);
            reads_linearly(name, options, 24.0, make, [1 << 13, 1 << 15]);
        }
    }
}

/// URLs one after another whose paths run to a bad escape at the end, where repository
/// pages are read: each start's reading fails at the same bytes, remembered for the
/// readings of its kind (a resolver's, a page's), so what extraction reads stays linear.
#[test]
fn work_is_linear_to_a_bad_escape_at_the_end() {
    let o = Options::new().repository_urls(true);
    for unit in [
        "https://hdl.handle.net/1/a",
        "doi.org/hdl.handle.net/a",
        "http://h/handle/1/a",
    ] {
        let make = |n| format!("{}%FF", unit.repeat(n));
        reads_linearly(unit, &o, 24.0, make, [300, 1200]);
    }
}

/// Text made of units that the grammars care about, each repeated into a line: what
/// extraction reads grows as the line does (a property test of what the fuzz target's
/// bound checks on every input).
#[test]
fn work_is_linear_on_repeated_pieces() {
    let piece = prop_oneof![
        Just("hdl:"),
        Just("hdl://"),
        Just("info:hdl/"),
        Just("info:doi/"),
        Just("doi:"),
        Just("DOI "),
        Just("urn:hdl:"),
        Just("urn:doi:"),
        Just("https://doi.org/"),
        Just("doi.org/"),
        Just("https://x.org/"),
        Just("api/handles/"),
        Just("/handle/"),
        Just("10.1000/"),
        Just("10."),
        Just("."),
        Just("/"),
        Just("@"),
        Just(":"),
        Just("?"),
        Just("#"),
        Just("%2F"),
        Just("%C3"),
        Just("%FF"),
        Just("é"),
        Just("…"),
        Just("("),
        Just(")"),
        Just("["),
        Just("<a"),
        Just("\""),
        Just("'"),
        Just(","),
        Just("a"),
        Just("^"),
    ];
    let options = [
        Options::new(),
        Options::new().cordra(true),
        Options::new().repository_urls(true),
        Options::new().resolution_form(true),
    ];
    let mut runner = proptest::test_runner::TestRunner::new_with_rng(
        proptest::test_runner::Config::with_cases(150),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    runner
        .run(&prop::collection::vec(piece, 1..6), |pieces| {
            let unit = pieces.concat();
            for o in &options {
                let text = support::shapes::repeated(&unit, 1 << 13);
                let mut found = extract(&text, o);
                found.by_ref().for_each(drop);
                let per_byte = found.work() as f64 / text.len() as f64;
                prop_assert!(per_byte <= 32.0, "{unit:?}: {per_byte} bytes read per byte");
            }
            Ok(())
        })
        .unwrap();
}

/// An identifier is as long as its text says (H9): a DOI that runs on for a whole token is
/// one identifier, never a piece from its middle.
#[test]
fn a_long_token_is_one_identifier() {
    let o = Options::new();
    let long = "10.1234/".repeat(2000);
    assert_eq!(found(&long, &o), [(long.clone(), long.clone())]);
    let text = format!("see {long}.");
    assert_eq!(found(&text, &o), [(long.clone(), long)]);
    let doi = format!("10.1000/{}", "a".repeat(1 << 20));
    assert_eq!(found(&format!("({doi})"), &o), [(doi.clone(), doi)]);
    // A registrant code of one digit is no bare DOI (C3): nothing, and no piece of the token.
    assert!(found(&"10.1/".repeat(2000), &o).is_empty());
    let labelled = format!("doi:{}", "10.1/".repeat(2000));
    let whole = "10.1/".repeat(2000);
    assert_eq!(found(&labelled, &o), [(whole, labelled.clone())]);
}

/// Resolvers' URLs pasted one before another: the innermost holds the handle, and the
/// whole is its written form (C2, C3); a resolver's URL that holds another site's URL, or
/// an empty or missing handle, holds no identifier there.
#[test]
fn nested_resolver_urls() {
    let o = Options::new();
    let nested = "https://doi.org/https://doi.org/10.1000/182";
    assert_eq!(
        found(&format!("See {nested}."), &o),
        [("10.1000/182".to_owned(), nested.to_owned())]
    );
    // Cleaning reads a resolver's URL percent-encoded in another's path; in running text,
    // a handle that decodes to a URL is not one found.
    let encoded = "https://dx.doi.org/https%3A%2F%2Fdoi.org%2F10.1000%2F182";
    assert!(found(encoded, &o).is_empty());
    let cleaned = handle_id::clean(encoded, &o).unwrap();
    assert_eq!(cleaned.handle().as_str(), "10.1000/182");
    // Another site's URL inside: only the DOI in its path.
    assert_eq!(
        found("https://doi.org/https://example.com/10.1000/182", &o),
        [("10.1000/182".to_owned(), "10.1000/182".to_owned())]
    );
    for none in [
        "https://doi.org/",
        "https://doi.org/https://doi.org/",
        "https://doi.org/10.1234/",
        "info:hdl/https://example.com/x",
        "hdl:1234/ and doi:10.1000/",
    ] {
        assert!(
            found(none, &o).is_empty(),
            "{none:?}: {:?}",
            found(none, &o)
        );
    }
}

/// The handle a form holds, cleaned as a string of its own (C2), is the handle of the form
/// found whole: what cleaning takes off it is inside the identifier. Forms nested in a chain
/// are read once each start, whatever their handle needs.
#[test]
fn the_handle_a_form_holds_cleaned() {
    let o = Options::new();
    let cases = &[
        (
            "doi.org/10.1000/182%29",
            "10.1000/182",
            "doi.org/10.1000/182%29",
        ),
        (
            "x https://doi.org/10.1000/182%2C y",
            "10.1000/182",
            "https://doi.org/10.1000/182%2C",
        ),
        ("hdl:10.1/x%29", "10.1/x", "hdl:10.1/x%29"),
        // An escaped closing bracket closes a written one, as cleaning reads it decoded
        // (Markdown's links escape a `)` alone); one that closes nothing is taken off.
        (
            "see https://doi.org/10.1016/s0022-2828(84%2980474-5 here",
            "10.1016/s0022-2828(84)80474-5",
            "https://doi.org/10.1016/s0022-2828(84%2980474-5",
        ),
        (
            "[x](https://doi.org/10.1016/s0022-2828(84%2980474-5)",
            "10.1016/s0022-2828(84)80474-5",
            "https://doi.org/10.1016/s0022-2828(84%2980474-5",
        ),
        (
            "(see https://doi.org/10.1000/x%5D%29)",
            "10.1000/x",
            "https://doi.org/10.1000/x%5D%29",
        ),
        // Not where cleaning reads the text as written: a bare handle's, a label's and a
        // `urn:` form's `%29` is three characters (the `(` is cut off, as it is before any
        // other character).
        (
            "see 10.1016/s0022-2828(84%2980474-5 here",
            "10.1016/s0022-2828",
            "10.1016/s0022-2828",
        ),
        (
            "x doi:10.1000/a(b%29) y",
            "10.1000/a(b%29)",
            "doi:10.1000/a(b%29)",
        ),
        (
            "x urn:doi:10.1000:a(b%29) y",
            "10.1000/a(b%29)",
            "urn:doi:10.1000:a(b%29)",
        ),
        (
            "x hdl:10.1000/a(b%29) y",
            "10.1000/a(b)",
            "hdl:10.1000/a(b%29",
        ),
        (
            "info:hdl/20.1000/5.#frag",
            "20.1000/5",
            "info:hdl/20.1000/5.#frag",
        ),
        (
            "see https://doi.org/%2210.1000/182%22 here",
            "10.1000/182",
            "https://doi.org/%2210.1000/182%22",
        ),
    ];
    finds_one_cleaned_alike(&o, cases);
    for unit in [
        "info:hdl/",
        "(info:hdl/",
        "https://doi.org/(",
        "doi.org/(",
        "hdl:%28",
    ] {
        for end in ["20.1000/5%29.", "(20.1000/5", "10.1/x%20"] {
            let text = format!("{}{end}", unit.repeat(4_000));
            let mut all = extract(&text, &o);
            all.by_ref().for_each(drop);
            let per_byte = all.work() as f64 / text.len() as f64;
            assert!(
                per_byte <= 24.0,
                "{unit:?}…{end:?}: {per_byte} bytes read per byte"
            );
        }
    }
}

/// Brackets (C3): a closing one with no partner inside the identifier ends it, and so does
/// an opening one with none after it (the identifier ends before it); brackets balanced
/// inside stay, up to `MAX_OPEN` open at once.
#[test]
fn brackets_that_end_an_identifier() {
    let o = Options::new();
    for (text, expected) in [
        (
            "doi :10.1007/JHEP03(2014)118[ arXiv",
            vec!["10.1007/JHEP03(2014)118"],
        ),
        (
            "10.1088/1748-0221/10/04/P04003[arXiv",
            vec!["10.1088/1748-0221/10/04/P04003"],
        ),
        (
            "10.1007/s10994-018-5712-y(2018",
            vec!["10.1007/s10994-018-5712-y"],
        ),
        ("„10.1055/s-2005-951641“", vec!["10.1055/s-2005-951641"]),
        // A typographic double quote ends it as a '"' does, so that quotes nested across
        // languages, whose German closing one opens English ones, are no pair inside it.
        ("see “„10.1000/abc“” here", vec!["10.1000/abc"]),
        ("see „“10.1000/abc”“ here", vec!["10.1000/abc"]),
        ("10.1000/a“b”c", vec!["10.1000/a"]),
        // Guillemets either way, French single ones (a bracket each, C3).
        ("see »10.1000/abc« here", vec!["10.1000/abc"]),
        ("see ‹10.1000/abc› here", vec!["10.1000/abc"]),
        ("see ›10.1000/abc‹ here", vec!["10.1000/abc"]),
        // One that opens a pair and closes another, left last by a cut before its partner,
        // is taken off as cleaning takes it off.
        ("10.1000/a«[»", vec!["10.1000/a"]),
        ("doi:10.1000/a‘(’x", vec!["10.1000/a"]),
        ("10.1000/a(b(c(d)))", vec!["10.1000/a(b(c(d)))"]),
    ] {
        let got: Vec<String> = found(text, &o).into_iter().map(|(h, _)| h).collect();
        assert_eq!(got, expected, "{text:?}");
    }
    let deep = |n: usize| format!("10.1000/{}x{}", "(".repeat(n), ")".repeat(n));
    let eight = deep(handle_id::MAX_OPEN);
    assert_eq!(found(&eight, &o), [(eight.clone(), eight.clone())]);
    // One more opens past the bound: the identifier ends there, and before the brackets
    // left open.
    assert!(found(&deep(handle_id::MAX_OPEN + 1), &o).is_empty());
}

/// A DOI label or DOI URI is followed by a DOI's prefix, `10.` and digits, or by another
/// written form; what else follows it is not an identifier there (C3).
#[test]
fn what_follows_a_doi_label() {
    let o = Options::new();
    for (text, expected) in [
        ("doi:10.1000/182", vec![("10.1000/182", "doi:10.1000/182")]),
        ("doi:10/abc", vec![("10/abc", "doi:10/abc")]),
        (
            "doi:https://doi.org/10.1000/182",
            vec![("10.1000/182", "doi:https://doi.org/10.1000/182")],
        ),
        (
            "DOI: hdl:20.1000/5",
            vec![("20.1000/5", "DOI: hdl:20.1000/5")],
        ),
        ("doi:abc/def and doi:20.1000/x and info:doi/20.1/x", vec![]),
        (
            "urn:doi:10.123:456",
            vec![("10.123/456", "urn:doi:10.123:456")],
        ),
        // A fragment holds no '#': a second one ends the URI.
        ("hdl:20.1000/a#b#c", vec![("20.1000/a", "hdl:20.1000/a#b")]),
    ] {
        let got = found(text, &o);
        let expected: Vec<(String, String)> = expected
            .into_iter()
            .map(|(h, t)| (h.to_owned(), t.to_owned()))
            .collect();
        assert_eq!(got, expected, "{text:?}");
    }
}

/// An `hdl:` or `info:` URI written with characters beyond ASCII (an IRI) is found as
/// cleaning reads it, each character as its UTF-8 bytes percent-encoded (RFC 3987 §3.1,
/// C2), as a resolver's URL is: not passed over, nor found bare inside.
#[test]
fn iris_are_read_as_their_uris() {
    let o = Options::new();
    let cases = &[
        ("see hdl:20.1000/Ü here", "20.1000/Ü", "hdl:20.1000/Ü"),
        (
            "(hdl:20.1000/日本語).",
            "20.1000/日本語",
            "hdl:20.1000/日本語",
        ),
        ("see hdl://20.1000/Ü here", "20.1000/Ü", "hdl://20.1000/Ü"),
        ("see info:hdl/20.1000/Ü.", "20.1000/Ü", "info:hdl/20.1000/Ü"),
        (
            "see info:doi/10.1000/Ü here",
            "10.1000/Ü",
            "info:doi/10.1000/Ü",
        ),
        // Its query and fragment, as cleaning reads them: not part of the handle.
        (
            "see hdl:10.1000/a?x=é here",
            "10.1000/a",
            "hdl:10.1000/a?x=é",
        ),
        ("see hdl:20.1000/a#é here", "20.1000/a", "hdl:20.1000/a#é"),
        // Escapes and characters together; a full-width stop ends it (C3).
        (
            "see hdl:20.1000/Ü%20x here",
            "20.1000/Ü x",
            "hdl:20.1000/Ü%20x",
        ),
        ("見よ hdl:20.1000/Ü。", "20.1000/Ü", "hdl:20.1000/Ü"),
    ];
    finds_one_cleaned_alike(&o, cases);
    // Under the CORDRA profile, a resolver's URL is walked by its validator: an IRI too.
    let cordra = Options::new().cordra(true);
    let text = "see https://hdl.handle.net/20.1000/Ü/x here";
    assert_eq!(
        found(text, &cordra),
        [(
            "20.1000/Ü/x".to_owned(),
            "https://hdl.handle.net/20.1000/Ü/x".to_owned()
        )],
    );
    // What a URI's grammar refuses as its escapes is refused as written.
    assert_eq!(found("see hdl:20.1000/%C3Ü here", &o), []);
}

/// A repository page's path before its `/handle/` is not the handle's: an escape there
/// that decodes to no UTF-8 does not keep the page from being found, as cleaning reads it
/// (P3), nor, remembered, from being found after a label.
#[test]
fn a_repository_pages_path_before_the_handle_is_not_decoded() {
    let o = Options::new().repository_urls(true);
    let cases = &[
        (
            "see http://h/%Fd/handle/4/4 here",
            "4/4",
            "http://h/%Fd/handle/4/4",
        ),
        // (Found with its label, as cleaning reads a label before another form.)
        (
            "doi:http://h/%Fd/handle/4/4",
            "4/4",
            "doi:http://h/%Fd/handle/4/4",
        ),
    ];
    finds_one_cleaned_alike(&o, cases);
    // In the handle, it is refused.
    assert_eq!(found("see http://h/x/handle/4/%Fd here", &o), []);
    // Inside a known resolver's URL, whose path decoded fails there.
    assert_eq!(
        found("hdl.handle.net/1-http://h/%Fd/handle/4/4", &o),
        [("4/4".to_owned(), "http://h/%Fd/handle/4/4".to_owned())]
    );
}

/// A known resolver's URL with its scheme's default port is found as the URL, as cleaning
/// reads it (P1); with another port, the DOI in it is found bare.
#[test]
fn a_default_port_is_the_host() {
    let o = Options::new();
    let cases = &[
        (
            "see https://doi.org:443/10.1000/abc.",
            "10.1000/abc",
            "https://doi.org:443/10.1000/abc",
        ),
        (
            "(http://hdl.handle.net:80/20.1000/5)",
            "20.1000/5",
            "http://hdl.handle.net:80/20.1000/5",
        ),
        ("see https://doi.org:80/10.1000/x", "10.1000/x", "10.1000/x"),
        (
            "see https://doi.org:0443/10.1000/abc.",
            "10.1000/abc",
            "https://doi.org:0443/10.1000/abc",
        ),
        // A URL pasted before another, and a split DOI after the host, as cleaning reads them.
        (
            "see https://doi.org:443/https://doi.org/10.1002/x%2541 here",
            "10.1002/x%41",
            "https://doi.org:443/https://doi.org/10.1002/x%2541",
        ),
        (
            "see https://doi.org:443/10.1021/ es030360x here",
            "10.1021/es030360x",
            "https://doi.org:443/10.1021/ es030360x",
        ),
    ];
    finds_one_cleaned_alike(&o, cases);
    // A base named with the default port, or as written: the known host's split DOI is
    // joined as before.
    for base in ["https://doi.org:443", "https://doi.org/"] {
        let named = Options::new().proxy_base(ProxyBase::parse(base).unwrap());
        let text = "see https://doi.org/10.1021/ es030360x here";
        assert_eq!(
            found(text, &named),
            [(
                "10.1021/es030360x".to_owned(),
                "https://doi.org/10.1021/ es030360x".to_owned()
            )],
            "{base}"
        );
    }
    // A resolver's URL pasted after a named base and its segment: the whole, as cleaning
    // reads it.
    let o =
        Options::new().proxy_base(ProxyBase::parse("http://resolver.example:8080/123").unwrap());
    finds_one_cleaned_alike(
        &o,
        &[(
            "see http://resolver.example:8080/123/https://doi.org/10.1000/abc.",
            "10.1000/abc",
            "http://resolver.example:8080/123/https://doi.org/10.1000/abc",
        )],
    );
    // After a base the caller named, its segment and all, as cleaning joins it.
    for (base, text, url) in [
        (
            "https://x.org",
            "see https://x.org/10.1021/ es030360x here",
            "https://x.org/10.1021/ es030360x",
        ),
        (
            "https://x.org/seg",
            "see HTTPS://X.ORG/seg/10.1021/ es030360x here",
            "HTTPS://X.ORG/seg/10.1021/ es030360x",
        ),
    ] {
        let o = Options::new().proxy_base(ProxyBase::parse(base).unwrap());
        finds_one_cleaned_alike(&o, &[(text, "10.1021/es030360x", url)]);
    }
}

/// A label with white space before its colon, a space or a tab, `doi` or `hdl`, is found
/// with what it labels, as cleaning reads it (C2, C3).
#[test]
fn labels_with_white_space_before_the_colon() {
    let o = Options::new();
    let cases = &[
        (
            "see doi\t:10.1000/182 x",
            "10.1000/182",
            "doi\t:10.1000/182",
        ),
        ("see doi :10.1000/182 x", "10.1000/182", "doi :10.1000/182"),
        ("see hdl :20.1000/5 x", "20.1000/5", "hdl :20.1000/5"),
        ("see hdl : 20.1000/5", "20.1000/5", "hdl : 20.1000/5"),
        ("see hdl   :20.1000/5 x", "20.1000/5", "hdl   :20.1000/5"),
        ("(HDL\t:20.1000/5).", "20.1000/5", "HDL\t:20.1000/5"),
    ];
    finds_one_cleaned_alike(&o, cases);
    // Glued after a full stop, `doi` alone: `x.hdl:` and `x.hdl :` are no labels.
    assert!(found("see 2459.hdl:20.1000/5", &o).is_empty());
    assert!(found("see 2459.hdl :20.1000/5 x", &o).is_empty());
    // A colon's next piece goes on with a digit in its word, not past a quote.
    assert_eq!(
        found("doi:10.1000/182: see\"2\"", &o),
        [("10.1000/182".to_owned(), "doi:10.1000/182".to_owned())]
    );
}

/// Every ASCII white space splits a DOI's pieces alike, the vertical tab as the form feed,
/// and ends a token: the span keeps it as written.
#[test]
fn every_ascii_white_space_splits_alike() {
    let o = Options::new();
    for space in ['\t', '\n', '\u{B}', '\u{C}', '\r', ' '] {
        let text = format!("see https://doi.org/10.1000/{space}182 and 10.1000/a{space}b");
        assert_eq!(
            found(&text, &o),
            [
                (
                    "10.1000/182".to_owned(),
                    format!("https://doi.org/10.1000/{space}182")
                ),
                ("10.1000/a".to_owned(), "10.1000/a".to_owned()),
            ],
            "{text:?}"
        );
    }
}

/// DOIs as text taken from PDFs writes them in reference lists (C3): split by white space
/// after a label or a resolver's host, and joined on the evidence `split_end` names; glued
/// to the next word, and cut before it. The span is what was written, white space and all;
/// the handle is the DOI joined.
#[test]
fn dois_as_pdfs_write_them() {
    let o = Options::new();
    for (text, expected) in [
        // Split inside the prefix, after a label.
        (
            "doi: 10. 1093/jb/mvg083",
            vec![("10.1093/jb/mvg083", "doi: 10. 1093/jb/mvg083")],
        ),
        (
            "doi:10 .1073 /pnas.1018514108.",
            vec![("10.1073/pnas.1018514108", "doi:10 .1073 /pnas.1018514108")],
        ),
        // After a label with no colon: the pieces before the first '/'.
        (
            "DOI 10. 1093/jb/mvg083",
            vec![("10.1093/jb/mvg083", "DOI 10. 1093/jb/mvg083")],
        ),
        (
            "Science doi 10 .1073 /pnas.1018514108",
            vec![("10.1073/pnas.1018514108", "doi 10 .1073 /pnas.1018514108")],
        ),
        // Nothing after the '/', in a resolver's URL and after a label.
        (
            "http://dx.doi.org/10.1021/ es030360x.",
            vec![("10.1021/es030360x", "http://dx.doi.org/10.1021/ es030360x")],
        ),
        (
            "doi: 10.1057/ palcomms. 2015.46",
            vec![(
                "10.1057/palcomms.2015.46",
                "doi: 10.1057/ palcomms. 2015.46",
            )],
        ),
        // A piece that ends in what no DOI ends with, or a next that starts with '/' or '.'.
        (
            "http://dx.doi.org/10.1016/S0045- 6535(00)00505-1.",
            vec![(
                "10.1016/S0045-6535(00)00505-1",
                "http://dx.doi.org/10.1016/S0045- 6535(00)00505-1",
            )],
        ),
        (
            "doi: 10.1093/molbev /msu300.",
            vec![("10.1093/molbev/msu300", "doi: 10.1093/molbev /msu300")],
        ),
        (
            "doi :10.1103/PhysRevLett .100.228502.",
            vec![(
                "10.1103/PhysRevLett.100.228502",
                "doi :10.1103/PhysRevLett .100.228502",
            )],
        ),
        // Joined, no identifier (a bracket with no partner cuts it before the gap, C3): the
        // first piece, with its label.
        (
            "see doi:10.1016/S0005-7967( 99 x",
            vec![("10.1016/S0005-7967", "doi:10.1016/S0005-7967")],
        ),
        // After a colon, a piece of letters alone is prose; one with a digit or a '/' goes on
        // (a SICI's `<…>`, written or escaped; OUP's `acprof:oso/…`).
        (
            "doi: 10.1093/acprof: oso/9780199566570.001.0001",
            vec![(
                "10.1093/acprof:oso/9780199566570.001.0001",
                "doi: 10.1093/acprof: oso/9780199566570.001.0001",
            )],
        ),
        (
            "https://doi.org/10.1002/(SICI)1096-8644(199705)103:1%3C69:: AID-AJPA5%3E3.0.CO;2-8",
            vec![(
                "10.1002/(SICI)1096-8644(199705)103:1<69::AID-AJPA5>3.0.CO;2-8",
                "https://doi.org/10.1002/(SICI)1096-8644(199705)103:1%3C69:: AID-AJPA5%3E3.0.CO;2-8",
            )],
        ),
        (
            "doi: 10.1002/(sici)1096-8644(199705)103:1<69:: aid-ajpa5>3.0.co;2-8.",
            vec![(
                "10.1002/(sici)1096-8644(199705)103:1<69::aid-ajpa5>3.0.co;2-8",
                "doi: 10.1002/(sici)1096-8644(199705)103:1<69:: aid-ajpa5>3.0.co;2-8",
            )],
        ),
        (
            "see https://doi.org/10.1000/456: here",
            vec![("10.1000/456", "https://doi.org/10.1000/456")],
        ),
        (
            "doi:10.1000/182: pp.12-15",
            vec![("10.1000/182", "doi:10.1000/182")],
        ),
        (
            "See doi:10.1000/182: 12 items, and hdl:10.1000/183: 2012.",
            vec![
                ("10.1000/182", "doi:10.1000/182"),
                ("10.1000/183", "hdl:10.1000/183"),
            ],
        ),
        (
            "doi:10.1061/(ASCE)0733-9445(2002)128: 11(1056).",
            vec![(
                "10.1061/(ASCE)0733-9445(2002)128:11(1056)",
                "doi:10.1061/(ASCE)0733-9445(2002)128: 11(1056)",
            )],
        ),
        (
            "see https://doi.org/10.1175/1520-0493(2002)130%3C1913: EDAWPO%3E2.0.CO;2.",
            vec![(
                "10.1175/1520-0493(2002)130<1913:EDAWPO>2.0.CO;2",
                "https://doi.org/10.1175/1520-0493(2002)130%3C1913: EDAWPO%3E2.0.CO;2",
            )],
        ),
        (
            "doi: 10.1890/0012-9658(2006)87[2832: tiopma]2.0.co;2",
            vec![(
                "10.1890/0012-9658(2006)87[2832:tiopma]2.0.co;2",
                "doi: 10.1890/0012-9658(2006)87[2832: tiopma]2.0.co;2",
            )],
        ),
        // After the host, before the DOI.
        (
            "http://dx.doi.org/ 10.1051/nss: 2005018",
            vec![(
                "10.1051/nss:2005018",
                "http://dx.doi.org/ 10.1051/nss: 2005018",
            )],
        ),
        // After the host, a bracket with no partner: it cuts the URL (C3), but the DOI split
        // after it is joined on the host's evidence, as cleaning reads the URL (C2); with
        // no split, the DOI after the bracket alone.
        (
            "see https://doi.org/(10.1093/ molbev /msu300 here",
            vec![(
                "10.1093/molbev/msu300",
                "https://doi.org/(10.1093/ molbev /msu300",
            )],
        ),
        (
            "(dx.doi.org/[10.1093/ molbev /msu300).",
            vec![(
                "10.1093/molbev/msu300",
                "dx.doi.org/[10.1093/ molbev /msu300",
            )],
        ),
        (
            "see https://doi.org/«10.1093/ molbev /msu300 here",
            vec![(
                "10.1093/molbev/msu300",
                "https://doi.org/«10.1093/ molbev /msu300",
            )],
        ),
        (
            "see https://doi.org/(10.1093/molbev/msu300 here",
            vec![("10.1093/molbev/msu300", "10.1093/molbev/msu300")],
        ),
        // Not where cleaning the URL would not join: white space in the naming authority,
        // a handle decoded.
        ("see https://doi.org/(10. 1093/x here", vec![]),
        ("see https://doi.org/( 10.1093/ molbev /msu300", vec![]),
        ("see https://doi.org/(10.1093/ ab%20c /msu300", vec![]),
        ("see https://doi.org/(10.1093/ molbev /msu300%29", vec![]),
        // A label glued after a full stop.
        (
            "Phys. Rev. D10 (1974) 2445-2459.doi:10. 1103/PhysRevD.10.2445.",
            vec![("10.1103/PhysRevD.10.2445", "doi:10. 1103/PhysRevD.10.2445")],
        ),
        (
            "doi.10.1093/cid/ciy936",
            vec![("10.1093/cid/ciy936", "doi.10.1093/cid/ciy936")],
        ),
        // After an `hdl:` or `info:` URI's prefix, as after a label.
        (
            "see hdl:10.1021/ es030360x here",
            vec![("10.1021/es030360x", "hdl:10.1021/ es030360x")],
        ),
        (
            "see info:doi/10. 1093/jb/mvg083.",
            vec![("10.1093/jb/mvg083", "info:doi/10. 1093/jb/mvg083")],
        ),
        (
            "see hdl://10.1093/ molbev /msu300 here",
            vec![("10.1093/molbev/msu300", "hdl://10.1093/ molbev /msu300")],
        ),
        // A label before such a URI: found with it, as cleaning reads it.
        (
            "see DOI: hdl:10.1021/ es030360x here",
            vec![("10.1021/es030360x", "DOI: hdl:10.1021/ es030360x")],
        ),
        // Not right after the prefix (a gap comes first only after a host), nor a piece
        // that is a DOI of its own: the next identifier.
        ("see info:doi/ 10.1000/abc here", vec![("10.1000/abc", "10.1000/abc")]),
        (
            "See hdl:10.1000/182. 10.1000/183 and",
            vec![
                ("10.1000/182", "hdl:10.1000/182"),
                ("10.1000/183", "10.1000/183"),
            ],
        ),
        (
            "See doi:10.1000/182. 10.1000/183 and",
            vec![
                ("10.1000/182", "doi:10.1000/182"),
                ("10.1000/183", "10.1000/183"),
            ],
        ),
        // Pieces that joined are no identifier: the first piece, the URL and all.
        (
            "see https://doi.org/10.1000/x: ab]2 here",
            vec![("10.1000/x", "https://doi.org/10.1000/x")],
        ),
        // A label glued to its DOI, its colon lost; not inside a word.
        (
            "Nature 2008. DOI10.1038/nature06958 (2008)",
            vec![("10.1038/nature06958", "DOI10.1038/nature06958")],
        ),
        ("see xdoi10.1038/nature06958 here", vec![]),
        // Glued and split right after the prefix's '/', as PDFs write both.
        (
            "Nature 2008. DOI10.1038/ nature06958 (2008)",
            vec![("10.1038/nature06958", "DOI10.1038/ nature06958")],
        ),
        (
            "Nature 2008. DOI10.1038/ Nature (2008)",
            vec![("10.1038/Nature", "DOI10.1038/ Nature")],
        ),
        // A check character after a full stop: Wiley's `x`, a mark after it at most; another
        // letter alone is a word, and a capital starts a sentence.
        (
            "doi: 10.1111/j.0012-155X.2005.00401. x",
            vec![(
                "10.1111/j.0012-155X.2005.00401.x",
                "doi: 10.1111/j.0012-155X.2005.00401. x",
            )],
        ),
        (
            "doi: 10.1111/j.0012-155X.2005.00401. x. Next",
            vec![(
                "10.1111/j.0012-155X.2005.00401.x",
                "doi: 10.1111/j.0012-155X.2005.00401. x",
            )],
        ),
        (
            "see doi:10.1000/182. a second copy",
            vec![("10.1000/182", "doi:10.1000/182")],
        ),
        (
            "see (doi:10.1111/j.1365-2656.2006.01138. x) here",
            vec![(
                "10.1111/j.1365-2656.2006.01138.x",
                "doi:10.1111/j.1365-2656.2006.01138. x",
            )],
        ),
        (
            "x doi:10.1002/(SICI)1521-3978(199806)46: 4/5<493::AID-PROP493>3.0.CO;2-P y",
            vec![(
                "10.1002/(SICI)1521-3978(199806)46:4/5<493::AID-PROP493>3.0.CO;2-P",
                "doi:10.1002/(SICI)1521-3978(199806)46: 4/5<493::AID-PROP493>3.0.CO;2-P",
            )],
        ),
        (
            "see doi:10.1000/182. xylophones",
            vec![("10.1000/182", "doi:10.1000/182")],
        ),
        (
            "doi: 10.1000/182. A study",
            vec![("10.1000/182", "doi: 10.1000/182")],
        ),
        // No evidence: a sentence after the DOI, a bare DOI, another word.
        (
            "doi: 10.1000/182. The next",
            vec![("10.1000/182", "doi: 10.1000/182")],
        ),
        (
            "doi: 10.1000/182, 2012.",
            vec![("10.1000/182", "doi: 10.1000/182")],
        ),
        ("see 10.1021/ es030360x", vec![]),
        // Glued words.
        (
            "doi :10.1103/PhysRevD.11.395.URL https://x",
            vec![("10.1103/PhysRevD.11.395", "doi :10.1103/PhysRevD.11.395")],
        ),
        (
            "doi :10.1146/annurev.nucl.55.090704.151502,arXiv :hep-ph/0502182.",
            vec![(
                "10.1146/annurev.nucl.55.090704.151502",
                "doi :10.1146/annurev.nucl.55.090704.151502",
            )],
        ),
        (
            "Pain. 10.1016/j.pain.2013.06.022[doi]",
            vec![("10.1016/j.pain.2013.06.022", "10.1016/j.pain.2013.06.022")],
        ),
        (
            "http://dx.doi.org/10.1016/j.physletb.2017.05.070,in press",
            vec![(
                "10.1016/j.physletb.2017.05.070",
                "http://dx.doi.org/10.1016/j.physletb.2017.05.070",
            )],
        ),
        // A word of the DOI that only looks like one (`issn` is not on the list).
        (
            "https://doi.org/10.16367/j.issn.1003-5028.2015.04.0285.",
            vec![(
                "10.16367/j.issn.1003-5028.2015.04.0285",
                "https://doi.org/10.16367/j.issn.1003-5028.2015.04.0285",
            )],
        ),
        // A registrant code of four digits or more, or an ISBN-A's.
        ("allow 10.0.0.0/8 to reach it", vec![]),
        (
            "ISBN-A 10.978.8898392/315.",
            vec![("10.978.8898392/315", "10.978.8898392/315")],
        ),
        ("doi:10.123/456", vec![("10.123/456", "doi:10.123/456")]),
    ] {
        let expected: Vec<(String, String)> = expected
            .into_iter()
            .map(|(h, t)| (h.to_owned(), t.to_owned()))
            .collect();
        assert_eq!(found(text, &o), expected, "{text:?}");
    }
}

/// A start inside an escaped closing bracket (a bare handle under a prefix that begins with
/// its digits) is read as written, and the ends kept for the starts inside an identifier
/// count each escape whole: hundreds of them neither overflow nor move an end.
#[test]
fn starts_inside_escapes() {
    let o = Options::new().handle_prefix("29.1");
    for (outer, first) in [
        ("doi:10.1000/a(", "doi:10.1000/a"),
        (
            "https://hdl.handle.net/10.1000/a(",
            "https://hdl.handle.net/10.1000/a",
        ),
    ] {
        let text = format!("{outer}{}", "((%29.1/c)".repeat(300));
        let texts: Vec<&str> = extract(&text, &o).map(|f| f.text()).collect();
        assert_eq!(texts.len(), 301, "{outer}");
        assert_eq!(texts[0], first);
        assert!(texts[1..].iter().all(|&t| t == "29.1/c"), "{outer}");
    }
}

/// Starts of one form one after another whose handles all run to one distant '/' (the
/// last start's), each refused early: what each start reads alone stops where its reading
/// does, so what extraction reads stays linear.
#[test]
fn work_is_linear_to_a_distant_slash() {
    for (unit, last) in [
        ("hdl:", "hdl://"),
        ("info:hdl/", "info:hdl//"),
        ("urn:doi:", "urn:doi:/"),
        ("doi:", "doi:/"),
        ("info:doi/", "info:doi//"),
        ("https://doi.org/1.", "https://doi.org/1./"),
        ("doi.org/1.", "doi.org/1./"),
        ("https://hdl.handle.net/hdl:", "https://hdl.handle.net//"),
        ("hdl://1/", "hdl://1//"),
    ] {
        let make = |n| format!("{}{last}", unit.repeat(n));
        reads_linearly(unit, &Options::new(), 24.0, make, [1000, 4000]);
    }
}

/// Starts that share where their first piece ends, before a gap and a long word: the look
/// at the word (whether a split DOI goes on with it, C3) comes after each start's DOI
/// prefix, which none of them holds, so the word is read once, not once a start
/// (`doi.org/%20:` repeated was quadratic); what the look reads is counted.
#[test]
fn work_is_linear_before_a_long_word_after_a_gap() {
    for unit in ["doi.org/%20:", "https://doi.org/%20:", "hdl:10.1000/("] {
        let make = |n| format!("{}- {}", unit.repeat(n), "a".repeat(25 * n));
        reads_linearly(unit, &Options::new(), 48.0, make, [1000, 4000]);
    }
}

/// A base named on a known resolver's host claims its path segment (P1): a DOI split after
/// it is joined, and a resolver's URL pasted after it found whole, as after any base.
#[test]
fn a_base_named_on_a_known_host() {
    let o = Options::new().proxy_base(ProxyBase::parse("https://doi.org/123").unwrap());
    finds_one_cleaned_alike(
        &o,
        &[
            (
                "see https://doi.org/123/10.1000/ abc here",
                "10.1000/abc",
                "https://doi.org/123/10.1000/ abc",
            ),
            (
                "see https://doi.org/123/https://doi.org/10.1000/abc here",
                "10.1000/abc",
                "https://doi.org/123/https://doi.org/10.1000/abc",
            ),
            // Its host and port as the base names them.
            (
                "see https://doi.org:443/123/10.1000/ abc here",
                "10.1000/abc",
                "https://doi.org:443/123/10.1000/ abc",
            ),
        ],
    );
    // Its segment as written: another case is no base's, and no DOI is joined after it
    // (the known host's URL, as without the base).
    let o = Options::new().proxy_base(ProxyBase::parse("https://doi.org/abc").unwrap());
    let text = "see https://doi.org/ABC/10.1000/ x here";
    assert!(handle_id::clean("https://doi.org/ABC/10.1000/ x", &o).is_err());
    assert_eq!(found(text, &o), found(text, &Options::new()));
    assert_eq!(found(text, &o)[0].1, "https://doi.org/ABC/10.1000/");
}

/// Starts of an `hdl:` URI whose naming authority runs far, to one '/' they share, each
/// refused by the URI's grammar at its next start's ':' (past the first 64 bytes): each
/// reads up to its refused byte, so what extraction reads stays linear.
#[test]
fn work_is_linear_to_a_far_refusal() {
    let unit = format!("hdl:{}-", "a".repeat(61));
    let make = |n| format!("{}/x", unit.repeat(n));
    reads_linearly(&unit, &Options::new(), 24.0, make, [250, 1000]);
}

/// The option sets the linear-work checks of shapes with a head or a tail run under.
fn option_sets() -> [Options; 5] {
    let base = ProxyBase::parse("http://resolver.example:8080/hdl").unwrap();
    [
        Options::new(),
        Options::new().cordra(true),
        Options::new().repository_urls(true),
        Options::new().resolution_form(true),
        Options::new().proxy_base(base).handle_prefix("20.500.1"),
    ]
}

/// Starts one after another, each after an escaped closing bracket and an opening one
/// (`%29(`), whose ends' scans decode escapes: a `%29` closes the bracket an earlier
/// start's scan holds open, and nothing in a later one's, so each later scan falls in
/// step with the one before within a few bytes and ends where it does, read no further
/// (each read to the end was quadratic).
#[test]
fn work_is_linear_after_escaped_closing_brackets() {
    let rows = &[
        ("", "%29-(hdl:", ")", 32.0),
        ("29/10.1000/", "?(doi.org/%29", "%>", 32.0),
        ("10.1000/1000", "%29(1urn:hdl:", "", 32.0),
        ("hdl «", "urn:hdl:%29(", "", 32.0),
        ("%3A ", "(urn:hdl:%29", "/", 32.0),
        ("", "(urn:hdl:%29%2F", "/x", 32.0),
    ];
    heads_units_and_tails_read_linearly(&option_sets(), rows);
}

/// What is found among escaped closing brackets read in step (small instances of the
/// shapes above): each `hdl:` or `urn:hdl:` URI holds no handle, and a DOI before them
/// ends as cleaning ends it.
#[test]
fn escaped_closing_brackets_read_in_step() {
    let cases: [(&str, &[&str]); 5] = [
        ("%29-(hdl:%29-(hdl:%29-(hdl:)", &[]),
        (
            "29/10.1000/?(doi.org/%29?(doi.org/%29?(doi.org/%29%>",
            &["10.1000/?"],
        ),
        (
            "10.1000/1000%29(1urn:hdl:%29(1urn:hdl:%29(1urn:hdl:",
            &["10.1000/1000%29"],
        ),
        ("hdl «urn:hdl:%29(urn:hdl:%29(urn:hdl:%29(", &[]),
        ("%3A (urn:hdl:%29(urn:hdl:%29(urn:hdl:%29/", &[]),
    ];
    for (text, want) in cases {
        for options in &option_sets() {
            let texts: Vec<String> = found(text, options).into_iter().map(|f| f.1).collect();
            assert_eq!(texts, want, "{text}");
        }
    }
    // A URL whose path closes with an escape a bracket opened in it: found whole.
    let text = "see https://doi.org/10.1000/a(b%29(c) here";
    assert_eq!(
        found(text, &Options::new()),
        [(
            "10.1000/a(b)(c)".to_owned(),
            "https://doi.org/10.1000/a(b%29(c)".to_owned()
        )]
    );
}

/// Under the CORDRA profile, whose validator of `hdl:` URIs takes '@' and ':' in the first
/// segment, starts one after another whose handles run to one distant '/': each is
/// refused where the naming authority's grammar refuses a byte (`hdl:@:…`), read beside
/// the validator, or, past that '/', where the validator refuses a byte for every start
/// that shares the '/' (`hdl:doiaé…hdl://`, remembered), or where the naming authority
/// fails on bytes that fail every start whose naming authority holds them (`hdl:a:…@/`,
/// `hdl:a:….`, `hdl:a:…%FF/`; the last bad UTF-8 before the '/', `%FF-hdl:…/`; an escaped
/// '/', `hdl:hdl:%2F…/`, U11; remembered): what extraction reads stays linear (each read to
/// the '/' was quadratic).
#[test]
fn work_is_linear_to_a_shared_slash_under_cordra() {
    for (head, unit, tail) in [
        ("«", "urn:hdl:@:", "29/doi"),
        ("a", "hdl:doiaé", "hdl:// "),
        ("", "hdl:a:", "@/x"),
        ("", "hdl:a:", "%40/x"),
        ("", "hdl:a:", "./x"),
        ("", "hdl:a:", "%FF/x"),
        ("", "hdl:a:", "%C3/x"),
        ("", "%FF-hdl:", "/x"),
        ("", "-hdl:%C3", "/x"),
        ("", "hdl:hdl:%2F", "/x"),
    ] {
        let make = |n| format!("{head}{}{tail}", unit.repeat(n));
        // A small instance holds no handle; one after it is found.
        let text = make(3);
        let after = format!("{text}, and hdl:20.1000/x");
        for options in &option_sets() {
            reads_linearly(unit, options, 24.0, make, [800, 3200]);
            assert_eq!(found(&text, options), [], "{text}");
            let texts: Vec<String> = found(&after, options).into_iter().map(|f| f.1).collect();
            assert_eq!(texts, ["hdl:20.1000/x"], "{after}");
        }
    }
}

/// Starts one after another each of which read the rest of the text: a resolver's URL whose
/// path a bracket opens right after its host, whose DOI split by white space after that
/// bracket was looked for up to the next white space (remembered now as the starts move
/// forward); an `hdl:` URI whose naming authority holds an escaped '/' (U11), which the
/// CORDRA validator walked up to the handle's '/' (it fails alone, and is remembered). What
/// extraction reads stays linear (the first reads MAX_OPEN brackets ahead from each start).
#[test]
fn work_is_linear_where_each_start_read_the_rest() {
    let rows = &[
        ("a", "#https://doi.org/<10.1000/", "129/doi", 48.0),
        ("", "%2Furn:hdl:hdl:", "/x", 24.0),
        // Resolvers' URLs whose paths run to one far query or fragment: read up to it
        // alone once, not from each start (under CORDRA).
        ("", "doi.org/&", "?%29", 24.0),
        ("", "%3Ahttps://doi.org/", "#%3A", 24.0),
        ("", "hdl.handle.net/:", "#doi:", 24.0),
    ];
    heads_units_and_tails_read_linearly(&option_sets(), rows);
}

/// Each `(head, unit, tail, bound)` of `rows`, the unit repeated 800 and 3,200 times
/// between the two, read within the bound and linearly under each of `sets`.
fn heads_units_and_tails_read_linearly(sets: &[Options], rows: &[(&str, &str, &str, f64)]) {
    for &(head, unit, tail, bound) in rows {
        let make = |n| format!("{head}{}{tail}", unit.repeat(n));
        for options in sets {
            reads_linearly(unit, options, bound, make, [800, 3200]);
        }
    }
}

/// Starts one after another whose identifiers share one far end, each of which read the
/// rest of the text:
/// - what a DOI split by white space after a resolver's host, a label or a URI's prefix
///   would go on with, the same piece after that end for them all (read once now, and
///   what was not read is not counted);
/// - white space (C2), an escaped '.' (U11) or a byte no UTF-8 holds in an `hdl:` URI's
///   naming authority up to a far '/', where it fails alone (remembered);
/// - an `hdl:` URI's query (U7), where its handle read up to that query holds none found;
/// - a DOI label's naming authority that fails on its own bytes (remembered);
/// - an `hdl:` URI's local name that cleaning leaves empty (remembered for its end).
///
/// What extraction reads stays linear, under every option set and a named base on a known
/// host.
#[test]
fn work_is_linear_where_each_start_shares_a_far_end() {
    let known = ProxyBase::parse("https://doi.org/123").unwrap();
    let mut sets = option_sets().to_vec();
    sets.push(Options::new().proxy_base(known));
    let rows = &[
        // The piece after the first one's end: a DOI split by white space.
        ("http://", "https://doi.org/10.1000/?", "DOI )", 24.0),
        ("\t»", "https://doi.org/10.1000/?", "DOI http://", 24.0),
        ("", "https://doi.org/«10.1000/?", "DOI %C3", 48.0),
        ("%29", "hdl.handle.net/«10.1000/«", "DOI %3E", 48.0),
        ("%2F%C3", "hdl://10.1000/#", " https://doi.org/", 24.0),
        ("\t;", "info:doi/10.1000/%28#", "DOI %2E", 24.0),
        // An escaped space in an `hdl:` URI's naming authority up to a far '/': it fails
        // alone there, and is remembered (under CORDRA, whose validator takes it).
        ("", "%20urn:hdl:", "https://doi.org/", 24.0),
        ("", "%5Durn:hdl:%20", "https:///api/handles/", 24.0),
        // An escaped '.' (U11) or a byte no UTF-8 holds: the same.
        ("", "%2E,hdl:hdl:", "10.1000/@", 24.0),
        ("(", "xurn:hdl:%FF", "%https://", 24.0),
        // `hdl:` URIs whose handle, up to the query that ends it, is none found (its local
        // name left empty): read up to there alone, not through the query to the end.
        (")1", "%20?hdl://10.1000/", "(", 24.0),
        (":29", "%3A?hdl://10.1000/", ">»", 24.0),
        ("%28", "10.1000/%29?hdl://", "", 24.0),
        (">,", ";?hdl://10.1000/", "1000hdl:", 24.0),
        // DOI labels whose naming authorities, up to a far '/', end with a '.' (H3): it
        // fails each where it ends, remembered.
        ("", "%2F%3Aurn:doi:10.", "/api/handles/", 24.0),
        ("http://", "%281urn:doi:10.", "/hdl://", 24.0),
        ("[https://doi.org/", "?doi:10.", "/x", 24.0),
        // `hdl:` URIs up to a far '/' whose local name cleaning leaves empty (under CORDRA,
        // whose validator takes it), remembered for that end.
        ("", "29urn:hdl:", "hdl.handle.net/%20", 24.0),
        ("", "xurn:hdl::", "info:hdl/%3E", 24.0),
        (".", "urn:hdl:1.", "hdl.handle.net/%3A", 24.0),
        (
            "hdl.handle.net/%C3",
            "2929%29urn:hdl:",
            "info:hdl/%29",
            24.0,
        ),
    ];
    heads_units_and_tails_read_linearly(&sets, rows);
}

/// A resolver's URL after a label, where the two do not read as one, is found from its
/// own start as it is without the label, and what follows it is read as it is then.
#[test]
fn a_url_after_a_label_that_does_not_read_with_it() {
    let o = Options::new();
    let alone = found("https://doi.org/10. 6/1\"10.1000/x?q=1", &o);
    assert_eq!(
        found("doi:https://doi.org/10. 6/1\"10.1000/x?q=1", &o),
        alone
    );
    assert_eq!(alone.last().unwrap().1, "10.1000/x?q=1");
}

/// A `urn:` form in a resolver's path is read from the decoded path (P3): its first ':',
/// written or escaped, is the handle's '/', so an escaped ':' ends the naming authority
/// there as an escaped '/' does elsewhere (`D%3A%40:` is the naming authority `D`, not
/// `D:@`, refused). Found whole, as cleaning reads it, under every option set that reads
/// such a URL (CORDRA's reads none).
#[test]
fn an_escaped_colon_ends_a_urn_forms_naming_authority_in_a_path() {
    let cases = &[
        (
            "doi.org/urn:hdl:D%3A%40:h",
            "D/@:h",
            "doi.org/urn:hdl:D%3A%40:h",
        ),
        (
            "see https://hdl.handle.net/urn:hdl:D%3A%40:h.",
            "D/@:h",
            "https://hdl.handle.net/urn:hdl:D%3A%40:h",
        ),
        (
            "see https://doi.org/urn:hdl:20.1000%3Ax/y here",
            "20.1000/x/y",
            "https://doi.org/urn:hdl:20.1000%3Ax/y",
        ),
        (
            "doi.org/urn:doi:10.1000%3Aa.b:c",
            "10.1000/a.b:c",
            "doi.org/urn:doi:10.1000%3Aa.b:c",
        ),
    ];
    let base = ProxyBase::parse("http://resolver.example:8080/hdl").unwrap();
    for o in [
        Options::new(),
        Options::new().repository_urls(true),
        Options::new().resolution_form(true),
        Options::new().proxy_base(base).handle_prefix("20.500.1"),
    ] {
        finds_one_cleaned_alike(&o, cases);
    }
}
