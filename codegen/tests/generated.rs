//! The committed validators (`core/src/generated/`) are what the grammar files give, and a
//! change to a grammar reaches the compiled validators through one command.

use std::path::{Path, PathBuf};
use std::process::Command;

use handle_id_codegen::{generate_all, Grammar, OUTPUT_DIR, REGENERATE};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The names of the files of `dir`.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn committed_code_is_what_the_grammars_give() {
    let root = root();
    let files = generate_all(&root).unwrap();
    let dir = root.join(OUTPUT_DIR);
    let mut stale = Vec::new();
    for (name, code) in &files {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(committed) if committed == *code => {}
            Ok(_) => stale.push(format!("{name} differs")),
            Err(_) => stale.push(format!("{name} is missing")),
        }
    }
    for name in file_names(&dir) {
        if !files.iter().any(|(f, _)| *f == name) {
            stale.push(format!("{name} comes from no grammar"));
        }
    }
    assert!(
        stale.is_empty(),
        "the committed validators in {OUTPUT_DIR}/ are not what grammar/*.pest give ({}).\n\
         Run `{REGENERATE}` and commit the result.",
        stale.join("; ")
    );
}

/// The handle grammar with '@' admitted in a naming authority segment (D1 undone).
fn handle_grammar_with_at(source: &str) -> String {
    let rule = "'\\u{30}'..'\\u{3F}' | '\\u{41}'..'\\u{10FFFF}'";
    assert!(source.contains(rule), "na_segment's ranges have moved");
    source.replace(rule, "'\\u{30}'..'\\u{10FFFF}'")
}

/// The automaton follows the grammar file it is compiled from.
#[test]
fn a_changed_rule_changes_the_automaton() {
    let source = std::fs::read_to_string(root().join("grammar/handle.pest")).unwrap();
    let before = Grammar::parse(&source).unwrap().compile("handle").unwrap();
    let after = Grammar::parse(&handle_grammar_with_at(&source))
        .unwrap()
        .compile("handle")
        .unwrap();
    assert_eq!(before.run("1@/x"), Err(1));
    assert_eq!(after.run("1@/x"), Ok(()));
    // Everything else stays as it was.
    for text in ["10.1045/x", "a..b/c", "1/@", "", "a.", ".a/b"] {
        assert_eq!(before.run(text), after.run(text), "{text:?}");
    }
}

/// A copy of `core` in `work`, standing alone, whose generated module comes from the
/// grammars in `grammar` (what `cargo run -p handle-id-codegen` writes from them), with an
/// example that prints what `validate` says of each argument; `cargo` run in it with `args`
/// (offline, its build kept in the workspace's target directory).
fn cargo_in_a_regenerated_core(work: &Path, grammar: &Path, args: &[&str]) -> std::process::Output {
    let root = root();
    let _ = std::fs::remove_dir_all(work);
    copy_dir(&root.join("core/src"), &work.join("core/src"));
    // The manifest, standing alone: no workspace to inherit from, no dev-dependencies.
    let manifest = std::fs::read_to_string(root.join("core/Cargo.toml")).unwrap();
    let manifest = manifest.split("[dev-dependencies]").next().unwrap();
    let manifest: String = manifest
        .lines()
        .filter(|line| !line.contains(".workspace = true") || line.starts_with("edition"))
        .map(|line| match line {
            l if l.starts_with("edition") => "edition = \"2021\"\nversion = \"0.0.0\"".to_owned(),
            l => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(work.join("core/Cargo.toml"), manifest + "\n[workspace]\n").unwrap();
    std::fs::copy(root.join("Cargo.lock"), work.join("core/Cargo.lock")).unwrap();
    std::fs::create_dir_all(work.join("core/examples")).unwrap();
    std::fs::write(
        work.join("core/examples/verdicts.rs"),
        "fn main() {\n    for text in std::env::args().skip(1) {\n        \
         println!(\"{text} {}\", handle_id_core::validate(&text).is_ok());\n    }\n}\n",
    )
    .unwrap();
    copy_dir(grammar, &work.join("grammar"));
    for (name, code) in generate_all(work).unwrap() {
        std::fs::write(work.join(OUTPUT_DIR).join(name), code).unwrap();
    }
    Command::new(env!("CARGO"))
        .arg("--offline")
        .args(args)
        .current_dir(work.join("core"))
        .env("CARGO_TARGET_DIR", root.join("target/grammar_follows"))
        .output()
        .expect("cargo runs")
}

/// [`cargo_in_a_regenerated_core`]: what `validate` says of each of `texts`.
fn verdicts_of_a_regenerated_core(work: &Path, grammar: &Path, texts: &[&str]) -> String {
    let args = [&["run", "--quiet", "--example", "verdicts", "--"], texts].concat();
    let output = cargo_in_a_regenerated_core(work, grammar, &args);
    assert!(
        output.status.success(),
        "the regenerated core does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `text` with every whole word `from` (a rule's name: letters, digits and `_`) made `to`.
fn rename_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out + rest
}

/// No rule name travels as a string (issue "the grammar, typed"): code names rules by the
/// generated `Rule`, so a rule renamed in a copy of the grammars, the copy regenerated,
/// fails to build at each place that used it, and builds again with the name put back.
#[test]
fn a_renamed_rule_fails_to_build_where_it_is_used() {
    let root = root();
    let work = root.join("target/grammar_follows/renamed");
    let grammar = work.join("renamed-grammar");
    copy_dir(&root.join("grammar"), &grammar);
    for file in file_names(&grammar) {
        let path = grammar.join(&file);
        let source = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, rename_word(&source, "u_na_segment", "u_na_part")).unwrap();
    }
    let check = [
        "check",
        "--quiet",
        "--all-features",
        "--message-format",
        "short",
    ];
    let output = cargo_in_a_regenerated_core(&work.join("tree"), &grammar, &check);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "it built:\n{errors}");
    // Where the library names the rule: the error's words for it, and the `hdl:` reader.
    for place in ["src/error.rs", "src/forms/hdl.rs"] {
        assert!(
            errors
                .lines()
                .any(|l| l.starts_with(place) && l.contains("UNaSegment")),
            "no error at {place}:\n{errors}"
        );
    }
    // Every error is that one: the rule's old name.
    assert!(
        errors
            .lines()
            .filter(|l| l.contains("error"))
            .all(|l| l.contains("UNaSegment") || l.starts_with("error: could not compile")),
        "{errors}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// "Change a grammar file, regenerate, and everything follows": in a copy, admitting '@' in a
/// naming authority segment and regenerating makes the compiled library accept `1@/x`.
#[test]
fn a_changed_grammar_reaches_the_compiled_validators() {
    let root = root();
    let work = root.join("target/grammar_follows/work");
    let grammar = work.join("changed-grammar");
    copy_dir(&root.join("grammar"), &grammar);
    let source = std::fs::read_to_string(grammar.join("handle.pest")).unwrap();
    std::fs::write(grammar.join("handle.pest"), handle_grammar_with_at(&source)).unwrap();
    let out = verdicts_of_a_regenerated_core(&work.join("tree"), &grammar, &["1@/x", "1/x", "1"]);
    assert_eq!(out, "1@/x true\n1/x true\n1 false\n");
}

/// The characters a writer keeps unescaped are the grammar's rules (`CHAR_SETS`): one
/// renamed in a copy of the grammars stops the generator, which names it, and one changed
/// changes the generated set.
#[test]
fn the_escape_sets_are_the_grammars_rules() {
    let root = root();
    let work = root.join("target/codegen-char-sets");
    let _ = std::fs::remove_dir_all(&work);
    copy_dir(&root.join("grammar"), &work.join("grammar"));
    let path = work.join("grammar/hdl-uri.pest");
    let source = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        source.replace("u_na_segment_kept", "u_na_segment_raw"),
    )
    .unwrap();
    let error = generate_all(&work).expect_err("the generator stops");
    assert!(
        error.contains("no rule named `u_na_segment_kept`"),
        "{error}"
    );
    // '@' kept in a local name: the generated set says so, and nothing else moves.
    std::fs::write(
        &path,
        source.replace(
            r#"u_local_name_kept = { u_na_segment_kept | "." | "/" }"#,
            r#"u_local_name_kept = { u_na_segment_kept | "." | "/" | "@" }"#,
        ),
    )
    .unwrap();
    let generated = |root: &Path| {
        let files = generate_all(root).unwrap();
        let (_, code) = files.iter().find(|(n, _)| n == "hdl_uri.rs").unwrap();
        code.lines()
            .find(|l| l.contains("U_LOCAL_NAME_KEPT: u128"))
            .unwrap()
            .to_owned()
    };
    let bits = |line: String| {
        let hex = line.rsplit("0x").next().unwrap().trim_end_matches(';');
        u128::from_str_radix(hex, 16).unwrap()
    };
    assert_eq!(bits(generated(&work)), bits(generated(&root)) | 1 << b'@');
    let _ = std::fs::remove_dir_all(&work);
}
