//! DOIs in real reference lists: the labelled set of tests/corpus/references/ (references
//! from GROBID's and AnyStyle's parser training data, each with the DOIs its source
//! annotates), the patterns other projects find DOIs with, and the one scoring rule both
//! the test and the benchmark use.

use handle_id::{extract, Options};
use serde_json::Value;

/// A reference and the DOIs it holds.
pub struct Reference {
    pub source: String,
    pub held_out: bool,
    pub text: String,
    pub dois: Vec<String>,
}

/// The labelled references (tests/corpus/references/README.md says where each comes from).
pub fn references() -> Vec<Reference> {
    let path = format!(
        "{}/tests/corpus/references/references.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}"));
            let s = |k: &str| row[k].as_str().expect("a string field").to_owned();
            Reference {
                source: s("source"),
                held_out: s("part") == "held-out",
                text: s("text"),
                dois: row["dois"]
                    .as_array()
                    .expect("dois")
                    .iter()
                    .map(|d| d.as_str().expect("a DOI").to_owned())
                    .collect(),
            }
        })
        .collect()
}

/// Crossref's recommended pattern for modern DOIs, case-insensitive.
pub const CROSSREF: &str = r"(?i)10\.\d{4,9}/[-._;()/:A-Z0-9]+";

/// The pattern of the doi-regex package and many answers after it:
/// `\b10[.][0-9]{4,}(?:[.][0-9]+)*/(?:(?!["&'<>])\S)+`, its lookahead written as a class.
pub const DOI_REGEX: &str = r#"\b10[.][0-9]{4,}(?:[.][0-9]+)*/[^\s"&'<>]+"#;

/// What projects do after such a pattern: trailing `.`, `,`, `;`, `:` and closing brackets
/// without a partner in the match taken off.
pub fn trimmed(m: &str) -> &str {
    let mut m = m;
    loop {
        let before = m.len();
        m = m.trim_end_matches(['.', ',', ';', ':']);
        for (o, c) in [('(', ')'), ('[', ']'), ('{', '}')] {
            if m.ends_with(c) && m.matches(c).count() > m.matches(o).count() {
                m = &m[..m.len() - 1];
            }
        }
        if m.len() == before {
            return m;
        }
    }
}

/// What an approach finds in a text.
pub type Finder = Box<dyn Fn(&str) -> Vec<String>>;

/// The approaches compared: a name and what each finds in a text.
pub fn approaches() -> Vec<(&'static str, Finder)> {
    let options = Options::new();
    let crossref = regex::Regex::new(CROSSREF).unwrap();
    let doi_regex = regex::Regex::new(DOI_REGEX).unwrap();
    let all = |re: &regex::Regex, t: &str, trim: bool| -> Vec<String> {
        re.find_iter(t)
            .map(|m| {
                if trim {
                    trimmed(m.as_str())
                } else {
                    m.as_str()
                }
                .to_owned()
            })
            .collect()
    };
    let (c1, c2, d1, d2) = (crossref.clone(), crossref, doi_regex.clone(), doi_regex);
    vec![
        (
            "handle-id `extract`",
            Box::new(move |t: &str| {
                extract(t, &options)
                    .map(|f| f.handle().to_string())
                    .collect()
            }),
        ),
        (
            "Crossref's regex, trailing punctuation taken off",
            Box::new(move |t: &str| all(&c1, t, true)),
        ),
        (
            "Crossref's regex",
            Box::new(move |t: &str| all(&c2, t, false)),
        ),
        (
            "the doi-regex pattern, trailing punctuation taken off",
            Box::new(move |t: &str| all(&d1, t, true)),
        ),
        (
            "the doi-regex pattern",
            Box::new(move |t: &str| all(&d2, t, false)),
        ),
    ]
}

/// Precision, recall and F1 of `find` over `texts`, per text as sets (a reference that
/// holds a DOI twice, as a label and in a URL, cites it once): a DOI found is right when it
/// is one of its text's DOIs, ignoring ASCII case, after percent-decoding (a courtesy to the
/// patterns, which do not decode).
pub fn score<'t>(
    texts: impl IntoIterator<Item = (&'t str, &'t [String])>,
    find: impl Fn(&str) -> Vec<String>,
) -> (f64, f64, f64) {
    let (mut tp, mut fp, mut expected) = (0_usize, 0_usize, 0_usize);
    for (text, dois) in texts {
        let mut labels: Vec<String> = dois.iter().map(|d| d.to_ascii_lowercase()).collect();
        labels.sort();
        labels.dedup();
        expected += labels.len();
        let mut found: Vec<String> = find(text)
            .into_iter()
            .map(|m| super::percent_decoded(&m).unwrap_or(m).to_ascii_lowercase())
            .collect();
        found.sort();
        found.dedup();
        for m in found {
            if labels.contains(&m) {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / expected.max(1) as f64;
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    (precision, recall, f1)
}

/// The table of every approach on the references of one part (`held_out`), as Markdown.
pub fn table(refs: &[Reference], held_out: bool) -> (String, Vec<(&'static str, f64)>) {
    let part: Vec<&Reference> = refs.iter().filter(|r| r.held_out == held_out).collect();
    // (Each reference's DOIs once, as they are scored.)
    let dois: usize = part
        .iter()
        .map(|r| {
            let mut d: Vec<String> = r.dois.iter().map(|d| d.to_ascii_lowercase()).collect();
            d.sort();
            d.dedup();
            d.len()
        })
        .sum();
    let mut out = format!(
        "DOIs in real references, {} part: {} references, {dois} DOIs\n\
         | approach | precision | recall | F1 |\n|---|---|---|---|\n",
        if held_out { "held-out" } else { "tuning" },
        part.len()
    );
    let mut f1s = Vec::new();
    for (name, find) in approaches() {
        let (p, r, f) = score(part.iter().map(|r| (r.text.as_str(), &r.dois[..])), find);
        out.push_str(&format!("| {name} | {p:.4} | {r:.4} | {f:.4} |\n"));
        f1s.push((name, f));
    }
    (out, f1s)
}
