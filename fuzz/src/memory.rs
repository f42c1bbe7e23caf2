//! A counting allocator: the peak of what a call allocates, so that a check can hold it to
//! a constant factor of the input. It is the global allocator of the fuzz targets (with the
//! `libfuzzer` feature) and of tests/invariants.rs, which declares it; in a program that
//! does not use it, [`bounded`] checks nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes any call may allocate besides its factor: buffers of a fixed size.
pub const SLACK: usize = 64 * 1024;

/// The counting allocator: the system's, counted.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
// SAFETY: every call goes to the system allocator unchanged; the counters only count.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grown = new_size - layout.size();
            let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[cfg(feature = "libfuzzer")]
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and checks that at its peak it allocated at most `factor` bytes per byte of an
/// input of `len` bytes, and [`SLACK`] besides. The counters are the process's: a check is
/// exact when nothing else allocates meanwhile (one thread, as the fuzzer and
/// tests/invariants.rs run it), and errs on the side of a larger peak otherwise.
#[track_caller]
pub fn bounded<T>(len: usize, factor: usize, f: impl FnOnce() -> T) -> T {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = f();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    assert!(
        peak <= factor * len + SLACK,
        "{peak} bytes allocated for {len} bytes of input"
    );
    value
}
