//! What the tests of `hdl` share: running it as a user does, and inputs they have in common.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

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

/// Runs `hdl` with `args` and no input, and holds it to a usage error (exit status 2)
/// whose message says `says`.
#[track_caller]
pub fn refused(args: &[&str], says: &str) {
    let out = hdl(args, b"");
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains(says), "{said}");
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

/// A server the test started: killed if the test fails before it stops it.
#[cfg(unix)]
pub struct Running {
    pub child: Child,
    pub err: Option<BufReader<ChildStderr>>,
    /// What it said up to "listening on".
    pub said: String,
    pub addr: String,
}

#[cfg(unix)]
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
impl Running {
    /// `hdl serve --store STORE --bind 127.0.0.1:0 --quiet ARGS…`, once it listens.
    pub fn start(store: &Path, args: &[&str]) -> Self {
        Self::start_logged(store, &[&["--quiet"], args].concat())
    }

    /// `hdl serve --store STORE --bind 127.0.0.1:0 ARGS…` (with its access log), once it
    /// listens.
    pub fn start_logged(store: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hdl"))
            .args(["serve", "--store", store.to_str().unwrap()])
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .expect("hdl serve runs");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        let addr = loop {
            let mut line = String::new();
            assert!(
                err.read_line(&mut line).unwrap() > 0,
                "hdl serve ended: {said}"
            );
            said.push_str(&line);
            let listening = line.trim().strip_prefix("hdl serve: listening on ");
            if let Some(addr) = listening.and_then(|l| {
                l.strip_prefix("http://")
                    .or_else(|| l.strip_prefix("https://"))
            }) {
                break addr.to_owned();
            }
        };
        Self {
            child,
            err: Some(err),
            said,
            addr,
        }
    }

    /// SIGTERM, and the exit status and what it said after listening, within `limit`.
    pub fn stop_within(mut self, limit: Duration) -> (ExitStatus, String) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < limit,
                "hdl serve still runs {limit:?} after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut rest = String::new();
        self.err.take().unwrap().read_to_string(&mut rest).unwrap();
        (status, rest)
    }
}
