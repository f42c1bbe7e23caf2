//! Where running text puts identifiers, for the extraction tests and benchmark: contexts
//! from reference lists, HTML, Markdown, BibTeX, JSON, CSV and sentences, and the corpus
//! DOIs that can stand in any of them.

use handle_id::{clean, FixCode, HandleRef, Options, ProxyBase};
use proptest::prelude::*;

/// Where text puts an identifier; `{}` is the identifier, `{url}` its proxy URL's path.
pub const CONTEXTS: &[&str] = &[
    "{}",
    "See {} for details.",
    "See {}, then more.",
    "(see {}).",
    "[{}]",
    "doi:{}",
    "DOI: {}.",
    "https://doi.org/{url}",
    "Smith J. (2009) A title. J Chem 5:1-10. https://doi.org/{url}.",
    "<a href=\"https://doi.org/{url}\">here</a>",
    "<td>{}</td>",
    "[the paper](https://doi.org/{url})",
    "  doi = {{}},",
    "{\"DOI\": \"{}\", \"year\": 2009}",
    "\"A title\",\"{}\",2009",
    "Two: doi:{} and nothing else.",
    "\u{A0}{}\u{A0}",
];

/// Contexts of CJK text, which writes no white space around an identifier: its stops,
/// brackets and a label's colon are full-width. (Apart from `CONTEXTS`, whose mix the
/// extraction benchmarks keep.)
pub const CJK_CONTEXTS: &[&str] = &[
    "[1] \u{5F20}\u{4E09}. \u{8BBA}\u{6587}[J]. 2020, 1(2): 3-4. DOI\u{FF1A}{}\u{3002}",
    "\u{89C1}\u{FF08}{}\u{FF09}\u{548C}",
    "\u{3010}https://doi.org/{url}\u{3011}\u{FF0C}",
    "\u{300A}doi:{}\u{300B}\u{3001}",
    "\u{3010}DOI \u{FF1A} {}\u{3011}",
];

/// `d` written in `context`.
pub fn in_context(context: &str, d: &str) -> String {
    let url = ProxyBase::doi_org().url(HandleRef::parse(d).unwrap());
    context
        .replace("{url}", &url["https://doi.org/".len()..])
        .replacen("{}", d, 1)
}

/// The corpus's DOIs of C3's shape for a DOI written bare (`10.`, a registrant code of four
/// digits or more and sub-prefixes of digits, `/`, a suffix) that no context can swallow or
/// cut: cleaning leaves them as they are (but for case), and they hold no white space,
/// quote, bracket or character a URL writes encoded.
pub fn plain_corpus_dois() -> Vec<String> {
    plain_dois(4)
}

/// As [`plain_corpus_dois`], with a registrant code of `min_registrant` digits or more.
pub fn plain_dois(min_registrant: usize) -> Vec<String> {
    super::corpus_identifiers()
        .into_iter()
        .filter(|id| {
            let Ok(h) = HandleRef::parse(id) else {
                return false;
            };
            let numeric = h
                .prefix()
                .split('.')
                .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
            h.is_doi()
                && h.prefix().contains('.')
                && numeric
                && {
                    // (Or an ISBN-A's `978.` or `979.` and a segment after it: C3.)
                    let segments: Vec<&str> = h.prefix().split('.').collect();
                    segments[1].len() >= min_registrant
                        || (["978", "979"].contains(&segments[1]) && segments.len() > 2)
                }
                && !h.local_name().is_empty()
                && clean(id, &Options::new()).is_ok_and(|c| {
                    c.as_written() == &h.to_handle()
                        && c.fixes().iter().all(|f| f.code() == FixCode::CaseFolded)
                })
                && !id.contains(|c: char| c.is_whitespace() || "\"'<>{}[]()%?#\\".contains(c))
        })
        .collect()
}

/// DOIs as registries issue them (`10.` four or five digits, perhaps a sub-prefix, `/`, a
/// suffix of the characters Crossref recommends, with brackets that balance), none ending
/// in punctuation a sentence would put there.
pub fn doi() -> impl Strategy<Value = String> {
    let prefix = "10\\.[0-9]{4,5}(\\.[0-9]{1,3})?";
    let suffix = "[A-Za-z0-9][-._;:/A-Za-z0-9]{0,20}(\\([A-Za-z0-9]{1,5}\\))?[A-Za-z0-9]";
    (prefix, suffix)
        .prop_map(|(p, s)| format!("{p}/{s}"))
        // Not one holding a word text taken from PDFs glues to a DOI (`.in(`, `;url`): the
        // DOI ends before it (C3, forms.pest `glued_word_form`).
        .prop_filter("a glued word", |d| {
            !d.char_indices().any(|(i, _)| {
                handle_id::__reference::generated("glued_word_form", &d[i..]) == Some(Ok(()))
            })
        })
}

/// Where real documents put an identifier, named: reference-list styles, HTML, Markdown,
/// BibTeX, JSON, CSV, prose, several to a line. `{}` is the identifier as the corpus
/// writes it.
pub const DOCUMENTS: &[(&str, &str)] = &[
    (
        "apa",
        "Smith, J. (2009). A title. Journal, 5(2), 1\u{2013}10. {}",
    ),
    (
        "vancouver",
        "Smith J. A title. J Chem. 2009;5:1-10. doi:{}.",
    ),
    (
        "chicago",
        "Smith, John. \u{201C}A Title.\u{201D} Journal 5 (2009): 1\u{2013}10, {}.",
    ),
    ("html-href", "<li><a href=\"{}\">full text</a></li>"),
    ("html-cell", "<td class=\"id\">{}</td><td>2009</td>"),
    ("markdown", "* [A title]({}) by Smith"),
    ("bibtex", "  doi = {{}},"),
    ("json", "{\"DOI\": \"{}\", \"type\": \"journal-article\"}"),
    ("csv", "2009,\"A title\",{},journal-article"),
    ("sentence", "As shown in {}, the effect holds (n = 12)."),
    ("parenthesis", "The data (available at {}) were reused."),
    ("label-nbsp", "DOI:\u{A0}{}\u{A0}\u{A0}Received 2009"),
    ("two", "See {} and also doi:10.1000/182; both agree."),
];
