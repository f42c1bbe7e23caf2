//! Every identifier in the corpus and every example in the specifications through the
//! bare-handle parser (D5: no form is recognised here), in snapshots: valid ones with prefix,
//! segments and local name, invalid ones with the rendered error.

mod support;

use std::collections::HashSet;

use support::{corpus, describe, identifier};

/// The descriptions of the distinct identifiers of `rows`, in their order.
fn describe_all<'a>(inputs: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen = HashSet::new();
    inputs
        .into_iter()
        .filter(|input| seen.insert(*input))
        .map(describe)
        .collect()
}

/// Handle-like strings quoted in the source documents SPEC.md lists, by source.
const SPEC_TEXT_EXAMPLES: &[(&str, &str)] = &[
    ("WIKI", "1234/567"),
    ("WIKI", "hdl:1234/567"),
    ("WIKI", "hdl://190.12.34.56/1234/567"),
    ("WIKI", "info:hdl/1234/567"),
    ("CORDRA", "100.102/F58FB49EB1F848f0A606E84CEF294BE5"),
    ("CORDRA", "hdl:100.102/F58FB49EB1F848f0A606E84CEF294BE5"),
    ("CORDRA", "hdl://100.102/F58FB49EB1F848f0A606E84CEF294BE5"),
    (
        "CORDRA",
        "http://arrow.resolver.au.gov:2641/hdl/100.102/F58FB49EB1F848f0A606E84CEF294BE5",
    ),
    ("SYNTAX", "10.1045/april2006-paskin"),
    ("SYNTAX", "12345/x"),
    ("SYNTAX", "12345.1/x"),
    ("PROXY", "20.1000/5555"),
    ("PROXY", "20.1000/5555/"),
    ("PROXY", "20.1000/5555#resolve"),
    ("PROXY", "20.1000/115"),
    ("PROXY", "0.NA/4263537"),
    ("PROXY", "4263537/4000"),
    ("PROXY", "10320/loc"),
    ("PROXY", "2000.01/A3D8BE7457C943FFB66ED4583059A8BA"),
    ("PROXY", "https://hdl.handle.net/20.1000/5555%23resolve"),
    ("PROXY", "https://hdl.handle.net/api/handles/4263537/4000"),
    ("RFC3651", "0.NA/10"),
    ("RFC3651", "0.TYPE/URL"),
    ("RFC3651", "0.0/0.0"),
];

#[test]
fn spec_text_examples() {
    let text: String = SPEC_TEXT_EXAMPLES
        .iter()
        .map(|(source, input)| format!("[{source}] {}", describe(input)))
        .collect();
    insta::assert_snapshot!(text);
}

#[test]
fn spec_examples_corpus() {
    let rows = corpus("spec_examples.jsonl");
    // Single characters and regular expressions quoted from the sources are not identifiers.
    let inputs = rows
        .iter()
        .filter(|r| !matches!(r["kind"].as_str(), Some("character" | "regex")))
        .map(identifier);
    insta::assert_snapshot!(describe_all(inputs));
}

#[test]
fn peers_corpus() {
    let rows = corpus("peers.jsonl");
    insta::assert_snapshot!(describe_all(rows.iter().map(identifier)));
}

#[test]
fn real_ids_corpus() {
    let rows = corpus("real_ids.jsonl");
    insta::assert_snapshot!(describe_all(rows.iter().map(identifier)));
}

/// What `recognize` reads in each identifier (D5: forms recognised), with repository pages
/// on and the CORDRA example resolver named.
fn describe_form(input: &str) -> String {
    let options = handle_id::Options::new()
        .repository_urls(true)
        .proxy_base(handle_id::ProxyBase::parse("http://arrow.resolver.au.gov:2641/hdl").unwrap());
    match handle_id::recognize(input, &options) {
        Ok(uri) => {
            let mut s = format!("{input:?}\n  {} {:?}", uri.form(), uri.handle().as_str());
            if let Some(q) = uri.query() {
                s.push_str(&format!(" query {q:?}"));
            }
            if let Some(f) = uri.fragment() {
                s.push_str(&format!(" fragment {f:?}"));
            }
            s + "\n"
        }
        Err(e) => format!("{input:?}\n  error at byte {}: {e}\n", e.index()),
    }
}

#[test]
fn forms_of_spec_examples_and_corpus() {
    let mut seen = HashSet::new();
    let mut inputs: Vec<String> = SPEC_TEXT_EXAMPLES
        .iter()
        .map(|(_, i)| (*i).to_owned())
        .collect();
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in corpus(file) {
            if !matches!(row["kind"].as_str(), Some("character" | "regex")) {
                inputs.push(identifier(&row).to_owned());
            }
        }
    }
    let text: String = inputs
        .iter()
        .filter(|i| seen.insert(i.as_str()))
        .map(|i| describe_form(i))
        .collect();
    insta::assert_snapshot!(text);
}
