//! The API documentation builds without a warning (broken links, missing docs), as
//! `RUSTDOCFLAGS=-D warnings cargo doc --no-deps --all-features` would.

use std::process::Command;

#[test]
fn docs_build_without_warnings() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(env!("CARGO"))
        .args([
            "doc",
            "--quiet",
            "--no-deps",
            "--all-features",
            "-p",
            "handle-id",
            "--target-dir",
        ])
        .arg(format!("{root}/target/doc_check"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo doc reports:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
