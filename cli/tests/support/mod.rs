//! What the tests of `hdl record` and `hdl serve` share: running `hdl` as a user runs it.

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
