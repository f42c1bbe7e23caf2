//! The generator of handle-id's fast validators, run in the repository by one command,
//! `cargo run -p handle-id-codegen`, which writes the committed module `core/src/generated/`
//! (see [`generate_all`]); no user's build runs it. A test regenerates the module in memory
//! and fails when the committed one differs.
//!
//! It reads a pest grammar with `pest_meta`, compiles each named entry rule (`SOI ~ … ~ EOI`)
//! into a state machine over the bytes of a UTF-8 string, determinises and minimises it,
//! and writes Rust source: for each rule a function that walks the state machine as code (a
//! loop per state with a `match` on the byte or its class, the comparisons a hand-written
//! loop would make; a table-driven skip over runs of bytes a state stays on; states that
//! follow each other in chains, so that most moves cost no dispatch) and reports the rules
//! it enters to a sink, so that a reader finds the parts of a text in the pass that
//! validates it; and a value holding the byte classes, transitions and per-state rule
//! labels that explain a rejection. The library's `src/dfa.rs` is their runtime.
//!
//! # How the grammar is read
//!
//! - Characters: the input is a Rust `&str`, so it is valid UTF-8. Every non-ASCII character
//!   is one symbol, `NON_ASCII`: a grammar may allow all of them or none of them in a given
//!   place (a range that reaches U+10FFFF from at most U+0080, as `%x41-FF` transcribes to,
//!   allows all). A lead byte (`0xC0..=0xFF`) stands for the whole character and the
//!   continuation bytes after it leave the state unchanged; in a state no lead byte leads
//!   to, no continuation byte can come, and the generated code does not look for one (so
//!   the walkers take the bytes of a `str`, nothing else). A grammar that tells non-ASCII
//!   characters apart is refused, naming the rule.
//! - Strings, case-insensitive strings, ranges, `ANY`, the `ASCII_*` builtins, sequences,
//!   choices, `?`, `*`, `+`, `{n}`, `{n,}`, `{,n}`, `{m,n}` and references to other rules
//!   compile as their regular-language meaning. `!a ~ b`, where `a` and `b` each match one
//!   character, is the character class `b` minus `a`. Other lookaheads, the stack
//!   operations and recursion are refused, naming the rule.
//! - PEG and regular languages differ where an ordered choice or a greedy repetition would
//!   have needed backtracking. The generated validator accepts the regular language; the
//!   project's differential tests check that it is the language pest accepts.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod automaton;
mod charset;
mod emit;
mod nfa;

use std::collections::HashMap;

pub use automaton::Dfa;

/// A grammar loaded with `pest_meta`, its rules by name.
pub struct Grammar {
    rules: HashMap<String, pest_meta::ast::Rule>,
}

impl Grammar {
    /// Parses the text of a `.pest` file.
    ///
    /// # Errors
    ///
    /// pest_meta's messages when the text is not a valid grammar.
    pub fn parse(source: &str) -> Result<Self, String> {
        let pairs = pest_meta::parser::parse(pest_meta::parser::Rule::grammar_rules, source)
            .map_err(|e| e.to_string())?;
        let rules = pest_meta::parser::consume_rules(pairs).map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        Ok(Self {
            rules: rules.into_iter().map(|r| (r.name.clone(), r)).collect(),
        })
    }

    /// Compiles the entry rule `entry` into a minimal DFA.
    ///
    /// # Errors
    ///
    /// Which rule cannot be compiled, and why.
    pub fn compile(&self, entry: &str) -> Result<Dfa, String> {
        let nfa = nfa::Compiler::new(&self.rules).compile_entry(entry)?;
        Dfa::from_nfa(&nfa).map_err(|e| format!("rule `{entry}`: {e}"))
    }

    /// Compiles the rule `rule`, not an entry rule, as matching a whole input into a minimal
    /// DFA (for the character sets of [`CHAR_SETS`]).
    ///
    /// # Errors
    ///
    /// Which rule cannot be compiled, and why.
    pub fn compile_whole(&self, rule: &str) -> Result<Dfa, String> {
        let nfa = nfa::Compiler::new(&self.rules).compile_whole(rule)?;
        Dfa::from_nfa(&nfa).map_err(|e| format!("rule `{rule}`: {e}"))
    }
}

/// The grammar of the forms written in text (prefix rules, `SOI ~ prefix ~ ANY* ~ EOI`):
/// each entry rule also gets the table of the two bytes its matches may start with, which
/// extraction asks of every word (`emit::start_pairs`).
pub const FORMS: &str = "grammar/forms.pest";

/// Every grammar file of the project (relative to the repository root) and the entry rules
/// that get a generated validator.
pub const GRAMMARS: &[(&str, &[&str])] = &[
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
    (
        "grammar/proxy-url.pest",
        &["http_url", "proxy_path", "base_url"],
    ),
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
            "label_form",
            "bare_doi_form",
            "glued_doi_form",
            "doi_start_form",
            "doi_prefix_form",
            "glued_word_form",
            "identifier_end_form",
            "url_view_form",
        ],
    ),
];

/// The rules of one character whose ASCII characters the generated code holds as a bit set
/// (a `u128`, bit n for the character n), by grammar file: what the library's escape sets
/// keep, stated once in the grammar.
pub const CHAR_SETS: &[(&str, &[&str])] = &[(
    "grammar/hdl-uri.pest",
    &["u_na_segment_kept", "u_local_name_kept"],
)];

/// Where the generated code lives, relative to the repository root: the `generated`
/// module of `handle-id-core`, committed, compiled and published as it is.
pub const OUTPUT_DIR: &str = "core/src/generated";

/// The command that regenerates the code, for messages.
pub const REGENERATE: &str = "cargo run -p handle-id-codegen";

/// The file of the generated module that holds the validators of grammar `path`:
/// `grammar/hdl-uri.pest` → `hdl_uri.rs`.
#[must_use]
pub fn module_file(path: &str) -> String {
    let stem = std::path::Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(path);
    format!("{}.rs", stem.replace('-', "_"))
}

/// The whole generated module for the grammars in [`GRAMMARS`], read from the repository
/// root `root`: `(file name in OUTPUT_DIR, contents)`, `mod.rs` first.
///
/// # Errors
///
/// Which grammar cannot be read, parsed or compiled, and why.
pub fn generate_all(root: &std::path::Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    let mut rules = emit::RuleDocs::new();
    let mut module = String::from(
        "// @generated by handle-id-codegen from the files in `grammar/`. Do not edit: change\n\
         // a grammar and run `cargo run -p handle-id-codegen`.\n\n\
         //! The validators generated from the grammar files, one module per grammar (see\n\
         //! `crate::dfa` for their runtime and codegen/ for the generator). A test\n\
         //! (codegen/tests/generated.rs) fails when they are not what the grammars give.\n",
    );
    for (path, entries) in GRAMMARS {
        let source =
            std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"))?;
        let grammar = Grammar::parse(&source).map_err(|e| format!("{path}: {e}"))?;
        let file = module_file(path);
        let name = file.trim_end_matches(".rs");
        module.push_str(&format!(
            "\n/// The validators of `{path}`.\nmod {name};\npub(crate) use {name}::*;\n"
        ));
        let mut code = generate(path, &source, entries)?;
        if *path == FORMS {
            for entry in *entries {
                let dfa = grammar.compile(entry).map_err(|e| format!("{path}: {e}"))?;
                code.push_str(&emit::start_pairs(entry, &dfa));
            }
        }
        for (_, sets) in CHAR_SETS.iter().filter(|(p, _)| p == path) {
            for rule in *sets {
                let dfa = grammar
                    .compile_whole(rule)
                    .map_err(|e| format!("{path}: {e}"))?;
                code.push_str(&emit::char_set(rule, &dfa));
            }
        }
        files.push((file, code));
        let docs = rule_docs(&source);
        for rule in grammar.rules.into_keys() {
            let doc = docs.get(&rule).cloned().unwrap_or_default();
            rules
                .entry(rule)
                .or_insert_with(|| ((*path).to_owned(), doc));
        }
    }
    module.push_str(&emit::rules(&rules));
    module.push_str("\n/// Every generated validator, by entry rule.\n");
    module.push_str("pub(crate) static BY_RULE: &[(&str, &crate::dfa::Dfa)] = &[\n");
    for (_, entries) in GRAMMARS {
        for entry in *entries {
            module.push_str(&format!(
                "    ({entry:?}, &{}),\n",
                entry.to_ascii_uppercase()
            ));
        }
    }
    module.push_str("];\n");
    module.push_str(&entry_rules_macro());
    files.insert(0, ("mod.rs".to_owned(), module));
    Ok(files)
}

/// Each rule's `///` lines in a grammar's text (those right before the line that starts
/// the rule, `name = …`), without the `///`.
fn rule_docs(source: &str) -> HashMap<String, Vec<String>> {
    let mut docs = HashMap::new();
    let mut doc: Vec<String> = Vec::new();
    for line in source.lines() {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.strip_prefix(' ').unwrap_or(text).trim_end().to_owned());
            continue;
        }
        let name: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && line[name.len()..].trim_start().starts_with('=') {
            docs.insert(name, std::mem::take(&mut doc));
        } else {
            doc.clear();
        }
    }
    docs
}

/// The macro that hands [`GRAMMARS`]' entry rules to another macro, for code that derives
/// other parsers of the same files (the tests' pest parsers): the list written once.
fn entry_rules_macro() -> String {
    let mut out = String::from(
        "\n/// Calls macro `$m` with every entry rule that has a generated validator, by grammar\n\
         /// file (named by its file name, as the generated module of its validators is):\n\
         /// `$m! { handle: handle; hdl_uri: hdl_host, hdl_path, hdl_resolution; … }`.\n\
         #[doc(hidden)]\n\
         #[macro_export]\n\
         macro_rules! __entry_rules {\n    ($m:ident) => {\n        $m! {\n",
    );
    for (path, entries) in GRAMMARS {
        let file = module_file(path);
        out.push_str(&format!(
            "            {}: {};\n",
            file.trim_end_matches(".rs"),
            entries.join(", ")
        ));
    }
    out.push_str("        }\n    };\n}\n");
    out
}

/// Compiles each of `entries` in the grammar text `source` (read from `path`, which the
/// generated code names) and returns the Rust source of one `static` validator per entry,
/// named after the rule in upper case.
///
/// # Errors
///
/// The grammar's parse errors, or which rule cannot be compiled and why.
pub fn generate(path: &str, source: &str, entries: &[&str]) -> Result<String, String> {
    let grammar = Grammar::parse(source).map_err(|e| format!("{path}: {e}"))?;
    let mut out = format!(
        "// @generated by handle-id-codegen from `{path}`. Do not edit: change the grammar\n\
         // and run `{REGENERATE}`.\n\n\
         #[allow(unused_imports)]\n\
         use super::Rule;\n"
    );
    for entry in entries {
        let dfa = grammar.compile(entry).map_err(|e| format!("{path}: {e}"))?;
        out.push_str(&emit::validator(path, entry, &dfa));
        out.push_str(&emit::walker(entry, &dfa));
    }
    Ok(out)
}
