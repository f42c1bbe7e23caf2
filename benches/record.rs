//! Reading a REST API response of 10,000 values (SPEC R1–R3): `Response::parse` beside the
//! floor it stands on (serde_json reading the same text into a `Value`), and writing it
//! back; the allocations of one read are printed first. Then a `10320/loc` value of three
//! locations read as the proxy reads it for each redirect (L5, D8: the reference's reader's
//! tree written as XML and read) beside L1's reading of the same text, which reads it once
//! as XML (its floor).
//!
//!     cargo bench --features json --bench record

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use handle_id::record::{Locations, Response};

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
    let loc = r#"<locations chooseby="locatt,country,weighted">
  <location id="0" href="https://example.org/objects/5555" weight="1" view="html" />
  <location id="1" href="https://mirror.example.net/5555?format=json&amp;v=2" weight="0.5" view="json" country="gb" />
  <location id="2" href="ftp://archive.example.com/5555.tar" weight="0" />
</locations>"#;
    let mut g = c.benchmark_group("10320/loc");
    g.throughput(Throughput::Bytes(loc.len() as u64));
    g.bench_function("Locations::parse (one XML reading, the floor)", |b| {
        b.iter(|| Locations::parse(black_box(loc)).unwrap())
    });
    g.bench_function("Locations::parse_as_proxy", |b| {
        b.iter(|| Locations::parse_as_proxy(black_box(loc)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
