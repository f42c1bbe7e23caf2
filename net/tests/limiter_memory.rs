//! The UDP limiter's memory is fixed when it is made (N14): a million source addresses,
//! each of another network, allocate nothing more. Measured by the allocator itself.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use handle_net::limit::{Admission, Limiter, RateLimits};

/// The system's allocator, counting the bytes held by the threads that ask it to (the
/// test's: the harness's own threads allocate now and then, whatever the test does).
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count(bytes: usize, sign: isize) {
    if COUNTED.with(Cell::get) {
        HELD.fetch_add(sign * bytes as isize, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 1);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(layout.size(), -1);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_million_sources_take_no_more_memory_than_one() {
    COUNTED.with(|c| c.set(true));
    let before = HELD.load(Ordering::Relaxed);
    let limiter = Limiter::new(RateLimits::default(), Arc::default());
    let made = HELD.load(Ordering::Relaxed) - before;
    // The table, as it says, and no more than a few hundred bytes besides.
    assert!(made >= limiter.memory() as isize, "{made}");
    assert!(made < limiter.memory() as isize + 4096, "{made}");
    let mut answered = 0;
    for n in 0..1_000_000_u32 {
        // Each address of another /24, and as many IPv6 networks.
        let v4 = IpAddr::V4(Ipv4Addr::from(n << 8));
        let v6 = IpAddr::V6(Ipv6Addr::from(u128::from(n) << 72));
        for from in [v4, v6] {
            if let Admission::Answer(budget) = limiter.admit(from) {
                limiter.charge(budget, 600);
                answered += 1;
            }
        }
    }
    let after = HELD.load(Ordering::Relaxed) - before;
    assert_eq!(after, made, "the limiter allocated as it went");
    // (Two million networks share 65,536 budgets: most are answered all the same.)
    assert!(answered > 1_000_000, "{answered}");
    eprintln!(
        "{} bytes for 2,000,000 networks ({} answered)",
        limiter.memory(),
        answered
    );
}
