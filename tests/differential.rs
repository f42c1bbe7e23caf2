//! The generated validator against pest's parser, both from grammar/handle.pest: the same
//! verdict on every corpus identifier, every spec example and property-generated strings
//! (valid handles built from the grammar, and mutations of them), and after a rejection the
//! same error as pest gives on the whole input.

mod support;

use handle_id::__reference::generated_handle;
use handle_id::HandleRef;
use proptest::prelude::*;
use support::reference::pest_handle;

/// The generated validator and pest agree on `input`, and `HandleRef::parse` (the validator,
/// and its own explanation of a rejection) gives exactly pest's answer: the same split, or
/// the same index, kind and character.
#[track_caller]
fn agree(input: &str) {
    let pest = pest_handle(input);
    let generated = generated_handle(input);
    assert_eq!(
        generated.is_ok(),
        pest.is_ok(),
        "verdicts differ on {input:?}"
    );
    if let Err((index, _, _)) = pest {
        assert_eq!(
            generated,
            Err(index),
            "rejection index differs on {input:?}"
        );
    }
    let parsed = HandleRef::parse(input)
        .map(|h| h.prefix().len())
        .map_err(|e| (e.index(), e.kind(), e.found()));
    assert_eq!(parsed, pest, "parse differs from pest on {input:?}");
    assert_eq!(handle_id::validate(input).is_ok(), pest.is_ok());
}

#[test]
fn corpus_and_spec_examples() {
    let mut n = 0;
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        for row in support::corpus(file) {
            agree(support::identifier(&row));
            n += 1;
        }
    }
    assert!(n > 1200);
}

#[test]
fn edge_cases() {
    for input in [
        "",
        ".",
        "/",
        "@",
        "a",
        "a.",
        "a/",
        ".a/",
        "a./",
        "a..b/",
        "a@/",
        "a/@",
        "a.@/",
        "@a/",
        "é",
        "é/",
        "é@/",
        "é.é/é",
        "\u{0}/\u{0}",
        "𝕏.𝕏/",
        "a.b.c.d/e/f/g",
        "a\u{10FFFF}/",
        "hdl:1234/567",
        "%2F/x",
        " / ",
        "a/.",
        "a/..",
    ] {
        agree(input);
    }
}

/// Characters that matter to the grammar, and some that do not.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => prop::sample::select(vec![
            '.', '/', '@', 'a', 'Z', '0', ':', '%', '#', '?', ' ', '\t', '\0', '\u{7f}',
            'é', '€', '𝕏', '\u{10FFFF}', '\u{200B}', '\u{FEFF}',
        ]),
        1 => any::<char>(),
    ]
}

/// A segment as H3 allows it: no '.', '/' or '@'.
fn segment() -> impl Strategy<Value = String> {
    prop::collection::vec(
        interesting_char().prop_filter("not in a segment", |c| !matches!(c, '.' | '/' | '@')),
        1..6,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// A handle built from the grammar: segments joined by '.', '/', any local name.
fn valid_handle() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(segment(), 1..5),
        prop::collection::vec(interesting_char(), 0..12),
    )
        .prop_map(|(segments, local)| {
            format!(
                "{}/{}",
                segments.join("."),
                local.into_iter().collect::<String>()
            )
        })
}

/// Up to four edits: insert, delete or replace a character.
fn mutated_handle() -> impl Strategy<Value = String> {
    (
        valid_handle(),
        prop::collection::vec(
            (0..3_u8, any::<prop::sample::Index>(), interesting_char()),
            1..5,
        ),
    )
        .prop_map(|(h, edits)| {
            let mut chars: Vec<char> = h.chars().collect();
            for (op, at, c) in edits {
                let i = at.index(chars.len() + 1);
                match op {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ if i < chars.len() => chars[i] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn valid_handles_are_accepted_by_both(h in valid_handle()) {
        prop_assert!(generated_handle(&h).is_ok(), "{h:?}");
        agree(&h);
    }

    #[test]
    fn mutations_agree(h in mutated_handle()) {
        agree(&h);
    }

    #[test]
    fn arbitrary_strings_agree(s in prop::collection::vec(interesting_char(), 0..16)) {
        agree(&s.into_iter().collect::<String>());
    }
}
