//! handle-id against its peers, in one run: bare handles, URI forms, proxy URLs, and how
//! the cost scales with length. Results and the command that reproduces them: BENCHMARKS.md.

mod support;
#[path = "../tests/support/mod.rs"]
mod test_support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use handle_id::{HandleRef, HdlUri, Options};
use support::{hand_parse, hand_validate, realistic};
use test_support::corpus_identifiers as corpus;

/// The regular expression a careful user would write for H1–H3.
const HANDLE_REGEX: &str = r"(?s)^[^./@]+(\.[^./@]+)*/.*$";

fn inputs() -> Vec<String> {
    let mut v = realistic(100_000, 42);
    v.extend(corpus());
    v
}

fn total_bytes(v: &[String]) -> u64 {
    v.iter().map(|s| s.len() as u64).sum()
}

fn bare_handle(c: &mut Criterion) {
    let inputs = inputs();
    let with_scheme: Vec<String> = inputs.iter().map(|s| format!("hdl:{s}")).collect();
    let regex = regex::Regex::new(HANDLE_REGEX).unwrap();
    let mut g = c.benchmark_group("bare_handle");
    g.throughput(Throughput::Bytes(total_bytes(&inputs)));
    g.bench_function("hand-written byte loop", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|s| hand_validate(black_box(s)))
                .count()
        })
    });
    g.bench_function("handle-id validate", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|s| handle_id::validate(black_box(s)).is_ok())
                .count()
        })
    });
    g.bench_function("regex", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|s| regex.is_match(black_box(s)))
                .count()
        })
    });
    g.bench_function("fluent-uri (hdl: + handle)", |b| {
        b.iter(|| {
            with_scheme
                .iter()
                .filter(|s| fluent_uri::Uri::parse(black_box(s.as_str())).is_ok())
                .count()
        })
    });
    g.bench_function("url (hdl: + handle)", |b| {
        b.iter(|| {
            with_scheme
                .iter()
                .filter(|s| url::Url::parse(black_box(s)).is_ok())
                .count()
        })
    });
    g.bench_function("pest parser", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|s| test_support::reference::pest_handle(black_box(s)).is_ok())
                .count()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("prefix_and_local_name");
    g.throughput(Throughput::Bytes(total_bytes(&inputs)));
    g.bench_function("hand-written byte loop", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter_map(|s| hand_parse(black_box(s)))
                .map(|(p, l)| p.len() + l.len())
                .sum::<usize>()
        })
    });
    g.bench_function("handle-id HandleRef::parse", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter_map(|s| HandleRef::parse(black_box(s)).ok())
                .map(|h| h.prefix().len() + h.local_name().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

fn uri_form(c: &mut Criterion) {
    let uris: Vec<String> = inputs()
        .iter()
        .filter_map(|s| HandleRef::parse(s).ok().map(|h| h.to_hdl_uri()))
        .collect();
    let mut g = c.benchmark_group("uri_form");
    g.throughput(Throughput::Bytes(total_bytes(&uris)));
    g.bench_function("handle-id HdlUri::parse", |b| {
        b.iter(|| {
            uris.iter()
                .filter(|s| HdlUri::parse(black_box(s)).is_ok())
                .count()
        })
    });
    g.bench_function("handle-id validator alone", |b| {
        b.iter(|| {
            uris.iter()
                .filter(|s| handle_id::__reference::generated_hdl_uri(black_box(s)).is_ok())
                .count()
        })
    });
    g.bench_function("fluent-uri", |b| {
        b.iter(|| {
            uris.iter()
                .filter(|s| fluent_uri::Uri::parse(black_box(s.as_str())).is_ok())
                .count()
        })
    });
    // What a user of fluent-uri writes to get the handle: parse, then decode the path.
    g.bench_function("fluent-uri + decoding the path", |b| {
        b.iter(|| {
            uris.iter()
                .filter_map(|s| fluent_uri::Uri::parse(black_box(s.as_str())).ok())
                .filter_map(|u| u.path().decode().to_string().ok().map(|p| p.len()))
                .sum::<usize>()
        })
    });
    g.bench_function("url", |b| {
        b.iter(|| {
            uris.iter()
                .filter(|s| url::Url::parse(black_box(s)).is_ok())
                .count()
        })
    });
    g.finish();
}

fn proxy_url(c: &mut Criterion) {
    let urls: Vec<String> = inputs()
        .iter()
        .filter_map(|s| {
            HandleRef::parse(s)
                .ok()
                .map(|h| handle_id::ProxyBase::default_for(h).url(h))
        })
        .collect();
    let options = Options::new();
    let mut g = c.benchmark_group("proxy_url_decoding");
    g.throughput(Throughput::Bytes(total_bytes(&urls)));
    g.bench_function("handle-id recognize", |b| {
        b.iter(|| {
            urls.iter()
                .filter_map(|s| handle_id::recognize(black_box(s), &options).ok())
                .map(|u| u.handle().as_str().len())
                .sum::<usize>()
        })
    });
    // What a user of the url crate writes: parse, take the path, percent-decode it.
    g.bench_function("url + percent-decoding", |b| {
        b.iter(|| {
            urls.iter()
                .filter_map(|s| url::Url::parse(black_box(s)).ok())
                .filter_map(|u| {
                    let path = u.path().strip_prefix('/')?.to_owned();
                    test_support::percent_decoded(&path)
                })
                .map(|h| h.len())
                .sum::<usize>()
        })
    });
    g.finish();
}

/// What `hdl check` asks of the library per line: the written form and the handle, then
/// the warnings.
fn per_line(c: &mut Criterion) {
    let inputs = inputs();
    let options = Options::new();
    let mut g = c.benchmark_group("per_line");
    g.throughput(Throughput::Bytes(total_bytes(&inputs)));
    g.bench_function("handle-id recognize", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|s| handle_id::recognize(black_box(s), &options).is_ok())
                .count()
        })
    });
    g.bench_function("handle-id recognize + lint", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter_map(|s| handle_id::recognize(black_box(s), &options).ok())
                .map(|u| u.lint().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

/// Cost against length in the worst shapes: many prefix segments, one long segment, a long
/// local name, long runs of escapes, and failures at the first and at the last byte.
fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    for size in [100, 10_000, 100_000] {
        let shapes: Vec<(&str, String)> = vec![
            ("many segments", format!("{}1/x", "1.".repeat(size / 2))),
            ("one long segment", format!("{}/x", "a".repeat(size))),
            ("long local name", format!("10.1/{}", "a".repeat(size))),
            ("fails at byte 0", format!("@{}", "a".repeat(size))),
            ("fails at the end", format!("1.{}", "a".repeat(size))),
        ];
        for (shape, text) in &shapes {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(
                BenchmarkId::new(format!("validate/{shape}"), size),
                text,
                |b, t| b.iter(|| handle_id::validate(black_box(t)).is_ok()),
            );
            g.bench_with_input(
                BenchmarkId::new(format!("hand/{shape}"), size),
                text,
                |b, t| b.iter(|| hand_validate(black_box(t))),
            );
        }
        let escaped = format!("hdl:10.1/{}", "%41".repeat(size / 3));
        g.throughput(Throughput::Bytes(escaped.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("HdlUri::parse/escapes", size),
            &escaped,
            |b, t| b.iter(|| HdlUri::parse(black_box(t)).is_ok()),
        );
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bare_handle, uri_form, proxy_url, per_line, scaling
}
criterion_main!(benches);
