//! The UDP limiter's cost per request (SPEC N14): `admit` and `charge` for one source (its
//! budget hot in the cache) and for sources spread over a million networks (a table of
//! 1.5 MiB, mostly out of the cache), beside the floor of reading the clock they read.
//! A UDP answer costs the server about 5 µs of CPU (BENCHMARKS.md).
//!
//!     cargo bench -p handle-net --bench limit

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use handle_net::limit::{Admission, Limiter, RateLimits};

fn limits() -> RateLimits {
    // Budgets too large to limit: every request takes the whole path, as when admitted.
    RateLimits {
        answers_per_second: u32::MAX,
        bytes_per_second: u32::MAX,
        ..RateLimits::default()
    }
}

fn admit_and_charge(limiter: &Limiter, from: IpAddr) {
    if let Admission::Answer(budget) = limiter.admit(black_box(from)) {
        limiter.charge(budget, 300);
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("udp limiter");
    group.bench_function("floor: the clock", |b| b.iter(|| black_box(Instant::now())));
    let limiter = Limiter::new(limits(), Arc::default());
    let one = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    group.bench_function("one source", |b| b.iter(|| admit_and_charge(&limiter, one)));
    let mut n: u32 = 0;
    group.bench_function("a million networks", |b| {
        b.iter(|| {
            n = (n + 0x9E37) % 1_000_000;
            admit_and_charge(&limiter, IpAddr::V4(Ipv4Addr::from(n << 8)));
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
