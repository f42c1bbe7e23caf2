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
    // Every id cited in a message or a lint of the library (`SPEC H3`, `(SPEC U6, P2)` ...).
    let sources = [
        "core/src/error.rs",
        "core/src/lint.rs",
        "core/src/uri.rs",
        "core/src/base.rs",
        "core/src/query.rs",
        "core/src/parts.rs",
        "core/src/forms/mod.rs",
        "core/src/forms/hdl.rs",
        "core/src/forms/info.rs",
        "core/src/forms/textual.rs",
        "core/src/forms/proxy.rs",
        "core/src/clean.rs",
        "core/src/record/error.rs",
        "core/src/record/json.rs",
        "core/src/record/loc.rs",
    ];
    let root = env!("CARGO_MANIFEST_DIR");
    let mut cited = std::collections::BTreeSet::new();
    for path in sources {
        let text = std::fs::read_to_string(format!("{root}/{path}")).unwrap();
        for (i, _) in text.match_indices("SPEC ") {
            // The ids follow up to the end of the parenthesis, string or line.
            let ids = text[i + 5..].split([')', '"', '\n']).next().unwrap();
            let is_id = |id: &&str| {
                id.len() <= 3
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
