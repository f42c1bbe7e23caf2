//! Each rule of grammar/handle.pest on its own, with pest's `parses_to!` and `fails_with!`:
//! the grammar file is tested directly, not through the library.

use handle_id_fuzz::reference::handle::{Rule, G as Grammar};
use pest::{consumes_to, fails_with, parses_to};

/// H3, D1: a segment is one or more characters other than '.', '/' and '@'.
#[test]
fn na_segment() {
    parses_to! { parser: Grammar, input: "10", rule: Rule::na_segment,
    tokens: [na_segment(0, 2)] };
    // Stops before '.', '/' and '@'; takes controls, ':' and non-ASCII (H5).
    parses_to! { parser: Grammar, input: "a:\u{1}é.x", rule: Rule::na_segment,
    tokens: [na_segment(0, 5)] };
    parses_to! { parser: Grammar, input: "ab@c", rule: Rule::na_segment,
    tokens: [na_segment(0, 2)] };
    for input in [".", "/", "@", ""] {
        fails_with! { parser: Grammar, input: input, rule: Rule::na_segment,
        positives: vec![Rule::na_segment], negatives: vec![], pos: 0 };
    }
}

/// H2: segments joined by '.', none empty.
#[test]
fn naming_authority() {
    parses_to! { parser: Grammar, input: "10.978.8896471", rule: Rule::naming_authority,
    tokens: [naming_authority(0, 14, [
        na_segment(0, 2), dot(2, 3), na_segment(3, 6), dot(6, 7), na_segment(7, 14)
    ])] };
    // A trailing '.' is left unconsumed: the segment after it would be empty.
    parses_to! { parser: Grammar, input: "10.", rule: Rule::naming_authority,
    tokens: [naming_authority(0, 2, [na_segment(0, 2)])] };
    fails_with! { parser: Grammar, input: ".10", rule: Rule::naming_authority,
    positives: vec![Rule::na_segment], negatives: vec![], pos: 0 };
}

/// H4, D2: anything, '/' included, possibly nothing.
#[test]
fn local_name() {
    parses_to! { parser: Grammar, input: "a/b@c.d#e ?\u{0}", rule: Rule::local_name,
    tokens: [local_name(0, 12)] };
    parses_to! { parser: Grammar, input: "", rule: Rule::local_name,
    tokens: [local_name(0, 0)] };
}

#[test]
fn dot_and_slash() {
    parses_to! { parser: Grammar, input: ".", rule: Rule::dot, tokens: [dot(0, 1)] };
    parses_to! { parser: Grammar, input: "/", rule: Rule::slash, tokens: [slash(0, 1)] };
    fails_with! { parser: Grammar, input: "/", rule: Rule::dot,
    positives: vec![Rule::dot], negatives: vec![], pos: 0 };
}

/// H1: the whole input; the first '/' separates.
#[test]
fn handle() {
    parses_to! { parser: Grammar, input: "20.1000/5555/", rule: Rule::handle,
    tokens: [handle(0, 13, [
        naming_authority(0, 7, [na_segment(0, 2), dot(2, 3), na_segment(3, 7)]),
        slash(7, 8),
        local_name(8, 13),
        EOI(13, 13)
    ])] };
    // D5: a URI prefix read bare is part of the naming authority.
    parses_to! { parser: Grammar, input: "hdl:1234/567", rule: Rule::handle,
    tokens: [handle(0, 12, [
        naming_authority(0, 8, [na_segment(0, 8)]),
        slash(8, 9),
        local_name(9, 12),
        EOI(12, 12)
    ])] };
    // No '/': the grammar expected a '.' or the '/' at the end.
    fails_with! { parser: Grammar, input: "10.1000", rule: Rule::handle,
    positives: vec![Rule::dot, Rule::slash], negatives: vec![], pos: 7 };
    // D1: '@' ends the segment, and neither '.' nor '/' follows.
    fails_with! { parser: Grammar, input: "10@x/y", rule: Rule::handle,
    positives: vec![Rule::dot, Rule::slash], negatives: vec![], pos: 2 };
    // H2: an empty segment.
    fails_with! { parser: Grammar, input: "10..1/y", rule: Rule::handle,
    positives: vec![Rule::na_segment], negatives: vec![], pos: 3 };
    fails_with! { parser: Grammar, input: "", rule: Rule::handle,
    positives: vec![Rule::na_segment], negatives: vec![], pos: 0 };
}

mod support;

/// The library slices a parsed handle with `split('.')` and the offset of the first '/'.
/// That restates H1 and H2 in Rust, so it is checked here against the grammar's own parse
/// tree, on every corpus identifier and some edge cases.
#[test]
fn library_parts_match_the_parse_tree() {
    use pest::Parser;

    let mut inputs: Vec<String> = ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"]
        .into_iter()
        .flat_map(support::corpus)
        .map(|row| support::identifier(&row).to_owned())
        .collect();
    inputs.extend(
        [
            "a/b/c",
            "a.b/",
            "é.\u{0}/.",
            "x./",
            "/",
            "",
            ".",
            "a@b/c",
            "a/@",
        ]
        .map(String::from),
    );
    let mut compared = 0;
    for input in &inputs {
        let ours = handle_id::HandleRef::parse(input);
        match Grammar::parse(Rule::handle, input) {
            Ok(mut pairs) => {
                let h = ours.unwrap_or_else(|e| panic!("{input:?}: grammar accepts, library: {e}"));
                let tree = pairs.next().unwrap().into_inner().flatten();
                let segments: Vec<_> = tree
                    .clone()
                    .filter(|p| p.as_rule() == Rule::na_segment)
                    .map(|p| p.as_str())
                    .collect();
                let local = tree
                    .clone()
                    .find(|p| p.as_rule() == Rule::local_name)
                    .unwrap();
                let prefix = tree.clone().find(|p| p.as_rule() == Rule::naming_authority);
                assert_eq!(
                    h.prefix_segments().collect::<Vec<_>>(),
                    segments,
                    "{input:?}"
                );
                assert_eq!(h.local_name(), local.as_str(), "{input:?}");
                assert_eq!(h.prefix(), prefix.unwrap().as_str(), "{input:?}");
                compared += 1;
            }
            Err(e) => {
                let ours = ours.expect_err(input);
                let pos = match e.location {
                    pest::error::InputLocation::Pos(p) => p,
                    pest::error::InputLocation::Span((p, _)) => p,
                };
                assert_eq!(ours.index(), pos, "{input:?}");
            }
        }
    }
    assert!(compared > 1000, "only {compared} handles compared");
}
