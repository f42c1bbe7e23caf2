//! Extraction (SPEC C3): DOIs and handles in running text, in the contexts real text puts
//! them in (reference lists, HTML, Markdown, BibTeX, JSON, CSV, sentences), with the hard
//! cases of the issue: SICI DOIs with `<>` in prose, DOIs that end in a balanced `)`.

mod support;

use handle_id::{extract, Form, Options, ProxyBase};
use proptest::prelude::*;
use support::contexts::{self, doi, in_context, CONTEXTS, DOCUMENTS};

/// What `extract` finds in `text`: the handles and the texts as written.
fn found(text: &str, options: &Options) -> Vec<(String, String)> {
    extract(text, options)
        .map(|f| {
            assert_eq!(&text[f.span()], f.text(), "the span is the text as written");
            (f.handle().as_str().to_owned(), f.text().to_owned())
        })
        .collect()
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
    for context in CONTEXTS {
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
    let plain = contexts::plain_corpus_dois();
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
