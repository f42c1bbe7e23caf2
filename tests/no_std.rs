//! With `default-features = false` the core builds for `no_std` + `alloc`: a `#![no_std]`
//! crate using it (tests/no_std_check) builds on its own.

use std::process::Command;

#[test]
fn builds_in_a_no_std_crate() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(format!("{root}/tests/no_std_check/Cargo.toml"))
        .arg("--target-dir")
        .arg(format!("{root}/target/no_std_check"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the no_std crate does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
