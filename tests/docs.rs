//! The API documentation of handle-id and of the crate it re-exports builds without a
//! warning (broken links, missing docs), as `RUSTDOCFLAGS=-D warnings cargo doc --no-deps`
//! would with every feature and with the default ones; the SPEC is in it, with every rule
//! id.

use std::process::Command;

#[test]
fn docs_build_without_warnings() {
    let root = env!("CARGO_MANIFEST_DIR");
    // With every feature (as docs.rs builds them), and with the default ones (as a user's
    // `cargo doc` does): no link may lead to an item of a feature that is off.
    for features in ["--all-features", "--features=std"] {
        let output = Command::new(env!("CARGO"))
            .args([
                "doc",
                "--quiet",
                "--no-deps",
                features,
                "-p",
                "handle-id",
                "-p",
                "handle-id-core",
                "--target-dir",
            ])
            .arg(format!("{root}/target/doc_check"))
            .env("RUSTDOCFLAGS", "-D warnings")
            .current_dir(root)
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo doc {features} reports:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn the_spec_module_holds_every_rule_id_the_messages_cite() {
    let spec = include_str!("../SPEC.md");
    // Every id cited in the sources of every crate (`SPEC H3`, `(SPEC U6, P2)` ...): messages,
    // lints, docs and comments, found by walking the tree rather than listed.
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sources = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = [
        "src",
        "core",
        "cli",
        "serve",
        "handle-macros",
        "proto",
        "net",
        "python",
    ]
    .iter()
    .map(|d| std::path::Path::new(root).join(d))
    .filter(|d| d.is_dir())
    .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push(path);
            }
        }
    }
    assert!(sources.len() > 50, "{} source files", sources.len());
    let mut cited = std::collections::BTreeSet::new();
    for path in &sources {
        let text = std::fs::read_to_string(path).unwrap();
        for (i, _) in text.match_indices("SPEC ") {
            // The ids follow up to the end of the parenthesis, string or line.
            let ids = text[i + 5..].split([')', '"', '\n']).next().unwrap();
            let is_id = |id: &&str| {
                (2..=3).contains(&id.len())
                    && id.starts_with(|c: char| c.is_ascii_uppercase())
                    && id[1..].chars().all(|c| c.is_ascii_digit())
            };
            cited.extend(ids.split([',', ' ']).filter(is_id).map(str::to_owned));
        }
    }
    assert!(cited.len() >= 10, "ids found: {cited:?}");
    for id in &cited {
        assert!(
            spec.contains(&format!("<a id=\"{}\"></a>**{id}**", id.to_lowercase())),
            "SPEC.md has no rule {id}"
        );
    }
}
