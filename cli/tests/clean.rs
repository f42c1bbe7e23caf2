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
