//! The module's memory allocator: the system's, but a large block freed is kept, with its
//! pages, for the next large block asked for.
//!
//! A column function's result is a few large blocks (a column's bytes, its ends, its keys: a
//! million rows make blocks of 1 to 40 MB), freed when Arrow or Polars drops the result. The
//! system's allocator takes such blocks from the kernel (`mmap`) and gives them back when they
//! are freed, or keeps them in a heap whose state depends on everything the process did
//! before; so each call paid for its pages again (the kernel finds and zeroes each on its
//! first touch), more in a process that has made and freed many objects (BENCHMARKS.md).
//! pyarrow's memory pool keeps what it frees too.
//!
//! Bounded by design: at most [`KEPT_BLOCKS`] blocks and [`KEPT_BYTES`] bytes are kept; a
//! block freed beyond them goes back to the system. Small blocks are the system's, untouched.
//! It never waits: a block asked for or freed while another thread holds the list is the
//! system's, so a `fork` in the middle leaves no lock held in the child.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// The least block kept: below it, the system's allocator keeps blocks in its heap itself.
pub const LARGE: usize = 1 << 20;
/// The most bytes kept at once (a million rows' result is about 60 MB).
pub const KEPT_BYTES: usize = 256 << 20;
/// The most blocks kept at once.
pub const KEPT_BLOCKS: usize = 16;
/// Each large block's alignment (arrow-rs's buffers ask for 128 bytes on x86_64), and the
/// room before what it hands out, where the block's size is written.
const HEADER: usize = 128;

/// The allocator: the system's, with the large blocks freed kept in [`Kept`].
pub struct Keeping;

/// The blocks kept: `(address, size)`, where the block begins and its whole size, header
/// included; a size of 0 is an empty slot.
pub struct Kept {
    busy: AtomicBool,
    blocks: UnsafeCell<[(usize, usize); KEPT_BLOCKS]>,
}

// SAFETY: `blocks` is read and written only by the thread that set `busy`.
unsafe impl Sync for Kept {}

static KEPT: Kept = Kept::new();

impl Kept {
    /// No block kept.
    pub const fn new() -> Self {
        Kept {
            busy: AtomicBool::new(false),
            blocks: UnsafeCell::new([(0, 0); KEPT_BLOCKS]),
        }
    }

    /// `f` on the list, when no other thread holds it (else `None`).
    fn with<R>(&self, f: impl FnOnce(&mut [(usize, usize); KEPT_BLOCKS]) -> R) -> Option<R> {
        if self.busy.swap(true, Ordering::Acquire) {
            return None;
        }
        // SAFETY: `busy` was false and is now ours.
        let r = f(unsafe { &mut *self.blocks.get() });
        self.busy.store(false, Ordering::Release);
        Some(r)
    }

    /// The smallest block kept of `need` bytes or more, and not more than twice that, taken
    /// off the list.
    pub fn take(&self, need: usize) -> Option<(usize, usize)> {
        self.with(|blocks| {
            let slot = blocks
                .iter_mut()
                .filter(|(_, size)| *size >= need && *size / 2 <= need)
                .min_by_key(|(_, size)| *size)?;
            Some(core::mem::take(slot))
        })
        .flatten()
    }

    /// Keeps the block at `address` of `size` bytes, when there is room: whether it did.
    pub fn keep(&self, address: usize, size: usize) -> bool {
        self.with(|blocks| {
            let kept: usize = blocks.iter().map(|(_, size)| size).sum();
            if kept + size > KEPT_BYTES {
                return false;
            }
            match blocks.iter_mut().find(|(_, size)| *size == 0) {
                Some(slot) => {
                    *slot = (address, size);
                    true
                }
                None => false,
            }
        })
        .unwrap_or(false)
    }
}

impl Default for Kept {
    fn default() -> Self {
        Self::new()
    }
}

fn is_large(layout: &Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= HEADER
}

/// A block's layout from the system: `size` bytes, header included.
fn block(size: usize) -> Layout {
    // (A size that overflows this failed to be allocated before it could be freed.)
    Layout::from_size_align(size, HEADER).expect("a block's size")
}

/// A large block of `size` bytes for the caller, from `kept` or the system, zeroed when asked.
///
/// # Safety
/// As `GlobalAlloc::alloc`.
unsafe fn large(kept: &Kept, size: usize, zeroed: bool) -> *mut u8 {
    let Some(need) = size.checked_add(HEADER) else {
        return core::ptr::null_mut();
    };
    let (base, whole) = match kept.take(need) {
        Some((address, whole)) => {
            let base = address as *mut u8;
            if zeroed {
                // SAFETY: the block holds `whole` bytes from `base`.
                unsafe { base.add(HEADER).write_bytes(0, size) };
            }
            (base, whole)
        }
        None => {
            let Ok(layout) = Layout::from_size_align(need, HEADER) else {
                return core::ptr::null_mut();
            };
            // SAFETY: a layout of nonzero size.
            let base = unsafe {
                if zeroed {
                    System.alloc_zeroed(layout)
                } else {
                    System.alloc(layout)
                }
            };
            if base.is_null() {
                return base;
            }
            (base, need)
        }
    };
    // SAFETY: the block holds `whole` bytes from `base`, `HEADER` of them before the caller's,
    // and is aligned for a `usize`.
    unsafe {
        base.cast::<usize>().write(whole);
        base.add(HEADER)
    }
}

/// The whole size of the large block whose caller's part is at `ptr`.
///
/// # Safety
/// `ptr` came from [`large`].
unsafe fn whole(ptr: *mut u8) -> usize {
    // SAFETY: `large` wrote it there.
    unsafe { ptr.sub(HEADER).cast::<usize>().read() }
}

/// Gives back the large block whose caller's part is at `ptr`: kept, or the system's.
///
/// # Safety
/// `ptr` came from [`large`] and is not used again.
unsafe fn give_back(kept: &Kept, ptr: *mut u8) {
    // SAFETY: as the caller says.
    let (base, size) = unsafe { (ptr.sub(HEADER), whole(ptr)) };
    if !kept.keep(base as usize, size) {
        // SAFETY: the system allocated it with this layout.
        unsafe { System.dealloc(base, block(size)) };
    }
}

// SAFETY: every large block is the system's, allocated with `block`'s layout, its caller's
// part `HEADER` bytes in; small blocks are the system's as they are.
unsafe impl GlobalAlloc for Keeping {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            unsafe { large(&KEPT, layout.size(), false) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            unsafe { large(&KEPT, layout.size(), true) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(&layout) {
            unsafe { give_back(&KEPT, ptr) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `GlobalAlloc::realloc` asks of its caller.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (is_large(&layout), is_large(&new)) {
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            // Room enough in the block already.
            (true, true) if new_size + HEADER <= unsafe { whole(ptr) } => ptr,
            _ => {
                let moved = unsafe { self.alloc(new) };
                if !moved.is_null() {
                    unsafe {
                        moved.copy_from_nonoverlapping(ptr, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                moved
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Kept {
        /// The bytes kept now.
        fn bytes(&self) -> usize {
            self.with(|blocks| blocks.iter().map(|(_, size)| size).sum())
                .expect("the list")
        }
    }

    /// Every block `kept` holds given back to the system: how many.
    fn emptied(kept: &Kept) -> usize {
        let blocks = kept.with(core::mem::take).expect("the list");
        let blocks: Vec<_> = blocks.into_iter().filter(|&(_, size)| size > 0).collect();
        for &(address, size) in &blocks {
            unsafe { System.dealloc(address as *mut u8, block(size)) };
        }
        blocks.len()
    }

    #[test]
    fn a_block_freed_is_given_again_with_what_it_held() {
        let kept = Kept::new();
        unsafe {
            let a = large(&kept, 3 * LARGE, false);
            a.write_bytes(7, 3 * LARGE);
            give_back(&kept, a);
            assert_eq!(kept.bytes(), 3 * LARGE + HEADER);
            // The same block for a request as large or a little smaller; zeroed when asked.
            let b = large(&kept, 2 * LARGE, true);
            assert_eq!(b, a);
            assert_eq!(kept.bytes(), 0);
            assert!(core::slice::from_raw_parts(b, 2 * LARGE)
                .iter()
                .all(|&x| x == 0));
            assert_eq!(whole(b), 3 * LARGE + HEADER);
            // Not for one more than twice as small: the system's.
            give_back(&kept, b);
            let c = large(&kept, LARGE, false);
            assert_ne!(c, a);
            assert_eq!(kept.bytes(), 3 * LARGE + HEADER);
            give_back(&kept, c);
            assert_eq!(kept.bytes(), 4 * LARGE + 2 * HEADER);
            // Nor one larger.
            let d = large(&kept, 4 * LARGE, false);
            assert!(d != a && d != c);
            give_back(&kept, d);
            assert_eq!(kept.bytes(), 8 * LARGE + 3 * HEADER);
        }
        assert_eq!(emptied(&kept), 3);
    }

    #[test]
    fn what_is_kept_is_bounded() {
        let kept = Kept::new();
        let blocks: Vec<_> = (0..KEPT_BLOCKS + 4)
            .map(|_| unsafe { large(&kept, LARGE, false) })
            .collect();
        for b in blocks {
            unsafe { give_back(&kept, b) };
        }
        assert_eq!(kept.bytes(), KEPT_BLOCKS * (LARGE + HEADER));
        assert_eq!(emptied(&kept), KEPT_BLOCKS);
        // In bytes too: a block that would pass the bound is given back.
        let kept = Kept::new();
        let big = KEPT_BYTES / 2;
        let blocks: Vec<_> = (0..3)
            .map(|_| unsafe { large(&kept, big, false) })
            .collect();
        for b in blocks {
            unsafe { give_back(&kept, b) };
        }
        assert_eq!(kept.bytes(), big + HEADER);
        assert_eq!(emptied(&kept), 1);
    }

    #[test]
    fn vectors_through_the_global_allocator() {
        // Grown past the bound of a large block, shrunk below it, and freed.
        let mut v: Vec<u32> = (0..1000).collect();
        v.reserve(LARGE);
        v.extend(0..LARGE as u32);
        assert_eq!(v[999], 999);
        assert_eq!(v[1000 + 12345], 12345);
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        let zeros = vec![0u64; LARGE];
        assert!(zeros.iter().all(|&x| x == 0));
    }
}
