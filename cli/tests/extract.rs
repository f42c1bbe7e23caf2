//! `hdl extract`, run as a user runs it.

mod support;

use support::{hdl, text};

/// Identifiers in running text: one output line each, in order, as handles or JSON with
/// their place in their line.
#[test]
fn extract() {
    let input = "See doi:10.1000/182 and (https://doi.org/10.3319/TAO.2009.05.25.02(IWNOP)).\n\
                <a href=\"https://doi.org/10.1000/182\">10.1000/182</a>\n\
                @article{x, doi = {10.1002/(SICI)1097-4636(199709)36:4<538::AID-JBM12>3.0.CO;2-B},}\n\
                nothing here, 1234/567\n";
    let out = hdl(&["extract"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("extract", text(&out.stdout));
    let out = hdl(&["extract", "--json", "--unique"], input.as_bytes());
    insta::assert_snapshot!("extract_json_unique", text(&out.stdout));
    let out = hdl(
        &["extract", "--prefix", "1234"],
        b"nothing here, 1234/567\n",
    );
    assert_eq!(text(&out.stdout), "1234/567\n");
    // A prefix is a naming authority (H2, H3): `a/b/c`'s is `a`, so `a/b` is refused.
    let out = hdl(&["extract", "--prefix", "a/b"], b"see a/b/c\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--prefix \"a/b\": '/'"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(hdl(&["extract"], b"no identifier\n").status.code(), Some(1));
}
