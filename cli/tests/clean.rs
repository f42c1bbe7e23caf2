//! `hdl clean`, run as a user runs it.

mod support;

use support::{hdl, text};

/// A messy list as catalogues hold it: one output line per input line, the canonical
/// handle or an empty line (and the error on standard error).
const MESSY: &str = "doi: 10.1000/182
(10.1016/j.cell.2009.01.002)
10.1016/j.cell.2009.01.002.
doi.org/10.1000/182
See https://doi.org/10.1000/182 for details
10.1045/APRIL2006-PASKIN
https://hdl.handle.net/20.1000/5555?noredirect
[10.3319/TAO.2009.05.25.02(IWNOP)];
https://example.com/10.1000/182
hdl:20.1000/5555%23x
";

#[test]
fn clean() {
    let out = hdl(&["clean"], MESSY.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("clean", text(&out.stdout));
    insta::assert_snapshot!("clean_stderr", text(&out.stderr));
    let out = hdl(&["clean", "--json"], MESSY.as_bytes());
    insta::assert_snapshot!("clean_json", text(&out.stdout));
    let out = hdl(&["clean", "--keep-case", "--to", "proxy"], MESSY.as_bytes());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 10);
    assert_eq!(lines[5], "https://doi.org/10.1045/APRIL2006-PASKIN");
    assert_eq!(lines[4], "");
}

/// A fix made in the handle a URL holds, cleaned again as a string of its own (SPEC C2),
/// says so in its record: `held`, as the library's `Fix::held`.
#[test]
fn a_fix_inside_the_handle_a_url_holds_is_marked_held() {
    let out = hdl(&["clean", "--json"], b"https://doi.org/(10.1000/182\n");
    assert_eq!(out.status.code(), Some(0));
    let record: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(record["output"], "10.1000/182");
    let fixes: Vec<_> = record["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap(),
                f["index"].as_u64().unwrap(),
                f["held"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fixes,
        [
            ("resolver-url", 0, false),
            ("leading-punctuation", 16, true)
        ]
    );
}
