//! What every subcommand of `hdl` does alike: colour, help, standard error and output
//! that fail, hostile input.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{hdl, hdl_with_stderr, text};

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
