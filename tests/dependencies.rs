//! What the library brings into a user's build, and into its own tests: no server (tokio,
//! hyper, redb) in the tree of `handle-id`'s tests, and the `json` feature leaves the
//! user's serde_json as it was (no `arbitrary_precision`, which changes how every crate
//! of a build reads numbers).

use std::process::Command;

fn cargo_tree(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--quiet", "--prefix", "none", "-p", "handle-id"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_library_and_its_tests_build_no_server() {
    let tree = cargo_tree(&["--all-features", "-e", "normal,dev"]);
    for server in ["tokio", "hyper", "redb"] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{server} "))),
            "{server} is in handle-id's tree"
        );
    }
}

#[test]
fn the_json_feature_leaves_serde_json_features_alone() {
    let features = cargo_tree(&["--features", "json", "-e", "features", "-i", "serde_json"]);
    assert!(
        features.contains("serde_json feature \"alloc\""),
        "{features}"
    );
    assert!(!features.contains("arbitrary_precision"), "{features}");
}
