//! `hdl parse`, run as a user runs it.

mod support;

use support::{hdl, text};

#[test]
fn parse_breakdown() {
    let ids = [
        "10.978.8896471/foo/bar",
        "0.NA/10.1045",
        "20.1000/5555/",
        "10@x/y",
        "https://hdl.handle.net/20.1000/5555%23resolve?noredirect",
    ];
    let mut args = vec!["parse"];
    args.extend(ids.iter().flat_map(|id| ["--id", id]));
    let out = hdl(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(text(&out.stdout));

    args.insert(1, "--json");
    let out = hdl(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("parse_json", text(&out.stdout));

    assert_eq!(
        hdl(&["parse", "--id", "20.1000/5555"], b"").status.code(),
        Some(0)
    );
    // Arguments are files, as for every subcommand: an identifier given as one is a file
    // that is not there, with a hint (status 2).
    let out = hdl(&["parse", "20.1000/5555"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("(to read it as an identifier: --id 20.1000/5555)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(hdl(&["parse", "--bogus"], b"").status.code(), Some(2));
}

/// With no identifier given, `hdl parse` reads them from standard input, one a line, and
/// shows each as it would show the same identifiers given with `--id`.
#[test]
fn parse_reads_standard_input() {
    let ids = [
        "10.978.8896471/foo/bar",
        "10@x/y",
        "hdl:20.1000/5555?noredirect",
    ];
    for json in [false, true] {
        let mut args = vec!["parse"];
        if json {
            args.push("--json");
        }
        let from_stdin = hdl(&args, format!("{}\r\n", ids.join("\n")).as_bytes());
        args.extend(ids.iter().flat_map(|id| ["--id", id]));
        let from_args = hdl(&args, b"");
        assert_eq!(from_stdin.status.code(), Some(1));
        assert_eq!(
            text(&from_stdin.stdout),
            text(&from_args.stdout),
            "--json {json}"
        );
    }
    // A line that is not UTF-8 is invalid at its byte index, as in `check`.
    let out = hdl(&["parse", "--json"], b"1/\xff\n");
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["error"]["index"], 2);
    assert_eq!(hdl(&["parse"], b"").status.code(), Some(0));
}

/// `hdl parse` writes output linear in its input: a prefix of 40,000 segments lists its
/// nearest parents and counts the rest, rather than all 40,000 (which grow with the square).
#[test]
fn parse_output_is_linear_in_its_input() {
    let id = format!("{}/x", vec!["1"; 40_000].join("."));
    for json in [false, true] {
        let args: &[&str] = if json {
            &["parse", "--json"]
        } else {
            &["parse"]
        };
        let out = hdl(args, format!("{id}\n").as_bytes());
        assert_eq!(out.status.code(), Some(0));
        let size = out.stdout.len();
        assert!(
            size < 40 * id.len(),
            "{size} bytes for {} (--json {json})",
            id.len()
        );
        let text = text(&out.stdout);
        if json {
            let record: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(record["parent_prefix_count"], 39_999);
            assert_eq!(record["parent_prefixes"].as_array().unwrap().len(), 16);
        } else {
            assert!(text.contains("→ … (39983 more)"), "{}", &text[..200]);
        }
    }
}
