//! What the tests of `hdl` share: running it as a user does, and inputs they have in common.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `hdl` with `args`, feeding `stdin`.
#[track_caller]
pub fn hdl(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hdl runs");
    // A command that refuses its arguments may not read its input.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("hdl writes UTF-8")
}

/// A directory of its own for a test, removed when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    /// A new empty directory named after `name` and the process.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("hdl-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lines that exercise every outcome: valid, each error kind, CRLF, a lone CR, a tab,
/// invalid UTF-8, an empty line, and a last line with no terminator.
pub const MIXED: &[u8] = b"10.1045/april2006-paskin\n\
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

/// Runs `hdl` with `args` and standard error given, feeding `stdin`: the exit status and
/// standard output.
pub fn hdl_with_stderr(args: &[&str], stdin: &[u8], stderr: Stdio, close_stderr: bool) -> Output {
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

/// A new, empty directory for one test's files.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hdl-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
