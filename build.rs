//! Generates the fast validators from the grammar files (see codegen/ and src/dfa.rs).

use std::path::Path;

/// Each grammar file and the entry rules that get a validator.
const GRAMMARS: &[(&str, &[&str])] = &[
    ("grammar/handle.pest", &["handle"]),
    (
        "grammar/hdl-uri.pest",
        &["hdl_host", "hdl_path", "hdl_resolution"],
    ),
    (
        "grammar/cordra-uri.pest",
        &["cordra_host", "cordra_path", "cordra_http"],
    ),
    ("grammar/info-uri.pest", &["info_uri"]),
    ("grammar/proxy-url.pest", &["http_url"]),
    (
        "grammar/forms.pest",
        &[
            "hdl_host_form",
            "hdl_form",
            "info_hdl_form",
            "info_doi_form",
            "doi_form",
            "urn_hdl_form",
            "urn_doi_form",
            "http_form",
            "info_other_form",
            "urn_other_form",
            "other_url_form",
        ],
    ),
];

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    let mut code = String::new();
    for (path, entries) in GRAMMARS {
        println!("cargo:rerun-if-changed={path}");
        let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        match handle_id_codegen::generate(path, &source, entries) {
            Ok(generated) => code.push_str(&generated),
            Err(e) => panic!("cannot generate the validators: {e}"),
        }
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("validators.rs"), code).expect("OUT_DIR is writable");
}
