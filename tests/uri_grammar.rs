//! The URI and URL grammars: the generated validators against pest's parsers of the same
//! files, on the corpus written in every form and on property-generated strings; and the
//! library's slicing of a validated text (naming authority, local name, query, fragment,
//! server, host) against pest's parse tree.

mod support;

use handle_id::__reference::generated;
use handle_id::{recognize, HdlUri, Options};
use pest::iterators::Pairs;
use pest::Parser;
use proptest::prelude::*;

use support::grammars::{cordra, hdl, info, proxy};

use handle_id_fuzz::reference::accepts as pest_accepts;

/// Every generated validator but the handle's (tests/differential.rs has that one).
fn entry_rules() -> impl Iterator<Item = &'static str> {
    handle_id_fuzz::reference::entry_rules().filter(|rule| *rule != "handle")
}

#[track_caller]
fn agree(text: &str) {
    for rule in entry_rules() {
        let ours = generated(rule, text).expect("a generated rule");
        assert_eq!(
            ours.is_ok(),
            pest_accepts(rule, text),
            "rule {rule} on {text:?}"
        );
    }
}

/// The corpus, as written and in every form.
fn corpus_in_every_form() -> Vec<String> {
    let mut out = Vec::new();
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in support::corpus(file) {
            let id = support::identifier(&row);
            out.push(id.to_owned());
            for prefix in [
                "hdl:",
                "HDL://",
                "hdl://server:8000/",
                "info:hdl/",
                "info:doi/",
                "https://hdl.handle.net/",
                "http://h/hdl/",
                "doi:",
                "urn:doi:",
            ] {
                out.push(format!("{prefix}{id}"));
            }
            if let Ok(h) = handle_id::HandleRef::parse(id) {
                out.extend([h.to_hdl_uri(), h.to_hdl_host_uri(), h.to_info_uri()]);
            }
        }
    }
    out
}

#[test]
fn validators_agree_with_pest_on_the_corpus() {
    let inputs = corpus_in_every_form();
    assert!(inputs.len() > 10_000);
    for text in &inputs {
        agree(text);
    }
}

fn uri_char() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        'h', 'd', 'l', 'H', 't', 'p', 's', 'i', 'n', 'f', 'o', 'u', 'r', 'a', 'F', '0', '1', '9',
        ':', '/', '.', '%', '?', '#', '@', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=',
        '-', '_', '~', ' ', '"', '<', '\\', '[', 'é', '\u{0}', '\t',
    ])
}

/// Strings that start like a form and go on at random.
fn uri_like() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "",
            "hdl:",
            "hdl://",
            "HdL:",
            "info:hdl/",
            "info:doi/",
            "info:x/",
            "doi:",
            "urn:hdl:",
            "urn:doi:",
            "urn:x:",
            "http://",
            "https://h/",
            "HTTP://a:1/b/",
            "x+y.z://",
        ]),
        prop::collection::vec(uri_char(), 0..20),
    )
        .prop_map(|(prefix, rest)| format!("{prefix}{}", rest.into_iter().collect::<String>()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn validators_agree_with_pest(text in uri_like()) {
        agree(&text);
    }

    /// What readers of URIs rely on when the naming authority needs no decoding: after a
    /// naming authority and '/', the handle grammar takes any text as the local name (H1).
    #[test]
    fn any_text_is_a_local_name(local in any::<String>()) {
        let handle = format!("10.1000/{local}");
        prop_assert!(support::reference::pest_handle(&handle).is_ok(), "{handle:?}");
        prop_assert_eq!(generated("handle", &handle), Some(Ok(())));
    }

    #[test]
    fn slicing_matches_the_parse_tree(text in uri_like()) {
        slicing_agrees(&text);
        parse_is_recognize(&text);
    }
}

/// `HdlUri::parse` (which tries `hdl_path`, then `hdl_host`) reads an `hdl:` text as
/// `recognize` does (which picks the form by its prefix first), errors included.
#[track_caller]
fn parse_is_recognize(text: &str) {
    let options = Options::new();
    if matches!(
        handle_id::detect(text, &options),
        Some(handle_id::Form::Hdl | handle_id::Form::HdlHost)
    ) {
        assert_eq!(HdlUri::parse(text), recognize(text, &options), "{text:?}");
    }
}

/// The text of the first pair of `rule` in `pairs`, searched depth first.
fn find<'a, R: pest::RuleType>(pairs: Pairs<'a, R>, rule: R) -> Option<&'a str> {
    pairs
        .flatten()
        .find(|p| p.as_rule() == rule)
        .map(|p| p.as_str())
}

/// Where pest accepts an `hdl:`, `info:` or proxy URL text and the library reads a handle
/// from it, the library's parts are the parse tree's parts, decoded.
#[track_caller]
fn slicing_agrees(text: &str) {
    let resolution = Options::new().resolution_form(true);
    let named = Options::new().proxy_base(handle_id::ProxyBase::parse("http://h/hdl").unwrap());
    for (rule, options) in [
        (hdl::Rule::hdl_host, Options::new()),
        (hdl::Rule::hdl_path, Options::new()),
        (hdl::Rule::hdl_resolution, resolution),
    ] {
        let (Ok(pairs), Ok(uri)) = (hdl::G::parse(rule, text), recognize(text, &options)) else {
            continue;
        };
        let na = find(pairs.clone(), hdl::Rule::u_naming_authority).unwrap();
        let local = find(pairs.clone(), hdl::Rule::u_local_name).unwrap();
        let expected = format!(
            "{}/{}",
            support::percent_decoded(na).unwrap(),
            support::percent_decoded(local).unwrap()
        );
        assert_eq!(uri.handle().as_str(), expected, "{text:?}");
        assert_eq!(
            uri.query(),
            find(pairs.clone(), hdl::Rule::query),
            "{text:?}"
        );
        assert_eq!(
            uri.fragment(),
            find(pairs.clone(), hdl::Rule::fragment),
            "{text:?}"
        );
        if rule == hdl::Rule::hdl_resolution {
            assert_eq!(uri.base(), find(pairs, hdl::Rule::server), "{text:?}");
        }
    }
    if let (Ok(pairs), Ok(uri)) = (
        info::G::parse(info::Rule::info_uri, text),
        recognize(text, &Options::new()),
    ) {
        let identifier = find(pairs.clone(), info::Rule::identifier).unwrap();
        assert_eq!(
            uri.handle().as_str(),
            support::percent_decoded(identifier).unwrap(),
            "{text:?}"
        );
        assert_eq!(
            uri.fragment(),
            find(pairs, info::Rule::fragment),
            "{text:?}"
        );
    }
    if let (Ok(pairs), Ok(uri)) = (
        proxy::G::parse(proxy::Rule::http_url, text),
        recognize(text, &named),
    ) {
        let host = find(pairs.clone(), proxy::Rule::authority).unwrap();
        assert!(uri.base().unwrap().contains(host), "{text:?}");
        assert_eq!(
            uri.query(),
            find(pairs.clone(), proxy::Rule::query),
            "{text:?}"
        );
        assert_eq!(
            uri.fragment(),
            find(pairs, proxy::Rule::fragment),
            "{text:?}"
        );
    }
}

#[test]
fn slicing_matches_the_parse_tree_on_the_corpus() {
    for text in corpus_in_every_form() {
        slicing_agrees(&text);
        parse_is_recognize(&text);
    }
    // HdlUri::parse is the hdl: part of recognize.
    let uri = HdlUri::parse("hdl:1/2?q#f").unwrap();
    assert_eq!(uri, recognize("hdl:1/2?q#f", &Options::new()).unwrap());
}

fn whole<R: pest::RuleType>(parsed: Result<Pairs<'_, R>, pest::error::Error<R>>) -> bool {
    parsed.is_ok_and(|p| p.as_str().len() == 1)
}

/// `handle_from_parts` skips the handle grammar for an `hdl:` URI in which nothing was
/// percent-decoded. That rests on this: every character `u_na_segment` allows raw, the
/// handle's `na_segment` allows too (and both join segments with '.', none empty). CORDRA's
/// `segment_nz` and `reg_name` do not have this property ('@', empty segments), so the
/// CORDRA profile always checks the decoded handle.
#[test]
fn raw_uri_segment_characters_are_handle_segment_characters() {
    let mut cordra_differs = false;
    for c in (0_u8..128).map(char::from) {
        let s = c.to_string();
        let in_handle = whole(support::reference::HandleGrammar::parse(
            support::reference::Rule::na_segment,
            &s,
        ));
        if whole(hdl::G::parse(hdl::Rule::u_na_segment, &s)) {
            assert!(
                in_handle,
                "{c:?} is raw in u_na_segment but not in na_segment"
            );
        }
        cordra_differs |= whole(cordra::G::parse(cordra::Rule::segment_nz, &s)) && !in_handle;
    }
    assert!(
        cordra_differs,
        "CORDRA's segments allow what a handle segment does not"
    );
    for text in ["hdl:a@b/x", "hdl:a..b/x", "hdl://a..b/x"] {
        assert!(
            recognize(text, &Options::new().cordra(true)).is_err(),
            "{text}"
        );
    }
}
