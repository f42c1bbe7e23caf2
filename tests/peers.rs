//! Where other projects' test suites (tests/corpus/peers.jsonl) assert a verdict, compare it
//! with ours, and name the rule that decides every disagreement. A new disagreement, or a
//! listed one that no longer disagrees, fails the test.

mod support;

use std::collections::BTreeMap;

use handle_id::HandleRef;
use support::{corpus, identifier};

/// Each disagreement: (input, the peer's kind for it, the rule that decides, why).
const DISAGREEMENTS: &[(&str, &str, &str, &str)] = &[
    // Peers that call something a DOI only when its prefix looks like `10.<digits>`.
    (
        "10.abc/def",
        "doi",
        "H3, H8",
        "a segment may hold any characters; 10.abc is derived from 10",
    ),
    (
        "10/abc",
        "doi",
        "H8",
        "the prefix 10 itself is a DOI prefix",
    ),
    (
        "10.1/distill.00005",
        "doi",
        "H8",
        "10.1 is derived from 10, whatever its length",
    ),
    (
        "10/2021/01",
        "doi",
        "H1, H4, H8",
        "prefix 10, local name 2021/01",
    ),
    (
        "10.001/001#00",
        "doi",
        "H4",
        "'#' belongs to the local name of a bare handle",
    ),
    // Peers that refuse an empty local name.
    (
        "10.1000/",
        "doi",
        "D2",
        "an empty local name is valid (a lint, not an error)",
    ),
    (
        "10.1234/",
        "doi",
        "D2",
        "an empty local name is valid (a lint, not an error)",
    ),
    (
        "foo/",
        "handle",
        "D2",
        "an empty local name is valid (a lint, not an error)",
    ),
    // A derived prefix with more than one level.
    (
        "20.15641.5/1",
        "handle",
        "H2, H7",
        "20.15641.5 is a derived prefix; segments may be short",
    ),
    // Peers that recognise written forms inside their validator; the bare reading never does.
    (
        "urn:10.1234/abc",
        "doi",
        "D5",
        "read bare, the prefix is urn:10.1234, whose root is urn:10",
    ),
    (
        "urn:doi:10.1000/182",
        "doi",
        "D5",
        "a written form, read bare: prefix urn:doi:10.1000",
    ),
    (
        "urn:doi:10.1234/abc",
        "doi",
        "D5",
        "a written form, read bare: prefix urn:doi:10.1234",
    ),
    (
        "doi:10.1234/abc",
        "doi",
        "D5",
        "a written form, read bare: prefix doi:10.1234",
    ),
    (
        "doi:10.23915/distill.00005",
        "doi",
        "D5",
        "a written form, read bare: prefix doi:10.23915",
    ),
    (
        "http://dx.doi.org/10.1234/abc",
        "doi",
        "D5",
        "a proxy URL, read bare: prefix http:",
    ),
    (
        "http://doi.org/10.1234/abc",
        "doi",
        "D5",
        "a proxy URL, read bare: prefix http:",
    ),
    (
        "https://doi.org/10.1234/abc",
        "doi",
        "D5",
        "a proxy URL, read bare: prefix https:",
    ),
    (
        "https://dx.doi.org/10.1234/abc",
        "doi",
        "D5",
        "a proxy URL, read bare: prefix https:",
    ),
    (
        "doi.org/urn:doi:10.1234/abc",
        "doi",
        "D5",
        "read bare: prefix doi.org, not a DOI",
    ),
    (
        "10.1000/journal.pone.0011111",
        "doi_declared",
        "D5",
        "a bare handle needs no 'doi:' declaration",
    ),
    (
        ":10.1000/journal.pone.0011111",
        "doi_declared",
        "H3",
        "':' is allowed in a segment",
    ),
    (
        "100:100:foo/bar",
        "handle_with_index",
        "D5, H3",
        "`index:handle` is no handle syntax; read bare, ':' is allowed in a segment",
    ),
    (
        "index/missing",
        "handle_with_index",
        "D5",
        "`index:handle` is no handle syntax; read bare it is a handle",
    ),
    (
        "nonumber:foo/bar",
        "handle_with_index",
        "D5, H3",
        "`index:handle` is no handle syntax; read bare, ':' is allowed in a segment",
    ),
    // Peers judging URLs; read bare, any `scheme://…/…` text is a handle whose prefix ends in ':'.
    (
        "https://example.com/",
        "proxy_url",
        "D5, U9",
        "read bare: prefix https:, local name /example.com/",
    ),
    (
        "https://doi.org/10.506X/dryad.8515",
        "proxy_url",
        "D5",
        "read bare: prefix https:",
    ),
    (
        "https://doi.org/20.5061/dryad.8515",
        "proxy_url",
        "D5",
        "read bare: prefix https:",
    ),
    (
        "https://doi.org/10.5061",
        "proxy_url",
        "D5",
        "read bare: prefix https:",
    ),
    (
        "https://hdl.handle.net/11.48366",
        "proxy_url",
        "D5",
        "read bare: prefix https:",
    ),
    (
        "https://doi.org/10.1175/1520-0493(1972)100%3C0081%3AOTAOSH%3E2.3.CO%3B2",
        "proxy_url",
        "D5",
        "read bare: prefix https:",
    ),
    (
        "httpp://doi.org/10.1016/j.neuron.2014.09.004",
        "proxy_url",
        "D5",
        "read bare: prefix httpp:",
    ),
    (
        "httpp://dx.doi.org/10.1016/j.neuron.2014.09.004",
        "proxy_url",
        "D5",
        "read bare: prefix httpp:",
    ),
    (
        "ftp://dx.doi.org/10.1016/j.neuron.2014.09.004",
        "proxy_url",
        "D5",
        "read bare: prefix ftp:",
    ),
    (
        "dx.doi.org/10.1016/j.neuron.2014.09.004",
        "proxy_url",
        "D5",
        "read bare: prefix dx.doi.org",
    ),
    (
        "doi.org/10.1016/j.neuron.2014.09.004",
        "proxy_url",
        "D5",
        "read bare: prefix doi.org",
    ),
];

/// Our verdict in the sense the peer's kind asks: DOIs must be DOIs (H8), everything else is
/// read as a bare handle (D5).
fn our_verdict(input: &str, kind: &str) -> bool {
    match HandleRef::parse(input) {
        Ok(h) => kind != "doi" || h.is_doi(),
        Err(_) => false,
    }
}

#[test]
fn every_disagreement_with_a_peer_names_its_rule() {
    let listed: BTreeMap<(&str, &str), &str> = DISAGREEMENTS
        .iter()
        .map(|&(input, kind, rule, _)| ((input, kind), rule))
        .collect();
    assert_eq!(
        listed.len(),
        DISAGREEMENTS.len(),
        "a disagreement is listed twice"
    );

    let rows = corpus("peers.jsonl");
    let mut found = BTreeMap::new();
    let mut compared = 0;
    for row in &rows {
        let Some(peer) = row["verdict"]["valid"].as_bool() else {
            continue;
        };
        compared += 1;
        let (input, kind) = (identifier(row), row["kind"].as_str().unwrap());
        let ours = our_verdict(input, kind);
        if ours != peer {
            found.insert((input, kind), (peer, row["source"].as_str().unwrap()));
        }
    }
    assert!(compared > 90, "only {compared} peer verdicts compared");

    let unexplained: Vec<_> = found
        .iter()
        .filter(|(k, _)| !listed.contains_key(*k))
        .collect();
    assert!(
        unexplained.is_empty(),
        "disagreements with no rule named: {unexplained:#?}"
    );
    let stale: Vec<_> = listed.keys().filter(|k| !found.contains_key(*k)).collect();
    assert!(stale.is_empty(), "listed, but we agree now: {stale:#?}");
}

/// What a peer says a URL or URI holds: one handle, or nothing.
fn claimed_handle(verdict: &serde_json::Value) -> Option<Option<String>> {
    for key in ["handle", "doi", "parsed", "normalized", "extracted"] {
        match verdict.get(key) {
            Some(serde_json::Value::String(s)) => return Some(Some(s.clone())),
            Some(serde_json::Value::Null) => return Some(None),
            Some(serde_json::Value::Array(a)) if a.len() == 1 => {
                return Some(a[0].as_str().map(str::to_owned));
            }
            Some(serde_json::Value::Array(a)) if a.is_empty() => return Some(None),
            _ => {}
        }
    }
    None
}

/// Each disagreement on what a written form holds: (input, the rule that decides, why).
const FORM_DISAGREEMENTS: &[(&str, &str, &str)] = &[
    (
        "https://doi.org/10.1175/1520-0493(1972)100%3C0081%3AOTAOSH%3E2.3.CO%3B2",
        "P3",
        "the path is percent-decoded: the DOI holds '<', ':', '>' and ';'",
    ),
    (
        "https://doi.org/20.1371/journal.pone.0042793",
        "P1, H1",
        "doi.org resolves handles; 20.1371/… is a handle, not a DOI",
    ),
    (
        "http://dx.doi.org/10.978.8898392/NotARealIsbnA",
        "H1–H4",
        "a valid handle whatever the peer's ISBN check says",
    ),
    (
        "http://hdl.handle.net/10273/ABCD",
        "P3",
        "the handle is 10273/ABCD; the peer returns an IGSN",
    ),
    (
        "info:hdl/10273/ABCD",
        "U8",
        "the handle is 10273/ABCD; the peer returns an IGSN",
    ),
    (
        "https://handle.stage.datacite.org/10.5438/55e5-t5c0",
        "P1",
        "not a known proxy: its base must be named",
    ),
    (
        "https://fake.canonical.prefix/111222333/111",
        "P1",
        "a DSpace-configured base: it must be named",
    ),
    (
        "doi.org/10.1016/j.epsl.2011.11.037",
        "U9",
        "no scheme: a bare handle, prefix doi.org",
    ),
    (
        "doi.org/10.1234/56789",
        "U9",
        "no scheme: a bare handle, prefix doi.org",
    ),
    (
        "hdl.handle.net/10013/epic.10033",
        "U9",
        "no scheme: a bare handle, prefix hdl.handle.net",
    ),
];

/// Where a peer's test says what a proxy URL, `hdl:` or `info:` URI holds, compare it with
/// what `recognize` reads (with repository pages on, as DSpace reads them). Handles compare
/// ignoring ASCII case: several peers lower-case DOIs (H6).
#[test]
fn every_disagreement_on_a_written_form_names_its_rule() {
    let options = handle_id::Options::new().repository_urls(true);
    let mut found = BTreeMap::new();
    let mut compared = 0;
    for file in ["peers.jsonl", "spec_examples.jsonl"] {
        for row in corpus(file) {
            if !matches!(
                row["kind"].as_str(),
                Some("proxy_url" | "hdl_uri" | "info_uri")
            ) {
                continue;
            }
            let Some(claim) = claimed_handle(&row["verdict"]) else {
                continue;
            };
            compared += 1;
            let input = identifier(&row).to_owned();
            let ours = handle_id::recognize(&input, &options)
                .ok()
                .map(|u| u.handle().as_str().to_owned());
            let same = match (&ours, &claim) {
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                (None, None) => true,
                _ => false,
            };
            if !same {
                found.insert(input, (ours, claim));
            }
        }
    }
    assert!(compared > 30, "only {compared} claims compared");
    every_one_listed(&found, FORM_DISAGREEMENTS);
}

/// What a peer's test says a text holds: the identifiers it extracts (`extracted`), or the
/// one it finds (`found`, `null` for none).
fn claimed_in_text(verdict: &serde_json::Value) -> Option<Vec<String>> {
    match (verdict.get("extracted"), verdict.get("found")) {
        (Some(serde_json::Value::Array(a)), _) => Some(
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        (_, Some(serde_json::Value::String(s))) => Some(vec![s.clone()]),
        (_, Some(serde_json::Value::Null)) => Some(Vec::new()),
        _ => None,
    }
}

/// Each disagreement on what a text holds: (input, the rule that decides, why).
const TEXT_DISAGREEMENTS: &[(&str, &str, &str)] = &[
    (
        "10.1130/!).\",",
        "H4, C3",
        "`10.1130/!` is a DOI: a local name may be any characters; `).\",` ends it",
    ),
    (
        "10.1130/!).',",
        "H4, C3",
        "`10.1130/!` is a DOI: a local name may be any characters; `).',` ends it",
    ),
    (
        "10149/596901 10251/79612",
        "C3",
        "a bare non-DOI handle in prose only under a prefix the caller names",
    ),
    (
        "This is an example of a DOI: 10.1130/2013.2502...\",",
        "C3",
        "trailing full stops are sentence punctuation, all of them (the peer's strict mode keeps three)",
    ),
    (
        "This is an example of a DOI: 10.1130/2013.2502.......",
        "C3",
        "trailing full stops are sentence punctuation, all of them (the peer's strict mode keeps three)",
    ),
    (
        "This is not an ISBN-A: 10.978.8898392/NotARealIsbnA",
        "H8, C3",
        "10.978.8898392 is derived from 10: a DOI whatever an ISBN check says",
    ),
    (
        "other stuff doi:10%12ab end",
        "H1, C3",
        "no '/': no handle (the peer reads `%` as a short DOI's divider)",
    ),
];

/// Where a peer's test says which identifiers a text holds (`doi_in_text`,
/// `handle_in_text`), compare it with what `extract` finds, as handles ignoring ASCII case
/// (several peers lower-case DOIs, H6).
#[test]
fn every_disagreement_on_text_extraction_names_its_rule() {
    let options = handle_id::Options::new();
    let mut found = BTreeMap::new();
    let mut compared = 0;
    for row in corpus("peers.jsonl") {
        if !matches!(row["kind"].as_str(), Some("doi_in_text" | "handle_in_text")) {
            continue;
        }
        let Some(claim) = claimed_in_text(&row["verdict"]) else {
            continue;
        };
        compared += 1;
        let input = identifier(&row).to_owned();
        let ours: Vec<String> = handle_id::extract(&input, &options)
            .map(|f| f.handle().as_str().to_owned())
            .collect();
        let same = ours.len() == claim.len()
            && ours
                .iter()
                .zip(&claim)
                .all(|(a, b)| a.eq_ignore_ascii_case(b));
        if !same {
            found.insert(input, (ours, claim));
        }
    }
    assert!(compared > 25, "only {compared} claims compared");
    every_one_listed(&found, TEXT_DISAGREEMENTS);
}

/// Every disagreement `found` (input → ours and the peer's) is one `listed` (input, rule,
/// why), and every one listed is still found.
#[track_caller]
fn every_one_listed<V: std::fmt::Debug>(
    found: &BTreeMap<String, V>,
    listed: &[(&str, &str, &str)],
) {
    let listed: BTreeMap<&str, &str> = listed.iter().map(|&(i, r, _)| (i, r)).collect();
    let unexplained: Vec<_> = found
        .iter()
        .filter(|(k, _)| !listed.contains_key(k.as_str()))
        .collect();
    assert!(
        unexplained.is_empty(),
        "disagreements with no rule named: {unexplained:#?}"
    );
    let stale: Vec<_> = listed.keys().filter(|k| !found.contains_key(**k)).collect();
    assert!(stale.is_empty(), "listed, but we agree now: {stale:#?}");
}
