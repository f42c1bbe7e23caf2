//! What every subcommand of `hdl` does alike: colour, help, standard error and output
//! that fail, hostile input.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use support::{hdl, hdl_with_stderr, text};

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
            let status = 1;
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
    // dedupe --unique: the first line of each distinct valid handle, in order, byte for
    // byte with its terminator (a filter changes no line); the invalid ones reported.
    let out = hdl(&["dedupe", "--unique"], &input);
    assert_eq!(out.status.code(), Some(1));
    let mut expected: Vec<u8> = b"10.1/\0x\n1/a\r\n20.1/b\rc\n".to_vec();
    expected.extend_from_slice(long.as_bytes());
    expected.extend_from_slice(b"\n10.1000/last\n");
    assert!(
        out.stdout == expected,
        "{}",
        String::from_utf8_lossy(&out.stdout[..40])
    );
}

/// Several files, one missing, as `grep` takes them: the missing one is reported and the
/// rest read; every diagnostic and record names its file and its own line; exit status 2.
#[test]
fn several_files_one_missing() {
    let dir = support::scratch("several");
    let a = dir.join("a.txt");
    let b = dir.join("b.txt");
    std::fs::write(&a, "10.1000/1\n").unwrap();
    std::fs::write(&b, "10.1000/2\n10@x/y\n").unwrap();
    let missing = dir.join("missing.txt");
    let [a, b, missing] = [&a, &b, &missing].map(|p| p.to_str().unwrap().to_owned());
    let out = hdl(&["check", &a, &missing, &b], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout).lines().count(), 3, "b.txt was read");
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("hdl: {missing}: ")), "{stderr}");
    assert!(stderr.contains(&format!("{b}:2: '@' (U+0040)")), "{stderr}");
    assert!(
        stderr.ends_with("hdl check: 3 lines, 2 valid, 1 invalid; 1 file not read\n"),
        "{stderr}"
    );
    let out = hdl(&["check", "--json", &a, &missing, &b], b"");
    assert_eq!(out.status.code(), Some(2));
    let records: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let places: Vec<(&str, u64)> = records
        .iter()
        .map(|r| (r["file"].as_str().unwrap(), r["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(places, [(&*a, 1), (&*b, 1), (&*b, 2)]);
    // Under --json standard error holds only what is about no line: the missing file.
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    // One source: records carry no file, messages say `line N`.
    let out = hdl(&["check", "--json", &b], b"");
    assert!(!text(&out.stdout).contains("\"file\""));
    // `dedupe` names where a repeat was first seen, in its file.
    let out = hdl(&["dedupe", &b, &a, &b], b"");
    assert!(
        text(&out.stdout).starts_with(&format!(
            "{b}:1\tsame handle as {b}:1\t10.1000/2\t10.1000/2\n"
        )),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A line too long for a caret at its column (over `u16::MAX`) is an invalid line like
/// any other, and its message shows the part around the error, not the whole line.
#[test]
fn a_very_long_invalid_line_is_reported_not_a_crash() {
    let mut input = "1".repeat(70_000).into_bytes();
    input.extend_from_slice(b"\n10.1000/182\n");
    for command in ["check", "clean", "parse", "convert"] {
        let args: &[&str] = if command == "convert" {
            &["convert", "--to", "hdl"]
        } else {
            &[command]
        };
        let out = hdl(args, &input);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let stderr = text(&out.stderr);
        assert!(stderr.len() < 1000, "{command}: {} bytes", stderr.len());
        assert!(stderr.contains("line 1: "), "{command}: {stderr}");
        assert!(text(&out.stdout).contains("10.1000/182"), "{command}");
    }
}

/// Every index in a record is a byte offset into the line as read: errors, warnings and
/// fixes alike.
#[test]
fn indices_are_offsets_into_the_input_line() {
    let out = hdl(&["check", "--json", "--id", "hdl:20.1000/5555/"], b"");
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["warnings"][0]["code"], "trailing-slash");
    assert_eq!(record["warnings"][0]["index"], 16);
    let out = hdl(
        &["clean", "--json", "--id", "  DOI: hdl:20.1000/5555/ "],
        b"",
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["warnings"][0]["index"], 23);
    assert_eq!(&"  DOI: hdl:20.1000/5555/ "[23..24], "/");
    let out = hdl(
        &["check", "--json", "--id", "https://doi.org/10.1/a%20b%0A"],
        b"",
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["warnings"][0]["code"], "control-character");
    assert_eq!(record["warnings"][0]["index"], 26, "the '%' of %0A");
}

/// Bytes that are not UTF-8, control characters and U+FFFD are no part of an identifier
/// found in text, and offsets count the bytes as read.
#[test]
fn extract_offsets_are_into_the_bytes_as_read() {
    let out = hdl(
        &["extract", "--json"],
        b"a\xff\xfe 10.1000/182\n10.1234/x\x00y 10.1234/\xef\xbf\xbdz\n",
    );
    let records: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let found: Vec<(u64, u64, &str)> = records
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["start"].as_u64().unwrap(),
                r["handle"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, [(1, 4, "10.1000/182"), (2, 0, "10.1234/x")]);
    assert_eq!(records[0]["end"], 15);
}

/// `dedupe --unique` is a filter: lines through byte for byte, status 0; an invalid line
/// is reported and makes status 1, as in every subcommand.
#[test]
fn dedupe_unique_is_a_filter() {
    let out = hdl(&["dedupe", "--unique"], b"10.1/a\tb\n10.1/A\tb\n20.1/x\r\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, b"10.1/a\tb\n20.1/x\r\n");
    let out = hdl(&["dedupe", "--unique"], b"10.1/a\nnot one\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"10.1/a\n");
    assert!(text(&out.stderr).contains("line 2: "));
}
