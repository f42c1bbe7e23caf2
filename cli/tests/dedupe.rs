//! `hdl dedupe`, run as a user runs it.

mod support;

use support::{hdl, text};

#[test]
fn dedupe() {
    let input = "10.1000/ABC\nhttps://doi.org/10.1000/abc\n20.1000/x\n10.1000/Abc\nnot a handle\n20.1000/x\n10.1/y\n";
    let out = hdl(&["dedupe"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1), "duplicates found");
    insta::assert_snapshot!("dedupe_ascii", text(&out.stdout));
    let out = hdl(&["dedupe", "--case", "exact", "--json"], input.as_bytes());
    insta::assert_snapshot!("dedupe_exact_json", text(&out.stdout));
    assert_eq!(hdl(&["dedupe"], b"1/a\n1/b\n").status.code(), Some(0));
    // --unique: the first line of each handle, in order, nothing else.
    let out = hdl(&["dedupe", "--unique"], input.as_bytes());
    assert_eq!(
        text(&out.stdout),
        "10.1000/ABC\n20.1000/x\n10.1/y\n",
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("2 handles written more than once, 3 lines repeat"));
    let out = hdl(&["dedupe", "--unique", "--case", "exact"], input.as_bytes());
    assert_eq!(text(&out.stdout).lines().count(), 5);
}
