//! The escaping sets against the grammars of the forms they write: every character a set
//! keeps as it is must be one the form's grammar accepts raw in that place, and everything
//! a set encodes reads back through the grammar's `pct_encoded`.

use handle_id::escape::{
    EscapeSet, CORDRA_LOCAL_NAME, INFO_IDENTIFIER, LOCAL_NAME, NA_SEGMENT, PROXY_PATH, QUERY_VALUE,
};
use pest::Parser;

mod support;

use support::grammars::{cordra, hdl, info, proxy};

/// Whether `rule` matches all of `text`.
fn whole<R: pest::RuleType, P: Parser<R>>(rule: R, text: &str) -> bool {
    P::parse(rule, text).is_ok_and(|p| p.as_str().len() == text.len())
}

fn kept(set: EscapeSet) -> Vec<char> {
    (0_u8..128)
        .map(char::from)
        .filter(|&c| set.keeps(c))
        .collect()
}

#[test]
fn u6_sets_are_what_the_hdl_uri_grammar_allows_raw() {
    for c in kept(NA_SEGMENT) {
        assert!(
            whole::<_, hdl::G>(hdl::Rule::u_na_segment, &c.to_string()),
            "{c:?} in u_na_segment"
        );
    }
    for c in kept(LOCAL_NAME) {
        assert!(
            whole::<_, hdl::G>(hdl::Rule::u_local_name, &c.to_string()),
            "{c:?} in u_local_name"
        );
    }
    // The sets are the grammar's own writer rules (generated from them), which the derived
    // parser agrees with.
    let matched = |rule: hdl::Rule| -> Vec<char> {
        (0_u8..128)
            .map(char::from)
            .filter(|c| whole::<_, hdl::G>(rule, &c.to_string()))
            .collect()
    };
    assert_eq!(kept(NA_SEGMENT), matched(hdl::Rule::u_na_segment_kept));
    assert_eq!(kept(LOCAL_NAME), matched(hdl::Rule::u_local_name_kept));
    // U6 lists exactly these; the grammar would also take ':' and '@' in the local name
    // (pchar), which the writer encodes anyway.
    assert_eq!(kept(NA_SEGMENT).len(), 2 + 8 + 10 + 2 + 26 + 1 + 26 + 1);
    assert_eq!(kept(LOCAL_NAME).len(), kept(NA_SEGMENT).len() + 2);
}

#[test]
fn u5_set_is_what_a_cordra_segment_allows_raw() {
    for c in kept(CORDRA_LOCAL_NAME) {
        assert!(
            whole::<_, cordra::G>(cordra::Rule::segment_nz, &c.to_string()),
            "{c:?} in segment_nz"
        );
    }
    assert!(!CORDRA_LOCAL_NAME.keeps('/'));
}

#[test]
fn u8_set_is_what_the_info_grammar_allows_raw() {
    for c in kept(INFO_IDENTIFIER) {
        assert!(
            whole::<_, info::G>(info::Rule::identifier, &c.to_string()),
            "{c:?} in identifier"
        );
    }
    assert!(!INFO_IDENTIFIER.keeps('#') && !INFO_IDENTIFIER.keeps('%'));
}

#[test]
fn p2_set_is_what_a_proxy_path_allows_raw() {
    for c in kept(PROXY_PATH) {
        assert!(
            whole::<_, proxy::G>(proxy::Rule::path, &format!("/{c}")),
            "{c:?} in path"
        );
    }
    // PROXY's minimum list, and what WHATWG parsers treat specially.
    for c in ['%', '#', ' ', '?', '\\', '\t', '"', '<', '>', '`', '{', '}'] {
        assert!(!PROXY_PATH.keeps(c), "{c:?} must be encoded (P2)");
    }
}

#[test]
fn encoded_text_reads_back_through_pct_encoded() {
    let text = "a b%/?#é\u{0}😀.~";
    for set in [
        NA_SEGMENT,
        LOCAL_NAME,
        CORDRA_LOCAL_NAME,
        INFO_IDENTIFIER,
        PROXY_PATH,
        QUERY_VALUE,
    ] {
        let encoded = set.encode(text).to_string();
        for (i, _) in encoded.match_indices('%') {
            assert!(
                whole::<_, hdl::G>(hdl::Rule::pct_encoded, &encoded[i..i + 3]),
                "{encoded}"
            );
        }
        assert_eq!(
            support::percent_decoded(&encoded).as_deref(),
            Some(text),
            "{set:?}"
        );
    }
}
