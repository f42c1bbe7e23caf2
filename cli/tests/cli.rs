//! The `hdl` command, run as a user runs it: standard input, files, exit status, and every
//! output line, in snapshots.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `hdl` with `args`, feeding `stdin`.
#[track_caller]
fn hdl(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hdl runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("hdl writes UTF-8")
}

/// Lines that exercise every outcome: valid, each error kind, CRLF, a lone CR, a tab,
/// invalid UTF-8, an empty line, and a last line with no terminator.
const MIXED: &[u8] = b"10.1045/april2006-paskin\n\
20.1000/5555/\r\n\
10@x/y\n\
10..1/x\n\
10.1000\n\
\n\
hdl:1234/567\n\
\xff\xfe10.1/x\n\
a\rb/c\r\n\
 10.1000/182\t\n\
0.NA/10.1045";

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
    args.extend(ids);
    let out = hdl(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(text(&out.stdout));

    args.insert(1, "--json");
    let out = hdl(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("parse_json", text(&out.stdout));

    assert_eq!(hdl(&["parse", "20.1000/5555"], b"").status.code(), Some(0));
    assert_eq!(hdl(&["parse", "--bogus"], b"").status.code(), Some(2));
}

/// With no identifier given, `hdl parse` reads them from standard input, one a line, and
/// shows each as it would show the same identifiers given as arguments.
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
        args.extend(ids);
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
    assert!(text(&out.stderr).contains("unknown warning code"));
}

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

#[test]
fn colour_completions_help_version() {
    let out = hdl(&["check", "--color", "always"], b"1/2\nx\n");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("\x1b[32mvalid\x1b[0m") && stdout.contains("\x1b[31minvalid\x1b[0m"));
    // Not a terminal: plain.
    assert!(!text(&hdl(&["check"], b"1/2\n").stdout).contains('\x1b'));
    for shell in ["bash", "zsh", "fish"] {
        let out = hdl(&["completions", shell], b"");
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).contains("dedupe"), "{shell}");
    }
    for command in ["check", "convert", "dedupe", "parse", "completions"] {
        for help in ["-h", "--help"] {
            let out = text(&hdl(&[command, help], b"").stdout);
            // The examples, one to a line, each a command of its own.
            let examples: Vec<&str> = out
                .split("Examples:\n")
                .nth(1)
                .unwrap_or_else(|| panic!("{command} {help} has examples"))
                .lines()
                .collect();
            assert!(examples.len() >= 2, "{command} {help}: {examples:?}");
            for line in examples {
                let command_line = line.starts_with("  hdl ") || line.starts_with("  printf ");
                assert!(command_line, "{command} {help}: {line:?}");
            }
        }
    }
    let out = hdl(&["--version"], b"");
    assert!(text(&out.stdout).starts_with("hdl "));
}

/// Runs `hdl` with `args` and standard error given, feeding `stdin`: the exit status and
/// standard output.
fn hdl_with_stderr(args: &[&str], stdin: &[u8], stderr: Stdio, close_stderr: bool) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("hdl runs");
    if close_stderr {
        // The reading end goes away: every write to standard error fails (EPIPE).
        drop(child.stderr.take());
    }
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let output = child.wait_with_output().unwrap();
    let _ = writer.join();
    output
}

/// Losing standard error (closed, or full) loses neither a line of standard output nor the
/// exit status that says lines were invalid; no panic (a panic exits 101).
#[test]
fn a_closed_or_full_standard_error_loses_no_output() {
    let invalid: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("x{i}\n").into_bytes())
        .collect();
    let full = || {
        Stdio::from(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
    };
    for command in [
        &["check"][..],
        &["convert", "--to", "hdl"],
        &["parse"],
        &["dedupe"],
    ] {
        for (name, stderr, close) in [("closed", Stdio::piped(), true), ("full", full(), false)] {
            let out = hdl_with_stderr(command, &invalid, stderr, close);
            // `dedupe` skips invalid lines: no duplicates, status 0.
            let status = if command[0] == "dedupe" { 0 } else { 1 };
            assert_eq!(
                out.status.code(),
                Some(status),
                "{command:?}, standard error {name}"
            );
            let lines = text(&out.stdout).lines().count();
            let expected = match command[0] {
                // A heading, the message, the input, the caret, a blank line.
                "parse" => 20_000 * 5,
                "dedupe" => 0,
                _ => 20_000,
            };
            assert_eq!(lines, expected, "{command:?}, standard error {name}");
        }
    }
    // An error of the run itself, with nowhere to say it: exit 2, not a panic.
    let out = hdl_with_stderr(&["check", "/nonexistent"], b"", full(), false);
    assert_eq!(out.status.code(), Some(2));
}

/// Standard output full: the run stops with exit status 2 and says why on standard error.
#[test]
fn a_full_standard_output_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stdout(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut input = child.stdin.take().unwrap();
            let lines = "10.1000/182\n".repeat(100_000);
            std::thread::spawn(move || input.write_all(lines.as_bytes()));
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hdl: "),
        "{}",
        text(&out.stderr)
    );
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

/// Lines in, lines out, in order, for every command, on what files really hold: NUL bytes,
/// invalid UTF-8, `\r\n`, a lone `\r`, no final newline, an empty line, a very long line.
#[test]
fn every_command_writes_a_line_per_line_on_hostile_input() {
    let long = format!("10.1000/{}", "a".repeat(2 << 20));
    let mut input: Vec<u8> = b"10.1/\0x\n\xff\xfe/\n1/a\r\n\r\n\nx\r\n20.1/b\rc\n".to_vec();
    input.extend_from_slice(long.as_bytes());
    input.extend_from_slice(b"\n10.1000/last");
    let lines = 9;
    for (command, per_line) in [
        (&["check"][..], 1),
        (&["check", "--json"], 1),
        (&["check", "--form", "handle"], 1),
        (&["convert", "--to", "proxy"], 1),
        (&["convert", "--to", "hdl", "--json"], 1),
        (&["parse", "--json"], 1),
    ] {
        let out = hdl(command, &input);
        assert_eq!(out.status.code(), Some(1), "{command:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().count(), lines * per_line, "{command:?}");
        // In order: the long line's output is the eighth, the last line's the ninth.
        let eighth = stdout.lines().nth(7).unwrap();
        assert!(eighth.len() > 2 << 20, "{command:?}");
        assert!(
            stdout.lines().nth(8).unwrap().contains("10.1000/last"),
            "{command:?}"
        );
    }
    // dedupe --unique: one line per distinct valid handle, in order.
    let out = hdl(&["dedupe", "--unique"], &input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let firsts: Vec<&str> = stdout.lines().map(|l| l.get(..12).unwrap_or(l)).collect();
    assert_eq!(
        firsts,
        [
            "10.1/\\0x",
            "1/a",
            "20.1/b\\rc",
            "10.1000/aaaa",
            "10.1000/last"
        ]
    );
}

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
    let out = hdl(&["parse", "20.1000/5555/"], b"");
    assert!(text(&out.stdout).contains("  warnings       trailing-slash at byte 12"));
}

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
    assert_eq!(hdl(&["extract"], b"no identifier\n").status.code(), Some(1));
}

/// The source document's response for `4263537/4000` (PROXY §4), with a 10320/loc value
/// added as L4's example writes it.
const RECORD: &str = r#"{"responseCode":1,"handle":"4263537/4000","values":[
{"index":100,"type":"HS_ADMIN","data":{"format":"admin","value":{"handle":"0.NA/4263537","index":200,"permissions":"011111111111"}},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"},
{"index":1,"type":"URL","data":{"format":"string","value":"https://www.handle.net/index.html"},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"},
{"index":2,"type":"EMAIL","data":{"format":"string","value":"hdladmin@cnri.reston.va.us"},"ttl":86400,"timestamp":"2000-04-10T22:41:46Z"}]}"#;

const LOC: &str = r#"{"responseCode":1,"handle":"1/2","values":[
{"index":1,"type":"10320/loc","data":{"format":"string","value":"<locations><location id=\"0\" href=\"http://uk/\" country=\"gb\" weight=\"0\"/><location id=\"1\" href=\"http://one/\"/><location id=\"2\" href=\"http://two/\"/></locations>"}}]}"#;

#[test]
fn record() {
    let out = hdl(&["record"], RECORD.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("record_table", text(&out.stdout));
    let out = hdl(
        &["record", "--json", "--type", "URL", "--type", "EMAIL", "-"],
        RECORD.as_bytes(),
    );
    insta::assert_snapshot!("record_json_filtered", text(&out.stdout));
    // The URL the proxy redirects to; none when the filter leaves no URL: status 1.
    let out = hdl(&["record", "--url"], RECORD.as_bytes());
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("https://www.handle.net/index.html\n", Some(0))
    );
    let out = hdl(&["record", "--url", "--type", "EMAIL"], RECORD.as_bytes());
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("", Some(1))
    );
    // 10320/loc: L4's example.
    let url = |args: &[&str]| {
        let out = hdl(&[&["record", "--url"], args].concat(), LOC.as_bytes());
        text(&out.stdout)
    };
    assert_eq!(url(&["--locatt", "id:1"]), "http://one/\n");
    assert_eq!(url(&["--locatt", "id:0"]), "http://uk/\n");
    assert_eq!(url(&["--country", "gb"]), "http://uk/\n");
    for seed in 0..20 {
        let seed = seed.to_string();
        let chosen = url(&["--country", "us", "--seed", &seed]);
        assert!(
            chosen == "http://one/\n" || chosen == "http://two/\n",
            "{chosen}"
        );
        assert_eq!(
            url(&["--country", "us", "--seed", &seed]),
            chosen,
            "a seed repeats"
        );
    }
    // A malformed response: one line on standard error, status 2.
    let out = hdl(
        &["record"],
        br#"{"responseCode":1,"values":[{"index":"1"}]}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "hdl: standard input: values[0].index: expected an integer (SPEC R1, R2)\n"
    );
    let out = hdl(&["record", "no-such-file.json"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hdl: no-such-file.json: "),
        "{}",
        text(&out.stderr)
    );
}

/// `hdl serve` as a user runs it: records loaded into a new store at first start, a
/// redirect over HTTP, SIGTERM stops it cleanly, a restart reuses the store, `hdl serve
/// import` updates it.
#[cfg(unix)]
#[test]
fn serve_and_import() {
    /// A server the test started: killed if the test fails before it stops it.
    struct Running(std::process::Child);
    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    use std::io::{BufRead, BufReader, Read};
    use std::net::TcpStream;

    let dir = std::env::temp_dir().join(format!("hdl-serve-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("records.jsonl");
    let store = dir.join("store.redb");
    let _ = std::fs::remove_file(&store);
    std::fs::write(&records, format!("{}\n", RECORD.replace('\n', ""))).unwrap();
    let start = |extra: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
            .args([
                "serve",
                "--store",
                store.to_str().unwrap(),
                "--bind",
                "127.0.0.1:0",
            ])
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .expect("hdl serve runs");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let child = Running(child);
        let mut said = String::new();
        let addr = loop {
            let mut line = String::new();
            assert!(
                err.read_line(&mut line).unwrap() > 0,
                "hdl serve ended: {said}"
            );
            said.push_str(&line);
            if let Some(addr) = line.trim().strip_prefix("hdl serve: listening on http://") {
                break addr.to_owned();
            }
        };
        (child, err, said, addr)
    };
    let get = |addr: &str, target: &str| {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET {target} HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    };
    let stop = |mut child: Running, mut err: BufReader<std::process::ChildStderr>| {
        let killed = Command::new("kill")
            .args(["-TERM", &child.0.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        (child.0.wait().unwrap(), rest)
    };

    let (child, err, said, addr) = start(&["--records", records.to_str().unwrap(), "--quiet"]);
    assert!(said.contains("1 records imported into"), "{said}");
    let answer = get(&addr, "/4263537/4000");
    assert!(answer.starts_with("HTTP/1.1 302 Found\r\n"), "{answer}");
    assert!(
        answer.contains("location: https://www.handle.net/index.html\r\n"),
        "{answer}"
    );
    let (status, rest) = stop(child, err);
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("hdl serve: stopped"), "{rest}");

    // Restart: the store is reused, nothing reloaded; an access log line per request.
    let (child, err, said, addr) = start(&[]);
    assert!(said.contains("hdl serve: 1 records in"), "{said}");
    assert!(get(&addr, "/api/handles/4263537/4000").starts_with("HTTP/1.1 200 OK"));
    let (status, rest) = stop(child, err);
    assert_eq!(status.code(), Some(0));
    assert!(
        rest.contains("\"target\":\"/api/handles/4263537/4000\",\"status\":200"),
        "{rest}"
    );

    // Import while the server runs: a new record and a replaced one, answered at once.
    let (child, err, said, addr) = start(&["--quiet"]);
    assert!(said.contains("imports while running through"), "{said}");
    let update = dir.join("update.jsonl");
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"20.1000/new\",\"values\":[]}\n{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://moved.example/\"}}]}\n",
    )
    .unwrap();
    let import_into = |records: &std::path::Path, store: &std::path::Path| {
        hdl(
            &[
                "serve",
                "import",
                "--records",
                records.to_str().unwrap(),
                "--store",
                store.to_str().unwrap(),
            ],
            b"",
        )
    };
    let import = |records: &std::path::Path| import_into(records, &store);
    let out = import(&update);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 records into")
            && text(&out.stderr).contains("through its server (2 in all)"),
        "{}",
        text(&out.stderr)
    );
    assert!(get(&addr, "/4263537/4000").contains("location: https://moved.example/\r\n"));
    assert!(get(&addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    // A line that is no record: refused by the server with its line, status 2.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"responseCode\":1,\"values\":[]}\n").unwrap();
    let out = import(&bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.jsonl: line 1: not a record: no handle"),
        "{}",
        text(&out.stderr)
    );
    let (status, _) = stop(child, err);
    assert_eq!(status.code(), Some(0));
    // With the server stopped, into the file directly; the next start serves it.
    std::fs::write(
        &update,
        "{\"responseCode\":1,\"handle\":\"4263537/4000\",\"values\":[{\"index\":1,\"type\":\"URL\",\"data\":{\"format\":\"string\",\"value\":\"https://again.example/\"}}]}\n",
    )
    .unwrap();
    let out = import(&update);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 records into") && !text(&out.stderr).contains("through"),
        "{}",
        text(&out.stderr)
    );
    let (child, err, _, addr) = start(&["--quiet"]);
    assert!(get(&addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(child, err);
    // A crash (SIGKILL: the store left open, unclean): the next start repairs the store and
    // has lost nothing committed.
    let (mut child, _err, _, addr) = start(&["--quiet"]);
    assert!(get(&addr, "/api/handles/20.1000/new").starts_with("HTTP/1.1 200 OK"));
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let (child, err, said, addr) = start(&["--quiet"]);
    assert!(said.contains("hdl serve: 2 records in"), "{said}");
    assert!(get(&addr, "/4263537/4000").contains("location: https://again.example/\r\n"));
    stop(child, err);
    // No store at the path and no records: a clear error, status 2, and no file made.
    let empty = dir.join("empty.redb");
    let _ = std::fs::remove_file(&empty);
    let out = hdl(&["serve", "--store", empty.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("empty.redb: no store there: give --records FILE"),
        "{}",
        text(&out.stderr)
    );
    assert!(!empty.exists());
    // A store that holds no records (an import of nothing made it), without records: the
    // same, said of the store.
    let nothing = dir.join("nothing.jsonl");
    std::fs::write(&nothing, "\n").unwrap();
    let out = import_into(&nothing, &empty);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = hdl(&["serve", "--store", empty.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("holds no records"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
