//! `hdl check`, run as a user runs it: every output line, in snapshots.

mod support;

use support::{hdl, text, MIXED};

#[test]
fn check_json() {
    let out = hdl(&["check", "--json"], MIXED);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 11, "one output line per input line");
    let forms: Vec<_> = stdout
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
            assert_eq!(record["valid"], record["error"].is_null());
            record["form"].as_str().unwrap_or("-").to_owned()
        })
        .collect();
    // The default reading recognises forms (D5): `hdl:1234/567` is the path form; the line
    // that is not UTF-8 is in no form.
    assert_eq!(
        forms,
        [
            "handle", "handle", "handle", "handle", "handle", "handle", "hdl", "-", "handle",
            "handle", "handle"
        ]
    );
    insta::assert_snapshot!(stdout);
    insta::assert_snapshot!("check_json_stderr", text(&out.stderr));
}

/// `--form handle` reads every line as a bare handle (D5): `hdl:1234/567` has the naming
/// authority `hdl:1234`.
#[test]
fn check_bare_handles() {
    let out = hdl(&["check", "--json", "--form", "handle"], MIXED);
    let stdout = text(&out.stdout);
    let hdl_line: serde_json::Value = serde_json::from_str(stdout.lines().nth(6).unwrap()).unwrap();
    assert_eq!(hdl_line["form"], "handle");
    assert_eq!(hdl_line["prefix"], "hdl:1234");
    assert_eq!(stdout.lines().count(), 11);
}

/// Every form `check` recognises, with a named resolver and repository pages turned on.
#[test]
fn check_forms() {
    let input = "hdl:10.1045/april2006-paskin
hdl://20.1000/5555%23resolve?noredirect#top
HDL:1234/567
info:hdl/1234/567
info:doi/10.1000/a%3Fb
doi:10.1000/182
urn:hdl:1234:567
urn:doi:10.123:456
https://hdl.handle.net/20.1000/5555%23resolve
http://dx.doi.org/10.1016%2Fj.cpr.2012.01.005
https://doi.org/urn:doi:10.123:456
https://hdl.handle.net/api/handles/4263537/4000?type=URL&type=EMAIL
http://arrow.resolver.au.gov:2641/hdl/100.102/F58FB49EB1F848f0A606E84CEF294BE5
https://apps.who.int/iris/handle/10665/94384
https://example.com/10.1000/182
ftp://dx.doi.org/10.1000/182
urn:isbn:0451450523
hdl:1234/a b
hdl:10%2F1000/x
https://doi.org/10.1000/%C3%28
10.1000/182
";
    let out = hdl(
        &[
            "check",
            "--proxy-base",
            "http://arrow.resolver.au.gov:2641/hdl",
            "--repository-urls",
        ],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(text(&out.stdout));
    insta::assert_snapshot!("check_forms_stderr", text(&out.stderr));
    // Without the named base and repository pages, those two lines are not handles.
    let out = hdl(&["check", "--json"], input.as_bytes());
    let invalid = text(&out.stdout)
        .lines()
        .filter(|l| l.contains(r#""valid":false"#))
        .count();
    assert_eq!(invalid, 8);
    assert_eq!(
        hdl(&["check", "--proxy-base", "ftp://x"], b"")
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn check_human() {
    let out = hdl(&["check"], MIXED);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).lines().count(), 11);
    insta::assert_snapshot!(text(&out.stdout));
    insta::assert_snapshot!("check_human_stderr", text(&out.stderr));
}

#[test]
fn check_exit_status() {
    let out = hdl(&["check"], b"10.1/x\n20.1000/5555\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stderr),
        "hdl check: 2 lines, 2 valid, 0 invalid\n"
    );
    let out = hdl(&["check", "--form", "handle"], b"");
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
    // Usage errors and unreadable files: 2, with one clear line.
    assert_eq!(
        hdl(&["check", "--form", "nonsense"], b"").status.code(),
        Some(2)
    );
    let out = hdl(&["check", "tests/no-such-file.txt"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("hdl: tests/no-such-file.txt: "));
}

#[test]
fn check_reads_files_and_stdin_in_order() {
    let dir = std::env::temp_dir().join(format!("hdl-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ids.txt");
    std::fs::write(&file, "a/1\nb@/2\n").unwrap();
    let file = file.to_str().unwrap();
    let out = hdl(&["check", file, "-", file], b"c/3\n");
    let stdout = text(&out.stdout);
    let firsts: Vec<_> = stdout
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(firsts, ["a/1", "b@/2", "c/3", "a/1", "b@/2"]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(dir).unwrap();
}

/// The real identifiers of the corpus, one a line, as `hdl check --json` reads them: one
/// record per line and the same verdict, form and handle as the library's `recognize`.
#[test]
fn check_corpus_agrees_with_the_library() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/real_ids.jsonl"
    );
    let ids: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .filter(|id| !id.contains(['\n', '\r']))
        .collect();
    let out = hdl(&["check", "--json"], ids.join("\n").as_bytes());
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), ids.len());
    let options = handle_id::Options::new();
    for (id, line) in ids.iter().zip(stdout.lines()) {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["input"], id.as_str());
        let ours = handle_id::recognize(id, &options);
        assert_eq!(record["valid"], ours.is_ok(), "{id}");
        if let Ok(uri) = ours {
            assert_eq!(record["form"], uri.form().name());
            assert_eq!(record["handle"], uri.handle().as_str());
            assert_eq!(record["prefix"], uri.handle().prefix());
            assert_eq!(record["local_name"], uri.handle().local_name());
        }
    }
}

/// Every identifier of the corpus, one a line (those without a line break), as a person and
/// a program see them.
fn corpus_lines() -> String {
    let mut out = String::new();
    let mut seen = std::collections::HashSet::new();
    for file in ["spec_examples.jsonl", "peers.jsonl", "real_ids.jsonl"] {
        let path = format!("{}/../tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if matches!(v["kind"].as_str(), Some("character" | "regex")) {
                continue;
            }
            let id = v
                .get("input")
                .or_else(|| v.get("id"))
                .and_then(|s| s.as_str())
                .unwrap();
            if !id.contains(['\n', '\r']) && seen.insert(id.to_owned()) {
                out.push_str(id);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn corpus_human_and_json() {
    let input = corpus_lines();
    let human = hdl(&["check", "--color", "never"], input.as_bytes());
    assert_eq!(text(&human.stdout).lines().count(), input.lines().count());
    insta::assert_snapshot!("corpus_human", text(&human.stdout));
    let json = hdl(&["check", "--json"], input.as_bytes());
    assert_eq!(text(&json.stdout).lines().count(), input.lines().count());
    insta::assert_snapshot!("corpus_json", text(&json.stdout));
}

#[test]
fn lints_strict_and_allow() {
    let input = "10.1000/\n20.1000/5555/\n10.1000/abc.\n10.1000/a%20b\n10.1000/182\n";
    let out = hdl(&["check", "--color", "never"], input.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings alone keep lines valid"
    );
    insta::assert_snapshot!("lints_human", text(&out.stdout));
    let out = hdl(
        &["check", "--json", "--strict", "--allow", "trailing-slash"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("lints_strict_json", text(&out.stdout));
    let out = hdl(&["check", "--allow", "no-such-code"], b"");
    assert_eq!(out.status.code(), Some(2));
    // The codes come from the lint codes themselves (LintCode::ALL).
    let stderr = text(&out.stderr);
    for code in handle_id::LintCode::ALL {
        assert!(stderr.contains(code.code()), "{code}: {stderr}");
    }
}
