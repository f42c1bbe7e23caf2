//! Extraction against the patterns projects use (SPEC C3): precision, recall and F1 on
//! labelled texts (printed first), then throughput on prose with a few identifiers per
//! kilobyte, beside the `regex` crate running Crossref's recommended pattern on the same text.
//!
//!     cargo bench --bench extract

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use handle_id::{extract, Options};
use support::contexts::{in_context, plain_corpus_dois, CONTEXTS};

/// Crossref's recommended pattern for modern DOIs, case-insensitive.
const CROSSREF: &str = r"(?i)10\.\d{4,9}/[-._;()/:A-Z0-9]+";
/// The pattern of the doi-regex package and many answers after it:
/// `10[.][0-9]{4,}(?:[.][0-9]+)*/(?:(?!["&'<>])\S)+`, its lookahead written as a class.
const DOI_REGEX: &str = r#"10[.][0-9]{4,}(?:[.][0-9]+)*/[^\s"&'<>]+"#;

/// Texts and the DOIs each holds: every plain corpus DOI in every context, and texts that
/// hold none but look like they might.
fn labelled() -> Vec<(String, Vec<String>)> {
    let mut texts = Vec::new();
    for d in plain_corpus_dois() {
        for context in CONTEXTS {
            texts.push((in_context(context, &d), vec![d.clone()]));
        }
    }
    let dois = plain_corpus_dois();
    for pair in dois.chunks(2).filter(|p| p.len() == 2) {
        texts.push((
            format!("Cited as doi:{} and https://doi.org/{}.", pair[0], pair[1]),
            pair.to_vec(),
        ));
    }
    for none in [
        "Version 110.1000/2 of the report, 25.3/4 of the budget.",
        "See https://example.com/a/b and 1234/567 in the appendix.",
        "The ratio was 3.10.2000/1 in 2009.",
        "Call 555-10.1234 for details.",
    ] {
        texts.push((none.to_owned(), Vec::new()));
    }
    texts
}

/// Precision, recall, F1 of `find` over the labelled texts (a match is right when it is one
/// of the text's DOIs, ignoring ASCII case, after percent-decoding).
fn score(texts: &[(String, Vec<String>)], find: impl Fn(&str) -> Vec<String>) -> (f64, f64, f64) {
    let (mut tp, mut fp, mut expected) = (0_usize, 0_usize, 0_usize);
    for (text, dois) in texts {
        expected += dois.len();
        let mut left: Vec<String> = dois.iter().map(|d| d.to_ascii_lowercase()).collect();
        for m in find(text) {
            let m = support::percent_decoded(&m)
                .unwrap_or(m)
                .to_ascii_lowercase();
            match left.iter().position(|d| *d == m) {
                Some(i) => {
                    left.swap_remove(i);
                    tp += 1;
                }
                None => fp += 1,
            }
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / expected.max(1) as f64;
    (
        precision,
        recall,
        2.0 * precision * recall / (precision + recall),
    )
}

/// Texts nobody on this project wrote: the peers' own in-text test cases
/// (tests/corpus/peers.jsonl, `doi_in_text`), labelled with what each peer's test asserts
/// (`extracted`, or `found`): a held-out set, whose labels are the peers' beliefs, not
/// SPEC's (tests/peers.rs lists where they differ and the rule that decides).
fn held_out() -> Vec<(String, Vec<String>)> {
    support::corpus("peers.jsonl")
        .into_iter()
        .filter(|row| row["kind"] == "doi_in_text")
        .filter_map(|row| {
            let v = &row["verdict"];
            let claim = match (v.get("extracted"), v.get("found")) {
                (Some(serde_json::Value::Array(a)), _) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect(),
                (_, Some(serde_json::Value::String(s))) => vec![s.clone()],
                (_, Some(serde_json::Value::Null)) => Vec::new(),
                _ => return None,
            };
            Some((support::identifier(&row).to_owned(), claim))
        })
        .collect()
}

fn accuracy() {
    table("labelled texts", &labelled());
    table("held out: the peers' in-text cases", &held_out());
}

fn table(name: &str, texts: &[(String, Vec<String>)]) {
    let options = Options::new();
    let crossref = regex::Regex::new(CROSSREF).unwrap();
    let doi_regex = regex::Regex::new(DOI_REGEX).unwrap();
    let ours = score(texts, |t| {
        extract(t, &options)
            .map(|f| f.handle().to_string())
            .collect()
    });
    let matches = |re: &regex::Regex, t: &str| -> Vec<String> {
        re.find_iter(t).map(|m| m.as_str().to_owned()).collect()
    };
    let c = score(texts, |t| matches(&crossref, t));
    let d = score(texts, |t| matches(&doi_regex, t));
    let n: usize = texts.iter().map(|(_, d)| d.len()).sum();
    println!(
        "extraction accuracy, {name}: {} texts, {n} DOIs",
        texts.len()
    );
    println!("| approach | precision | recall | F1 |\n|---|---|---|---|");
    for (name, (p, r, f)) in [
        ("handle-id `extract`", ours),
        ("Crossref's recommended regex", c),
        ("doi-regex pattern", d),
    ] {
        println!("| {name} | {p:.4} | {r:.4} | {f:.4} |");
    }
}

/// Prose with a few identifiers per kilobyte: sentences, and every so often a DOI in one
/// of the contexts.
fn prose() -> String {
    let dois = plain_corpus_dois();
    let sentence = "The results of the experiment were consistent with the earlier \
                    observations reported by the group, and the analysis follows it. ";
    let mut text = String::new();
    for (i, d) in dois.iter().cycle().take(2000).enumerate() {
        for _ in 0..3 {
            text.push_str(sentence);
        }
        text.push_str(&in_context(CONTEXTS[i % CONTEXTS.len()], d));
        text.push('\n');
    }
    text
}

/// The two on the same text, run in turns (300 each), so that a machine whose speed drifts
/// slows both alike: the minimum and median of each, and their ratio. Printed before
/// criterion's own measurements, which run one after the other.
fn paired(text: &str) {
    let options = Options::new();
    let crossref = regex::Regex::new(CROSSREF).unwrap();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..300 {
        let t = std::time::Instant::now();
        black_box(extract(black_box(text), &options).count());
        ours.push(t.elapsed());
        let t = std::time::Instant::now();
        black_box(crossref.find_iter(black_box(text)).count());
        theirs.push(t.elapsed());
    }
    ours.sort();
    theirs.sort();
    let (o, r) = ((ours[0], ours[150]), (theirs[0], theirs[150]));
    println!(
        "extraction throughput, in turns: handle-id extract min {:?} median {:?}; regex min {:?} median {:?}; extract/regex {:.2} (min) {:.2} (median)",
        o.0,
        o.1,
        r.0,
        r.1,
        o.0.as_secs_f64() / r.0.as_secs_f64(),
        o.1.as_secs_f64() / r.1.as_secs_f64()
    );
}

/// Per context: 2,000 identifiers, each after a sentence, in that context; the two run in
/// turns, 100 times each; the minimum per identifier.
fn per_context() {
    let options = Options::new();
    let crossref = regex::Regex::new(CROSSREF).unwrap();
    let dois = plain_corpus_dois();
    let sentence = "The results of the experiment were consistent with the earlier \
                    observations reported by the group, and the analysis follows it. ";
    println!("extraction per identifier, by context (minimum of 100 runs in turns)");
    println!("| context | handle-id `extract` | regex | extract / regex |\n|---|---|---|---|");
    for context in CONTEXTS {
        let mut text = String::new();
        for d in dois.iter().cycle().take(2000) {
            text.push_str(sentence);
            text.push_str(&in_context(context, d));
            text.push('\n');
        }
        let (mut ours, mut theirs) = (f64::MAX, f64::MAX);
        for _ in 0..100 {
            let t = std::time::Instant::now();
            black_box(extract(black_box(&text), &options).count());
            ours = ours.min(t.elapsed().as_secs_f64());
            let t = std::time::Instant::now();
            black_box(crossref.find_iter(black_box(&text)).count());
            theirs = theirs.min(t.elapsed().as_secs_f64());
        }
        println!(
            "| `{}` | {:.1} ns | {:.1} ns | {:.2} |",
            context.replace('\u{A0}', "NBSP"),
            ours * 1e9 / 2000.0,
            theirs * 1e9 / 2000.0,
            ours / theirs
        );
    }
}

fn throughput(c: &mut Criterion) {
    accuracy();
    per_context();
    let text = prose();
    paired(&text);
    let options = Options::new();
    let crossref = regex::Regex::new(CROSSREF).unwrap();
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("handle-id extract", |b| {
        b.iter(|| extract(black_box(&text), &options).count());
    });
    g.bench_function("regex, Crossref's pattern", |b| {
        b.iter(|| crossref.find_iter(black_box(&text)).count());
    });
    g.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
