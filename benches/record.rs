//! Reading a REST API response of 10,000 values (SPEC R1–R3): `Response::parse` beside the
//! floor it stands on (serde_json reading the same text into a `Value`), and writing it
//! back; the allocations of one read are printed first.
//!
//!     cargo bench --features json --bench record

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use handle_id::record::Response;

mod support;

#[global_allocator]
static GLOBAL: support::counting::Counting = support::counting::Counting;

/// A response of `n` values: URLs, e-mail addresses, base64 data and admin values, each
/// with a ttl and a timestamp, as the proxy writes them.
fn response(n: u32) -> String {
    let values: Vec<String> = (0..n)
        .map(|i| {
            let data = match i % 4 {
                0 => format!(r#"{{"format":"string","value":"https://example.org/objects/{i}"}}"#),
                1 => format!(r#"{{"format":"string","value":"curator{i}@example.org"}}"#),
                2 => r#"{"format":"base64","value":"aGFuZGxlIHZhbHVlIGRhdGE="}"#.to_owned(),
                _ => r#"{"format":"admin","value":{"handle":"0.NA/20.1000","index":200,"permissions":"011111111111"}}"#.to_owned(),
            };
            let t = ["URL", "EMAIL", "DATA", "HS_ADMIN"][(i % 4) as usize];
            format!(r#"{{"index":{i},"type":"{t}","data":{data},"ttl":86400,"timestamp":"2001-11-21T16:21:35Z"}}"#)
        })
        .collect();
    format!(
        r#"{{"responseCode":1,"handle":"20.1000/5555","values":[{}]}}"#,
        values.join(",")
    )
}

fn allocations(text: &str) {
    let count = |f: &dyn Fn()| {
        let (c0, b0) = support::counting::counts();
        f();
        let (c1, b1) = support::counting::counts();
        (c1 - c0, b1 - b0)
    };
    println!("reading {} bytes, 10,000 values:", text.len());
    println!("| step | allocations | bytes allocated |\n|---|---|---|");
    for (name, (calls, bytes)) in [
        (
            "serde_json::from_str::<Value> (the floor)",
            count(&|| {
                drop(black_box(
                    serde_json::from_str::<serde_json::Value>(text).unwrap(),
                ))
            }),
        ),
        (
            "Response::parse",
            count(&|| drop(black_box(Response::parse(text).unwrap()))),
        ),
    ] {
        println!("| {name} | {calls} | {bytes} |");
    }
}

fn bench(c: &mut Criterion) {
    let text = response(10_000);
    allocations(&text);
    let parsed = Response::parse(&text).unwrap();
    let mut g = c.benchmark_group("record");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("serde_json Value (floor)", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&text)).unwrap())
    });
    g.bench_function("Response::parse", |b| {
        b.iter(|| Response::parse(black_box(&text)).unwrap())
    });
    g.bench_function("Response::to_json", |b| {
        b.iter(|| black_box(&parsed).to_json())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
