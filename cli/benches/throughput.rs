//! `hdl check` and `hdl convert` on a file of one million identifiers, run as a user runs
//! them (output to /dev/null): lines per second. Results: BENCHMARKS.md.

use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const LINES: usize = 1_000_000;

fn input_file() -> std::path::PathBuf {
    let path = std::env::temp_dir().join("hdl-bench-1m.txt");
    let mut text = handle_id_fuzz::inputs::realistic(LINES, 7).join("\n");
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    path
}

fn run(args: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_hdl"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "{args:?}: {status}");
}

fn throughput(c: &mut Criterion) {
    let file = input_file();
    let file = file.to_str().unwrap();
    let mut g = c.benchmark_group("cli_one_million_lines");
    g.throughput(Throughput::Elements(LINES as u64));
    g.bench_function("check --json", |b| {
        b.iter(|| run(&["check", "--json", file]))
    });
    g.bench_function("check", |b| b.iter(|| run(&["check", file])));
    g.bench_function("check --form handle --json", |b| {
        b.iter(|| run(&["check", "--form", "handle", "--json", file]))
    });
    g.bench_function("convert --to proxy", |b| {
        b.iter(|| run(&["convert", "--to", "proxy", file]))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(15)).warm_up_time(Duration::from_secs(1));
    targets = throughput
}
criterion_main!(benches);
