//! Extraction against the patterns projects use (SPEC C3): precision, recall and F1 on
//! real references (tests/corpus/references/, both parts) and on labelled texts (printed
//! first), the costliest shapes of text beside ordinary text, then
//! throughput on prose with a few identifiers per kilobyte, beside the `regex` crate running
//! Crossref's recommended pattern on the same text.
//!
//!     cargo bench --bench extract

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use handle_id::{extract, Options};
use support::contexts::{in_context, plain_corpus_dois, CONTEXTS};
use support::references::{self, CROSSREF};

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

/// Texts nobody on this project wrote: the peers' own in-text test cases
/// (tests/corpus/peers.jsonl, `doi_in_text`), labelled with what each peer's test asserts
/// (`extracted`, or `found`): a held-out set, whose labels are the peers' beliefs, not
/// SPEC's (tests/peers.rs lists where they differ and the rule that decides).
fn peers_cases() -> Vec<(String, Vec<String>)> {
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

/// The F1 tables: the real references (tests/references.rs asserts on the same), then the
/// corpus's DOIs in contexts and the peers' in-text cases.
fn accuracy() {
    let refs = references::references();
    for held_out in [false, true] {
        println!("{}", references::table(&refs, held_out).0);
    }
    table("the corpus's DOIs in contexts", &labelled());
    table("the peers' in-text cases", &peers_cases());
}

fn table(name: &str, texts: &[(String, Vec<String>)]) {
    let n: usize = texts.iter().map(|(_, d)| d.len()).sum();
    println!(
        "extraction accuracy, {name}: {} texts, {n} DOIs",
        texts.len()
    );
    println!("| approach | precision | recall | F1 |\n|---|---|---|---|");
    for (approach, find) in references::approaches() {
        let (p, r, f) = references::score(texts.iter().map(|(t, d)| (t.as_str(), &d[..])), find);
        println!("| {approach} | {p:.4} | {r:.4} | {f:.4} |");
    }
    println!();
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

/// The shapes that cost the most per byte (tests/support/shapes.rs), one line of 1 MiB each,
/// beside ordinary text of that size (the prose below): the minimum of 10 runs each, and the
/// ratio to ordinary text.
fn shapes() {
    const MIB: usize = 1 << 20;
    let options = Options::new();
    let time = |text: &str| {
        (0..10)
            .map(|_| {
                let t = std::time::Instant::now();
                black_box(extract(black_box(text), &options).count());
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let ordinary = support::shapes::repeated(&prose(), MIB);
    let base = time(&ordinary);
    println!("extraction on 1 MiB lines of the costliest shapes (minimum of 10 runs)");
    println!("| text | time | MB/s | / ordinary text |\n|---|---|---|---|");
    let row = |name: &str, t: f64| {
        println!(
            "| {name} | {:.2} ms | {:.0} | {:.2} |",
            t * 1e3,
            MIB as f64 / t / 1e6,
            t / base
        );
    };
    row("ordinary text (prose with DOIs in context)", base);
    for (name, unit) in support::shapes::SHAPES {
        row(name, time(&support::shapes::repeated(unit, MIB)));
    }
}

fn throughput(c: &mut Criterion) {
    accuracy();
    shapes();
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
