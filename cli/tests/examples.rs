//! Every example runs as written, on a fresh checkout: the README's (its `console` blocks
//! with their output, its `cargo run --release --` lines) and every `hdl <command> --help`
//! example. They run through `sh` in a scratch directory holding a copy of `data/`, with
//! the built `hdl` first on the PATH.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use support::{hdl, text};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A scratch directory with a copy of `data/`.
fn workspace(name: &str) -> PathBuf {
    let dir = support::scratch(name);
    std::fs::create_dir(dir.join("data")).unwrap();
    for entry in std::fs::read_dir(root().join("data")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("data").join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn shell(dir: &Path, line: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_hdl")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("sh");
    command
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    command
}

fn run(dir: &Path, line: &str) -> Output {
    shell(dir, line).output().expect("sh runs")
}

/// Whether `actual` is what `expected` shows: the same, or, where `expected` ends in
/// `...`, beginning with what comes before.
fn shows(expected: &str, actual: &str) -> bool {
    match expected.strip_suffix("...") {
        Some(start) => actual.starts_with(start),
        None => expected == actual,
    }
}

/// The README's `console` blocks: each `$ ` line run, its standard output then its
/// standard error compared with the lines shown under it.
#[test]
fn the_readme_console_examples_print_what_they_show() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let dir = workspace("readme-console");
    let mut ran = 0;
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("\n```").next().unwrap();
        let mut lines = block.lines().peekable();
        while let Some(line) = lines.next() {
            let command = line
                .strip_prefix("$ ")
                .expect("a block starts with a command");
            let mut shown = Vec::new();
            while let Some(next) = lines.next_if(|l| !l.starts_with("$ ")) {
                shown.push(next);
            }
            let out = run(&dir, command);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{command}: {}",
                text(&out.stderr)
            );
            let printed = format!("{}{}", text(&out.stdout), text(&out.stderr));
            let printed: Vec<&str> = printed.lines().collect();
            assert_eq!(
                printed.len(),
                shown.len(),
                "{command}:\n{}",
                printed.join("\n")
            );
            for (expected, actual) in shown.iter().zip(&printed) {
                assert!(
                    shows(expected, actual),
                    "{command}:\n  shown   {expected}\n  printed {actual}"
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 9, "{ran} examples");
    let _ = std::fs::remove_dir_all(dir);
}

/// The README's `cargo run --release -- …` lines, run as `hdl …`.
#[test]
fn the_readme_command_lines_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let dir = workspace("readme-sh");
    let mut ran = 0;
    for line in readme.lines() {
        let Some(rest) = line.strip_prefix("cargo run --release -- ") else {
            continue;
        };
        let command = format!("hdl {}", rest.split(" #").next().unwrap().trim());
        let out = run(&dir, &command);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{command}: {}",
            text(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{command}");
        ran += 1;
    }
    assert_eq!(ran, 2);
    let _ = std::fs::remove_dir_all(dir);
}

/// A server an example started, stopped with SIGTERM when the next starts or at the end.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// Starts `hdl serve …` and waits until it listens; `None` when its port is taken here.
fn serve(dir: &Path, line: &str) -> Option<Server> {
    let mut child = shell(dir, &format!("exec {line}"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = BufReader::new(child.stderr.take().unwrap());
    let server = Server(child);
    let mut said = String::new();
    for l in err.lines() {
        let l = l.unwrap();
        said.push_str(&l);
        said.push('\n');
        if l.contains("listening on") {
            return Some(server);
        }
    }
    if said.contains("in use") {
        eprintln!("skipped from `{line}` on: its port is taken on this machine: {said}");
        return None;
    }
    panic!("{line}: {said}");
}

/// The examples after `Examples:` in each subcommand's `--help`.
#[test]
fn every_help_example_runs() {
    let subcommands = [
        "check",
        "convert",
        "clean",
        "extract",
        "dedupe",
        "parse",
        "record",
        "completions",
        "serve",
        "resolve",
        "serve siteinfo",
    ];
    let curl = Command::new("curl").arg("--version").output().is_ok();
    for subcommand in subcommands {
        let words: Vec<&str> = subcommand.split(' ').chain(["--help"]).collect();
        let help = text(&hdl(&words, b"").stdout);
        let examples: Vec<&str> = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{subcommand} --help has examples"))
            .lines()
            .map(|l| l.strip_prefix("  ").expect("an example a line"))
            .collect();
        assert!(examples.len() >= 2, "{subcommand}");
        let dir = workspace(&format!("help-{}", subcommand.replace(' ', "-")));
        let mut server = None;
        for example in examples {
            if example.starts_with("hdl serve --") {
                drop(server.take());
                server = serve(&dir, example);
                if server.is_none() {
                    break;
                }
                continue;
            }
            if example.starts_with("hdl resolve") && !example.contains("--server") {
                eprintln!("skipped `{example}`: resolving from the global root needs the internet");
                continue;
            }
            if example.starts_with("curl") && !curl {
                eprintln!("skipped `{example}`: no curl here");
                continue;
            }
            let out = run(&dir, example);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{example}: {}",
                text(&out.stderr)
            );
            assert!(
                !out.stdout.is_empty() || !out.stderr.is_empty() || example.contains('>'),
                "{example} says nothing"
            );
        }
        drop(server);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Every option a `--help` shows is in the README, and the README names no option that
/// is gone.
#[test]
fn every_option_in_a_help_is_in_the_readme() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let options = |help: &str| -> Vec<String> {
        // An option's line starts with its spellings (`-i, --id <IDENTIFIER>`).
        help.lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .flat_map(|l| l.split("  ").next().unwrap_or("").split(", "))
            .filter_map(|spelling| spelling.strip_prefix("--"))
            .filter_map(|l| l.split([' ', '=', '<']).next())
            .map(|name| format!("--{name}"))
            .filter(|o| !matches!(o.as_str(), "--help" | "--version"))
            .collect()
    };
    let mut seen = vec!["--help".to_owned(), "--version".to_owned()];
    for subcommand in [
        "check", "convert", "clean", "extract", "dedupe", "parse", "record", "serve", "resolve",
        "create", "modify", "delete",
    ] {
        let help = text(&hdl(&[subcommand, "--help"], b"").stdout);
        for option in options(&help) {
            assert!(
                readme.contains(&option),
                "`hdl {subcommand} {option}` is not in the README"
            );
            seen.push(option);
        }
    }
    for nested in ["import", "siteinfo"] {
        let help = text(&hdl(&["serve", nested, "--help"], b"").stdout);
        for option in options(&help) {
            assert!(
                readme.contains(&option),
                "`hdl serve {nested} {option}` is not in the README"
            );
            seen.push(option);
        }
    }
    // Options the README names in its command section that no help shows.
    let section = readme
        .split("## The command")
        .nth(1)
        .unwrap()
        .split("## Crate features")
        .next()
        .unwrap();
    for word in section.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if word.starts_with("--") && word.as_bytes().get(2).is_some_and(u8::is_ascii_alphabetic) {
            assert!(
                seen.iter().any(|o| o == word),
                "the README names {word}, which no help shows"
            );
        }
    }
}
