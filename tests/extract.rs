//! Extraction (SPEC C3): DOIs and handles in running text, in the contexts real text puts
//! them in (reference lists, HTML, Markdown, BibTeX, JSON, CSV, sentences), with the hard
//! cases of the issue: SICI DOIs with `<>` in prose, DOIs that end in a balanced `)`.

mod support;

use handle_id::{extract, Form, Options, ProxyBase};
use proptest::prelude::*;
use support::contexts::{self, doi, in_context, CONTEXTS};

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
