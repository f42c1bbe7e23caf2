//! `hdl convert`, run as a user runs it.

mod support;

use support::{hdl, text};

#[test]
fn convert() {
    let input =
        "10.1000/a b#c\nhdl:20.1000/5555\nhttps://doi.org/10.1000/./x/..\nnot a handle\n0.NA/é\n";
    let mut all = String::new();
    for to in ["handle", "hdl", "hdl-host", "info", "proxy", "api"] {
        let out = hdl(&["convert", "--to", to], input.as_bytes());
        assert_eq!(out.status.code(), Some(1));
        let stdout = text(&out.stdout);
        assert_eq!(stdout.lines().count(), 5, "one output line per input line");
        all.push_str(&format!("--to {to}\n{stdout}"));
    }
    let out = hdl(
        &[
            "convert",
            "--to",
            "proxy",
            "--proxy-base",
            "https://resolver.example/hdl/",
        ],
        input.as_bytes(),
    );
    all.push_str(&format!(
        "--to proxy --proxy-base https://resolver.example/hdl/\n{}",
        text(&out.stdout)
    ));
    insta::assert_snapshot!(all);
    let out = hdl(&["convert", "--to", "hdl", "--json"], input.as_bytes());
    insta::assert_snapshot!("convert_json", text(&out.stdout));
    assert_eq!(
        hdl(&["convert", "--to", "hdl"], b"1/2\n").status.code(),
        Some(0)
    );
}

/// `convert` reports each line's warnings on standard error (its output has no room for
/// them) and counts them; `parse` shows them with the parts.
#[test]
fn convert_and_parse_report_warnings() {
    let out = hdl(&["convert", "--to", "hdl"], b"20.1000/5555/\n10.1/x\n");
    assert_eq!(text(&out.stdout), "hdl:20.1000/5555/\nhdl:10.1/x\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("line 1: warning: trailing-slash at byte 12"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("2 lines, 2 valid, 0 invalid, 1 with warnings\n"),
        "{stderr}"
    );
    let out = hdl(&["parse", "--id", "20.1000/5555/"], b"");
    assert!(text(&out.stdout).contains("  warnings       trailing-slash at byte 12"));
}
